"""A Hugo site's languages, as its configuration gives them: which language a file is in, and
which files are translations of each other, by Hugo's documented rules (docs/moving.md).

One departure: without ``defaultContentLanguage`` biji guesses from the text (Hugo takes
English), because a Chinese blog that never set it is Chinese.
"""

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

CONFIG_NAMES = ("hugo", "config")
CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json")
DEFAULT_CONTENT_DIR = "content"


@dataclass
class HugoSite:
    default_language: str = ""  # a language code as written (``zh``, ``zh-cn``, ``en``), or ""
    content_dirs: dict = field(default_factory=dict)  # language code → folder, relative to root
    languages: tuple = ()  # the configured language codes, lower-case
    found: bool = False  # a configuration file was read

    def language_of(self, rel):
        """The language of the file at ``rel``: its content folder's, else the default, else ""."""
        parts = PurePosixPath(rel).parts
        for code, folder in self.content_dirs.items():
            folder_parts = PurePosixPath(folder).parts
            if parts[: len(folder_parts)] == folder_parts:
                return code
        return self.default_language

    def key_path(self, rel, stem_without_language):
        """The path Hugo pairs translations by: below the file's content folder, the language
        suffix removed, a page bundle's ``index`` named by its folder."""
        parts = PurePosixPath(rel).parts
        base = (DEFAULT_CONTENT_DIR,)
        for folder in sorted(self.content_dirs.values(), key=len, reverse=True):
            folder_parts = PurePosixPath(folder).parts
            if parts[: len(folder_parts)] == folder_parts:
                base = folder_parts
                break
        inside = parts[len(base) : -1] if parts[: len(base)] == base else parts[:-1]
        if stem_without_language.lower() == "index" and inside:
            return "/".join(inside)
        return "/".join((*inside, stem_without_language))


def _read(path):
    text = path.read_text("utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    if path.suffix == ".json":
        return json.loads(text)
    return yaml.safe_load(text) or {}


def _lower_keys(value):
    if isinstance(value, dict):
        return {str(key).lower(): _lower_keys(item) for key, item in value.items()}
    return value


def _config_files(root):
    folders = (root, root / "config" / "_default")
    for folder in folders:
        for name in CONFIG_NAMES:
            for suffix in CONFIG_SUFFIXES:
                if (folder / f"{name}{suffix}").is_file():
                    yield folder / f"{name}{suffix}", False
        for suffix in CONFIG_SUFFIXES:
            if (folder / f"languages{suffix}").is_file():
                yield folder / f"languages{suffix}", True


def read_hugo_site(root):
    """The languages of the Hugo site at ``root``; an empty :class:`HugoSite` when it has no
    configuration biji can read (a broken file is ignored: the import goes on by the files)."""
    config, languages = {}, {}
    found = False
    for path, is_languages in _config_files(Path(root)):
        try:
            data = _lower_keys(_read(path))
        except (OSError, ValueError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if not isinstance(data, dict):
            continue
        found = True
        if is_languages:
            languages.update(data)
        else:
            languages.update(data.get("languages") or {})
            config = {**data, **config}
    content_dir = str(config.get("contentdir") or DEFAULT_CONTENT_DIR).strip("/")
    dirs = {}
    for code, values in languages.items():
        if isinstance(values, dict) and values.get("contentdir"):
            dirs[str(code).lower()] = str(values["contentdir"]).strip("/")
    default = str(config.get("defaultcontentlanguage") or "").lower()
    site = HugoSite(
        default_language=default,
        content_dirs=dirs,
        languages=tuple(str(code).lower() for code in languages),
        found=found,
    )
    if content_dir != DEFAULT_CONTENT_DIR and not dirs and default:
        site.content_dirs = {default: content_dir}
    return site
