"""``manage.py build_site DIR``: the public site as static files, brought up to date part by part
(blog/ops/static_site/build.py; docs/deployment.md)."""

from django.core.management.base import BaseCommand, CommandError

from blog.ops.static_site import build
from blog.ops.static_site.folder_lock import FolderBusy


class Command(BaseCommand):
    help = (
        "Write every public page, feed, sitemap, 404 page, old-URL redirect, static file and "
        "media file to DIR, as a static host serves them. A second build renders again only "
        "what changed since the first, and deletes what is gone."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", metavar="DIR")
        parser.add_argument(
            "--base-url",
            help="Where the copy is served (https://user.github.io/blog); default SITE_URL.",
        )
        parser.add_argument("--full", action="store_true", help="Build everything again.")
        parser.add_argument(
            "--max-urls",
            type=int,
            default=build.MAX_URLS,
            help=f"Stop after this many URLs (default {build.MAX_URLS:,}).",
        )
        parser.add_argument(
            "--time-limit",
            type=int,
            default=build.TIME_LIMIT,
            help=f"Stop after this many seconds (default {build.TIME_LIMIT}).",
        )

    def handle(self, *args, folder, base_url, full, max_urls, time_limit, **options):
        verbose = options["verbosity"] > 1
        try:
            report = build.build_site(
                folder,
                base_url,
                full=full,
                max_urls=max_urls,
                time_limit=time_limit,
                log=lambda line: self.stderr.write(line),
            )
        except (build.BuildError, FolderBusy) as error:
            raise CommandError(str(error)) from error
        if verbose:
            for url in sorted(report.gone):
                self.stdout.write(f"gone: {url}")
            for label, paths in (("written", report.written), ("deleted", report.deleted)):
                for path in sorted(paths):
                    self.stdout.write(f"{label}: {path}")
        if report.search:
            self.stdout.write(f"search: {report.search}")
        self.stdout.write(report.summary())
