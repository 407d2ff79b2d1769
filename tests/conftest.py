import pytest
from django.core.cache import cache
from django.core.management import call_command

from tests.factories import make_staff


@pytest.fixture(scope="session", autouse=True)
def _collected_static_files():
    """Tests render templates with the production static storage (hashed names from a
    manifest), so a missing or misspelt static file fails a test instead of a deployment."""
    call_command("collectstatic", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def _isolated(settings, tmp_path):
    """Each test gets its own media folder and an empty cache."""
    settings.MEDIA_ROOT = tmp_path / "media"
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def staff_user(db):
    return make_staff()


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client
