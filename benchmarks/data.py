"""Generated blogs of realistic shape for the page benchmark (``benchmark_pages``).

Notes are written from the search benchmark's vocabulary (``benchmark_search._Topic``: Chinese
and English sentences that keep coming back to a few terms), with what real notes carry: a
fenced CUDA block, display math, a table, headings. Bodies are rendered by the real renderer
(:func:`blog.rendering.render_markdown`) from a pool of :data:`POOL` variants, since rendering
10,000 notes one by one would take minutes; titles, slugs and dates are each note's own.

The shape the issue asks for: ``count`` notes (about 94% published, 3% drafts, 3% scheduled),
50 bilingual tags (1-4 a note), 5 series of 20 parts, and one note in ten paired with a
translation. The same ``seed`` gives the same blog. Everything made here has a slug starting
with :data:`SLUG_PREFIX`, so a database holding anything else can be recognised and refused.
"""

import random
from datetime import timedelta

from django.db import connections
from django.utils import timezone

from benchmarks.search import TAGS, _Topic
from blog.caching import version as content_version
from blog.models import Language, Note, Series, Status, Tag, TaggedNote
from blog.rendering import render_markdown

SLUG_PREFIX = "bench-"
POOL = 60
TAG_COUNT = 50
SERIES = 5
SERIES_PARTS = 20

CODE = """```cuda
__global__ void scale(float *x, float a, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;  // {term}
}}
```"""
MATH = (
    r"$$\mathrm{{AI}} = \frac{{2MNK}}{{(MK + KN + MN)\cdot b}}, \quad t \ge \frac{{W}}{{{term}}}$$"
)
TABLE = """| {term} | ms | TFLOPS |
|---|---:|---:|
| cuBLAS | 1.21 | 702 |
| ours | 1.12 | 758 |"""


def _body(rng, chinese):
    """About 2,800 characters of Markdown: prose, a heading, code, math and a table."""
    topic = _Topic(rng)
    sentence, glue = (topic.zh_sentence, "") if chinese else (topic.en_sentence, " ")
    term = topic.en_term()
    parts, size = [], 0
    while size < 2200:
        paragraph = glue.join(sentence() for _ in range(rng.randint(2, 5)))
        parts.append(paragraph)
        size += len(paragraph)
    parts.insert(1, f"## {topic.zh_term() if chinese else term}")
    parts.insert(2, CODE.format(term=term))
    parts.insert(4, MATH.format(term=term.replace("-", "")))
    parts.insert(5, TABLE.format(term=term))
    return "\n\n".join(parts)


def _pool(rng):
    pool = []
    for number in range(POOL):
        chinese = number % 5 < 3  # three in five notes are Chinese
        body = _body(rng, chinese)
        rendered = render_markdown(body, "目录" if chinese else "Contents")
        pool.append((chinese, body, rendered))
    return pool


def _tags(using):
    names = list(TAGS) + [(f"Topic {n}", f"主题 {n}") for n in range(TAG_COUNT - len(TAGS))]
    return [
        Tag.objects.using(using).get_or_create(
            name=en, defaults={"name_zh": zh, "slug": f"{SLUG_PREFIX}tag-{i}"}
        )[0]
        for i, (en, zh) in enumerate(names[:TAG_COUNT])
    ]


def _series(using):
    return [
        Series.objects.using(using).get_or_create(
            slug=f"{SLUG_PREFIX}series-{n}",
            defaults={"title_en": f"Series {n}", "title_zh": f"系列 {n}"},
        )[0]
        for n in range(SERIES)
    ]


