"""The WordPress shortcodes whose meaning is plain Markdown: code and captions.

Read as WordPress reads them (``get_shortcode_regex``, ``shortcode_parse_atts``): names match
exactly, an enclosing shortcode ends at the first closing tag of its name, and ``[[…]]`` is a
shortcode written as text. Code becomes fenced code, captions a ``<figure>``; other
shortcodes are left to the caller.
"""

import bisect
import re
import uuid
from dataclasses import dataclass
from html.entities import html5

# SyntaxHighlighter Evolved's language aliases (its ``syntaxhighlighter_brushes`` list) → the
# language a Markdown fence names (one Pygments knows; "" is plain text).
LANGUAGES = {
    "as3": "as3", "actionscript3": "as3", "arduino": "arduino", "bash": "bash",
    "shell": "bash", "coldfusion": "cfm", "cf": "cfm", "clojure": "clojure", "clj": "clojure",
    "cpp": "cpp", "c": "c", "c-sharp": "csharp", "csharp": "csharp", "css": "css",
    "delphi": "delphi", "pas": "delphi", "pascal": "delphi", "diff": "diff", "patch": "diff",
    "erl": "erlang", "erlang": "erlang", "fsharp": "fsharp", "go": "go", "golang": "go",
    "groovy": "groovy", "haskell": "haskell", "java": "java", "jfx": "javafx",
    "javafx": "javafx", "js": "javascript", "jscript": "javascript",
    "javascript": "javascript", "latex": "latex", "tex": "latex", "matlab": "matlab",
    "matlabkey": "matlab", "objc": "objective-c", "obj-c": "objective-c", "perl": "perl",
    "pl": "perl", "php": "php", "plain": "", "text": "", "ps": "powershell",
    "powershell": "powershell", "py": "python", "python": "python", "r": "r", "splus": "r",
    "rails": "ruby", "rb": "ruby", "ror": "ruby", "ruby": "ruby", "ts": "typescript",
    "typescript": "typescript", "scala": "scala", "sql": "sql", "swift": "swift",
    "vb": "vbnet", "vbnet": "vbnet", "xml": "xml", "xhtml": "xml", "xslt": "xml",
    "html": "html", "yaml": "yaml", "yml": "yaml",
}  # fmt: skip
MARKUP = {"xml", "html"}  # in these, a raw <p> is code, not the editor's paragraph
CODE_NAMES = ("sourcecode", "source", "code", *sorted(set(LANGUAGES) - {"latex", "r"}))
CAPTION_NAMES = ("caption", "wp_caption")


@dataclass(frozen=True)
class Shortcode:
    """An enclosing shortcode found in the text: ``[name attrs]content[/name]``; ``escape``
    and ``close`` are the "[" and "]" of WordPress's ``[[…]]``, when written."""

    start: int
    end: int
    escape: str
    name: str
    attrs: str
    content: str
    close: str

    @property
    def escaped(self):
        return bool(self.escape and self.close)


def _tags(names):
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.compile(
        r"\[(?:(?P<escape>\[?)(?P<name>" + alternatives + r")(?![\w-])(?P<attrs>[^\[\]]{0,1000})\]"
        r"|/(?P<closing>" + alternatives + r")\](?P<close>\]?))"
    )


def enclosing(html, tags):
    """The enclosing shortcodes ``tags`` (:func:`_tags`) finds in ``html``, in order: an opening
    tag with the next closing tag of its name, found by bisection, so unclosed tags cost little."""
    found = list(tags.finditer(html))
    closings = {}
    for index, match in enumerate(found):
        if match["closing"]:
            closings.setdefault(match["closing"], []).append(index)
    shortcodes, index = [], 0
    while index < len(found):
        opening = found[index]
        index += 1
        if not opening["name"] or opening["attrs"].rstrip().endswith("/"):
            continue
        after = closings.get(opening["name"], [])
        position = bisect.bisect_left(after, index)
        if position == len(after):
            continue
        closing = found[after[position]]
        shortcodes.append(
            Shortcode(
                start=opening.start(),
                end=closing.end(),
                escape=opening["escape"],
                name=opening["name"],
                attrs=opening["attrs"],
                content=html[opening.end() : closing.start()],
                close=closing["close"],
            )
        )
        index = after[position] + 1
    return shortcodes


def _substitute(html, tags, replace):
    pieces, at = [], 0
    for shortcode in enclosing(html, tags):
        pieces += [html[at : shortcode.start], replace(shortcode)]
        at = shortcode.end
    return "".join(pieces) + html[at:]


PLACEHOLDER = re.compile(r"BIJIWPCODE[0-9a-f]{32}N[0-9]+X")
CODE = _tags(CODE_NAMES)
CAPTION = _tags(CAPTION_NAMES)
# shortcode_parse_atts: name="v", name='v', name=v, "v", 'v', v
ATTRIBUTE = re.compile(
    r"""([\w-]+)\s*=\s*"([^"]*)"(?:\s|$)|([\w-]+)\s*=\s*'([^']*)'(?:\s|$)"""
    r"""|([\w-]+)\s*=\s*([^\s'"]+)(?:\s|$)|"([^"]*)"(?:\s|$)|'([^']*)'(?:\s|$)|(\S+)(?:\s|$)"""
)
# wpautop's marks inside code: a <br /> ending a line, paragraphs around and between lines.
LINE_BREAK = re.compile(r"<br\s*/?>[ \t]*\n?", re.IGNORECASE)
PARAGRAPH_BREAK = re.compile(r"</p>\s*<p>", re.IGNORECASE)
PARAGRAPH_EDGE = re.compile(r"^\s*<p>|</p>\s*$", re.IGNORECASE)
EDITOR_MARKS = re.compile(r"</?p>|<br\s*/?>", re.IGNORECASE)
ENTITY = re.compile(r"&(#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")
IMAGE = re.compile(r"((?:<a [^>]+>\s*)?<img [^>]+>(?:\s*</a>)?)(.*)", re.IGNORECASE | re.DOTALL)


