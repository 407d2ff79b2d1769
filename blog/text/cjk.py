"""The one definition of a CJK character, shared by text statistics, rendering, search and tags."""

import re

# Han (with extensions, compatibility ideographs, radicals, 々 and 〇), kana, hangul and
# bopomofo: what counts as one word each, is indexed character by character, and makes a
# typed tag name "Chinese".
CJK_CHARS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3040-\u30ff"
    "\u3100-\u312f\u3130-\u318f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U000323af"
)
# Han alone (ideographs, compatibility ideographs, 〇): what has a pinyin reading.
HAN_CHARS = "\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U000323af"
# CJK punctuation and full-width forms: not words, but no space is written around them.
CJK_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"

CJK_RE = re.compile(f"[{CJK_CHARS}]")


def has_cjk(text: str) -> bool:
    return CJK_RE.search(text or "") is not None
