"""An edit empties only what changed: the cached pages that show the edited note are rendered
again, every other page stays cached, and no page served is ever older than the content.

The blog: 25 notes over four months in two tags and two series, a translated pair; every public
page and feed is warmed, then one change is made and every URL asked again. Whatever is served
must be what a fresh render gives; which pages missed must be exactly those that show the change.
"""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from blog.caching import pages as page_cache
from blog.models import Language, Note, SiteSettings
from tests.factories import make_note, make_series, make_tag

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = page_cache.HEADER


@pytest.fixture
def blog(db):
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    scheduling, memory = make_tag("Scheduling", "调度"), make_tag("Memory", "内存")
    gpu = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    parallel = make_series(title_en="Parallel", title_zh="并行计算", slug="parallel")
    notes = []
    for n in range(25):
        series = gpu if n < 5 else parallel if n < 10 else None
        notes.append(
            make_note(
                title=f"笔记 {n:02d}",
                slug=f"n{n:02d}",
                tags=[scheduling if n % 2 == 0 else memory],
                series=series,
                series_position=(n % 5) + 1 if series else None,
                published_ago=timedelta(days=5 * n + 1),
            )
        )
    english = make_note(
        title="Note 03 in English",
        slug="n03-en",
        language=Language.ENGLISH,
        tags=[memory],
        published_ago=timedelta(days=5 * 3 + 1),
    )
    notes[3].translation = english
    notes[3].save()
    return {"notes": notes, "scheduling": scheduling, "memory": memory}


def public_urls(blog):
    urls = ["/", "/?page=2", "/?page=3", "/en/", "/en/?page=2", "/tags/", "/series/"]
    urls += ["/archive/", "/feed/", "/feed/atom/", "/lang/en/feed/", "/lang/zh-hans/feed/"]
    urls += ["/sitemap.xml", "/sitemap-notes.xml", "/sitemap-tags.xml"]
    for slug in ("scheduling", "memory"):
        urls += [f"/tags/{slug}/", f"/tags/{slug}/?page=2", f"/tags/{slug}/feed/"]
    for slug in ("gpu-notes", "parallel"):
        urls += [f"/series/{slug}/", f"/series/{slug}/feed/"]
    dates = {timezone.localtime(note.published_at) for note in blog["notes"]}
    months = sorted({(date.year, date.month) for date in dates})
    urls += [reverse("blog:archive-month", args=month) for month in months]
    urls += [note.get_absolute_url() for note in Note.objects.published()]
    return urls


def warm_all(client, urls):
    for url in urls:
        client.get(url)
        assert client.get(url)[HEADER] == "hit", url


def fresh(client, url):
    with override_settings(BIJI_PAGE_CACHE_SECONDS=0):
        return client.get(url).content


