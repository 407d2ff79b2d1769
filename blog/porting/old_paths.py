"""An imported note's or page's old URLs, kept as redirects unless they would hide content.

Old paths come from the file and, with a permalink pattern, from the note's date and name.
"""

import re

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from blog.models import Note
from blog.models.imported import LegacyPath, content_at
from blog.porting.report import shorten
from blog.porting.wording import worded

JEKYLL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}-")


class OldPaths:
    """The importer's old-path steps; they use its ``report`` and ``permalink_pattern``."""

    def old_paths(self, record):
        paths = list(record.old_paths)
        if self.permalink_pattern and record.published_at:
            local = timezone.localtime(record.published_at)
            path = self.permalink_pattern
            for token, value in (
                (":year", f"{local:%Y}"), (":month", f"{local:%m}"), (":day", f"{local:%d}"),
                (":title", JEKYLL_DATE.sub("", record.file_stem)), (":slug", record.slug),
            ):  # fmt: skip
                path = path.replace(token, value)
            paths.append(path)
        return list(dict.fromkeys(paths))

    def usable_old_paths(self, paths, record, target):
        """``paths`` without those that are the address of a note or page (published or not):
        a redirect there would hide it, and browsers keep a permanent redirect."""
        own = target.get_absolute_url()
        usable = []
        for path in paths:
            holder = None if path == own else content_at(path)
            if path == own or holder == target and target.pk is not None:
                continue  # its own address (in either language): no redirect needed
            if holder is not None:
                if isinstance(holder, Note):
                    hidden = _(
                        "old path %(path)s is the address of the note %(slug)s: not kept as a "
                        "redirect"
                    )
                else:
                    hidden = _(
                        "old path %(path)s is the address of the page %(slug)s: not kept as a "
                        "redirect"
                    )
                self.report.warn(
                    record.source, worded(hidden, path=shorten(path), slug=holder.slug)
                )
                continue
            usable.append(path)
        return usable

    def keep_old_paths(self, paths, record, note=None, page=None):
        own = (note or page).get_absolute_url()
        for path in paths:
            if path == own:
                continue
            legacy, _ = LegacyPath.objects.get_or_create(
                path=path, defaults={"note": note, "page": page}
            )
            if (legacy.note_id, legacy.page_id) != (note and note.pk, page and page.pk):
                elsewhere = _("old path %(path)s already leads elsewhere")
                self.report.warn(record.source, worded(elsewhere, path=path))
