"""What each caching mechanism is worth: the page benchmark with everything on, then with each
mechanism off in turn, in one table.

    DATABASE_URL=sqlite:////tmp/biji-pages-bench.sqlite3 STATIC_ROOT=/tmp/biji-pages-bench-static \\
        DJANGO_SECRET_KEY=bench python -m benchmarks mechanisms --notes 1000 --duration 3

The same data, pages and options as ``python -m benchmarks pages`` (:mod:`benchmarks.pages`,
whose code this reuses): the database is filled once, then for everything on and for each of
``--mechanisms`` (default: all of :data:`benchmarks.switches.MECHANISMS`) switched off, gunicorn
is started twice (page cache off: cold; on: warm and conditional) and wrk run on every page
and on the static file. The page cache itself is the difference between the cold and warm
columns. Each cell off shows req/s and the change against everything on; the static file's
row changes with nothing but noise, so read the other changes against it.

It takes (1 + mechanisms) × (pages + 1) × 3 wrk runs of ``--duration`` seconds: 24 minutes of
wrk with the defaults, about half an hour in all; ``--pages`` and ``--mechanisms`` narrow it.
"""

import copy
import os

from benchmarks import pages, switches
from benchmarks.pages import STATIC_ROW, add_run_arguments, mechanism_names

COLUMNS = (("cold", "cold"), ("warm", "warm"), ("conditional", "304"))


class Command(pages.Command):
    help = "Compare the page benchmark with every caching mechanism on and each one off."

    def add_arguments(self, parser):
        add_run_arguments(parser)
        parser.add_argument(
            "--mechanisms",
            type=mechanism_names,
            default=tuple(switches.MECHANISMS),
            metavar="NAME[,NAME…]",
            help=f"which to switch off in turn (default: all: {', '.join(switches.MECHANISMS)})",
        )

    def handle(self, *args, **options):
        rows = self._prepare(options)
        self._measure_in_process(rows)  # status and ETag of each page, everything on
        self._add_yardstick(rows)
        runs = []
        for index, without in enumerate([(), *((name,) for name in options["mechanisms"])]):
            self.stdout.write(f"== {'without ' + without[0] if without else 'everything on'} ==")
            run = copy.deepcopy(rows)
            # Ports of their own: the previous run's server may still hold its ports.
            port = options["port"] + 2 * index
            self._run_wrk(run, {**options, "without": without, "port": port})
            runs.append((without, run))
        self._compare(runs, options)

    def _compare(self, runs, options):
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        out = self.stdout.write
        out("")
        out(f"{self._header(options)} · req/s, each mechanism off in turn (benchmarks.without)")
        out("")
        (_none, everything), offs = runs[0], runs[1:]
        head = "| page |" + "".join(f" all on: {label} |" for _mode, label in COLUMNS)
        rule = "|---|" + "---:|" * len(COLUMNS)
        for without, _run in offs:
            head += "".join(f" w/o {without[0]}: {label} |" for _mode, label in COLUMNS)
            rule += "---:|" * len(COLUMNS)
        out(head)
        out(rule)
        for name, row in everything.items():
            line = f"| {name} |"
            for mode, _label in COLUMNS:
                line += f" {_rate(row.get(mode))} |"
            for _without, run in offs:
                for mode, _label in COLUMNS:
                    line += f" {_change(row.get(mode), run[name].get(mode))} |"
            out(line)
        out("")
        out(
            "w/o name: that mechanism off (the others on); the change is against all on. "
            f"The {STATIC_ROW} row shows the run-to-run noise."
        )
        out(f"Load average after the run: {load}.")


def _rate(result):
    return "–" if result is None else f"{result['rate']:,.0f}"


def _change(before, after):
    """``"1,234 (-12%)"``: req/s with the mechanism off, and the change against all on."""
    if after is None:
        return "–"
    if not before or not before["rate"]:
        return _rate(after)
    change = 100 * (after["rate"] - before["rate"]) / before["rate"]
    return f"{after['rate']:,.0f} ({change:+.0f}%)"
