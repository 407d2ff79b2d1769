import ast
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_models_and_migrations_agree():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


SELF_CONTAINED = ["0002_search_index.py", "0004_searchdocument.py"]


@pytest.mark.parametrize("name", SELF_CONTAINED)
def test_search_migrations_import_no_live_code(name):
    """They must run the same way when blog.search has changed since they were written."""
    path = Path(__file__).parent.parent / "blog" / "migrations" / name
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            modules = ["." * node.level + (node.module or "")]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            assert not module.startswith((".", "blog")), f"{name} imports {module}"
