"""``manage.py publish_site DIR --to TARGET``: the folder build_site wrote, mirrored to a folder or
an S3-compatible bucket (blog/ops/static_site/publish.py, docs/deployment.md)."""

from django.core.management.base import BaseCommand, CommandError

from blog.ops.static_site.folder_lock import FolderBusy
from blog.ops.static_site.publish import PublishError, publish


class Command(BaseCommand):
    help = (
        "Publish the static site build_site wrote in DIR: to a folder (--to folder:/srv/www) or "
        "an S3-compatible bucket (--to s3://bucket/prefix), writing only what changed, with each "
        "file's Content-Type and Cache-Control, and deleting what is no longer in DIR."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="The folder build_site wrote.")
        parser.add_argument(
            "--to",
            required=True,
            metavar="TARGET",
            help="folder:/path, or s3://bucket or s3://bucket/prefix.",
        )
        parser.add_argument(
            "--endpoint-url",
            help="The S3 API's address (R2, MinIO); default BIJI_PUBLISH_S3_ENDPOINT_URL.",
        )
        parser.add_argument("--region", help="The bucket's region; default BIJI_PUBLISH_S3_REGION.")
        parser.add_argument(
            "--keep",
            action="append",
            default=[],
            metavar="NAME",
            help="A folder target: a name at its top to leave alone (CNAME); .git always is.",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Publish over a folder or prefix that holds files biji did not publish, "
            "deleting them.",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="Write every file, even unchanged ones (to give every object new headers).",
        )

    def handle(self, *args, directory, to, endpoint_url, region, keep, replace, force, **options):
        try:
            report = publish(
                directory,
                to,
                endpoint_url=endpoint_url,
                region=region,
                keep=keep,
                replace=replace,
                force=force,
            )
        except (PublishError, FolderBusy, OSError) as error:
            raise CommandError(str(error)) from error
        if options["verbosity"] > 1:
            for name in report.uploaded:
                self.stdout.write(f"+ {name}")
            for name in report.deleted:
                self.stdout.write(f"- {name}")
        self.stdout.write(self.style.SUCCESS(f"Published {directory} to {to}: {report.summary()}."))
