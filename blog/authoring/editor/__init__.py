"""The editor's server side: image uploads from the Markdown editor, for staff only
(:mod:`.views`, mounted at ``<admin>/editor/`` by :mod:`.urls`). The live preview is the
admin's own view (``NoteAdmin.editor_preview``).
"""
