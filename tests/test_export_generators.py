"""The export as Hugo, Jekyll (with jekyll-polyglot) and Hexo really build it: bilingual.

The demo blog is exported once for the module, and each generator builds its export once
(tests/generator_sites.py: the real generators, a minimal layout). ``make test`` runs one case
per generator, :func:`test_the_demo_builds_as_a_bilingual_site`, on SQLite only (the export's
own database independence is tests/test_round_trip.py's); ``make test-interop`` runs every
case here (``BIJI_TEST_INTEROP=1``). Needs ``make generators``.
"""

import html
import os
import re

import pytest
from django.conf import settings
from django.utils import timezone

from blog.models import Language, Note, Page, Status
from blog.ops.demo.loader import load_demo
from blog.porting import frontmatter
from blog.porting.export import export, translation_key
from blog.porting.formats import FORMATS
from blog.porting.run import import_markdown
from tests.generator_sites import BUILDERS, built_addresses, page_at
from tests.shared_data import module_data

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.slow,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="built once per gate, on SQLite: the generators read files, not the database",
    ),
]
interop = pytest.mark.skipif(
    not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it"
)
GENERATORS = ["hugo", "jekyll", "hexo"]

ZH, EN = "/notes/cuda-warp-scheduling/", "/en/notes/cuda-warp-scheduling-en/"
# jekyll-polyglot serves a translation at its original's permalink, under /en/.
EN_ADDRESS = {"hugo": EN, "jekyll": "/en/notes/cuda-warp-scheduling/", "hexo": EN}
ENGLISH_ONLY = "/en/notes/pinned-memory-checklist/"
ZH_TMA = "/notes/tma-intro/"
HTML_LANG = {Language.CHINESE: ("zh-hans", "zh-Hans"), Language.ENGLISH: ("en",)}


@module_data
def demo_blog():
    load_demo()


@pytest.fixture(scope="module")
def exported(demo_blog, django_db_blocker, tmp_path_factory):
    """The demo's export, one folder per generator."""
    folder = tmp_path_factory.mktemp("export")
    with django_db_blocker.unblock():
        for name in GENERATORS:
            export(folder / name, FORMATS[name])
    return folder


@pytest.fixture(scope="module", params=GENERATORS)
def built(request, exported, tmp_path_factory):
    """(generator, the folder of the site it built from the demo's export)."""
    name = request.param
    return name, BUILDERS[name](exported / name, tmp_path_factory.mktemp(f"built-{name}"))


def formulas(body):
    """The TeX of every formula in ``body``: ``$$…$$`` blocks and inline ``$…$``."""
    blocks = re.findall(r"^\$\$\n(.*?)\n\$\$$", body, re.S | re.M)
    inline = re.findall(r"(?<![$\\])\$([^$\n]+)\$(?!\$)", body)
    return blocks + inline


def code_lines(body):
    """The non-empty lines of the fenced code blocks in ``body``."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```$", body, re.S | re.M)
    return [line.strip() for block in blocks for line in block.split("\n") if line.strip()]


def body_of(slug):
    return Note.objects.get(slug=slug).body.replace("\r\n", "\n")


def expected_address(generator, note):
    """Where ``generator`` serves ``note`` (biji's address; a polyglot pair's one permalink)."""
    key = translation_key(note)
    slug = key if generator == "jekyll" and key else note.slug
    prefix = "/en" if note.language == Language.ENGLISH else ""
    return f"{prefix}/notes/{slug}/"


def test_the_demo_builds_as_a_bilingual_site(built):
    """Each note in its language, the pair linked as the generator links translations, tags in
    the note's language, formulas and code as written."""
    generator, public = built
    zh, en = page_at(public, ZH), page_at(public, EN_ADDRESS[generator])
    assert zh.lang in HTML_LANG[Language.CHINESE] and en.lang in HTML_LANG[Language.ENGLISH]
    assert page_at(public, ENGLISH_ONLY).lang == "en"
    assert "CUDA warp 调度" in zh.html and "what actually happens inside an SM" in en.html
    assert [href for lang, href in zh.translations if lang == "en"] == [EN_ADDRESS[generator]]
    assert [href for lang, href in en.translations if lang.startswith("zh")] == [ZH]
    assert "调度" in zh.tags and "Scheduling" not in zh.tags
    assert "Scheduling" in en.tags and "调度" not in en.tags
    flash = page_at(public, "/notes/flashattention-tiling/").text
    missing = [tex for tex in formulas(body_of("flashattention-tiling")) if tex not in flash]
    assert not missing, missing
    for slug in ("cuda-warp-scheduling", "cython-bindings"):
        text = page_at(public, f"/notes/{slug}/").text
        assert [line for line in code_lines(body_of(slug)) if line not in text] == []


