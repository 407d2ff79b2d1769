"""Moving in and out: import from Hexo, Hugo, Jekyll and WordPress, export back losslessly.

One table per format (:mod:`.formats`) says which front-matter key holds which note field;
import reads through it, export writes through it, so what export writes, import reads.

* :mod:`.frontmatter`: split a file into front matter and body; write front matter
  deterministically (the round trip is byte-identical).
* :mod:`.markdown_import` and :mod:`.wordpress` turn files into :class:`.records.NoteRecord`;
  :mod:`.importer` stores records, one transaction per file, holding only the writes (what is
  slow comes before it: :mod:`.ahead`); :mod:`.report` says what happened, in words chosen
  when it is shown (:mod:`.wording`: the admin's language, or English).
* :mod:`.limits`: the bounds of an import (sizes, files, its time); :mod:`.tasks`: the admin's
  import on the worker's ``imports`` queue (:mod:`.run_folders`: its private folder, and the
  archive a check keeps); :mod:`.dry_run`: a dry run on a copy of the
  database (SQLite), so that it holds no write lock.
* :mod:`.export` writes notes, pages, site settings and media to a folder, and the glossary
  as one file (:mod:`.glossary_file`), which the import reads back (:mod:`.glossary_import`).
* Old URLs and imported files are kept in :mod:`blog.models.imported`; readers are redirected
  from old URLs by :mod:`blog.public.legacy_redirects`.

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.models`,
:mod:`blog.rendering`, :mod:`blog.text`; never :mod:`blog.public`, :mod:`blog.authoring` or
:mod:`blog.ops`.
"""
