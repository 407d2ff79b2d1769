"""Data built once for a test module and seen by each of its tests in a transaction of its own,
as Django's ``TestCase.setUpTestData`` does: for data that is slow to make (the demo blog,
~1 s on SQLite and more on PostgreSQL) and that many tests of a module start from.

:func:`module_data` turns a function that writes rows into a module-scoped fixture. The rows
are written inside a transaction held open for the module; pytest-django wraps each test in a
transaction of its own inside it (a savepoint), rolled back when the test ends, so a test that
changes the data leaves it as it was for the next; the module's transaction is rolled back
after its last test, so no other module ever sees the rows. The fixture's value is handed to
each test as a deep copy (as ``setUpTestData`` does), so a test that changes an object in
memory does not change it for the next.

What keeps it sound, checked rather than trusted:

* only tests in a transaction of their own may use it: collection refuses a test marked
  ``django_db(transaction=True)`` (a transactional test commits, and empties the database
  after itself) that asks for module data;
* the tests of a module that use its data run after those that do not
  (:func:`order_items`), so no test finds rows it did not ask for; should a test that does not
  use the data still run while it is there (another ordering plugin), it fails
  (:func:`refuse_unexpected`);
* the data is built with ``MEDIA_ROOT`` in a folder of the module's own, never the project's.
"""

import copy

import pytest
from django.db import transaction
from django.test import override_settings

FIXTURES = set()  # names of the module-data fixtures
_active = {}  # module node id -> name of the fixture whose rows are in the database


def module_data(build):
    """A module-scoped fixture named after ``build``, whose value is what ``build()``
    returned, after writing its rows; see the module's docstring."""

    @pytest.fixture(scope="module", name=build.__name__)
    def fixture(request, django_db_setup, django_db_blocker, tmp_path_factory):
        media = tmp_path_factory.mktemp(f"{build.__name__}-media")
        with django_db_blocker.unblock():
            outer = transaction.atomic()
            outer.__enter__()
        try:
            with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=media):
                value = build()
            _active[request.node.nodeid] = build.__name__
            yield _Shared(value)
        finally:
            _active.pop(request.node.nodeid, None)
            with django_db_blocker.unblock():
                transaction.set_rollback(True)
                outer.__exit__(None, None, None)

    fixture.__doc__ = build.__doc__
    FIXTURES.add(build.__name__)
    return fixture


class _Shared:
    def __init__(self, value):
        self.value = value

    def copy(self):
        return copy.deepcopy(self.value)


def uses(item):
    return bool(FIXTURES & set(getattr(item, "fixturenames", ())))


def order_items(items):
    """Within each module, the tests that use module data after those that do not (stable);
    a transactional test asking for module data is refused."""
    for item in items:
        if not uses(item):
            continue
        marker = item.get_closest_marker("django_db")
        transactional = marker is not None and (
            marker.kwargs.get("transaction") or (marker.args and marker.args[0])
        )
        if transactional or "transactional_db" in item.fixturenames:
            raise pytest.UsageError(
                f"{item.nodeid}: a transactional test cannot use module data "
                "(tests/shared_data.py): it commits, and empties the database after itself"
            )
    position = {id(item): index for index, item in enumerate(items)}
    first_of = {}
    for item in items:
        first_of.setdefault(item.getparent(pytest.Module), position[id(item)])
    items.sort(
        key=lambda item: (first_of[item.getparent(pytest.Module)], uses(item), position[id(item)])
    )


def refuse_unexpected(item):
    """Fail a test that does not use the module data present in the database."""
    module = item.getparent(pytest.Module)
    name = _active.get(module.nodeid) if module is not None else None
    if name and name not in getattr(item, "fixturenames", ()):
        pytest.fail(
            f"{item.nodeid} would run with {name}'s rows in the database "
            "(tests/shared_data.py orders it before them: is another plugin reordering tests?)",
            pytrace=False,
        )
