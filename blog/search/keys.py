"""A results list of order keys (:mod:`blog.search.order`) as Django's ``Paginator`` reads it.

May import: the search package.
"""

from blog.search import query as general
from blog.search.order import note_id


class KeyList:
    """What ``Paginator`` reads, from ``_keys`` (a subclass's): the best ``LISTED`` + 1 order
    keys, one more than are listed saying the list is cut."""

    @property
    def capped(self):
        """More notes match than are listed."""
        return len(self._keys) > general.LISTED

    def count(self):
        return min(len(self._keys), general.LISTED)

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        keys = self._keys[: general.LISTED][index]
        return [note_id(key) for key in keys] if isinstance(index, slice) else note_id(keys)
