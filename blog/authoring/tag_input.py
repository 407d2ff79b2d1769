"""The note form's tag field: existing tags by either name, a new tag by both at once.

Tags are comma-separated (a full-width ，or 、 too); a pair ``中文名 / English name`` creates a
tag with both names or completes one. A pair in the text input, not extra fields, works without
JavaScript for any number of tags. The slash needs spaces around it (or is ／), so "I/O" stays
one name.
"""

import re
from typing import NamedTuple

from django import forms
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from taggit.forms import TagField, TagWidget
from taggit.utils import parse_tags

from blog.models import Language, Tag
from blog.text.bilingual import in_interface_language, interface_is_chinese
from blog.text.cjk import has_cjk

# A slash standing alone (spaces around it, or at either end), or a full-width slash:
# between the two names of one tag.
PAIR_SEPARATOR = re.compile(r"(?:^|\s+)/(?:\s+|$)|\s*／\s*")
# Full-width comma and the enumeration comma, as a Chinese keyboard types them.
CHINESE_COMMAS = re.compile(r"[，、]")


class TagPair(NamedTuple):
    """A tag typed with both names: ``中文名 / English name``."""

    zh: str
    en: str
    typed: str


class PairError(ValueError):
    pass


def parse_tag_input(text):
    """Names and pairs (:class:`TagPair`) from the tag field's text, split as taggit does; raises
    :class:`PairError` for a pair that cannot be read."""
    text = CHINESE_COMMAS.sub(",", text or "").strip()
    if not text:
        return []
    if "," not in text and '"' not in text and PAIR_SEPARATOR.search(text):
        items = [text]
    else:
        items = parse_tags(text)
    return [_item(item) for item in items]


def _item(text):
    parts = [part.strip() for part in PAIR_SEPARATOR.split(text)]
    if len(parts) == 1:
        return text
    if len(parts) != 2 or not all(parts):
        raise PairError(text)
    zh, en = parts
    if has_cjk(en) and not has_cjk(zh):
        zh, en = en, zh  # "Scheduling / 调度" means the same
    if has_cjk(en):
        raise PairError(text)
    if zh.casefold() == en.casefold():
        return zh  # "CUDA / CUDA": one name, the same in both languages
    return TagPair(zh, en, text)


class BilingualTagField(TagField):
    """taggit's field, reading pairs too (:func:`parse_tag_input`)."""

    def clean(self, value):
        value = forms.CharField.clean(self, value)
        try:
            return parse_tag_input(value)
        except PairError as error:
            raise forms.ValidationError(
                _(
                    "“%(typed)s”: write a new tag's two names as “Chinese name / English "
                    "name”, e.g. “调度 / Scheduling”, with a space on each side of the slash."
                )
                % {"typed": error.args[0]},
                code="tag_pair",
            ) from error


def _tag_for(pair):
    """(the tag either name of ``pair`` finds or None, the error it meets or None)."""
    by_zh, by_en = Tag.objects.find(pair.zh), Tag.objects.find(pair.en)
    if by_zh is not None and by_en is not None and by_zh.pk != by_en.pk:
        return None, _("“%(zh)s” and “%(en)s” are two different tags: type just one of them.") % {
            "zh": pair.zh,
            "en": pair.en,
        }
    tag = by_zh or by_en
    if tag is None:
        return None, None
    if tag.name_zh and tag.name_zh != pair.zh:
        return tag, _(
            "The tag “%(tag)s” is already called “%(name)s” in Chinese: rename it on the Tags "
            "page, or type just one of its names."
        ) % {"tag": pair.en, "name": tag.name_zh}
    if _english_name(tag) and tag.name.casefold() != pair.en.casefold():
        return tag, _(
            "The tag “%(tag)s” is already called “%(name)s” in English: rename it on the Tags "
            "page, or type just one of its names."
        ) % {"tag": pair.zh, "name": tag.name}
    return tag, None


def check_pairs(items):
    """The errors of the pairs among ``items`` (no writes): names taken by other tags."""
    errors = []
    for item in items:
        if isinstance(item, TagPair):
            _tag, error = _tag_for(item)
            if error:
                errors.append(error)
    return errors


def save_pairs(items):
    """``items`` with each pair made a :class:`Tag`, created with both names or given the name it
    lacked."""
    return [_save_pair(item) if isinstance(item, TagPair) else item for item in items]


def _save_pair(pair):
    tag, error = _tag_for(pair)
    if error:  # changed since the form was checked: keep the tag, change no name
        return tag or pair.zh
    if tag is None:
        try:
            with transaction.atomic():
                return Tag.objects.create(name=pair.en, name_zh=pair.zh)
        except IntegrityError:  # created by another request meanwhile
            return Tag.objects.find(pair.zh) or Tag.objects.find(pair.en) or pair.zh
    names = (tag.name, tag.name_zh)
    if not _english_name(tag):
        tag.name_zh = tag.name_zh or tag.name  # an old tag with its Chinese name as English
        tag.name = pair.en
    tag.name_zh = tag.name_zh or pair.zh
    if (tag.name, tag.name_zh) != names:
        tag.save(update_fields=["name", "name_zh"])
    return tag


def _english_name(tag):
    """The tag's English name; empty while it has none (or holds a Chinese one)."""
    return "" if has_cjk(tag.name) else tag.name


def needs_other_name(tag):
    """Typed in Chinese with no English name yet (Latin-script names read the same in both)."""
    return not _english_name(tag)


def new_tags_without_english_name(before, after):
    """After a save: the message naming the tags newly given to the note that still need an English
    name, or ""."""
    known = {tag.pk for tag in before}
    new = [tag for tag in after if tag.pk not in known]
    names = [tag.name_zh or tag.name for tag in new if needs_other_name(tag)]
    if not names:
        return ""
    separator = "、" if interface_is_chinese() else ", "
    return ngettext(
        "The tag %(tags)s has no English name yet: type it in the tags as "
        "“%(example)s / English name”, or name it on the Tags page.",
        "The tags %(tags)s have no English name yet: type each in the tags as "
        "“%(example)s / English name”, or name them on the Tags page.",
        len(names),
    ) % {"tags": separator.join(f"“{name}”" for name in names), "example": names[0]}


class BilingualTagWidget(TagWidget):
    """Tags by their names in the note's ``language`` (the admin's when unset); a tag without a name
    in it shows its other name."""

    language = None

    def format_value(self, value):
        if value is not None and not isinstance(value, str):
            names = []
            for tag in value:
                tag = getattr(tag, "tag", tag)
                if self.language is None:
                    name = in_interface_language(tag.name_zh, tag.name)
                elif self.language == Language.CHINESE:
                    name = tag.name_zh or tag.name
                else:
                    name = tag.name or tag.name_zh
                names.append(f'"{name}"' if "," in name or " " in name else name)
            value = ", ".join(sorted(names))
        return super(TagWidget, self).format_value(value)
