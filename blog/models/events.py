"""Domain events that no model signal can say: acts of the author, which a saved row cannot tell
from an import. :mod:`blog.reactions` lists what follows each.

May import: nothing of biji.
"""

from django.dispatch import Signal

# The author saved a note published, now or for a time to come, by hand: the admin's note
# form or its "publish now" action (not an import, a restore, nor the bulk "Publish", which
# publishes imported drafts at their old dates). Sent after the save, inside its transaction,
# with ``sender=Note``, ``note`` and ``before``: its publication as stored before the change
# (``blog.models.announcement.Publication``), which tells a first publication from an edit.
published_by_author = Signal()
