import pytest
from django.core.cache import cache

from tests.factories import make_staff


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
