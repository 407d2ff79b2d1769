"""How a formula reads as text: :func:`with_text_marks` adds ``<semantics>`` pairs that show an
empty row to MathML renderers and a linear form to text converters (``x^2``, ``∑_(i=1)^n``,
``(a+b)/(2n)``), which would otherwise run a formula's tokens together."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape, unescape

TEXT_ENCODING = "text/plain"
_MARK_OPEN = f'<semantics><mrow></mrow><annotation encoding="{TEXT_ENCODING}">'
_MARK_CLOSE = "</annotation></semantics>"

_MATH_RE = re.compile(r"<math\b.*?</math>", re.DOTALL)
_TAG_RE = re.compile(r"""<(/?)([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""")

_TOKENS = {"mi", "mn", "mo", "mtext", "ms"}
_LABEL_TOKENS = {"mi", "mn", "mtext"}  # what a subscript label is made of
_ROWS = {"math", "mrow", "mstyle", "mpadded", "mphantom", "menclose", "merror", "mtd"}
_OPAQUE = {"annotation", "annotation-xml"}
# The text-reader mark that goes before each script.
_SCRIPT_SIGNS = {
    "msub": ("_",),
    "msup": ("^",),
    "msubsup": ("_", "^"),
    "munder": ("_",),
    "mover": ("^",),
    "munderover": ("_", "^"),
}
_OPENERS, _CLOSERS = "([{⟨⌊⌈", ")]}⟩⌋⌉"
_ZERO_RE = re.compile(r"\s*(?=\.?0)0*\.?0*[a-z%]*\s*$")  # "0", "0px", ".0em": no bar
_RELATIONS = set("=≠<>≤≥≦≧≪≫≈≃≅≡≢∼∝∈∉∋⊂⊃⊆⊇→←↔⇒⇐⇔↦≔") | {":=", "≐", "⊢", "⊨"}


@dataclass(eq=False)
class _Element:
    tag: str
    start: str  # the start tag as written
    attrs: str
    children: list = field(default_factory=list)  # _Element, or str (text as written)
    end: str = ""

    def elements(self) -> list[_Element]:
        return [child for child in self.children if isinstance(child, _Element)]

    def source(self) -> str:
        return self.start + "".join(_source(child) for child in self.children) + self.end

    def attr(self, name: str) -> str | None:
        match = re.search(rf"""\b{name}\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", self.attrs)
        return unescape(next(g for g in match.groups() if g is not None)) if match else None


def _source(node) -> str:
    return node if isinstance(node, str) else node.source()


def _parse(math_html: str) -> _Element | None:
    """The tree of one ``<math>`` element, or None if it is not well-formed."""
    root = _Element("", "", "")
    stack, position = [root], 0
    for match in _TAG_RE.finditer(math_html):
        if match.start() > position:
            stack[-1].children.append(math_html[position : match.start()])
        position = match.end()
        closing, tag, attrs = match.group(1), match.group(2).lower(), match.group(3)
        if closing:
            if len(stack) == 1 or stack[-1].tag != tag:
                return None
            stack.pop().end = match.group(0)
        else:
            element = _Element(tag, match.group(0), attrs)
            stack[-1].children.append(element)
            if not attrs.rstrip().endswith("/"):
                stack.append(element)
    if position < len(math_html) or len(stack) != 1 or len(root.children) != 1:
        return None
    return root.children[0]


def _mark(text: str) -> str:
    return f"{_MARK_OPEN}{escape(text, quote=False)}{_MARK_CLOSE}"


def _text(node) -> str:
    """The characters of ``node``'s tokens (no annotation, no mark)."""
    if isinstance(node, str):
        return unescape(node)
    if node.tag in _OPAQUE:
        return ""
    if node.tag == "semantics":
        first = node.elements()[:1]
        return _text(first[0]) if first else ""
    return "".join(_text(child) for child in node.children)


def _shown(node) -> str:
    """What a text converter prints for ``node``, marks included, the TeX source left out."""
    if isinstance(node, str):
        return unescape(node)
    if node.tag in _OPAQUE and node.attr("encoding") != TEXT_ENCODING:
        return ""
    return "".join(_shown(child) for child in node.children)


def _shape(node: _Element, count: int) -> list[_Element] | None:
    """``node``'s element children if there are exactly ``count`` and no text between."""
    kids = node.elements()
    loose_text = any(isinstance(c, str) and c.strip() for c in node.children)
    return kids if len(kids) == count and not loose_text else None


def _is_scripted(node: _Element) -> bool:
    return node.tag in _SCRIPT_SIGNS and _shape(node, len(_SCRIPT_SIGNS[node.tag]) + 1) is not None


def _core(node: _Element) -> _Element:
    """``node`` without rows around a single element."""
    while node.tag in _ROWS | {"semantics"} and node.tag != "math":
        kids = node.elements()
        if node.tag == "semantics":
            kids = kids[:1]
        if len(kids) != 1:
            break
        node = kids[0]
    return node


def _is_accent(node: _Element) -> bool:
    """An over- or under-script that decorates its base (Õ, x̂, x̄, a⃗) rather than limits it."""
    if node.tag not in {"mover", "munder"} or len(node.elements()) != 2:
        return False
    if node.attr("accent") == "true" or node.attr("accentunder") == "true":
        return True
    script = _core(node.elements()[1])
    return script.tag == "mo" and len(_text(script).strip()) == 1


def _bracketed(kids: list[_Element]) -> bool:
    """The row is one bracketed group: "(j−1)", "|x|", not "(a)(b)"."""
    if len(kids) < 2 or kids[0].tag != "mo" or kids[-1].tag != "mo":
        return False
    first, last = _text(kids[0]).strip(), _text(kids[-1]).strip()
    if first in {"|", "‖"}:
        return first == last and all(_text(kid).strip() != first for kid in kids[1:-1])
    if len(first) != 1 or first not in _OPENERS or last != _CLOSERS[_OPENERS.index(first)]:
        return False
    depth = 0
    for i, kid in enumerate(kids):
        char = _text(kid).strip() if kid.tag == "mo" else ""
        depth += (char in _OPENERS) - (char in _CLOSERS)
        if depth == 0 and i < len(kids) - 1:
            return False
    return True


def _reads_as_one(node: _Element, label: bool = False, fraction: bool = False) -> bool:
    """Whether ``node`` reads as one unit after "^", "_" or "/" (else it gets brackets): "t_launch",
    "T_1/T_p", "S(p)/p"."""
    node = _core(node)
    if node.tag in _TOKENS or node.tag == "msqrt" or _is_accent(node):
        return True
    kids = node.elements()
    if node.tag == "semantics":
        kids = kids[:1]
    if fraction and node.tag in _SCRIPT_SIGNS:
        return _is_scripted(node) and all(
            _reads_as_one(kid, label=i == 1) for i, kid in enumerate(kids)
        )
    if node.tag in _ROWS | {"semantics"}:
        if label and kids and all(kid.tag in _LABEL_TOKENS for kid in kids):
            return True
        if fraction and len(kids) > 2 and kids[0].tag in {"mi", "mo"} and _bracketed(kids[1:]):
            return _letter_at_edge(kids[0])  # f(x), softmax(S)
        return _bracketed(kids)
    return False


def _edge_token(node: _Element, last: bool) -> _Element | None:
    while node.tag not in _TOKENS:
        kids = node.elements()
        if node.tag == "semantics":
            kids = kids[:1]
        if not kids:
            return None
        node = kids[-1 if last else 0]
    return node


def _letter_at_edge(node: _Element | None, last: bool = False) -> bool:
    """Whether ``node`` starts (or ends) with a letter or digit when read."""
    if node is None:
        return False
    token = _edge_token(node, last)
    if token is None:
        return False
    text = _text(token).strip()
    return bool(text) and (token.tag != "mo" or text.isalpha())


class _Reader:
    """Renders a formula again with text-reader marks."""

    def node(self, node, level: int) -> str:
        """``node``'s HTML with marks; ``level`` counts enclosing scripts."""
        if isinstance(node, str) or node.tag in _TOKENS | _OPAQUE | {"mspace", "none"}:
            return _source(node)
        handler = getattr(self, f"_{node.tag}", None)
        if handler is not None:
            marked = handler(node, level)
            if marked is not None:
                return marked
        # Rows, and anything with a shape this reader does not know: its children in place.
        return self._wrap(node, self.row(node.children, level))

    @staticmethod
    def _wrap(node: _Element, inner: str) -> str:
        return node.start + inner + node.end

    def row(self, children: list, level: int) -> str:
        kids = [child for child in children if isinstance(child, _Element)]
        out, i = [], -1
        for child in children:
            if isinstance(child, str):
                out.append(child)
                continue
            i += 1
            before = kids[i - 1] if i > 0 else None
            after = kids[i + 1] if i + 1 < len(kids) else None
            html = self.node(child, level)
            text = _text(child).strip()
            if (
                child.tag == "mfrac"
                and _shape(child, 2)
                and (_letter_at_edge(before, last=True) or _letter_at_edge(after))
            ):
                html = _mark("(") + html + _mark(")")
            elif child.tag == "mo" and level == 0 and text in _RELATIONS:
                html = (_mark(" ") if before else "") + html + (_mark(" ") if after else "")
            elif child.tag == "mo" and level == 0 and text in {",", ";"} and after is not None:
                html += _mark(" ")
            elif child.tag == "mspace" and not (child.attr("width") or "").startswith(("-", "neg")):
                html += _mark(" ")
            elif _is_scripted(child) and not _is_accent(child) and _letter_at_edge(after):
                html += _mark(" ")
            out.append(html)
        return "".join(out)

    def _group(self, node: _Element, level: int, prefix: str = "", **rule) -> str:
        """``node`` read as one unit after ``prefix``: brackets unless it already is one."""
        html = self.node(node, level)
        if _reads_as_one(node, **rule):
            return (_mark(prefix) if prefix else "") + html
        return _mark(prefix + "(") + html + _mark(")")

    def _scripts(self, node: _Element, level: int) -> str | None:
        signs = _SCRIPT_SIGNS[node.tag]
        kids = _shape(node, len(signs) + 1)
        if kids is None:
            return None
        if _is_accent(node):
            return self._wrap(node, self.node(kids[0], level) + self.node(kids[1], level + 1))
        base = self.node(kids[0], level)
        if not _reads_as_one(kids[0]) or _core(kids[0]).tag == "msqrt":  # (√x)^2
            base = f"<mrow>{_mark('(')}{base}{_mark(')')}</mrow>"
        scripts = [
            f"<mrow>{self._group(script, level + 1, sign, label=sign == '_')}</mrow>"
            for script, sign in zip(kids[1:], signs, strict=True)
        ]
        return self._wrap(node, base + "".join(scripts))

    _msub = _msup = _msubsup = _munder = _mover = _munderover = _scripts

    def _mfrac(self, node: _Element, level: int) -> str | None:
        kids = _shape(node, 2)
        if kids is None:
            return None
        # \binom draws a fraction without a bar: "(n choose k)", as plain-text math says it.
        thickness = node.attr("linethickness")
        between = " choose " if thickness is not None and _ZERO_RE.match(thickness) else "/"
        numerator = f"<mrow>{self._group(kids[0], level, fraction=True)}</mrow>"
        denominator = f"<mrow>{self._group(kids[1], level, between, fraction=True)}</mrow>"
        return self._wrap(node, numerator + denominator)

    def _msqrt(self, node: _Element, level: int) -> str:
        inner = self.row(node.children, level)
        kids = node.elements()
        if len(kids) == 1 and _reads_as_one(kids[0]):
            return self._wrap(node, _mark("√") + inner)
        return self._wrap(node, _mark("√(") + inner + _mark(")"))

    def _mroot(self, node: _Element, level: int) -> str | None:
        kids = _shape(node, 2)
        if kids is None:
            return None
        base = self.node(kids[0], level)
        if not _reads_as_one(kids[0]):
            base = _mark("(") + base + _mark(")")
        index = self.node(kids[1], level + 1)
        return self._wrap(
            node, f"<mrow>{base}{_mark('^(1/')}</mrow><mrow>{index}{_mark(')')}</mrow>"
        )

    def _mtable(self, node: _Element, level: int) -> str:
        rows = [child for child in node.elements() if child.tag == "mtr"]
        out = []
        for i, row in enumerate(rows):
            cells = [cell for cell in row.elements() if cell.tag == "mtd"]
            marked_cells = []
            for j, cell in enumerate(cells):
                suffix = ", " if j < len(cells) - 1 else ("; " if i < len(rows) - 1 else "")
                inner = self.row(cell.children, level) + (_mark(suffix) if suffix else "")
                marked_cells.append(self._wrap(cell, inner))
            out.append(self._wrap(row, "".join(marked_cells)))
        return self._wrap(node, "".join(out))

    def _semantics(self, node: _Element, level: int) -> str:
        out, seen_first = [], False
        for child in node.children:
            if isinstance(child, _Element) and not seen_first:
                out.append(self.node(child, level))
                seen_first = True
            else:
                out.append(_source(child))
        return self._wrap(node, "".join(out))


_ADJACENT_MARKS = _MARK_CLOSE + _MARK_OPEN


def mark_math(math_html: str) -> str:
    """One ``<math>`` element with text-reader marks (unchanged if it cannot be parsed)."""
    tree = _parse(math_html)
    if tree is None:
        return math_html
    # Two marks side by side are one: "^(" rather than "^" and "(" in two annotations.
    return _Reader().node(tree, 0).replace(_ADJACENT_MARKS, "")


def with_text_marks(html: str) -> str:
    """``html`` with every ``<math>`` element marked for text readers."""
    if "<math" not in html:
        return html
    return _MATH_RE.sub(lambda match: mark_math(match.group(0)), html)


def read_math(math_html: str) -> str:
    """The linear text a text reader shows for one ``<math>`` element (its TeX left out)."""
    tree = _parse(mark_math(math_html))
    return " ".join(_shown(tree).split()) if tree is not None else ""
