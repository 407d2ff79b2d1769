"""Text without a database (docs/architecture.md lists each module).

May import: nothing of biji's (the bottom layer; Django's settings, translation and validation
only).
"""
