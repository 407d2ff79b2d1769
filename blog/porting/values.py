"""One front-matter value as biji reads it: text, dates, names, flags, old URLs, languages.

The value kinds of :mod:`.formats`' table; one that cannot be read raises :class:`RecordError`.
"""

import re
from datetime import date, datetime, time
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from blog.models import Language
from blog.porting.wording import refusal, worded
from blog.text.cjk import CJK_RE
from blog.text.date_range import PUBLICATION

LONG_YEAR = re.compile(r"^[+-]?(\d{5,})-")
MAX_POSITION = 32767  # a PositiveSmallIntegerField on every database


class RecordError(ValueError):
    """A file cannot become a note; ``line`` points at the cause when known. The message is
    worded when shown, so raised again it is passed on as ``error.args[0]``, not as text."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


def language_code(value):
    """``zh``, ``zh-CN``, ``zh_Hans``, ``Chinese`` → ``zh-hans``; ``en-US`` → ``en``; else ""."""
    value = str(value or "").strip().lower().replace("_", "-")
    if value.startswith("zh") or value in ("chinese", "中文", "cn"):
        return Language.CHINESE
    if value.startswith("en") or value == "english":
        return Language.ENGLISH
    return ""


def guess_language(title, body):
    if CJK_RE.search(title):
        return Language.CHINESE
    sample = body[:2000]
    return Language.CHINESE if len(CJK_RE.findall(sample)) > len(sample) // 20 else Language.ENGLISH


def as_datetime(value, what, years=PUBLICATION):
    """An aware datetime from YAML/TOML's datetime, date or text (naive: ``TIME_ZONE``),
    refused outside ``years``; ``what`` (its key, or "file name") names it in the reason."""
    written = value
    refused = _("%(key)s: %(value)s: %(reason)s")
    not_a_date = _("%(key)s: %(value)s is not a date")
    if isinstance(value, str):
        text = value.strip().replace("/", "-")
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            year = LONG_YEAR.match(text)
            if year and years.error(int(year[1])):  # 10000-01-01: no datetime holds it
                reason = refusal(years)
                raise RecordError(
                    worded(refused, key=what, value=repr(value), reason=reason)
                ) from None
            raise RecordError(worded(not_a_date, key=what, value=repr(value))) from None
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime.combine(value, time())
    if not isinstance(value, datetime):
        raise RecordError(worded(not_a_date, key=what, value=repr(value)))
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(settings.TIME_ZONE))
    if years.error(value):
        raise RecordError(worded(refused, key=what, value=written, reason=refusal(years)))
    return value


def as_list(value, what="a list"):
    """Names from text (comma-separated), a list (Hexo's nested categories, ``[[A, B]]``,
    are flattened) or one plain value; a mapping is not a name."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        flat = []
        for item in value:  # Hexo's nested categories: [[A, B]] is the path A > B
            flat.extend(as_list(item, what))
        return [item for item in flat if item]
    if isinstance(value, dict):
        mapping = _("%(key)s: names or a list of names, not a mapping")
        raise RecordError(worded(mapping, key=what))
    return [str(value).strip()]


# How a generator reads names written as text rather than a list: Jekyll splits at spaces
# (``tags: cuda scheduling``), Hexo takes the text as one name; Hugo's sites and folders of
# unknown origin are read as biji always has, split at commas.
SPLIT_AT = {"jekyll": "space", "hexo": "none"}


def names(value, what="a list", generator=""):
    """:func:`as_list`, with text read by ``generator``'s rule (:data:`SPLIT_AT`)."""
    rule = SPLIT_AT.get(generator, "comma")
    if isinstance(value, str) and rule == "space":
        return [part for part in re.split(r"[\s,]+", value) if part]
    if isinstance(value, str) and rule == "none":
        return [value.strip()] if value.strip() else []
    return as_list(value, what)


def as_bool(value):
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "on")
    return bool(value)


def url_path(value):
    """An old URL's path, decoded, starting with ``/``."""
    path = unquote(urlsplit(str(value).strip()).path)
    return path if path.startswith("/") else f"/{path}"


def names_beside_tags(value, line, tags=()):
    """``tags_zh``: each tag's Chinese name, by its name in ``tags`` (a mapping, as biji
    writes) or by position (a list, "" for none; text: comma-separated)."""
    if value is None or value == "":
        return []
    if isinstance(value, dict):
        if any(isinstance(v, (list, dict)) for v in value.values()):
            raise RecordError(_("tags_zh must map each tag to its Chinese name"), line)
        given = {str(k).strip(): "" if v is None else str(v).strip() for k, v in value.items()}
        return [given.get(tag, "") for tag in tags]
    if isinstance(value, str):
        return as_list(value)
    if not isinstance(value, list) or any(isinstance(v, (list, dict)) for v in value):
        raise RecordError(_("tags_zh must be a list of names, in the order of tags"), line)
    return ["" if v is None else str(v) for v in value]


def english_names(value, line, tags, tags_zh):
    """``tags_en`` (in a Chinese note whose ``tags`` are Chinese): each tag's English name by
    its name in ``tags``; the tags are then found as an English note's would be."""
    if not isinstance(value, dict) or any(isinstance(v, (list, dict)) for v in value.values()):
        raise RecordError(_("tags_en must map each tag to its English name"), line)
    given = {str(k).strip(): "" if v is None else str(v).strip() for k, v in value.items()}
    chinese = list(tags_zh) + [""] * (len(tags) - len(tags_zh))
    english = list(tags)
    for index, name in enumerate(tags):
        if given.get(name):
            english[index] = given[name]
            chinese[index] = chinese[index] or name
    return english, chinese


def as_position(value, line):
    """``series_position``: a whole number from 1 to what the database holds (32767)."""
    if isinstance(value, bool):
        value = None
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise RecordError(_("series_position must be a whole number"), line)
    if not 1 <= value <= MAX_POSITION:
        runs = _("series_position runs from 1 to %(last)d")
        raise RecordError(worded(runs, last=MAX_POSITION), line)
    return value
