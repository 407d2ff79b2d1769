"""A note's, tag's, series' or page's path is what reverse() gives, in every interface
language and under a script prefix (blog.text.slug_urls keeps the path around the slug); the
models below the public layer ask for it by kind and name no public URL
(blog.models.content_paths)."""

import re
from pathlib import Path

import pytest
from django.urls import NoReverseMatch, reverse, set_script_prefix
from django.utils import translation

from blog.models import content_paths
from blog.text.slug_urls import slug_path
from tests.processes import manage, site_env

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


# --- The layers below the public one ask for a path by kind (blog.models.content_paths) -------

BELOW_PUBLIC = ["text", "rendering", "models", "background"]
KINDS = {
    "note": "blog:note-detail",
    "tag": "blog:tag-detail",
    "series": "blog:series-detail",
    "page": "blog:page-detail",
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_kind_s_path_is_its_public_url(kind, language):
    with translation.override(language):
        assert content_paths.path(kind, "x-1") == reverse(KINDS[kind], kwargs={"slug": "x-1"})
        assert content_paths.path("glossary") == reverse("blog:glossary")


def test_which_kind_of_content_a_url_shows():
    assert content_paths.kind_of("blog:note-share") == "note"
    assert content_paths.kind_of("blog:page-detail") == "page"
    assert content_paths.kind_of("blog:search") is None


@pytest.mark.parametrize("package", BELOW_PUBLIC)
def test_no_module_below_the_public_layer_names_a_public_url(package):
    root = Path(__file__).parent.parent / "blog" / package
    for module in root.rglob("*.py"):
        named = re.findall(r"""["'](?:blog|feeds):[\w-]+""", module.read_text(encoding="utf-8"))
        assert not named, f"{module.relative_to(root.parent)} names {named}"


@pytest.mark.slow
def test_a_fresh_process_finds_the_paths_before_any_url_is_reversed(tmp_path):
    """The URLconf provides them as it is imported: the first path asked for imports it."""
    env = site_env(f"sqlite:///{tmp_path}/db.sqlite3", tmp_path / "media")
    code = "from blog.models import Note, Tag; print(Note(slug='a').get_absolute_url(), "
    code += "Tag(slug='b').get_absolute_url())"
    assert manage(env, "shell", "-v", "0", "-c", code).split() == ["/notes/a/", "/tags/b/"]
