"""A note's citation as readers' reference managers take it: the record (:mod:`.record`) and its
formats, BibTeX, CSL-JSON and RIS, and the reference a reader pastes (:mod:`.reference`). Pure
functions of the record: no models, no requests.
"""
