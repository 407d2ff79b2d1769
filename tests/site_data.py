"""Fixtures shared by the public-site tests.

Test modules load them with ``pytest_plugins = ["tests.site_data"]`` and start each test in
the Chinese interface with ``pytestmark = pytest.mark.usefixtures("chinese_interface")``.
"""

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from blog.models import Language, Note, SiteSettings, Status, Tag, TaggedNote
from tests.factories import make_note, make_page, make_series, make_tag
from tests.shared_data import module_data


@pytest.fixture
def chinese_interface():
    """Start each test in the default interface language: a request to /en/ leaves English
    active in the thread, which would otherwise leak into the next test's reverse()."""
    translation.activate("zh-hans")
    yield
    translation.activate("zh-hans")


@pytest.fixture
def site_settings(db):
    settings_row = SiteSettings.objects.create(
        title="笔记 biji", tagline_zh="我学到的与写下的", tagline_en="What I learn", author="Ada"
    )
    return settings_row


@pytest.fixture
def blog(small_blog, db):
    """A small blog: a five-part series, a translated pair, tags, a page and a draft; made
    once per test module, each test's changes undone when it ends (tests/shared_data.py)."""
    return small_blog.copy()


@module_data
def small_blog():
    """The rows of :func:`blog`."""
    gpu = make_tag("GPU", "图形处理器")
    sched = make_tag("Scheduling", "调度")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    parts = [
        make_note(
            title=f"第 {i} 部分：调度",
            slug=f"part-{i}",
            # Two headings: a note with one has no contents box (tests/test_toc_box.py).
            body=f"## 调度\n\nGPU 上的 kernel 调度，第 {i} 部分。\n\n## 小结\n\n先写到这里。\n",
            series=series,
            series_position=i,
            tags=[gpu, sched] if i % 2 else [gpu],
            published_ago=timedelta(days=30 - i),
        )
        for i in range(1, 6)
    ]
    english = make_note(
        title="Beating cuBLAS on H100",
        slug="beating-cublas",
        language=Language.ENGLISH,
        body="## Kernels\n\nA worklog.\n",
        tags=[gpu],
        translation=parts[1],
        series=series,
        series_position=2,  # a translation shares its original's place: one part, two languages
        source_title="Outperforming cuBLAS on H100",
        source_author="Pranjal Shankhdhar",
        source_url="https://example.com/cublas",
    )
    page = make_page(title="About", slug="about")
    return {
        "gpu": gpu,
        "sched": sched,
        "series": series,
        "parts": parts,
        "english": english,
        "page": page,
    }


def bulk_blog(notes=200, tags=50):
    """Many published notes and tags, fast: bulk_create skips save()'s rendering."""
    now = timezone.now()
    tag_objs = Tag.objects.bulk_create(
        [Tag(name=f"Topic {i}", name_zh=f"主题 {i}", slug=f"topic-{i}") for i in range(tags)]
    )
    series = make_series(title_en="Big series", title_zh="大系列", slug="big-series")
    note_objs = Note.objects.bulk_create(
        [
            Note(
                title=f"笔记 {i}",
                slug=f"bulk-{i}",
                language=Language.CHINESE if i % 3 else Language.ENGLISH,
                status=Status.PUBLISHED,
                published_at=now - timedelta(days=i * 3 + 1),
                series=series if i < 20 else None,
                series_position=i + 1 if i < 20 else None,
                body_html=f"<p>正文 {i}</p>",
                excerpt=f"摘要 {i}",
            )
            for i in range(notes)
        ]
    )
    TaggedNote.objects.bulk_create(
        [
            TaggedNote(content_object=note, tag=tag_objs[(i + k) % tags])
            for i, note in enumerate(note_objs)
            for k in range(3)
        ]
    )
    Note.objects.filter(pk=note_objs[1].pk).update(translation=note_objs[2])
    Note.objects.bulk_create(
        [Note(title=f"草稿 {i}", slug=f"draft-{i}", status=Status.DRAFT) for i in range(5)]
    )
    return {"notes": note_objs, "tags": tag_objs, "series": series}
