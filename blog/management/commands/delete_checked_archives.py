"""``manage.py delete_checked_archives``: the admin's checked archives past their days, deleted, for
a site that stops importing (cron)."""

from django.conf import settings
from django.core.management.base import BaseCommand

from blog.porting.run_folders import delete_expired_archives


class Command(BaseCommand):
    help = (
        "Delete the archives the admin's checks keep past BIJI_CHECKED_ARCHIVE_DAYS, and the "
        "folders of finished imports."
    )

    def handle(self, *args, **options):
        deleted = delete_expired_archives()
        days = settings.BIJI_CHECKED_ARCHIVE_DAYS
        self.stdout.write(f"{deleted} folders deleted; checked archives are kept {days} days.")
