"""What a media storage raises when it cannot be asked at all (an object store unreachable, or
refusing the credentials): an ``OSError``, so that every caller that already copes with a full
disk (a form error, a retried task) copes with it too, and needs no client library to catch it.

May import: nothing of biji's.
"""


class StoreUnavailable(OSError):
    """The media store did not answer, or refused the request; the message says which."""