def generate(count, seed=10, using="default", batch=1000):
    """Replace the generated notes with ``count`` new ones; returns the number published."""
    rng = random.Random(seed)  # noqa: S311 (reproducible, not secret)
    now = timezone.now()
    Note.objects.using(using).filter(slug__startswith=SLUG_PREFIX).delete()
    pool, tags, series = _pool(rng), _tags(using), _series(using)
    ids = []
    for start in range(0, count, batch):
        notes = []
        for number in range(start, min(count, start + batch)):
            chinese, body, rendered = pool[rng.randrange(POOL)]
            in_series = number < SERIES * SERIES_PARTS
            if in_series:
                chinese = True  # one language per series position (a unique constraint)
            roll = rng.random()
            status = Status.DRAFT if roll < 0.03 else Status.PUBLISHED
            published_at = now - timedelta(minutes=rng.randint(10, 5 * 365 * 24 * 60))
            if in_series:
                status, published_at = Status.PUBLISHED, now - timedelta(days=400 - number)
            elif 0.03 <= roll < 0.06:
                published_at = now + timedelta(days=rng.randint(1, 60))  # scheduled
            title = (
                f"{rendered.excerpt[:12]}：笔记 {number}"
                if chinese
                else f"Notes on {rendered.excerpt[:24]}, part {number}"
            )
            notes.append(
                Note(
                    title=title,
                    slug=f"{SLUG_PREFIX}{number}",
                    language=Language.CHINESE if chinese else Language.ENGLISH,
                    body=body,
                    body_html=rendered.html,
                    toc_html=rendered.toc_html,
                    plain_text=rendered.plain_text,
                    excerpt=rendered.excerpt,
                    word_count=rendered.word_count,
                    reading_minutes=rendered.reading_minutes,
                    status=status,
                    published_at=published_at if status == Status.PUBLISHED else None,
                    series=series[number // SERIES_PARTS] if in_series else None,
                    series_position=number % SERIES_PARTS + 1 if in_series else None,
                )
            )
        created = Note.objects.using(using).bulk_create(notes)
        if not all(note.pk for note in created):
            created = list(
                Note.objects.using(using).filter(slug__in=[n.slug for n in notes]).order_by("pk")
            )
        ids += [note.pk for note in created]
        TaggedNote.objects.using(using).bulk_create(
            TaggedNote(content_object=note, tag=tag)
            for note in created
            for tag in rng.sample(tags, rng.randint(1, 4))
        )
    _pair_translations(ids, using)
    from blog.search.index import rebuild

    rebuild(using=using)
    if connections[using].vendor == "postgresql":
        with connections[using].cursor() as cursor:
            cursor.execute("ANALYZE")
    content_version.bump(using)  # bulk_create sends no signals
    return Note.objects.using(using).published().filter(slug__startswith=SLUG_PREFIX).count()


def _pair_translations(ids, using):
    """One note in ten (outside the series) links to the next note in the other language."""
    notes = Note.objects.using(using)
    rows = dict(
        notes.filter(pk__in=ids[SERIES * SERIES_PARTS :], status=Status.PUBLISHED).values_list(
            "pk", "language"
        )
    )
    candidates = [pk for pk in ids if pk in rows]
    for first, second in zip(candidates[::20], candidates[1::20], strict=False):
        if rows[first] != rows[second]:
            notes.filter(pk=first).update(translation_id=second)


def _deep_home_page(deepest=50):
    """Page 50 of the home list, or its last page on a smaller blog: a page past the end is
    shown too, but no cache keeps it (blog.caching.canonical)."""
    from django.core.paginator import Paginator

    from blog.public.views import HomeView
    from blog.public.views.base import listed_notes

    return min(deepest, Paginator(listed_notes(), HomeView.paginate_by).num_pages)


def sample_urls(using="default"):
    """The pages the benchmark fetches, by name: one of each kind, chosen from the data."""
    from django.urls import reverse

    published = Note.objects.using(using).published().filter(slug__startswith=SLUG_PREFIX)
    note = published.filter(series__isnull=True, translation__isnull=True).order_by("-pk").first()
    part = published.filter(series__isnull=False).order_by("series_id", "series_position")[5]
    tag = Tag.objects.using(using).get(slug=f"{SLUG_PREFIX}tag-2")
    series = part.series
    year = published.order_by("-published_at").first().published_at.year
    return {
        "home": reverse("blog:home"),
        "home page 50": reverse("blog:home") + f"?page={_deep_home_page()}",
        "note": reverse("blog:note-detail", kwargs={"slug": note.slug}),
        "note in a series": reverse("blog:note-detail", kwargs={"slug": part.slug}),
        "tag list": reverse("blog:tag-list"),
        "tag": reverse("blog:tag-detail", kwargs={"slug": tag.slug}),
        "series": reverse("blog:series-detail", kwargs={"slug": series.slug}),
        "archive": reverse("blog:archive"),
        "archive year": reverse("blog:archive-year", kwargs={"year": year}),
        "feed (RSS)": reverse("feeds:all-rss"),
        "feed (Atom)": reverse("feeds:all-atom"),
        "tag feed": reverse("feeds:tag-rss", kwargs={"slug": tag.slug}),
        "sitemap index": reverse("sitemap"),
        "sitemap page": reverse("sitemap-section", kwargs={"section": "notes"}),
        "search 调度": reverse("blog:search") + "?q=%E8%B0%83%E5%BA%A6",
    }
