"""Pagefind's indexes of the built site's notes, which the static search pages read in the
browser: what is indexed, and the run.

Pagefind (``pagefind[extended]`` on PyPI: its extended binary segments Chinese into words)
indexes each published note once, in the index of the note's language: a Chinese note from its
Chinese page (``notes/<slug>/index.html``, ``<html lang="zh-Hans">``: segmented), an English note
from its English page (``en/notes/<slug>/index.html``, ``lang="en"``: stemmed). The pages are
hard-linked into a staging folder per language as ``notes/<slug>/index.html`` and each is indexed
by a Pagefind of its own, both at once, into ``pagefind/zh-hans/`` and ``pagefind/en/``.
(Indexed from both interfaces, a Chinese note's English page would land in the English index,
which does not segment Chinese: 调度 would not find it there.) Of a page only the note's article
is read (``--root-selector``): its title, tags and text, without its series and part, dates and
reading time, the other language's title, the table of contents, the glossary's tooltips, the
source box. No template names Pagefind. The indexes are written in a hidden work folder inside
the folder and moved into ``pagefind/`` when complete: a failed or timed-out run leaves the last
ones in place.

Like the live search, an interface leaves out a note whose translation is published in its
language (the note is staged with a Pagefind filter the page excludes: :func:`hidden_in`).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from blog.models import Note
from blog.search.ranked import hidden_by_pairs

# The indexes, by the language of the notes in them, with the prefix of that interface; of a
# note's page Pagefind reads the article.
INDEXES = (("zh-hans", ""), ("en", "en"))
ROOT_SELECTOR = "article.note"
# Not the note's own words: its series and part, dates and reading time, the translation's title,
# the contents (the headings are read where they stand), glossary tooltips, a translation's
# source credit. Its title and tags stay, as the live search matches them.
EXCLUDED = ".note-kicker, .note-meta, .translation-link, .toc, .term-tip, .source-box"
BUNDLE = "pagefind"
# The benchmark site's 9,406 published notes take ~29 s (both runs at once on two busy cores). A
# run that takes longer than this is stopped and the last indexes are kept.
TIMEOUT_SECONDS = 600
# Pagefind's own search interfaces, which the search pages do not use (~420 KB per index).
UNUSED = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-highlight.js",
)

_ARTICLE = re.compile(r'<article class="note"[^>]*>')
_NOTE_LANGUAGE = re.compile(r'<h1 id="note-title" lang="([^"]+)"')


class SearchIndexError(RuntimeError):
    """Pagefind failed, timed out or could not be started: the folder keeps its last index."""


def note_pages(folder: Path) -> dict[str, list[Path]]:
    """The note pages to index, by the language of their notes: each note once, from the
    interface of its own language (its Chinese page for a Chinese note, its English page for an
    English one), {"zh-hans": [...], "en": [...]}, the paths relative to ``folder``."""
    pages = {language: [] for language, _prefix in INDEXES}
    for page in sorted(folder.glob("notes/*/index.html")):
        match = _NOTE_LANGUAGE.search(page.read_text("utf-8", errors="replace"))
        if match is None:
            continue
        language = "zh-hans" if match.group(1).lower().startswith("zh") else "en"
        prefix = dict(INDEXES)[language]
        source = folder / prefix / page.relative_to(folder) if prefix else page
        if source.is_file():
            pages[language].append(source.relative_to(folder))
    return pages


def pagefind_command(site: Path, output: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pagefind",
        "--site",
        str(site),
        "--output-path",
        str(output),
        "--root-selector",
        ROOT_SELECTOR,
        "--exclude-selectors",
        EXCLUDED,
        "--silent",
    ]


def run_pagefind(folder: Path, timeout: float = TIMEOUT_SECONDS, hidden=None) -> dict:
    """Pagefind over the note pages of ``folder``, one index per note language, into
    ``folder/pagefind/<language>/``: {language: pages indexed}.

    Each language's pages are hard-linked into a staging folder of their own under
    ``notes/<slug>/index.html`` (so every result's URL is ``/notes/<slug>/``, which a search page
    puts under its own interface's prefix) and indexed by a Pagefind of their own, both at once.
    A note an interface leaves out for its translation (``hidden``: :func:`hidden_in`) is
    staged as a copy carrying a Pagefind filter, ``hidden:<interface language>``, which that
    interface's search page excludes.
    """
    if hidden is None:
        hidden = hidden_in()
    final = folder / BUNDLE
    # Inside the folder: the same file system for the hard links and the final rename.
    work = folder / f".pagefind-work-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    fresh = work / "bundle"
    runs = {}
    try:
        for language, pages in note_pages(folder).items():
            if not pages:
                continue
            stage = work / "stage" / language
            for page in pages:
                slug = page.parent.name
                target = stage / "notes" / slug / "index.html"
                target.parent.mkdir(parents=True, exist_ok=True)
                if slug in hidden:
                    target.write_text(_with_hidden_filter(folder / page, hidden[slug]), "utf-8")
                    continue
                try:
                    os.link(folder / page, target)
                except OSError:
                    shutil.copyfile(folder / page, target)
            log = work / f"{language}.log"
            runs[language] = _start(pagefind_command(stage, fresh / language), log)
        deadline = time.monotonic() + timeout
        for language, run in runs.items():
            _finish(run, max(0.0, deadline - time.monotonic()), timeout, work / f"{language}.log")
        languages = {}
        for language in runs:
            for unused in UNUSED:
                (fresh / language / unused).unlink(missing_ok=True)
            entry = json.loads((fresh / language / "pagefind-entry.json").read_text("utf-8"))
            languages[language] = sum(i.get("page_count", 0) for i in entry["languages"].values())
        fresh.mkdir(parents=True, exist_ok=True)
        if final.exists():
            final.rename(work / "old")
        fresh.rename(final)
        return languages
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()
        shutil.rmtree(work, ignore_errors=True)


def _with_hidden_filter(page: Path, languages) -> str:
    """The page with ``hidden:<language>`` filters inside its article (Pagefind reads the
    value from the attribute; the element holds nothing)."""
    text = page.read_text("utf-8")
    marks = "".join(
        f'<span data-pagefind-filter="hidden:{language}"></span>' for language in languages
    )
    article = _ARTICLE.search(text)
    return text[: article.end()] + marks + text[article.end() :] if article else text


def _start(command, log: Path):
    """Pagefind, its output to ``log`` (a file: a pipe nobody reads while the other run is
    waited for could fill and stop it)."""
    try:
        with log.open("wb") as out:
            # This interpreter running Pagefind over the build's own folders.
            return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603
    except OSError as error:
        raise SearchIndexError(f"Pagefind could not start: {error}") from error


def _finish(run, left: float, timeout: float, log: Path):
    try:
        run.wait(timeout=left)
    except subprocess.TimeoutExpired as error:
        raise SearchIndexError(f"Pagefind took more than {timeout:g} s: stopped") from error
    if run.returncode != 0:
        output = log.read_text("utf-8", errors="replace").strip()[-2000:]
        raise SearchIndexError(f"Pagefind failed ({run.returncode}): {output}")


def hidden_in() -> dict[str, list[str]]:
    """{slug: the interface languages whose search leaves the note out}: a note whose
    translation is published in an interface's language is shown as its translation there
    (``blog.search.ranked.hidden_by_pairs``, as the live search does)."""
    hidden = hidden_by_pairs()
    notes = Note.objects.filter(pk__in=set().union(*hidden.values()))
    slugs = dict(notes.values_list("pk", "slug"))
    found = {}
    for language, ids in sorted(hidden.items()):
        for pk in ids:
            if pk in slugs:
                found.setdefault(slugs[pk], []).append(language)
    return found