def ask_again(client, urls):
    """{url: "hit" or "miss"}, and {url: the page}; every answer is what a fresh render gives."""
    served, pages = {}, {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.content == fresh(client, url), f"{url} is older than the content"
        served[url], pages[url] = response[HEADER], response.content.decode()
    return served, pages


def showing(pages, text):
    return {url for url, page in pages.items() if text in page}


def test_fixing_a_typo_renders_again_only_the_pages_that_show_the_note(client, blog):
    urls = public_urls(blog)
    warm_all(client, urls)
    note = blog["notes"][22]  # an old note: on the third home page, not in the site's feeds
    note.body = note.body.replace("GPU", "GPU（已修正）")
    note.save()
    served, pages = ask_again(client, urls)
    shows_it = showing(pages, note.get_absolute_url())
    missed = {url for url, how in served.items() if how == "miss"}
    # The sitemaps also date each section, and each tag, by its newest edit.
    assert missed == shows_it | {"/sitemap.xml", "/sitemap-tags.xml"}
    # What that means here: its page, the lists and feeds carrying it, the pages that link it.
    assert {note.get_absolute_url(), "/?page=3", "/tags/scheduling/?page=2"} <= missed
    assert {"/", "/?page=2", "/feed/", "/tags/", "/series/gpu-notes/"}.isdisjoint(missed)
    assert len(missed) < len(urls) / 3


def test_publishing_a_note_renders_again_the_lists_it_enters(client, blog):
    urls = public_urls(blog)
    warm_all(client, urls)
    new = make_note(title="新的内存笔记", slug="fresh", tags=[blog["memory"]])
    served, _pages = ask_again(client, urls)
    missed = {url for url, how in served.items() if how == "miss"}
    assert {"/", "/feed/", "/tags/", "/tags/memory/", "/tags/memory/feed/", "/archive/"} <= missed
    assert "/sitemap-notes.xml" in missed
    # The other tag's pages and the series do not list it.
    assert {"/tags/scheduling/", "/series/gpu-notes/", "/series/parallel/"}.isdisjoint(missed)
    assert client.get(new.get_absolute_url()).status_code == 200


def test_unpublishing_a_note_takes_it_off_every_page_at_once(client, blog):
    urls = public_urls(blog)
    warm_all(client, urls)
    note = blog["notes"][1]  # Memory, GPU notes part 2, on the first home page
    note.status, note.published_at = "draft", None
    note.save()
    assert client.get(note.get_absolute_url()).status_code == 404
    urls.remove(note.get_absolute_url())
    _served, pages = ask_again(client, urls)
    assert not showing(pages, note.get_absolute_url())


def test_unlinking_a_translation_from_either_side_shows_everywhere_at_once(client, blog):
    """The link is stored on the Chinese note; it is dropped from the English one."""
    from blog.models.translations import link_translation

    urls = public_urls(blog)
    warm_all(client, urls)
    english = Note.objects.get(slug="n03-en")
    link_translation(english, None)
    _served, pages = ask_again(client, urls)
    assert not showing(pages, 'class="translation-link"')


def test_a_change_that_names_no_part_empties_everything(client, blog):
    from blog.caching import bump

    urls = public_urls(blog)
    warm_all(client, urls)
    Note.objects.filter(pk=blog["notes"][0].pk).update(title="Renamed by update()")
    bump()
    served, _pages = ask_again(client, urls)
    assert set(served.values()) == {"miss"}


def test_a_scheduled_note_coming_due_renders_everything_again(client, blog, time_machine):
    due = timezone.now() + timedelta(hours=1)
    make_note(title="定时的笔记", slug="later", published_ago=-timedelta(hours=1))
    urls = public_urls(blog)
    warm_all(client, urls)
    time_machine.move_to(due + timedelta(seconds=5))
    served, _pages = ask_again(client, urls)
    assert "定时的笔记" in client.get("/").content.decode()
    assert set(served.values()) == {"miss"}


def test_a_reader_holding_a_page_an_edit_did_not_touch_is_answered_304(client, blog):
    untouched, edited = blog["notes"][0], blog["notes"][22]
    held = {}
    for note in (untouched, edited):
        url = note.get_absolute_url()
        client.get(url)
        held[url] = client.get(url)["ETag"]
    edited.body += "\n\n补充一段。"
    edited.save()
    for note, status in ((untouched, 304), (edited, 200)):
        url = note.get_absolute_url()
        assert client.get(url, HTTP_IF_NONE_MATCH=held[url]).status_code == status, url
    # An ETag names its URL: another page's is no proof of this one.
    other = client.get(
        edited.get_absolute_url(), HTTP_IF_NONE_MATCH=held[untouched.get_absolute_url()]
    )
    assert other.status_code == 200


def test_after_an_edit_elsewhere_a_kept_page_is_checked_once(
    client, blog, django_assert_num_queries
):
    """A hit reads the content state; after an edit elsewhere, the first hit also reads its
    parts' versions (still current: served, and kept as checked now), the next only the state."""
    url = blog["notes"][0].get_absolute_url()
    client.get(url)
    edited = blog["notes"][22]
    edited.body += "\n\n补充一段。"
    edited.save()
    with django_assert_num_queries(2):
        assert client.get(url)[HEADER] == "hit"
    with django_assert_num_queries(1):
        assert client.get(url)[HEADER] == "hit"
