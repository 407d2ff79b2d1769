#!/usr/bin/env python
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # A setting the operator must fix (a missing secret key, a bad BIJI_ADMIN_PATH…): its
        # message says what to do, and a traceback through Django's internals would bury it.
        sys.exit(f"manage.py: {error}")


if __name__ == "__main__":
    main()