@interop
def test_every_published_note_is_built_in_its_language_at_its_address(built):
    generator, public = built
    now = timezone.now()
    notes = Note.objects.select_related("translation")
    for note in notes.filter(status=Status.PUBLISHED, published_at__lte=now):
        page = page_at(public, expected_address(generator, note))
        assert page.lang in HTML_LANG[note.language], note.slug
        assert note.title in html.unescape(page.html), note.slug
    unpublished = notes.exclude(status=Status.PUBLISHED, published_at__lte=now)
    assert unpublished.count() == 2  # the draft and the scheduled note
    addresses = built_addresses(public)
    for note in unpublished:
        assert not [address for address in addresses if f"/{note.slug}/" in address]


@interop
def test_every_formula_and_code_line_of_every_note_survives(built):
    generator, public = built
    for note in Note.objects.filter(status=Status.PUBLISHED, published_at__lte=timezone.now()):
        text = page_at(public, expected_address(generator, note)).text
        body = note.body.replace("\r\n", "\n")
        assert [tex for tex in formulas(body) if tex not in text] == [], note.slug
        assert [line for line in code_lines(body) if line not in text] == [], note.slug


@interop
def test_pages_are_built_in_their_language_at_their_address(built):
    generator, public = built
    for page in Page.objects.filter(is_published=True):
        prefix = "/en" if page.language == Language.ENGLISH else ""
        built_page = page_at(public, f"{prefix}/pages/{page.slug}/")
        assert built_page.lang in HTML_LANG[page.language], page.slug


@interop
@pytest.mark.parametrize("generator", GENERATORS)
def test_template_delimiters_in_a_body_stay_text(demo_blog, generator, tmp_path):
    """Jekyll's Liquid and Hexo's Nunjucks would run ``{{ … }}`` and ``{% … %}`` in a body."""
    body = "Jinja writes {{ name }} and {% if x %}…{% endif %}; Vue too: {{ count }}.\n"
    note = Note.objects.create(
        title="Template delimiters", slug="template-delimiters", language=Language.ENGLISH,
        status=Status.PUBLISHED, published_at=timezone.now() - timezone.timedelta(days=1),
        body=body,
    )  # fmt: skip
    export(tmp_path / "export", FORMATS[generator])
    public = BUILDERS[generator](tmp_path / "export", tmp_path / "built")
    text = page_at(public, expected_address(generator, note)).text
    assert "{{ name }} and {% if x %}…{% endif %}" in text and "{{ count }}" in text


@interop
def test_a_hugo_multilingual_site_imported_builds_with_its_pair_linked(demo_blog, tmp_path):
    """A Hugo site's pair (one slug in both languages, a translationKey) through biji and back
    to Hugo: each note in its language, linked to the other."""
    site = tmp_path / "hugo-site"
    front = "---\ntitle: {title}\nslug: tma-intro\ntranslationKey: tma\ndate: 2025-03-0{day}\n"
    (site / "content/posts").mkdir(parents=True)
    (site / "hugo.toml").write_text(
        'defaultContentLanguage = "zh"\n[languages.zh]\n[languages.en]\n'
    )
    zh = front.format(title="TMA 入门", day=1) + "tags: [拷贝]\n---\n\n用 TMA 拷贝一个 tile。\n"
    en = front.format(title="TMA intro", day=2) + "tags: [Copies]\n---\n\nCopy a tile.\n"
    (site / "content/posts/tma.md").write_text(zh, "utf-8")
    (site / "content/posts/tma.en.md").write_text(en, "utf-8")
    report = import_markdown([site])
    assert not report.errors, report.lines()
    export(tmp_path / "export")
    public = BUILDERS["hugo"](tmp_path / "export", tmp_path / "built")
    en_address = f"/en/notes/{Note.objects.get(title='TMA intro').slug}/"
    zh, en = page_at(public, ZH_TMA), page_at(public, en_address)
    assert (zh.lang, en.lang) == ("zh-Hans", "en")
    assert zh.translations == [("en", en_address)] and en.translations == [("zh-hans", ZH_TMA)]
    assert zh.tags == ["拷贝"] and en.tags == ["Copies"]
    exported = frontmatter.split((tmp_path / "export/content/posts/tma-intro.en.md").read_text())
    assert exported.meta["tags_zh"] == {"Copies": "拷贝"}
