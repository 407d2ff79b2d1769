"""Moving in and out: import from Hexo, Hugo, Jekyll and WordPress, export back losslessly.

One table per format (:mod:`.formats`) says which front-matter key holds which note field;
import reads through it, export writes through it, so what export writes, import reads.

* :mod:`.frontmatter`: split a file into front matter and body; write front matter
  deterministically (the round trip is byte-identical).
* :mod:`.markdown_import` and :mod:`.wordpress` turn files into :class:`.records.NoteRecord`;
  :mod:`.importer` stores records, one transaction per file; :mod:`.report` says what happened.
* :mod:`.export` writes notes, pages, site settings and media to a folder.
* :mod:`.models` keeps old URLs (:class:`.models.LegacyPath`) and which imported files are
  already stored (:class:`.models.ImportedMedia`); :mod:`.middleware` redirects old URLs.
"""
