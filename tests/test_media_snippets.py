"""The web-server snippets the docs give for serving uploads send ``nosniff`` (issue 17, item 13):
uploads are served by nginx or Caddy, not Django, so Django's own header does not reach them."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEDIA_BLOCK = re.compile(r"location /media|handle_path /media")


def media_snippets():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```[a-z]*\n(.*?)```", page.read_text(), flags=re.S):
            if MEDIA_BLOCK.search(block):
                yield page.name, block


def test_every_media_snippet_sets_nosniff():
    snippets = list(media_snippets())
    assert {"nginx", "caddy"} <= {
        "nginx" if "location" in block else "caddy" for _page, block in snippets
    }
    for page, block in snippets:
        assert re.search(r"X-Content-Type-Options\s+nosniff", block), (page, block)
