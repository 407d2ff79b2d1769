"""Names kept in both languages, shown in the reader's interface language."""

from django.conf import settings
from django.utils import translation
from django.utils.translation import get_language, pgettext, to_locale


def interface_is_chinese() -> bool:
    return (get_language() or "zh-hans").lower().startswith("zh")


def html_lang(code) -> str:
    """A language code as HTML's ``lang`` wants it: ``zh-hans`` → ``zh-Hans``, ``en`` → ``en``."""
    return to_locale(code or settings.LANGUAGE_CODE).replace("_", "-")


def contents_title(language) -> str:
    """The title of a table of contents, in ``language`` (a note's, not the reader's)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        return pgettext("table of contents", "Contents")


def in_interface_language(zh: str, en: str) -> str:
    """The text for the current interface, falling back to the other language's."""
    return (zh or en) if interface_is_chinese() else (en or zh)


class BilingualNameMixin:
    """Shows ``name_zh``/``name_en`` in the reader's interface language, the other beside it;
    :meth:`bilingual_names` names the fields."""

    def bilingual_names(self) -> tuple[str, str]:
        """(Chinese name, English name)."""
        raise NotImplementedError

    @property
    def display_name(self):
        return in_interface_language(*self.bilingual_names())

    @property
    def other_name(self):
        """The name in the other language, or "" when it would repeat the display name."""
        zh, en = self.bilingual_names()
        other = (en if interface_is_chinese() else zh) or ""
        return "" if other == self.display_name else other

    @property
    def both_names(self):
        return " / ".join(name for name in (self.display_name, self.other_name) if name)
