"""A note's, tag's, series' or page's path is what reverse() gives, in every interface
language and under a script prefix (blog.text.slug_urls keeps the path around the slug)."""

import pytest
from django.urls import NoReverseMatch, reverse, set_script_prefix
from django.utils import translation

from blog.text.slug_urls import slug_path

pytestmark = pytest.mark.backend_independent  # no database, no cache: tests/backend_guard.py

VIEWS = ["blog:note-detail", "blog:tag-detail", "blog:series-detail", "blog:page-detail"]


@pytest.mark.parametrize("viewname", VIEWS)
@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("prefix", ["/", "/blog/"])
def test_the_same_path_as_reverse(viewname, language, prefix):
    set_script_prefix(prefix)
    try:
        with translation.override(language):
            for slug in ["warp-scheduling", "cuda_12", "a", "H100-SXM5"]:
                assert slug_path(viewname, slug) == reverse(viewname, kwargs={"slug": slug})
            assert slug_path(viewname, "x").startswith(prefix + ("en/" if language == "en" else ""))
    finally:
        set_script_prefix("/")


def test_a_slug_a_url_cannot_carry_is_refused_as_reverse_refuses_it():
    for bad in ["", "has space", "调度", "a/b"]:
        with pytest.raises(NoReverseMatch):
            slug_path("blog:note-detail", bad)
