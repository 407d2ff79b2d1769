"""The portable dump: every row worth keeping, as JSON, primary keys kept and datetimes exact to the
microsecond (``dumpdata`` cuts them to milliseconds; share links sign microseconds)."""

import base64
import datetime
import decimal
import json
import uuid

from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management.color import no_style
from django.db import connections, models, transaction
from django.utils.duration import duration_string

from blog.background import after_commit
from blog.ops.backup import dump_reader

FORMAT = "biji-portable-1"
COMPACT_EVERY = 1000  # rows

SKIPPED_APPS = {"contenttypes", "sessions", "axes"}
SKIPPED_MODELS = {
    "auth.permission",
    "blog.contentversion",
    "blog.partversion",
    "blog.searchdocument",
    "blog.workerheartbeat",  # which workers run here now, not content
    "blog.seenactivity",  # the fediverse's replay guard: a day of activity ids, not content
}


def dumped_models():
    """Concrete, managed models (auto-created m2m tables included), in a fixed order."""
    chosen = []
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.proxy or not meta.managed or meta.app_label in SKIPPED_APPS:
            continue
        if meta.label_lower in SKIPPED_MODELS:
            continue
        chosen.append(model)
    return sorted(chosen, key=lambda model: model._meta.label_lower)


def _fields(model):
    return [field for field in model._meta.concrete_fields]


def _natural_target(field):
    """``"contenttype"``/``"permission"`` for a foreign key to them, else None."""
    if field.is_relation and field.many_to_one or (field.is_relation and field.one_to_one):
        if field.related_model is ContentType:
            return "contenttype"
        if field.related_model is Permission:
            return "permission"
    return None


class _Encoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, datetime.datetime | datetime.date | datetime.time):
            return o.isoformat()  # all six digits of microseconds, and the offset
        if isinstance(o, datetime.timedelta):
            return duration_string(o)
        if isinstance(o, decimal.Decimal | uuid.UUID):
            return str(o)
        if isinstance(o, bytes | memoryview):
            return base64.b64encode(bytes(o)).decode("ascii")
        return super().default(o)


def _natural_maps(using):
    content_types = {
        ct.pk: [ct.app_label, ct.model] for ct in ContentType.objects.using(using).order_by("pk")
    }
    permissions = {
        perm.pk: [perm.content_type.app_label, perm.codename]
        for perm in Permission.objects.using(using).select_related("content_type")
    }
    return {"contenttype": content_types, "permission": permissions}


def dump(stream, using):
    """Write every kept row to ``stream`` (text); the caller opens the snapshot
    (:func:`snapshot`)."""
    natural = _natural_maps(using)
    stream.write(f'{{"format": {json.dumps(FORMAT)}, "models": [\n')
    counts = {}
    for index, model in enumerate(dumped_models()):
        fields = _fields(model)
        names = [field.attname for field in fields]
        targets = [_natural_target(field) for field in fields]
        header = {"model": model._meta.label_lower, "fields": names}
        stream.write((",\n" if index else "") + json.dumps(header, ensure_ascii=False)[:-1])
        stream.write(', "rows": [')
        rows = model._base_manager.using(using).order_by("pk").values_list(*names)
        count = 0
        for count, row in enumerate(rows.iterator(chunk_size=500), start=1):
            values = [
                natural[target].get(value) if target and value is not None else value
                for value, target in zip(row, targets, strict=True)
            ]
            stream.write("\n  " if count == 1 else ",\n  ")
            stream.write(json.dumps(values, cls=_Encoder, ensure_ascii=False))
        stream.write("]}")
        counts[model._meta.label_lower] = count
    stream.write("\n]}\n")
    return counts


def _natural_lookup(using):
    content_types = {
        (ct.app_label, ct.model): ct.pk for ct in ContentType.objects.using(using).all()
    }
    permissions = {
        (perm.content_type.app_label, perm.codename): perm.pk
        for perm in Permission.objects.using(using).select_related("content_type")
    }
    return {"contenttype": content_types, "permission": permissions}


class RestoreError(Exception):
    pass


def rows_present(using, ignore=frozenset()):
    """Models (labels) that hold rows in ``using``, among those a restore fills, but for
    those in ``ignore``."""
    return [
        model._meta.label_lower
        for model in dumped_models()
        if model._meta.label_lower not in ignore and model._base_manager.using(using).exists()
    ]


def load(path, using, *, plan, replace=False, keep=frozenset()):
    """Insert the rows of the dump at ``path`` into ``using`` in one transaction, read one at a
    time, as ``plan`` (:class:`blog.ops.backup.accounts.Plan`) gives them, primary keys as they
    were, foreign keys checked at the end; ``replace`` empties the models first, but ``keep``.
    Signals are sent with ``raw=True``."""
    found = dump_reader.dump_format(path)
    if found != FORMAT:
        raise RestoreError(f"Unknown dump format {found!r}.")
    ContentType.objects.clear_cache()
    known = {model._meta.label_lower: model for model in dumped_models()}
    unknown = [label for label in plan.labels if label not in known]
    if unknown:
        raise RestoreError(
            "The backup holds models this code does not know (run a newer biji?): "
            + ", ".join(unknown)
        )
    connection = connections[using]
    counts = {}
    with transaction.atomic(using=using), open(path, "rb") as stream:
        natural = _natural_lookup(using)
        with connection.constraint_checks_disabled():
            if replace:
                emptied = [m for m in known.values() if m._meta.label_lower not in keep]
                for model in [*_derived_models(), *reversed(emptied)]:
                    model._base_manager.using(using).all()._raw_delete(using)
            for entry in dump_reader.entries(stream):
                model = known[entry.model]
                counts[entry.model] = _insert(entry, model, plan, natural, using)
        tables = [model._meta.db_table for model in known.values()]
        connection.check_constraints(table_names=tables)
        _reset_sequences(connection, list(known.values()))
    return counts


def _insert(entry, model, plan, natural, using):
    fields = {field.attname: field for field in _fields(model)}
    missing = [name for name in entry.fields if name not in fields]
    if missing:
        raise RestoreError(f"{entry.model}: unknown fields {missing}.")
    columns = [fields[name] for name in entry.fields]
    targets = [_natural_target(field) for field in columns]
    count = 0
    for values in plan.rows_of(entry, model):
        kwargs = {}
        for field, target, value in zip(columns, targets, values, strict=True):
            if target and value is not None:
                try:
                    value = natural[target][tuple(value)]
                except KeyError as error:
                    raise RestoreError(
                        f"{entry.model}: no {target} {value} here "
                        "(run migrate for every app first)."
                    ) from error
            elif value is not None:
                value = field.to_python(value)
            kwargs[field.attname] = value
        models.Model.save_base(model(**kwargs), using=using, raw=True, force_insert=True)
        count += 1
        if count % COMPACT_EVERY == 0:
            # Each row's signals register their after-commit callbacks again, kept until
            # the restore's one commit: ~1 million of them at 100,000 notes.
            after_commit.compact(using)
    after_commit.compact(using)
    return count


def _derived_models():
    """Rebuilt after a restore, and pointing at restored rows: emptied with them."""
    labels = SKIPPED_MODELS - {"auth.permission"}
    return [model for model in apps.get_models() if model._meta.label_lower in labels]


def _reset_sequences(connection, model_list):
    statements = connection.ops.sequence_reset_sql(no_style(), model_list)
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)
