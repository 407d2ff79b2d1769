"""A citation as a BibTeX entry: ``@online`` (biblatex's type for web pages; classic BibTeX
styles read it as ``@misc``), UTF-8 throughout, as biber and modern BibTeX take it."""

from blog.text.citation.record import Citation, Name, translation_note

MEDIA_TYPE = "application/x-bibtex"
EXTENSION = "bib"
# What TeX would read as markup, written so that it prints as itself.
_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
_ESCAPES = str.maketrans(_SPECIALS)
# A URL is read verbatim: only an unbalanced brace could end the field early.
_URL_ESCAPES = str.maketrans({"{": "%7B", "}": "%7D", " ": "%20"})
LANGUAGES = {"zh": "chinese", "en": "english"}


def escape(text) -> str:
    return str(text).translate(_ESCAPES)


def person(name: Name) -> str:
    """Family, Given; a name kept as typed stays in braces, so BibTeX never splits it."""
    if name.literal:
        return "{" + escape(name.literal) + "}"
    return f"{escape(name.family)}, {escape(name.given)}"


def people(names) -> str:
    return " and ".join(person(name) for name in names)


def bibtex(citation: Citation) -> str:
    fields = [
        # Braced again, so that styles keep the title's capitals ("cuBLAS", "H100").
        ("title", "{" + escape(citation.title) + "}"),
        ("author", people(citation.authors)),
    ]
    if citation.translators:
        fields.append(("translator", people(citation.translators)))
    if citation.published:
        day = citation.published
        fields += [("date", day.isoformat()), ("year", str(day.year)), ("month", str(day.month))]
    fields += [
        ("url", citation.url.translate(_URL_ESCAPES)),
        ("language", LANGUAGES.get(citation.language_code, citation.language_tag)),
        ("organization", escape(citation.site)),
    ]
    original = citation.original
    if original is not None:
        if original.title:
            fields.append(("origtitle", "{" + escape(original.title) + "}"))
        if original.published:
            fields.append(("origdate", original.published.isoformat()))
    if note := translation_note(citation):
        fields.append(("note", escape(note)))
    lines = [f"@online{{{citation.key},"]
    lines += [f"  {name} = {{{value}}}," for name, value in fields if value]
    lines.append("}")
    return "\n".join(lines) + "\n"
