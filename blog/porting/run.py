"""The import entry points shared by the commands and the admin page: read, then store.

Reading never touches the database; a file that cannot be read is reported with its line and
skipped. A dry run's child process runs the same functions (:data:`IMPORTS`).
"""

import logging
from pathlib import Path

import yaml
from django.utils.translation import gettext_lazy as _

from blog.porting import dry_run as dry_runs
from blog.porting import glossary_file, markdown_import
from blog.porting.frontmatter import FrontMatterError
from blog.porting.importer import Importer
from blog.porting.limits import MAX_FILES, Deadline
from blog.porting.report import ERROR, SKIPPED, Progress, Report
from blog.porting.wording import FAILED, error_text, not_imported, unexpected, worded
from blog.rendering import RenderRefused

logger = logging.getLogger(__name__)


def read_glossaries(paths, report):
    """biji's glossary files (:mod:`.glossary_file`); one that is no glossary is reported."""
    glossaries = []
    for path, root in glossary_file.discover(paths):
        source = str(path.relative_to(root))
        try:
            glossary = glossary_file.read(path, root)
        except FrontMatterError as error:
            report.error(source, not_imported(error_text(error)), error.line)
            continue
        except (OSError, ValueError) as error:  # not UTF-8 text, among others
            report.error(source, not_imported(error_text(error)))
            continue
        except Exception as error:
            logger.exception("Import: reading %s failed", path)
            report.error(source, not_imported(unexpected(error)))
            continue
        for level, message, line in glossary.problems:
            if level == ERROR:  # the entry is skipped
                report.error(source, message, line)
                report.add(source, SKIPPED, FAILED)
            else:
                report.warn(source, message, line)
        glossaries.append(glossary)
    return glossaries


def read_markdown(paths, fmt, report, deadline=None):
    deadline = deadline or Deadline()
    records, data = [], []
    files, data_files = markdown_import.discover(paths)
    for path, root in data_files:
        try:
            data.append(markdown_import.read_site_data(path, root))
        except (FrontMatterError, yaml.YAMLError, OSError, ValueError) as error:
            report.error(str(path), not_imported(error_text(error)))
        except Exception as error:
            logger.exception("Import: reading %s failed", path)
            report.error(str(path), not_imported(unexpected(error)))

    def kept(record, body, offset, text):
        line = record.body_line + body.count("\n", 0, offset)
        report.kept_shortcodes.append((record.source, line, text))

    layouts = {}  # per imported folder: its generator's rules, read once
    for number, (path, root) in enumerate(files, start=1):
        source = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        if number > MAX_FILES:
            too_many = _(
                "not read: an import reads at most %(count)s Markdown files; import the rest "
                "in another run"
            )
            report.error(source, worded(too_many, count=f"{MAX_FILES:,}"))
            report.add(source, SKIPPED, _("over the file limit"))
            continue
        if deadline.passed():
            deadline.not_reached(report, source)
            continue
        try:
            if root not in layouts:
                layouts[root] = markdown_import.SiteLayout(root, fmt)
            record = markdown_import.read_file(path, root, fmt, kept, layouts[root])
        except (FrontMatterError, markdown_import.RecordError) as error:
            report.error(source, not_imported(error_text(error)), error.line)
            report.add(source, SKIPPED, FAILED)
            continue
        except (OSError, RenderRefused) as error:  # RenderRefused: the summary above <!-- more -->
            report.error(source, not_imported(error_text(error)))
            report.add(source, SKIPPED, FAILED)
            continue
        except Exception as error:
            logger.exception("Import: reading %s failed", path)
            report.error(source, not_imported(unexpected(error)))
            report.add(source, SKIPPED, FAILED)
            continue
        if record is None:
            report.add(source, SKIPPED, _("no front matter: not a note"))
            continue
        for message, line in record.warnings:
            report.warn(source, message, line)
        records.append(record)
    return records, data


def import_markdown(
    paths, fmt="auto", dry_run=False, permalink="", progress_stream=None, user=None,
    deadline=None, workspace=None,
):  # fmt: skip
    """Import the Markdown files and site folders ``paths``; the report. ``user`` bounds it
    (None: all allowed); ``workspace``: where a dry run's copy is made (:mod:`.dry_run`)."""
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist")
    if dry_run and dry_runs.wanted():
        arguments = {"paths": [str(path) for path in paths], "fmt": fmt, "permalink": permalink}
        return dry_runs.run_on_copy(
            "markdown", arguments, progress_stream, user, deadline, workspace
        )
    options = {"progress_stream": progress_stream, "user": user, "deadline": deadline}
    return _import_markdown(paths, fmt, permalink, dry_run=dry_run, **options)


def _import_markdown(paths, fmt, permalink, *, dry_run, progress_stream, user, deadline):
    report = Report(dry_run=dry_run)
    records, data = read_markdown(paths, fmt, report, deadline)
    glossaries = read_glossaries(paths, report)
    progress = Progress(len(records), progress_stream) if progress_stream else None
    importer = Importer(report, dry_run, permalink, user=user, deadline=deadline)
    return importer.run(records, data, progress, glossaries=glossaries)


def import_wordpress(
    path, media="", dry_run=False, progress_stream=None, user=None, deadline=None, workspace=None
):
    """Import the WXR export ``path``, its images from ``media``; as :func:`import_markdown`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    if dry_run and dry_runs.wanted():
        arguments = {"path": str(path), "media": str(media)}
        return dry_runs.run_on_copy(
            "wordpress", arguments, progress_stream, user, deadline, workspace
        )
    options = {"progress_stream": progress_stream, "user": user, "deadline": deadline}
    return _import_wordpress(path, media, dry_run=dry_run, **options)


def _import_wordpress(path, media, *, dry_run, progress_stream, user, deadline):
    # Imported here: its HTML converter (markdownify, Beautiful Soup) costs every process that
    # never reads a WordPress export ~50 ms to start.
    from blog.porting import wordpress

    path = Path(path)
    report = Report(dry_run=dry_run)
    records = wordpress.read_export(path, Path(media) if media else None, report)
    progress = Progress(len(records), progress_stream) if progress_stream else None
    return Importer(report, dry_run, user=user, deadline=deadline).run(records, (), progress)


# What the child of a dry run on a copy runs (:mod:`.dry_run`), by name: the arguments given
# to it, and the keywords dry_run, progress_stream, user and deadline.
IMPORTS = {"markdown": _import_markdown, "wordpress": _import_wordpress}
