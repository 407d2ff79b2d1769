#!/usr/bin/env python3
"""``make superuser``: Django's ``createsuperuser``, asked in English from start to end.

Run in the site's default language (Chinese), Django's command mixes two: the field names
come from the catalogue ("用户名 (leave blank to use 'lin'):"), while the rest of its questions
and answers are English text Django never translates ("Password (again):", "Bypass password
validation and create user anyway? [y/N]:"). Asked in English, every question is one whole
sentence in one language. Arguments are passed on (``--username lin``, ``--email …``).

``.venv/bin/python scripts/superuser.py`` from the project folder; the environment is the
site's (DATABASE_URL, the key in var/secret-key or DJANGO_SECRET_KEY).
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.utils import translation

    try:
        django.setup()  # before a language is activated: catalogues need the apps
    except ImproperlyConfigured as error:
        sys.exit(f"make superuser: {error}")
    with translation.override("en"):
        execute_from_command_line(["manage.py", "createsuperuser", *sys.argv[1:]])


if __name__ == "__main__":
    main()
