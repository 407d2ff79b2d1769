"""Emailing a note to 10,000 subscribers: how long the worker takes and how much memory it holds.

    make bench-mail                        # a scratch SQLite file in /tmp
    make bench-mail BENCH_ARGS="--subscribers 1000"
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_mail … python -m benchmarks mail

On the scratch database of ``DATABASE_URL`` (one holding subscribers or notes this benchmark
did not make is refused without ``--force``):

1. makes ``--subscribers`` confirmed subscribers once (later runs reuse them) and publishes a
   note of the shape a technical note has (about 6 KB of Markdown: headings, code, a table,
   formulas, an image), then lets a worker run what publishing queued (share cards…), so
   the measured run sends email alone;
2. announces the note in this process, as the worker's announcement task does: one Delivery
   per subscriber and a sending task per 200 (*announce*);
3. starts a local SMTP sink (aiosmtpd, in a thread of this process: it counts and drops each
   message) and runs ``manage.py db_worker --batch`` against it in a process of its own,
   without the rate limit (``BIJI_MAIL_RATE=0``), until every batch is sent (*send*); its
   peak resident memory is the kernel's count for that process (``wait4``), beside the same
   worker's with nothing to do;
4. checks that the sink got one message per subscriber and every delivery is SENT, and prints
   the figures with the machine, the data size and the load average. Not a test.
"""

import os
import platform
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from benchmarks.pages import _cpu_name
from blog.mail.announce import announce
from blog.models import Delivery, DeliveryState, Language, Note, Status, Subscriber, SubscriberState

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = "bench.invalid"  # the subscribers' addresses: a domain that can never receive mail
SLUG_PREFIX = "bench-mail-"

BODY = r"""## 为什么 warp 调度决定了 kernel 的吞吐

一个 SM 上同时驻留多个 warp，调度器每个周期从就绪的 warp 里挑一个发射指令。占用率
（occupancy）越高，访存延迟越容易被其他 warp 的计算掩盖。下面用一个简单的例子说明，
延迟 $L$ 与并发 warp 数 $W$ 的关系近似为 $T \approx \max(L / W, 1)$ 个周期一条指令。

```cuda
__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];  // one load pair, one FMA, one store
    }
}
```

| GPU  | SM 数 | 每 SM 最大 warp | 共享内存 |
|------|------:|----------------:|---------:|
| A100 |   108 |              64 |   164 KB |
| H100 |   132 |              64 |   228 KB |

注意力的打分可以写成

$$
\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V
$$

其中 $d_k$ 是每个头的维度。![SM 示意图](/media/uploads/sm.png)

> 经验法则：先看 Nsight Compute 的 `achieved occupancy`，再谈优化。

1. 先测带宽上限；
2. 再看指令混合；
3. 最后才考虑手写 PTX。
""" + "\n".join(
    f"第 {i} 段：寄存器压力、共享内存 bank conflict 和 warp divergence 都会降低有效吞吐，"
    f"所以 profile 要看 stall reason 的分布，而不是只看 SM 利用率（第 {i} 次提醒）。\n"
    for i in range(1, 25)
)


class Sink:
    """aiosmtpd's handler: counts each message and its bytes, keeps nothing."""

    def __init__(self):
        self.count = 0
        self.bytes = 0
        self.first = self.last = None
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        with self.lock:
            self.count += 1
            self.bytes += len(envelope.original_content or envelope.content)
            self.last = time.monotonic()
            self.first = self.first or self.last
        return "250 2.0.0 OK"


