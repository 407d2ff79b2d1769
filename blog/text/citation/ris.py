"""A citation as an RIS record (``TY  - BLOG``), the tagged format every reference manager
imports: one tag a line, ``XX  - value``, lines ending in CR LF as the format's specification
writes them, UTF-8."""

from blog.text.citation.record import Citation, translation_note

MEDIA_TYPE = "application/x-research-info-systems"
EXTENSION = "ris"


def ris(citation: Citation) -> str:
    lines = [("TY", "BLOG"), ("TI", citation.title)]
    lines += [("AU", name.inverted) for name in citation.authors]
    # A4: the subsidiary author, which Zotero and EndNote read as the translator.
    lines += [("A4", name.inverted) for name in citation.translators]
    if citation.published:
        day = citation.published
        lines += [("PY", str(day.year)), ("DA", day.strftime("%Y/%m/%d/"))]
    lines += [
        ("T2", citation.site),  # the blog's title
        ("PB", citation.site),
        ("UR", citation.url),
        ("LA", citation.language_tag),
    ]
    original = citation.original
    if original is not None and original.title:
        lines.append(("OP", original.title))
    if note := translation_note(citation):
        lines.append(("N1", note))
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {value}\r\n" for tag, value in lines if value or tag == "ER")
