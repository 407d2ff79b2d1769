"""Commits, for tests that run in a transaction (pytest-django's ``db``) and need one.

What readers are served is keyed by the content version, which moves after a commit
(:mod:`blog.caching.version`). A test that changes content between two requests says so by
making the change inside :func:`committed`: at the end of the block the transaction's
after-commit work runs (the version's bump, the search index), as a real commit would.
"""

from django.test import TestCase


def committed():
    return TestCase.captureOnCommitCallbacks(execute=True)