class Command(BaseCommand):
    help = "Email one note to 10,000 subscribers through a local SMTP sink; time and memory."

    def add_arguments(self, parser):
        parser.add_argument("--subscribers", type=int, default=10_000)
        parser.add_argument("--port", type=int, default=0, help="the sink's (0: a free one)")
        parser.add_argument("--force", action="store_true", help="use a database with content")

    def handle(self, *args, subscribers, port, force, **options):
        from aiosmtpd.controller import Controller

        call_command("migrate", verbosity=0)
        self._refuse_foreign_data(force)
        self._subscribers(subscribers)
        note = self._note()
        env = self._worker_env()
        self._worker(env)  # what publishing queued: cards and the like, not measured
        idle_kb, _ = self._worker(env)

        started = time.monotonic()
        queued = announce(note)
        announce_seconds = time.monotonic() - started
        if queued != subscribers:
            raise CommandError(f"{queued} deliveries queued for {subscribers} subscribers")

        sink = Sink()
        port = port or _free_port()
        controller = Controller(sink, hostname="127.0.0.1", port=port, decode_data=False)
        controller.start()
        try:
            env["EMAIL_URL"] = f"smtp://127.0.0.1:{port}"
            started = time.monotonic()
            peak_kb, seconds = self._worker(env)
            send_seconds = time.monotonic() - started
        finally:
            controller.stop()
        sent = Delivery.objects.filter(note=note, state=DeliveryState.SENT).count()
        if sink.count != subscribers or sent != subscribers:
            raise CommandError(f"{sink.count} messages received, {sent} deliveries SENT")
        self._report(
            note,
            subscribers,
            sink,
            announce_seconds=announce_seconds,
            send_seconds=send_seconds,
            peak_kb=peak_kb,
            idle_kb=idle_kb,
        )

    def _refuse_foreign_data(self, force):
        foreign_subscribers = Subscriber.objects.exclude(email__endswith=f"@{DOMAIN}").exists()
        foreign_notes = Note.objects.exclude(slug__startswith=SLUG_PREFIX).exists()
        if (foreign_subscribers or foreign_notes) and not force:
            raise CommandError(
                f"{settings.DATABASES['default']['NAME']} holds subscribers or notes this "
                "benchmark did not make: point DATABASE_URL at a scratch database, or --force."
            )

    def _subscribers(self, count):
        have = Subscriber.objects.filter(email__endswith=f"@{DOMAIN}").count()
        if have > count:
            Subscriber.objects.filter(email__endswith=f"@{DOMAIN}").delete()
            have = 0
        now = timezone.now()
        Subscriber.objects.bulk_create(
            (
                Subscriber(
                    email=f"reader{n:05d}@{DOMAIN}",
                    wants=("zh-hans", "both")[n % 2],
                    state=SubscriberState.CONFIRMED,
                    confirmed_at=now,
                    source="benchmark",
                )
                for n in range(have, count)
            ),
            batch_size=1000,
        )

    def _note(self):
        n = Note.objects.filter(slug__startswith=SLUG_PREFIX).count() + 1
        return Note.objects.create(
            title=f"Warp 调度与吞吐（基准 {n}）",
            slug=f"{SLUG_PREFIX}{n}",
            language=Language.CHINESE,
            body=BODY,
            status=Status.PUBLISHED,
            published_at=timezone.now(),
        )

    def _worker_env(self):
        env = {k: v for k, v in os.environ.items() if k != "EMAIL_URL"}
        env.update(BIJI_MAIL_RATE="0", DJANGO_LOG_LEVEL="ERROR")
        # No sink yet: a message sent now would be a bug, and fail loudly.
        env["EMAIL_URL"] = f"smtp://127.0.0.1:{_free_port()}"
        return env

    def _worker(self, env):
        """``db_worker --batch`` until the queue is empty: (its peak RSS in KB, seconds)."""
        connection.close()  # SQLite: let the worker write
        started = time.monotonic()
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay", "-v", "0"],
            cwd=ROOT,
            env=env,
        )
        _, status, usage = os.wait4(worker.pid, 0)
        worker.returncode = os.waitstatus_to_exitcode(status)
        if worker.returncode:
            raise CommandError(f"the worker exited with {worker.returncode}")
        return usage.ru_maxrss, time.monotonic() - started

    def _report(self, note, subscribers, sink, **figures):
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        database = connection.vendor
        rate = subscribers / figures["send_seconds"]
        self.stdout.write(
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.python_implementation()} "
            f"{platform.python_version()}, {_cpu_name()} ({os.cpu_count()} CPUs), {database}.\n"
            f"{subscribers:,} confirmed subscribers; one note of {len(note.body.encode()):,} "
            f"bytes of Markdown; {sink.bytes / sink.count / 1024:.1f} KB a message (HTML and "
            f"text), {sink.bytes / 1024 / 1024:.1f} MB in all; no rate limit.\n"
            f"announce (deliveries written, tasks queued): {figures['announce_seconds']:.2f} s\n"
            f"send (worker start to last batch):         {figures['send_seconds']:.1f} s, "
            f"{rate:,.0f} messages/s\n"
            f"worker peak memory (RSS):                    {figures['peak_kb'] / 1024:.0f} MB "
            f"(an idle worker: {figures['idle_kb'] / 1024:.0f} MB)\n"
            f"load average after the run: {load}"
        )


def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
