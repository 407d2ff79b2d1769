"""`manage.py rerender` stores what the current renderer produces."""

from io import StringIO

import pytest
from django.core.management import call_command

from blog.models import Note
from tests.factories import make_note

pytestmark = pytest.mark.django_db


def test_stale_html_is_rendered_again():
    note = make_note(body="## 调度\n\n$x^2$")
    Note.objects.filter(pk=note.pk).update(body_html="<p>stale</p>", word_count=0)
    out = StringIO()
    call_command("rerender", stdout=out)
    note.refresh_from_db()
    assert "stale" not in note.body_html
    assert "<math" in note.body_html and note.word_count > 0
    assert "Note: 1" in out.getvalue()
