"""Where a test run's CPU goes: a pytest plugin, off unless asked for.

``PYTEST_ARGS="-p tests.cpu_probe"`` with any ``make test-…`` target (xdist workers included)
records, for each test, the CPU time of the test process and of the processes it waited for
(``manage.py``, gunicorn, workers), the machine's busy time (``/proc/stat``: chromium's
renderers, PostgreSQL's server, whatever else runs) and the wall time, as JSON lines in
``$CPU_PROBE`` (default ``cpu-probe.jsonl``), and prints the twenty costliest files when the run
ends. The machine's busy time is the figure to read when one run is alone on the machine.
"""

import collections
import json
import os
import resource
import time
from pathlib import Path

import pytest

OUT = Path(os.environ.get("CPU_PROBE", "cpu-probe.jsonl"))


def _process_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


def _busy_seconds():
    with open("/proc/stat") as stat:
        user, nice, system, _idle, _iowait, irq, softirq = map(int, stat.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    process, busy, wall = _process_seconds(), _busy_seconds(), time.monotonic()
    try:
        return (yield)
    finally:
        row = {
            "test": item.nodeid,
            "process": round(_process_seconds() - process, 3),
            "machine": round(_busy_seconds() - busy, 3),
            "wall": round(time.monotonic() - wall, 3),
        }
        with open(OUT, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller, before any worker
        OUT.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter):
    if not OUT.exists():
        return
    rows = [json.loads(line) for line in OUT.read_text("utf-8").splitlines()]
    by_file = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        totals = by_file[row["test"].split("::")[0]]
        totals[0] += row["process"]
        totals[1] += row["machine"]
        totals[2] += 1
    write = terminalreporter.write_line
    write(f"CPU by test file ({len(rows)} tests; {OUT}): process s, machine s, tests")
    for name, (process, machine, count) in sorted(by_file.items(), key=lambda i: -i[1][0])[:20]:
        write(f"{process:8.1f} {machine:8.1f} {count:5d}  {name}")
    total_process = sum(row["process"] for row in rows)
    write(f"{total_process:8.1f} CPU-s in the tests and the processes they waited for")
