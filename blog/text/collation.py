"""Words in the order of a printed index (索引): English by its letters, Chinese by pinyin in
context, letters before tones. :func:`index_initial` is the letter a name is filed under, or
"#"."""

import re
import unicodedata

OTHER_INITIAL = "#"
_WORD = re.compile(r"[^\W_]+")
_SYLLABLE = re.compile(r"([a-zü]+)([1-5])")


def _words(text):
    """(word, tone) pairs: a Han character's toneless pinyin and its tone (1-5), other words
    lowercased with tone 0."""
    # Imported here: pypinyin's dictionaries take 0.3 s to load (see blog.text.slugs).
    from pypinyin import Style, lazy_pinyin

    text = unicodedata.normalize("NFKC", text or "")
    chunks = lazy_pinyin(text, style=Style.TONE3, neutral_tone_with_five=True, v_to_u=True)
    words = []
    for chunk in chunks:
        for word in _WORD.findall(chunk.casefold()):
            syllable = _SYLLABLE.fullmatch(word)
            words.append((syllable[1], int(syllable[2])) if syllable else (word, 0))
    return words


def index_key(text):
    """A key sorting ``text`` (a name in either language) as an index does."""
    words = _words(text)
    return (
        tuple(word for word, _tone in words),
        tuple(tone for _word, tone in words),
        unicodedata.normalize("NFKC", text or "").casefold(),
    )


def index_initial(text):
    """The letter ``text`` is filed under: its first word's, or :data:`OTHER_INITIAL`."""
    words = _words(text)
    first = words[0][0][:1].upper() if words else ""
    first = "U" if first == "Ü" else first
    return first if "A" <= first <= "Z" else OTHER_INITIAL
