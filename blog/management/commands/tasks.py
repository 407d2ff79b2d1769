"""``manage.py tasks [--status S]``: the queue, its workers and the latest tasks; ``tasks retry
<id>`` runs a FAILED task again; ``tasks sweep`` puts back the tasks of lost workers (dead on
this host, or whose lease ran out on any host)."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

from blog.background.queue_state import queue_state
from blog.background.sweep import sweep


def duration(delta):
    """``delta`` as "2 h 5 min", "4 min 3 s", "12 s"."""
    seconds = max(int(delta.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def summary_lines(state):
    hours = int(state.failed_within.total_seconds() // 3600)
    yield (
        f"Waiting: {state.ready} ready now, {state.retrying} to retry later, "
        f"{state.scheduled} scheduled. Running: {state.running}. "
        f"Failed in the last {hours} hours: {state.failed}."
    )
    if state.oldest_wait is not None:
        yield f"The oldest ready task has waited {duration(state.oldest_wait)}."
    if not state.workers:
        yield "Workers: no worker seen. Start one: `make run` does; else `manage.py db_worker`."
        return
    if not state.worker_seen:
        yield "Workers: none seen recently; cards, emails and imports wait. Start one: "
        yield "`make run` does; else `manage.py db_worker`."
    yield "Workers:"
    for worker in state.workers:
        doing = f"running {worker.task_path} ({worker.task_id})" if worker.task_id else "idle"
        lease = "lease current" if worker.lease_current else "lease run out"
        yield (
            f"  {worker.worker_id}  queues {worker.queues}  "
            f"last seen {duration(state.now - worker.last_seen)} ago  {doing}  "
            f"(host {worker.host}, {lease})"
        )


class Command(BaseCommand):
    help = "List background tasks, retry a failed one, or sweep the tasks of dead workers."

    def add_arguments(self, parser):
        parser.add_argument("action", nargs="?", choices=["list", "retry", "sweep"], default="list")
        parser.add_argument("task_id", nargs="?", help="For retry: the task's id.")
        parser.add_argument("--status", choices=TaskResultStatus.values, help="For list.")
        parser.add_argument("--limit", type=int, default=30, help="For list (default 30).")

    def handle(self, *args, action, task_id, status, limit, **options):
        if action == "sweep":
            swept = sweep()
            for pk, new_status in swept:
                self.stdout.write(f"{pk}: {new_status}")
            self.stdout.write(f"{len(swept)} tasks of dead workers swept.")
        elif action == "retry":
            self.retry(task_id)
        else:
            self.list(status, limit)

    def list(self, status, limit):
        for line in summary_lines(queue_state()):
            self.stdout.write(line)
        self.stdout.write("")
        results = DBTaskResult.objects.order_by("-enqueued_at")
        if status:
            results = results.filter(status=status)
        if not results.exists():
            self.stdout.write("No tasks.")
        for result in results[:limit]:
            error = result.traceback.strip().splitlines()[-1] if result.traceback else ""
            self.stdout.write(
                f"{result.pk}  {result.task_path}  {result.queue_name}  {result.status}  "
                f"attempts={len(result.worker_ids)}  enqueued={result.enqueued_at:%Y-%m-%d %H:%M}"
                + (f"  {error}" if error else "")
            )

    def retry(self, task_id):
        if not task_id:
            raise CommandError("Which task? manage.py tasks retry <id> (ids: manage.py tasks).")
        with transaction.atomic():
            try:
                result = DBTaskResult.objects.select_for_update().get(pk=task_id)
            except (DBTaskResult.DoesNotExist, ValidationError):
                raise CommandError(f"No task {task_id}.") from None
            if result.status != TaskResultStatus.FAILED:
                raise CommandError(
                    f"Task {task_id} is {result.status}: only a FAILED task is retried."
                )
            # A new set of attempts: the earlier workers stay in the error text.
            result.traceback = (
                f"Retried by hand after {len(result.worker_ids)} attempts.\n{result.traceback}"
            )
            result.status, result.worker_ids = TaskResultStatus.READY, []
            result.run_after, result.finished_at = get_date_max(), None
            result.save()
        self.stdout.write(f"Task {task_id} is back in the queue.")
