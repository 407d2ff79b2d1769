"""What a new writer looks up is written down: every setting biji reads, every variable the
Makefile takes, and every subscriber list the import reads are in docs/."""

import re
from pathlib import Path

import pytest

from blog.mail.subscriber_csv import READERS

pytestmark = pytest.mark.backend_independent

ROOT = Path(__file__).resolve().parent.parent
DOCS = "\n".join(path.read_text() for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


def test_every_environment_variable_the_settings_read_is_in_the_configuration_page():
    settings = (ROOT / "config" / "settings.py").read_text()
    variables = set(re.findall(r'\benv(?:_bool)?\("([A-Z_]+)"', settings))
    configuration = (ROOT / "docs" / "configuration.md").read_text()
    assert variables and not sorted(v for v in variables if f"`{v}`" not in configuration)


def test_every_variable_the_makefile_takes_is_documented():
    makefile = (ROOT / "Makefile").read_text()
    variables = set(re.findall(r"^([A-Z_]+) \?=", makefile, re.MULTILINE))
    assert "MAIL_SINK_PORT" in variables
    assert not sorted(v for v in variables if v not in DOCS)


def test_every_subscriber_list_the_import_reads_is_in_the_email_page():
    email = (ROOT / "docs" / "email.md").read_text()
    sources = {kind.split("-")[0] for kind in READERS} - {"list"}
    names = {"biji": "biji", "ghost": "Ghost", "substack": "Substack", "mailchimp": "Mailchimp"}
    assert sources == set(names)
    assert all(f"{names[source]}" in email for source in sources)
