"""Stored links render only with schemes a reader can follow, whatever the database holds."""

import pytest
from django.core.exceptions import ValidationError

from blog.models import NavigationLink, Note, SiteSettings
from blog.text.validators import validate_link_url
from tests.factories import make_note

pytestmark = pytest.mark.django_db

HOSTILE = [
    "javascript:alert(1)",
    " JavaScript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<b>x",
]


@pytest.mark.parametrize("url", HOSTILE + ["vbscript:msgbox(1)", "//evil.example/"])
def test_the_validator_refuses_other_schemes(url):
    with pytest.raises(ValidationError):
        validate_link_url(url)


@pytest.mark.parametrize(
    "url",
    ["https://example.com/a", "http://x.org", "mailto:me@x.org", "/series/", "about/", "#top"],
)
def test_the_validator_accepts_links_and_site_paths(url):
    validate_link_url(url)


@pytest.mark.parametrize("url", HOSTILE)
def test_a_stored_hostile_source_url_is_not_rendered_as_a_link(client, url):
    note = make_note(source_title="Original", source_author="Ines Okafor")
    Note.objects.filter(pk=note.pk).update(source_url=url)  # as an import or loaddata could
    html = client.get(note.get_absolute_url()).content.decode()
    assert "script:" not in html.lower().replace("\t", "") and "data:text" not in html
    assert "Ines Okafor" in html


@pytest.mark.parametrize("url", HOSTILE)
def test_a_stored_hostile_navigation_link_is_not_rendered(client, url):
    site = SiteSettings.objects.create()
    NavigationLink.objects.create(site=site, label_zh="坏", label_en="Bad", url="/ok/")
    NavigationLink.objects.filter(site=site).update(url=url)
    make_note()
    html = client.get("/").content.decode()
    assert "script:" not in html.lower().replace("\t", "") and "data:text" not in html
    assert ">坏<" in html
