"""What a citation says of a note: who wrote and translated it, when and where it was published,
and for a translated article, what it translates. Built from a note by
:func:`blog.models.citation.citation_of`; every format is a function of this record alone."""

import re
from dataclasses import dataclass
from datetime import date

from blog.text.bidi import strip_explicit_bidi
from blog.text.bilingual import html_lang
from blog.text.cjk import has_cjk

# Lower-case words before a family name that belong to it: "Ludwig van Beethoven".
PARTICLES = frozenset(
    {"da", "de", "del", "der", "di", "dos", "du", "la", "le", "ten", "ter", "van", "von"}
)
# A name of more words than this is more likely an organisation's than a person's.
MOST_WORDS_IN_A_NAME = 4
_INITIAL_SEPARATORS = re.compile(r"([\s-]+)")


def clean(text) -> str:
    """One line of text: spaces collapsed, no explicit bidirectional control."""
    return " ".join(strip_explicit_bidi(str(text or "")).split())


@dataclass(frozen=True)
class Name:
    """A person as typed (``literal``), or split into ``family`` and ``given`` names where that is
    sensible: Latin names of two to four words, or written "Family, Given". Chinese, Japanese and
    Korean names, single words and anything else stay as typed."""

    literal: str = ""
    family: str = ""
    given: str = ""

    @classmethod
    def parse(cls, text) -> "Name":
        text = clean(text)
        if has_cjk(text) or any(character.isdigit() for character in text):
            return cls(literal=text)
        if text.count(",") == 1:
            family, given = (part.strip() for part in text.split(","))
            return cls(family=family, given=given) if family and given else cls(literal=text)
        words = text.split()
        if not 2 <= len(words) <= MOST_WORDS_IN_A_NAME or "," in text:
            return cls(literal=text)
        last = len(words) - 1
        while last > 1 and words[last - 1] in PARTICLES:
            last -= 1
        return cls(family=" ".join(words[last:]), given=" ".join(words[:last]))

    def __str__(self):
        return self.literal or f"{self.given} {self.family}"

    @property
    def inverted(self) -> str:
        """Family name first ("Shankhdhar, Pranjal"), as RIS and Highwire's tags write it; a name
        kept as typed, as typed."""
        return self.literal or f"{self.family}, {self.given}"

    def initials(self, dot=".") -> str:
        """The given names' initials: "J.-P. K." (``dot=""``: "J-P K", as GB/T 7714 writes them)."""
        pieces = _INITIAL_SEPARATORS.split(self.given)
        return "".join(
            piece[0] + dot if index % 2 == 0 else ("-" if "-" in piece else " ")
            for index, piece in enumerate(pieces)
            if piece
        )


def names(texts) -> tuple[Name, ...]:
    return tuple(Name.parse(text) for text in texts if clean(text))


@dataclass(frozen=True)
class Original:
    """The article a translated article translates: what its source fields say."""

    title: str = ""
    authors: tuple[Name, ...] = ()
    url: str = ""
    published: date | None = None


@dataclass(frozen=True)
class Citation:
    """A note as a reference: ``key`` its slug, ``language`` its language code (``zh-hans`` or
    ``en``), ``site`` the site's title, ``published`` the day (the site's time zone), ``url``
    its absolute address in its own language."""

    key: str
    title: str
    language: str
    url: str
    site: str
    published: date | None = None
    authors: tuple[Name, ...] = ()
    translators: tuple[Name, ...] = ()
    original: Original | None = None
    licence: str = ""
    licence_url: str = ""

    @property
    def is_chinese(self) -> bool:
        return self.language.lower().startswith("zh")

    @property
    def language_tag(self) -> str:
        """BCP 47, as HTML, CSL and RIS write it: ``zh-Hans``, ``en``."""
        return html_lang(self.language)

    @property
    def language_code(self) -> str:
        """ISO 639-1, as Highwire's ``citation_language`` wants it: ``zh``, ``en``."""
        return self.language.split("-")[0].lower()


def translation_note(citation: Citation) -> str:
    """Who translated the note and what it translates, as a sentence in the note's language:
    "Translated by Ada. Original: Title, by Author, https://…." / "Ada 译。原文：……。"
    ("" for a note that is neither translated nor a translation)."""
    translators = ", ".join(str(name) for name in citation.translators)
    original = citation.original
    source = ""
    if original is not None:
        by = ", ".join(str(name) for name in original.authors)
        if citation.is_chinese:
            source = "，".join(part for part in (original.title, by, original.url) if part)
        else:
            by = f"by {by}" if by else ""
            source = ", ".join(part for part in (original.title, by, original.url) if part)
    if citation.is_chinese:
        sentences = [
            f"{translators} 译" if translators else "",
            f"原文：{source}" if source else "",
        ]
        return "".join(f"{sentence}。" for sentence in sentences if sentence)
    sentences = [
        f"Translated by {translators}" if translators else "",
        f"Original: {source}" if source else "",
    ]
    return " ".join(f"{sentence}." for sentence in sentences if sentence)
