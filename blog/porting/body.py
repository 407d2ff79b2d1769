"""Markdown bodies from static-site generators: their tags and shortcodes, and file links.

Tags whose meaning is plain Markdown are translated; every other ``{% %}``, ``{{< >}}`` or
``{{% %}}`` is kept as written and listed, and code is left alone. Finding them costs the text
times its unclosed tags, so a text past :data:`IN_PROCESS_WORK` is read in a child process
held to the renderer's bounds (:mod:`blog.rendering.budget`).
"""

import re
import shlex

from blog.rendering.budget import render_bounded

FENCE = r"(?P<fence>^(?P<f>`{3,}|~{3,})[^\n]*\n.*?^(?P=f)[ \t]*$)"
INLINE_CODE = r"(?P<inline>`[^`\n]+`)"
LIQUID_BLOCK = (
    r"\{%-?\s*(?P<ltag>codeblock|highlight|raw)\b(?P<largs>[^%\n]*?)\s*-?%\}[ \t]*\n?"
    r"(?P<lbody>.*?)\{%-?\s*end(?P=ltag)\s*-?%\}"
)
HUGO_HIGHLIGHT = (
    r"\{\{<\s*highlight\s+(?P<hargs>[^>\n]*?)\s*>\}\}[ \t]*\n?"
    r"(?P<hbody>.*?)\{\{<\s*/highlight\s*>\}\}"
)
LIQUID_TAG = r"(?P<liquid>\{%-?\s*(?P<stag>\w+)(?P<sargs>[^\n]*?)-?%\})"
HUGO_TAG = r"(?P<hugo>\{\{([<%])\s*(?P<hname>/?[\w./-]+)(?P<hsargs>[^\n]*?)\s*(?:>|%)\}\})"
PATTERN = re.compile(
    "|".join([FENCE, INLINE_CODE, LIQUID_BLOCK, HUGO_HIGHLIGHT, LIQUID_TAG, HUGO_TAG]),
    re.MULTILINE | re.DOTALL,
)
ATTRIBUTE = re.compile(r"""(\w+)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
MORE = re.compile(r"^[ \t]*<!--\s*more\s*-->[ \t]*$", re.MULTILINE)


def _fenced(language, code):
    return f"```{language}\n{code.rstrip(chr(10))}\n```"


def _codeblock_language(args):
    """Hexo ``codeblock [title] [lang:x]`` or Jekyll ``highlight x``: a lone word is a language."""
    words = _words(args)
    for word in words:
        if word.startswith("lang:"):
            return word[5:]
    return words[0] if len(words) == 1 or (words and "=" not in words[0]) else ""


def _words(args):
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote
        return args.split()


def _attributes(args):
    return {m[1]: m[2] or m[3] or m[4] or "" for m in ATTRIBUTE.finditer(args)}


def _image(src, alt, title=""):
    alt = re.sub(r"[\[\]]", "", alt)
    return f'![{alt}]({src} "{title}")' if title else f"![{alt}]({src})"


# Steps of the patterns above, at most, read in this process (a tenth of a second or so).
IN_PROCESS_WORK = 2_000_000
OPENERS = re.compile(r"\{%|\{\{|^(?:`{3}|~{3})", re.MULTILINE)


def _work(body):
    """An upper bound of the patterns' steps on ``body``: each tag or fence may be looked
    for its end to the end of the text, each backtick to the end of its line."""
    longest_line = max(map(len, body.split("\n")), default=0)
    return len(body) * len(OPENERS.findall(body)) + longest_line * body.count("`")


def _bounded(func, body):
    if _work(body) <= IN_PROCESS_WORK:
        return func(body)
    return render_bounded("porting.body", func, body)


def translate(body, kept):
    """``body`` with the tags above translated; ``kept(offset, text)`` is told each one kept.
    Raises :class:`~blog.rendering.RenderRefused` for a text past the bounds."""
    translated, kept_tags = _bounded(_translate, body)
    for offset, text in kept_tags:
        kept(offset, text)
    return translated


def _translate(body):
    """(``body`` translated, [(offset, text) of each tag kept]): pure, for a child process."""
    kept_tags = []

    def replace(match):
        text = match[0]
        if match["fence"] or match["inline"]:
            return text
        if match["ltag"] == "raw":
            return match["lbody"]
        if match["ltag"]:
            return _fenced(_codeblock_language(match["largs"]), match["lbody"])
        if match["hbody"] is not None:
            return _fenced(match["hargs"].split()[0] if match["hargs"] else "", match["hbody"])
        if match["stag"] in ("asset_img", "asset_image"):
            words = _words(match["sargs"])
            if words:
                return _image(words[0], " ".join(words[1:]))
        if match["hname"] == "figure":
            attrs = _attributes(match["hsargs"])
            if attrs.get("src"):
                alt = attrs.get("alt") or attrs.get("caption") or attrs.get("title", "")
                return _image(attrs["src"], alt, attrs.get("title", ""))
        kept_tags.append((match.start(), text))
        return text

    return PATTERN.sub(replace, body), kept_tags


def split_more(body):
    """The part before Hexo's ``<!-- more -->`` (the excerpt), or None if there is none.
    Raises :class:`~blog.rendering.RenderRefused` for a text past the bounds."""
    return _bounded(_split_more, body)


def _split_more(body):
    outside_code = PATTERN.sub(lambda m: " " * len(m[0]) if m["fence"] else m[0], body)
    match = MORE.search(outside_code)
    return body[: match.start()].strip() if match else None
