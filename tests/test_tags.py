"""Bilingual tags: either name finds a tag, in the admin's tag field and through the manager."""

import pytest
from django.urls import reverse

from blog.models import Note, Tag
from tests.factories import make_note, make_tag, note_form_data

pytestmark = pytest.mark.django_db


def test_resolve_finds_tags_by_either_name_and_creates_new_ones():
    scheduling = make_tag(name="Scheduling", name_zh="调度")
    tags = Tag.objects.resolve(["调度", "scheduling", "CUDA", "算子", "SCHEDULING"])
    assert tags[0] == scheduling and len(tags) == 3  # repeats dropped, order kept
    cuda, operator = tags[1:]
    assert (cuda.name, cuda.name_zh) == ("CUDA", "")
    # A new Chinese name is the Chinese name only: the tag admin lists it as needing English.
    assert (operator.name, operator.name_zh) == ("", "算子")
    assert Tag.objects.count() == 3


def test_resolve_survives_losing_a_creation_race(monkeypatch):
    """Another request created the same tag between the look-up and the insert."""
    real_find = Tag.objects.find
    calls = []

    def find_after_the_other_request(text):
        calls.append(text)
        if len(calls) == 1:
            Tag.objects.create(name=text)  # the other request wins
            return None
        return real_find(text)

    monkeypatch.setattr(Tag.objects, "find", find_after_the_other_request)
    (tag,) = Tag.objects.resolve(["Triton"])
    assert tag.name == "Triton" and Tag.objects.filter(name="Triton").count() == 1


def test_typing_a_chinese_name_in_the_admin_finds_the_existing_tag(staff_client):
    scheduling = make_tag(name="Scheduling", name_zh="调度")
    note = make_note(title="Warp 调度", slug="warp")
    url = reverse("admin:blog_note_change", args=[note.pk])
    response = staff_client.post(url, note_form_data(note, tags="调度, Kernels"))
    assert response.status_code == 302, response.context["adminform"].form.errors
    note = Note.objects.get(pk=note.pk)
    assert set(note.tags.all()) == {scheduling, Tag.objects.get(name="Kernels")}
    assert Tag.objects.count() == 2


def test_a_tag_is_removed_whatever_its_names_and_the_interface_language():
    """taggit removes by English name: a tag still without one stayed on the note."""
    chinese_only, both = make_tag(name="", name_zh="算子"), make_tag("Scheduling", "调度")
    other = make_tag("Memory", "内存")
    note = make_note(slug="n", tags=[chinese_only, both, other])
    note.tags.remove(chinese_only)
    note.tags.remove("调度")  # a name in either language, as the admin's field takes them
    assert list(note.tags.all()) == [other]


def test_a_note_s_prefetched_tags_follow_a_removal():
    kept, gone = make_tag("Memory", "内存"), make_tag(name="", name_zh="算子")
    make_note(slug="n", tags=[kept, gone])
    note = Note.objects.prefetch_related("tags").get(slug="n")
    assert set(note.tags.all()) == {kept, gone}
    note.tags.remove(gone)
    assert list(note.tags.all()) == [kept]
