"""WordPress's own rules, kept on import: captions become figures, code shortcodes fenced code,
and Polylang's languages and translation groups linked pairs.

Each export is a small WXR 1.2 file as WordPress writes it (``tests/samples/wordpress_rules``),
its content as stored (wpautop's paragraphs are blank lines); the images are drawn here.
"""

import shutil
import time
from pathlib import Path

import pytest
from PIL import Image

from blog.models import Note, Tag
from blog.porting.report import Report
from blog.porting.run import import_wordpress
from blog.porting.wordpress import read_export

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parent / "samples" / "wordpress_rules"
UPLOADS = ("pipeline.png", "pipeline-300x169.png", "bubble.png")


def export(tmp_path, name):
    """The sample export ``name`` in a folder of its own, beside its site's uploads."""
    folder = tmp_path / "site"
    folder.mkdir(exist_ok=True)
    shutil.copy(SAMPLES / name, folder / name)
    uploads = folder / "wp-content" / "uploads" / "2025" / "08"
    uploads.mkdir(parents=True, exist_ok=True)
    for index, file_name in enumerate(UPLOADS):
        Image.new("RGB", (30 + index, 17), (40 * index, 90, 160)).save(uploads / file_name)
    return folder / name


def lines(report):
    return "\n".join(report.lines())


def test_captions_become_figures_with_their_captions(tmp_path):
    report = import_wordpress(export(tmp_path, "captions.xml"))
    note = Note.objects.get(slug="pipelining")
    html = note.body_html
    assert html.count("<figure>") == 3 and html.count("<figcaption>") == 3
    assert "[caption" not in note.body and "[caption" not in html
    # The image in its link, both stored from the uploads; the caption's HTML as Markdown.
    first = html.split("<figure>")[1]
    assert '<img alt="Timeline of CPU and GPU work" src="/media/uploads/' in first
    assert "<a href=" in first  # the link around the image
    assert (
        '<figcaption>The overlap, <em>step by step</em>; see <a href="https://example.org/paper"'
        in first
    )
    # The caption given as an attribute, its text kept as text.
    second = html.split("<figure>")[2]
    assert '<img alt="Idle GPU" src="/media/uploads/' in second
    assert "<figcaption>Bubbles in std::vector&lt;Batch&gt; handling</figcaption>" in second
    # The block editor's own figure.
    assert "<figcaption>Made in the block editor</figcaption>" in html.split("<figure>")[3]
    assert "<p>Without it, every step waits.</p>" in html
    assert not report.kept_shortcodes and not report.remote_images and not report.problems


def test_a_linked_image_links_to_its_stored_file(tmp_path):
    """WordPress's "Link to: Media File": the full-size upload the image links to is stored
    like the image, not left a link to a path of the old site."""
    import_wordpress(export(tmp_path, "captions.xml"))
    first = Note.objects.get(slug="pipelining").body_html.split("<figure>")[1]
    assert '<a href="/media/uploads/' in first


def test_code_shortcodes_become_fenced_code_as_written(tmp_path):
    report = import_wordpress(export(tmp_path, "code.xml"))
    note = Note.objects.get(slug="launching-kernels")
    python = (
        "```python\n"
        "def launch(stream, n):\n"
        "    if n < 1 and not stream:\n"
        "        return\n"
        "\n"
        "\n"
        "    for _ in range(n):\n"
        "        stream.launch(kernel, grid=(n,), args=[a, b])  # *args*\n"
        "```"
    )
    cpp = (
        "```cpp\n"
        "#include <cuda_runtime.h>\n"
        "__global__ void add(float *a, const float *b) {\n"
        "    a[threadIdx.x] += b[threadIdx.x] && 1;\n"
        "}\n"
        "```"
    )
    assert python in note.body and cpp in note.body
    assert "```cpp\nint lanes = 32;\n\nint warps = threads / lanes;\n```" in note.body
    assert "```bash\nnvcc -O3 add.cu -o add && ./add\n```" in note.body
    assert "```\ntail -f log\n  indented, kept\n```" in note.body
    pasted = "```c\nint lanes = 32;\n\nfor (int w = 0; w < warps; w++) {\n    issue(w);\n}\n```"
    assert pasted in note.body
    html = note.body_html
    for label in ("Python", "C++", "Bash"):
        assert f'<span class="filename">{label}</span>' in html
    assert "<br" not in html.split("C++")[1].split("</pre>")[0]
    # [[code]…[/code]] is WordPress's way of writing a shortcode as text.
    assert "<p>To show a shortcode, WordPress doubles its brackets: [code]x = 1[/code]." in html
    # Only what is not translated is kept as text and listed.
    assert [text for _, _, text in report.kept_shortcodes] == ['[gallery ids="45,46"]']
    assert 'kept as text (not translated): [gallery ids="45,46"]' in lines(report)


