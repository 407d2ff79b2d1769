"""Who a note credits besides the site's author: its translator and co-authors, written in the
note's own language (a translated pair credits in each language on each note)."""

import re

# An author types a list the way their language writes one: "A, B", "甲，乙" or "甲、乙".
NAME_SEPARATORS = re.compile(r"\s*[,，、;；]\s*")


def coauthor_names(note) -> list[str]:
    """The note's co-authors in the order written, without blanks or repeats."""
    names = []
    for name in NAME_SEPARATORS.split(note.coauthors or ""):
        name = name.strip()
        if name and name not in names:
            names.append(name)
    return names


def authors_of(note, site_author: str) -> list[str]:
    """Everyone who wrote the note: the site's author first, then its co-authors."""
    names = [site_author] if site_author else []
    return names + [name for name in coauthor_names(note) if name not in names]
