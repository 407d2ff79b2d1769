"""A WordPress post's language and translation group, where the export carries them.

Polylang's taxonomies are exported like categories (``language``; ``post_translations``, whose
``<wp:term>`` maps language → post id, PHP-serialized); WPML's only as WPML Export and
Import's custom fields. A group's posts share a ``translation_key``; a language other than
Chinese or English makes no pair. Neither taxonomy is a category.
"""

from blog.porting.values import language_code

NS = {"wp": "http://wordpress.org/export/1.2/"}
MAX_DEPTH = 4  # a description nested deeper is nothing Polylang wrote


class Unreadable(ValueError):
    pass


def unserialize(text):
    """PHP's ``serialize()`` output of arrays, strings, numbers and booleans, as Python values
    (an array as a dict); None for anything else (objects are never read)."""
    data = text.encode()
    try:
        value, end = _value(data, 0, 0)
    except (Unreadable, ValueError, IndexError):
        return None
    return value if end == len(data.rstrip()) else None


def _value(data, at, depth):
    kind = data[at : at + 2]
    if kind == b"N;":
        return None, at + 2
    if kind in (b"i:", b"b:", b"d:"):
        end = data.index(b";", at)
        raw = data[at + 2 : end].decode()
        number = float(raw) if kind == b"d:" else int(raw)
        return (bool(number) if kind == b"b:" else number), end + 1
    if kind == b"s:":
        colon = data.index(b":", at + 2)
        length = int(data[at + 2 : colon])  # in bytes, as PHP counts
        start = colon + 2
        if data[colon + 1 : start] != b'"' or data[start + length : start + length + 2] != b'";':
            raise Unreadable("string")
        return data[start : start + length].decode(), start + length + 2
    if kind == b"a:" and depth < MAX_DEPTH:
        brace = data.index(b":{", at + 2)
        count = int(data[at + 2 : brace])
        at, array = brace + 2, {}
        for _ in range(count):
            key, at = _value(data, at, depth + 1)
            if not isinstance(key, (int, str)):
                raise Unreadable(key)
            array[key], at = _value(data, at, depth + 1)
        if data[at : at + 1] != b"}":
            raise Unreadable("array")
        return array, at + 1
    raise Unreadable(kind)


def _text(element, path):
    found = element.find(path, NS)
    return (found.text or "").strip() if found is not None else ""


class Languages:
    """What one export says about languages and translations (see the module's docstring)."""

    def __init__(self, channel):
        self.locales = {}  # Polylang language slug → locale
        self.groups = {}  # post id → (group slug, language slug)
        for term in channel.findall("wp:term", NS):
            taxonomy = _text(term, "wp:term_taxonomy")
            slug = _text(term, "wp:term_slug")
            description = unserialize(_text(term, "wp:term_description"))
            if not slug or not isinstance(description, dict):
                continue
            if taxonomy == "language" and isinstance(description.get("locale"), str):
                self.locales[slug] = description["locale"]
            elif taxonomy == "post_translations":
                for language, post_id in description.items():
                    if isinstance(language, str) and isinstance(post_id, int):
                        self.groups[str(post_id)] = (slug, language)

    def of(self, item, post_id, meta):
        """(language code, translation key, language as written), "" where the export does not
        say; a language biji has not gets code and key "" (the third names it): no one's pair."""
        found = item.find("category[@domain='language']")
        language = found.get("nicename", "").strip() if found is not None else ""
        found = item.find("category[@domain='post_translations']")
        key = found.get("nicename", "").strip() if found is not None else ""
        if post_id in self.groups:
            group, listed = self.groups[post_id]
            key, language = key or group, language or listed
        if not language and (wpml := meta.get("_wpml_import_language_code", "").strip()):
            language = wpml
            group = meta.get("_wpml_import_translation_group", "").strip()
            key = f"wpml-{group}" if group else ""
        if not language:
            return "", key, ""
        code = language_code(language) or language_code(self.locales.get(language, ""))
        return code, key if code else "", language
