"""Texts that make Markdown renderers slow or hungry, each as large as a text may be.

The render bounds (blog/rendering/budget.py) are tested against every one of them
(tests/test_render_bounds.py) and ``python -m benchmarks render`` prints what each costs.
Each is generated (the same text every time), at the size limit or where noted below it: the
worst an author, an import or a restore can hand the renderer.
"""

from blog.rendering import MAX_MARKDOWN_BYTES

LIMIT = MAX_MARKDOWN_BYTES


def _repeat(unit, size=LIMIT):
    """``unit`` repeated up to ``size`` bytes of UTF-8."""
    return unit * (size // len(unit.encode()))


def _backtick_runs(size):
    runs, total, n = [], 0, 1
    while True:
        run = "`" * n + " x "
        if total + len(run) > size:
            return "".join(runs)
        runs.append(run)
        total += len(run)
        n = n % 400 + 1


def _deep_list(depth):
    return "".join("    " * i + "- item\n" for i in range(depth))


def _wide_table(columns):
    return "\n".join(["|" + "a|" * columns, "|" + "-|" * columns, *["|" + "b|" * columns] * 20])


def _footnotes(count):
    refs = " ".join(f"text[^{i}]" for i in range(count))
    notes = "\n".join(f"[^{i}]: note {i}" for i in range(count))
    return f"{refs}\n\n{notes}\n"


def _link_references(count):
    definitions = "\n".join(f"[r{i}]: https://example.com/{i}" for i in range(count))
    uses = " ".join(f"[a][r{i}]" for i in range(count))
    return f"{uses}\n\n{definitions}\n"


def _admonitions(depth):
    opening = "".join("    " * i + f'!!! note "{i}"\n' for i in range(depth))
    return opening + "    " * depth + "x\n"


# name -> text
CORPUS = {
    "unclosed brackets": _repeat("["),
    "unclosed image brackets": _repeat("!["),
    "brackets and parentheses": _repeat("[a]("),
    "nested emphasis": _repeat("*a "),
    "underscore runs": _repeat("_a"),
    "strong and emphasis mixed": _repeat("**_a"),
    "backtick runs": _backtick_runs(LIMIT),
    "link references": _link_references(20_000),
    "deep list": _deep_list(700),
    "deep quote": _repeat(">", 200_000) + " x",
    "wide table": _wide_table(4_000),
    "nested html": _repeat("<div>", LIMIT // 2) + _repeat("</div>", LIMIT // 2),
    "unclosed html": _repeat("<a ", LIMIT),
    "dollar runs": _repeat("$"),
    "inline math runs": _repeat("$a$ "),
    "nested fractions": "$$\n"
    + _repeat("\\frac{", LIMIT // 2 - 4)
    + _repeat("}", LIMIT // 2 - 4)
    + "\n$$",
    "footnotes": _footnotes(20_000),
    "same heading": _repeat("# a\n\n"),
    "nested admonitions": _admonitions(300),
    "angle brackets": _repeat("<"),
    "ampersands": _repeat("&"),
    "han and latin alternating": _repeat("中a"),
    "one long han line": _repeat("中"),
    "code block": "```python\n" + _repeat("x = [1, 2, 3]  # comment\n", LIMIT - 20) + "```\n",
}
