"""Site folders and archives for import tests, and the admin's import page driven as a user."""

import io
import zipfile
from pathlib import Path


def site_folder(root, files):
    """A Hugo-shaped folder holding ``files`` ({relative path: text})."""
    for name, text in files.items():
        path = Path(root) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return Path(root)


def zipped(folder, name="site.zip"):
    """``folder`` as an uploaded zip archive called ``name`` (an open file object)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                bundle.write(path, path.relative_to(folder).as_posix())
    buffer.seek(0)
    buffer.name = name
    return buffer


def upload(client, archive, mode="import"):
    """Post ``archive`` to the import page to ``mode`` ("import" or "check"): the run's page."""
    response = client.post(
        "/admin/blog/note/import/",
        {"archive": archive, "format": "auto", "mode": mode},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return response["Location"]


def page(client, url):
    """The page at ``url`` as an English-speaking admin reads it, entities decoded."""
    import html

    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def import_through_admin(client, archive):
    """Post ``archive`` to the import page and return the report as the page shows it.

    The page queues the import and redirects to the run's page: the queued import is run for
    real (the worker's loop, in this process), so the test needs a database whose transactions
    commit (``django_db(transaction=True)``)."""
    from tests.background import run_queued_tasks

    response = client.post(
        "/admin/blog/note/import/",
        {"archive": archive, "format": "auto", "mode": "import"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    if response.status_code == 302:
        run_queued_tasks()
        response = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return response.content.decode()
