"""Text without a database: CJK, bilingual names, slugs, text statistics, link validators,
absolute URLs on ``SITE_URL``.

* :mod:`.cjk`: Han and CJK character classes;
* :mod:`.bilingual`: names kept in both languages, shown in the reader's interface language;
* :mod:`.slugs`: ASCII slugs from English words or pinyin;
* :mod:`.stats`: CJK-aware word counts, reading time and excerpts;
* :mod:`.sentences`: where Chinese and English sentences end (excerpts are whole ones);
* :mod:`.validators`: which link schemes a reader may follow;
* :mod:`.client_address`: which address a request came from (login lockout, subscribe throttle);
* :mod:`.line_breaks`: where a title may break into lines by CJK rules (share cards);
* :mod:`.date_range`: the years a publication time and an original date may take;
* :mod:`.site_url`: the one joiner of absolute URLs;
* :mod:`.collation`: names in a printed index's order (pinyin for Chinese);
* :mod:`.blocks`: a note's Markdown as blocks with hashes (translation sync);
* :mod:`.alignment`: two notes' blocks side by side (the parallel view);
* :mod:`.bidi`: the bidirectional controls, and titles cleared of those that reverse text;
* :mod:`.longest_forms`: where a glossary's forms start in a text, longest first, in linear time.

May import: nothing of biji's (the bottom layer; Django's settings, translation and
validation only).
"""