def test_a_post_of_unclosed_shortcodes_is_read_in_seconds(tmp_path):
    """Shortcodes are paired in one pass: a post holding tens of thousands of openings without
    their closing tag is read (converted to Markdown) as fast as any other, not in minutes."""
    source = (SAMPLES / "code.xml").read_text("utf-8")
    start = source.index("<content:encoded><![CDATA[") + len("<content:encoded><![CDATA[")
    end = source.index("]]></content:encoded>")
    hostile = "[code]x [caption]y [cpp a " * 20000
    path = tmp_path / "export.xml"
    path.write_text(source[:start] + hostile + source[end:], "utf-8")
    began = time.monotonic()
    [record] = read_export(path, None, Report())
    assert time.monotonic() - began < 30
    assert record.body == hostile.strip() + "\n"


def test_polylang_translations_become_linked_pairs(tmp_path):
    path = export(tmp_path, "polylang.xml")
    report = import_wordpress(path)
    chinese = Note.objects.get(slug="warp-diaodu")
    english = Note.objects.get(slug="warp-scheduling")
    assert (chinese.language, english.language) == ("zh-hans", "en")
    assert chinese.counterpart == english and english.counterpart == chinese
    # French is no language of biji's: imported alone, and said so.
    french = Note.objects.get(slug="ordonnancement-des-warps")
    assert french.counterpart is None
    assert (
        "language 'fr' is neither Chinese nor English: imported without its translations"
        in lines(report)
    )
    # Polylang's taxonomies are no categories: no tag or series named after them.
    names = {name for tag in Tag.objects.all() for name in (tag.name, tag.name_zh)}
    assert names - {""} == {"warp"}
    for note in (chinese, english, french):
        assert note.series is not None
        assert {note.series.title_zh, note.series.title_en} & {"GPU 笔记", "GPU notes"}
    assert import_wordpress(path).counts == {"unchanged": 3}


def test_polylang_groups_are_read_from_the_channels_terms_too(tmp_path):
    """Items without their Polylang categories: the group's description (language → post id)
    says which posts are one another's translation, and in which language; a description that
    is not what Polylang writes (a PHP object) is ignored."""
    report = import_wordpress(export(tmp_path, "polylang_terms_only.xml"))
    chinese = Note.objects.get(slug="warp-diaodu")
    english = Note.objects.get(slug="warp-scheduling")
    assert (chinese.language, english.language) == ("zh-hans", "en")
    assert chinese.counterpart == english
    assert not report.problems


def test_wpml_exports_pair_only_when_prepared_by_wpml_export_and_import(tmp_path):
    """WPML keeps its translations outside the WXR: a plain export imports without pairs (each
    note in the language of its text); one prepared by WPML Export and Import carries them as
    custom fields."""
    import_wordpress(export(tmp_path, "wpml.xml"))
    chinese = Note.objects.get(slug="warp-diaodu")
    english = Note.objects.get(slug="warp-scheduling")
    assert (chinese.language, english.language) == ("zh-hans", "en")
    assert chinese.counterpart is None
    import_wordpress(export(tmp_path, "wpml_prepared.xml"))
    chinese.refresh_from_db()
    assert chinese.counterpart == Note.objects.get(slug="warp-scheduling")
