"""`make run` loads the demo only into an empty database: the author's work is never undone."""

from io import StringIO

import pytest
from django.core.management import call_command

from blog.models import Note, Series
from tests.factories import make_series

pytestmark = pytest.mark.django_db


def load_if_empty():
    out = StringIO()
    call_command("load_demo", "--if-empty", stdout=out)
    return out.getvalue()


def test_loads_into_an_empty_database():
    assert "Demo loaded" in load_if_empty()
    assert Note.objects.count() == 13


def test_never_restores_a_deleted_note_undoes_an_edit_or_touches_dates():
    load_if_empty()
    Note.objects.get(slug="first-rainy-season").delete()
    edited = Note.objects.get(slug="cython-bindings")
    edited.title = "My own title"
    edited.save()
    stamps = dict(Note.objects.values_list("slug", "updated_at"))
    message = load_if_empty()
    assert "not loaded" in message
    assert not Note.objects.filter(slug="first-rainy-season").exists()
    assert Note.objects.get(slug="cython-bindings").title == "My own title"
    assert dict(Note.objects.values_list("slug", "updated_at")) == stamps


def test_a_database_with_only_a_series_counts_as_the_authors():
    make_series(title_en="Mine")
    assert "not loaded" in load_if_empty()
    assert Series.objects.count() == 1 and Note.objects.count() == 0
