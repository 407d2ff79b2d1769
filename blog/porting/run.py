"""The import entry points shared by the commands and the admin page: read, then store.

Reading never touches the database; a file that cannot be read (bad YAML or TOML, no title,
an invalid date, over a limit of :mod:`.limits`) is reported with its line and skipped, and
the others are imported, as is an entry of biji's glossary file that cannot be a term. So is
a file that fails in a way nobody foresaw: its error is reported and logged with the
traceback, and the import goes on.
"""

import logging
from pathlib import Path

import yaml
from django.utils.translation import gettext_lazy as _

from blog.porting import glossary_file, markdown_import, wordpress
from blog.porting.frontmatter import FrontMatterError
from blog.porting.importer import Importer
from blog.porting.limits import MAX_FILES
from blog.porting.report import ERROR, SKIPPED, Progress, Report
from blog.porting.wording import FAILED, error_text, not_imported, unexpected, worded

logger = logging.getLogger(__name__)


def read_glossaries(paths, report):
    """biji's glossary files (:mod:`.glossary_file`), each with what its entries lack
    reported; a file that is no glossary is reported and skipped."""
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


def read_markdown(paths, fmt, report):
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
        try:
            if root not in layouts:
                layouts[root] = markdown_import.SiteLayout(root, fmt)
            record = markdown_import.read_file(path, root, fmt, kept, layouts[root])
        except (FrontMatterError, markdown_import.RecordError) as error:
            report.error(source, not_imported(error_text(error)), error.line)
            report.add(source, SKIPPED, FAILED)
            continue
        except OSError as error:
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
    paths, fmt="auto", dry_run=False, permalink="", progress_stream=None, user=None
):
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist")
    report = Report(dry_run=dry_run)
    records, data = read_markdown(paths, fmt, report)
    glossaries = read_glossaries(paths, report)
    progress = Progress(len(records), progress_stream) if progress_stream else None
    importer = Importer(report, dry_run, permalink, user=user)
    return importer.run(records, data, progress, glossaries=glossaries)


def import_wordpress(path, media="", dry_run=False, progress_stream=None, user=None):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    report = Report(dry_run=dry_run)
    records = wordpress.read_export(path, Path(media) if media else None, report)
    progress = Progress(len(records), progress_stream) if progress_stream else None
    return Importer(report, dry_run, user=user).run(records, (), progress)