def attributes(text):
    """A shortcode's attributes as WordPress parses them: names lowercased; values without
    a name (``[code="php"]``'s ``="php"``, ``[code php]``) by position, as ``0``, ``1``…"""
    text = re.sub("[\u00a0\u200b]+", " ", text)
    found, position = {}, 0
    for match in ATTRIBUTE.finditer(text):
        if match[1]:
            found[match[1].lower()] = match[2]
        elif match[3]:
            found[match[3].lower()] = match[4]
        elif match[5]:
            found[match[5].lower()] = match[6]
        else:
            value = next((v for v in (match[7], match[8], match[9]) if v is not None), "")
            found[position] = value
            position += 1
    return found


def _positional(value):
    """SyntaxHighlighter's fix for ``[code="php"]``: the ``="php"`` read as a bare value."""
    if quoted := re.search(r"""=(["'])(.*?)\1""", value):
        return quoted[2]
    return value[1:] if value.startswith("=") else value


def _decode(text):
    """HTML entities written with their semicolon, as PHP's decoding reads them: ``&lt;`` and
    ``&#91;`` are decoded, ``&regs`` in C code is not a misspelt ``&reg;``."""

    def entity(match):
        body = match[1]
        if body.startswith("#"):
            number = int(body[2:-1], 16) if body[1] in "xX" else int(body[1:-1])
            return chr(number) if 0 < number <= 0x10FFFF else match[0]
        return html5.get(body, match[0])

    return ENTITY.sub(entity, text)


def code_text(code, language=""):
    """The code as the reader saw it: code the editor stored encoded (``&lt;``, wpautop's
    ``<br />`` and ``<p>``) is decoded and its marks undone; code holding any other raw ``<``
    or ``>``, or ``<p>`` without any entity, was stored as written and is kept so."""
    code = code.replace("\r\n", "\n")
    marks_only = not re.search(r"[<>]", EDITOR_MARKS.sub("", code))
    encoded = bool(re.search(r"&(?:lt|gt|amp|quot|#0*3[89]|#0*6[02]);", code))
    if marks_only and (language not in MARKUP or encoded or not EDITOR_MARKS.search(code)):
        code = PARAGRAPH_BREAK.sub("\n\n", code)
        code = PARAGRAPH_EDGE.sub("", code)
        code = LINE_BREAK.sub("\n", code)
        code = _decode(code)
    return code.strip("\n")


def fenced(language, code):
    """A fence longer than any run of backticks in ``code``, so the code cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code}\n{fence}"


def _code_language(name, attrs):
    """The fence's language: the alias's, else a name SyntaxHighlighter does not know as
    given (a site's own brush, ``[code lang="cuda"]``: Pygments may know it), else none."""
    if name in LANGUAGES:  # [cpp]…[/cpp]
        return LANGUAGES[name]
    given = attrs.get("language") or attrs.get("lang") or attrs.get("type")
    if not given and 0 in attrs:
        given = _positional(attrs[0])
    given = (given or "text").strip().lower()
    return LANGUAGES.get(given, given if re.fullmatch(r"[\w+#.-]{1,40}", given) else "")


def take_code(html):
    """``html`` with each code shortcode replaced by a placeholder paragraph, and
    {placeholder: fenced code} for :func:`put_back`, so that no conversion touches the code."""
    blocks = {}
    stem = f"BIJIWPCODE{uuid.uuid4().hex}N"

    def replace(shortcode):
        if shortcode.escaped:
            return as_text(html, shortcode)
        language = _code_language(shortcode.name, attributes(shortcode.attrs))
        placeholder = f"{stem}{len(blocks)}X"
        blocks[placeholder] = fenced(language, code_text(shortcode.content, language))
        return f"{shortcode.escape}\n\n{placeholder}\n\n{shortcode.close}"

    return _substitute(html, CODE, replace), blocks


def as_text(html, shortcode):
    """``[[code]…[/code]]``: the shortcode as text, one pair of brackets removed, its first
    bracket written ``&#91;`` so that it is not taken for a shortcode again (nor listed)."""
    return "&#91;" + html[shortcode.start + 2 : shortcode.end - 1]


def put_back(markdown, blocks):
    """The fenced code back in place of its placeholders (one pass, however many)."""
    return PLACEHOLDER.sub(lambda match: blocks.get(match[0], match[0]), markdown)


def captions(html):
    """``html`` with each ``[caption]`` as a ``<figure>`` and ``<figcaption>`` block on one line
    (before WordPress's paragraphs are found); without a caption, the image alone."""

    def replace(shortcode):
        if shortcode.escaped:
            return as_text(html, shortcode)
        attrs = attributes(shortcode.attrs)
        content = shortcode.content.strip()
        caption = attrs.get("caption")
        if caption is None and (found := IMAGE.match(content)):
            content, caption = found[1], found[2].strip()
        if not caption:
            return f"{shortcode.escape}{content}{shortcode.close}"
        figure = f"<figure>{content}<figcaption>{caption}</figcaption></figure>"
        figure = re.sub(r"\s*\n\s*", " ", figure)
        return f"{shortcode.escape}\n\n{figure}\n\n{shortcode.close}"

    return _substitute(html, CAPTION, replace)
