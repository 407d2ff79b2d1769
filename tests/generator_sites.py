"""biji's Markdown export built by the real generators, and the built pages read back.

Each generator gets the export as it is plus the smallest layout that shows what a theme
would: the page's language (``<html lang>``), its tags, the links to its translations as the
generator knows them, and the content. Debian's Hugo and Jekyll come without a theme, and
Hexo's default theme is not installed; ``make generators`` installs the three
(scripts/install-generators.sh).

* Hugo: ``.Translations`` (the pages Hugo pairs by ``translationKey`` or path);
* Jekyll with jekyll-polyglot: a translation is the page at the same permalink in the other
  language; polyglot prefixes every ``href`` in a non-default language, and ``ferh`` is its
  documented way to write a link it must leave alone;
* Hexo: no translations of its own; the layout finds the post with the same
  ``translation_key`` in another ``lang`` (what biji's export writes for a pair).
"""

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_SECONDS = 120

HUGO_SINGLE = """<!DOCTYPE html>
<html lang="{{ site.LanguageCode }}">
<head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body>
<h1>{{ .Title }}</h1>
<ul class="tags">{{ range .Params.tags }}<li>{{ . }}</li>{{ end }}</ul>
<ul class="translations">{{ range .Translations }}<li><a hreflang="{{ .Language.Lang }}" \
href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>
<main>{{ .Content }}</main>
</body>
</html>
"""
HUGO_LIST = """<!DOCTYPE html>
<html lang="{{ site.LanguageCode }}"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>
</body></html>
"""
JEKYLL_LAYOUT = """<!DOCTYPE html>
<html lang="{{ page.lang }}">
<head><meta charset="utf-8"><title>{{ page.title }}</title></head>
<body>
<h1>{{ page.title }}</h1>
<ul class="tags">{% for tag in page.tags %}<li>{{ tag }}</li>{% endfor %}</ul>
<ul class="translations">{% if page.translation_key %}{% for lang in site.languages %}\
{% if lang != site.active_lang %}<li><a hreflang="{{ lang }}" ferh="\
{% if lang != site.default_lang %}/{{ lang }}{% endif %}{{ page.permalink }}">{{ lang }}</a></li>\
{% endif %}{% endfor %}{% endif %}</ul>
<main>{{ content }}</main>
</body>
</html>
"""
HEXO_LAYOUT = """<!DOCTYPE html>
<html lang="{{ page.lang }}">
<head><meta charset="utf-8"><title>{{ page.title }}</title></head>
<body>
<h1>{{ page.title }}</h1>
<ul class="tags">{% if page.tags %}{% for tag in page.tags.toArray() %}<li>{{ tag.name }}</li>\
{% endfor %}{% endif %}</ul>
<ul class="translations">{% if page.translation_key %}{% for other in site.posts.toArray() %}\
{% if other.translation_key == page.translation_key and other.lang != page.lang %}\
<li><a hreflang="{{ other.lang }}" href="{{ url_for(other.path) }}">{{ other.title }}</a></li>\
{% endif %}{% endfor %}{% endif %}</ul>
<main>{{ page.content | safe }}</main>
</body>
</html>
"""
HEXO_THEME = "biji-test"


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _run(command, cwd, tool):
    if shutil.which(command[0]) is None and not Path(command[0]).exists():
        raise AssertionError(f"{tool} is not installed: run `make generators`")
    result = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=BUILD_SECONDS,
        env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
    )  # fmt: skip
    if result.returncode != 0:
        raise AssertionError(f"{tool} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def build_hugo(export, work):
    """The site Hugo builds from ``export``, in ``work``/public."""
    site = work / "site"
    shutil.copytree(export, site)
    _write(site / "layouts/_default/single.html", HUGO_SINGLE)
    _write(site / "layouts/_default/list.html", HUGO_LIST)
    _run(["hugo", "--quiet", "--source", str(site), "--destination", str(work / "public")],
         site, "Hugo")  # fmt: skip
    return work / "public"


def build_jekyll(export, work):
    site = work / "site"
    shutil.copytree(export, site)
    _write(site / "_layouts/post.html", JEKYLL_LAYOUT)
    _write(site / "_layouts/page.html", JEKYLL_LAYOUT)
    _run(["jekyll", "build", "--quiet", "--source", str(site), "--destination",
          str(work / "public")], site, "Jekyll")  # fmt: skip
    return work / "public"


def build_hexo(export, work):
    site = work / "site"
    shutil.copytree(export, site)
    for name in ("post", "page", "index"):
        _write(site / f"themes/{HEXO_THEME}/layout/{name}.njk", HEXO_LAYOUT)
    _write(site / "_test.yml", f"theme: {HEXO_THEME}\n")
    (site / "node_modules").symlink_to(ROOT / "node_modules")
    hexo = ROOT / "node_modules/.bin/hexo"
    _run([str(hexo), "generate", "--silent", "--config", "_config.yml,_test.yml"], site, "Hexo")
    return site / "public"


BUILDERS = {"hugo": build_hugo, "jekyll": build_jekyll, "hexo": build_hexo}


class Page:
    """A built page, read as a reader's browser would need it."""

    def __init__(self, path):
        self.path = path
        self.html = path.read_text("utf-8")

    @property
    def lang(self):
        return re.search(r'<html lang="([^"]*)"', self.html)[1]

    def _list(self, name):
        block = re.search(rf'<ul class="{name}">(.*?)</ul>', self.html, re.S)[1]
        return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in re.findall(
            r"<li>(.*?)</li>", block, re.S)]  # fmt: skip

    @property
    def tags(self):
        return self._list("tags")

    @property
    def translations(self):
        """(hreflang, href) of each link to a translation."""
        block = re.search(r'<ul class="translations">(.*?)</ul>', self.html, re.S)[1]
        return re.findall(r'<a hreflang="([^"]*)" href="([^"]*)"', block)

    @property
    def text(self):
        """The content's text, tags removed and entities decoded (code split into lines and
        spans by a highlighter reads as its lines)."""
        main = re.search(r"<main>(.*)</main>", self.html, re.S)[1]
        return html.unescape(re.sub(r"<[^>]+>", "", main))


def page_at(public, address):
    """The page a generator built for ``address`` (``/en/notes/x/``)."""
    return Page(public / address.strip("/") / "index.html")


def built_addresses(public):
    """Every note and page address the site has, as ``/notes/x/``."""
    return sorted(
        "/" + path.parent.relative_to(public).as_posix() + "/"
        for path in public.rglob("index.html")
        if re.search(r"(^|/)(notes|pages)/[^/]+$", path.parent.relative_to(public).as_posix())
    )
