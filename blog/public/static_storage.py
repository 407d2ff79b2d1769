"""Static files as readers download them: biji's own scripts minified, then hashed and compressed
(WhiteNoise's manifest storage).

The scripts in ``static/js/`` are written to be read, with comments that say why; shipped as
written, the note page's JavaScript would pass its 5 KB budget (tests/browser/test_page_weight.py)
on comments alone. ``rjsmin`` (the minifier django-compressor uses) drops comments and
whitespace only, renaming nothing, so the code that runs is the code in the repository. Other
apps' scripts (the admin's, markdownx's) are left as their authors ship them.
"""

from django.core.files.base import ContentFile
from rjsmin import jsmin
from whitenoise.storage import CompressedManifestStaticFilesStorage

# biji's own scripts as collected (static/js/*.js and their hashed copies).
OWN_SCRIPTS = "js/"


class MinifiedManifestStorage(CompressedManifestStaticFilesStorage):
    def _save(self, name, content):
        # Both the copy collectstatic makes and the hashed one post-processing writes pass here.
        if name.startswith(OWN_SCRIPTS) and name.endswith(".js"):
            content.seek(0)
            source = content.read()
            if isinstance(source, bytes):
                source = source.decode("utf-8")
            content = ContentFile(jsmin(source, keep_bang_comments=False).encode("utf-8"))
        return super()._save(name, content)
