"""A WordPress export is untrusted input: entity tricks end in one clear line (never a
traceback), and images pasted inline as ``data:`` URLs are stored as files, never printed."""

import base64
import io
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from PIL import Image

from blog.models import Note
from blog.porting.run import import_wordpress

pytestmark = pytest.mark.django_db

HEAD = """<?xml version="1.0" encoding="UTF-8" ?>
{doctype}<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><language>en</language>
"""
ITEM = """<item><title>{title}</title><link>https://old.example/{slug}/</link>
<content:encoded><![CDATA[{html}]]></content:encoded>
<wp:post_id>{post_id}</wp:post_id><wp:post_date_gmt>2025-08-17 13:40:00</wp:post_date_gmt>
<wp:post_name>{slug}</wp:post_name><wp:status>publish</wp:status>
<wp:post_type>post</wp:post_type></item>
"""

BOMB = """<!DOCTYPE rss [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
"""
XXE = '<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'


def export(tmp_path, items, doctype="", body_entity=""):
    text = HEAD.format(doctype=doctype)
    for number, (title, html) in enumerate(items, start=1):
        text += ITEM.format(title=title + body_entity, html=html, post_id=number,
                            slug=f"post-{number}")  # fmt: skip
    path = tmp_path / "export.xml"
    path.write_text(text + "</channel></rss>\n", "utf-8")
    return path


def png_data_url(size=(40, 30)):
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 80, 20)).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize("doctype, entity", [(BOMB, "&lol3;"), (XXE, "&xxe;")])
def test_entity_bombs_and_external_entities_end_in_one_clear_line(tmp_path, doctype, entity):
    path = export(tmp_path, [("Post", "<p>Body</p>")], doctype=doctype, body_entity=entity)
    report = import_wordpress(path)
    [problem] = report.problems
    assert str(problem).startswith("export.xml: error: not imported: the file declares XML ")
    assert "which biji refuses" in str(problem)
    assert not Note.objects.exists()
    out, err = StringIO(), StringIO()
    call_command("import_wordpress", str(path), stdout=out, stderr=err)  # no traceback
    assert "which biji refuses" in out.getvalue() and "Traceback" not in err.getvalue()


def test_an_inline_data_image_is_stored_as_a_file(tmp_path, settings):
    html = f'<p>Before</p><img src="{png_data_url()}" alt="chart" /><p>After</p>'
    report = import_wordpress(export(tmp_path, [("Inline", html)]))
    note = Note.objects.get()
    assert "data:" not in note.body
    [stored] = [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]
    assert f"![chart](/media/{stored.relative_to(settings.MEDIA_ROOT).as_posix()})" in note.body
    assert Image.open(stored).size == (40, 30)
    assert not report.remote_images and not report.problems
    import_wordpress(export(tmp_path, [("Inline", html)]))  # again: the same file, unchanged
    assert len([p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]) == 1


def test_an_8_mb_inline_image_is_never_printed_whole(tmp_path):
    """Over the upload limit: reported by type and size, removed from the body; no line of the
    report is long."""
    huge = "data:image/png;base64," + "iVBORw0KGgo" * (8 * 1024 * 1024 // 11)
    report = import_wordpress(export(tmp_path, [("Huge", f'<img src="{huge}" alt="big" />')]))
    lines = report.lines()
    assert max(map(len, lines)) < 500
    assert any("inline image (image/png, 8,388," in line and "removed" in line for line in lines)
    assert "iVBORw0KGgoiVBORw0KGgo" not in Note.objects.get().body
    out = StringIO()
    call_command("import_wordpress", str(tmp_path / "export.xml"), stdout=out, stderr=StringIO())
    assert len(out.getvalue()) < 5000


def test_report_lines_cut_any_long_value(tmp_path):
    long_url = "https://cdn.example.net/" + "x" * 5000 + ".png"
    report = import_wordpress(export(tmp_path, [("Remote", f'<img src="{long_url}" alt="r" />')]))
    [line] = [line for line in report.lines() if "remote image left as a link" in line]
    assert len(line) < 300 and "[5,0" in line  # the length is said


def test_a_post_over_the_size_limit_is_reported_and_the_others_imported(tmp_path):
    """The 1 MB limit of a Markdown file holds for a WordPress post's text too (a 1 MB text
    takes ~4 s to render; 20 MB held a worker for minutes)."""
    long_html = "<p>" + "字" * (400 * 1024) + "</p>"  # 1.2 MB of UTF-8
    report = import_wordpress(export(tmp_path, [("Long", long_html), ("Short", "<p>Hi</p>")]))
    assert (
        "export.xml#item 1 (id 1): error: not imported: the text is 1.2 MB: texts over 1 MB "
        "are not imported" in report.lines()
    )
    assert list(Note.objects.values_list("title", flat=True)) == ["Short"]
