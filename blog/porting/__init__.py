"""Moving in and out: import from Hexo, Hugo, Jekyll and WordPress, export back losslessly.

One table of fields (:mod:`.formats`) says which front-matter key each generator writes a field
under and reads it from; import and export both go through it. Files become records
(:mod:`.markdown_import`, :mod:`.wordpress`; front matter by :mod:`.fields`, each value by
:mod:`.values`), stored one file per transaction (:mod:`.importer`, with
:mod:`.translation_pairing`, :mod:`.series_placement` and :mod:`.old_paths`) and reported
(:mod:`.report`); :mod:`.export` writes through the same table.

May import: :mod:`blog.search`, :mod:`blog.caching`, :mod:`blog.images`, :mod:`blog.models`,
:mod:`blog.rendering`, :mod:`blog.text`; never :mod:`blog.public`, :mod:`blog.authoring` or
:mod:`blog.ops`.
"""
