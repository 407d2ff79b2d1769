"""The site with some caching mechanisms switched off: a WSGI application for the benchmark.

    BIJI_BENCH_WITHOUT=fragments,memos gunicorn benchmarks.without:application

Sets Django up, switches off the mechanisms named in ``BIJI_BENCH_WITHOUT`` (comma-separated;
:data:`benchmarks.switches.MECHANISMS`; an unknown name stops the worker from starting), says
so on stderr, then builds the application as ``config.wsgi`` does. ``python -m benchmarks pages
--without NAME,…`` serves through it.
"""

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from django.core.wsgi import get_wsgi_application  # noqa: E402 (after setup)

from benchmarks import switches  # noqa: E402 (imports blog models: after setup)

WITHOUT = switches.parse(os.environ.get(switches.ENV, ""))
switches.switch_off(WITHOUT)
print(
    f"benchmarks.without (pid {os.getpid()}): switched off {', '.join(WITHOUT) or 'nothing'}",
    file=sys.stderr,
    flush=True,
)

application = get_wsgi_application()
