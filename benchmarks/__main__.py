"""``python -m benchmarks NAME [options]``, NAME one of :data:`COMMANDS`: run a benchmark with the
project's settings."""

import os
import sys

COMMANDS = {
    "pages": "benchmarks.pages",
    "mechanisms": "benchmarks.mechanisms",
    "search": "benchmarks.search",
    "traffic": "benchmarks.traffic",
    "stores": "benchmarks.stores",
    "images": "benchmarks.images",
    "mail": "benchmarks.mail",
    "render": "benchmarks.render",
    "scale": "benchmarks.scale",
    "edge": "benchmarks.edge",
    "takeover": "benchmarks.takeover",
    "objectstore": "benchmarks.object_store",
    "static": "benchmarks.static",
}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        sys.exit(f"usage: python -m benchmarks {{{'|'.join(COMMANDS)}}} [options]")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.utils.module_loading import import_string

    django.setup()
    command = import_string(f"{COMMANDS[argv[1]]}.Command")()
    command.run_from_argv([argv[0], argv[1], *argv[2:]])


if __name__ == "__main__":
    main(sys.argv)
