"""A citation as CSL-JSON, the data citeproc formats (Zotero, Pandoc, Mendeley read it): an array
holding one ``post-weblog`` item."""

import json

from blog.text.citation.record import Citation, Name

MEDIA_TYPE = "application/vnd.citationstyles.csl+json"
EXTENSION = "json"


def person(name: Name) -> dict:
    if name.literal:
        return {"literal": name.literal}
    return {"family": name.family, "given": name.given}


def date_parts(day) -> dict:
    return {"date-parts": [[day.year, day.month, day.day]]}


def csl_item(citation: Citation) -> dict:
    item = {
        "id": citation.key,
        "type": "post-weblog",
        "title": citation.title,
        "container-title": citation.site,  # the blog (a publisher too would print it twice)
        "URL": citation.url,
        "language": citation.language_tag,
    }
    if citation.authors:
        item["author"] = [person(name) for name in citation.authors]
    if citation.translators:
        item["translator"] = [person(name) for name in citation.translators]
    if citation.published:
        item["issued"] = date_parts(citation.published)
    original = citation.original
    if original is not None:
        if original.title:
            item["original-title"] = original.title
        if original.authors:
            item["original-author"] = [person(name) for name in original.authors]
        if original.published:
            item["original-date"] = date_parts(original.published)
    if citation.licence:
        item["license"] = citation.licence
    return item


def csl_json(citation: Citation) -> str:
    return json.dumps([csl_item(citation)], ensure_ascii=False, indent=2) + "\n"
