"""``manage.py serve_site DIR [--port 8000]``: the static copy ``build_site`` wrote, served on this
machine as a host that reads ``_headers`` serves it (blog/ops/static_site/preview.py)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from blog.ops.static_site.preview import serve


class Command(BaseCommand):
    help = "Serve a static copy of the site (manage.py build_site) with its _headers, to look at."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, folder, host, port, **options):
        if not (folder / "index.html").is_file():
            raise CommandError(f"{folder} holds no built site: run manage.py build_site first.")
        self.stdout.write(f"The static copy in {folder} on http://{host}:{port}/ (Ctrl-C stops)")
        try:
            serve(folder, host, port)
        except KeyboardInterrupt:
            pass
