"""Which of a backup's accounts a restore lets in: an account here is never changed, and a staff
account not here comes in only with ``with_accounts``.

May import what :mod:`blog.ops` may.
"""

from dataclasses import dataclass, field

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import models

from blog.ops.backup.portable import RestoreError


@dataclass
class Admitted:
    """What the restore did with the backup's accounts."""

    kept_here: list[str] = field(default_factory=list)  # user names matched to accounts here
    left_out: list[tuple[str, bool]] = field(default_factory=list)  # (user name, superuser)


def account_models():
    user = get_user_model()
    return [
        user,
        Group,
        user.groups.through,
        user.user_permissions.through,
        Group.permissions.through,
    ]


def account_labels():
    return frozenset(model._meta.label_lower for model in account_models())


def admit(data, using, *, with_accounts):
    """Rewrite ``data`` (the decoded dump) in place so that loading it lets in only the
    accounts the rules above admit, under primary keys free here. Returns :class:`Admitted`."""
    entries = {entry["model"]: entry for entry in data["models"]}
    user, group, *links = account_models()
    admitted = Admitted()
    matched = {
        user: _match(entries.get(user._meta.label_lower), user, using, admitted, with_accounts),
        group: _match(entries.get(group._meta.label_lower), group, using, None, True),
    }
    for link in links:  # memberships and permissions: only of the accounts and groups let in
        _keep_links(entries.get(link._meta.label_lower), link, using, matched)
    others = [entry for label, entry in entries.items() if label not in account_labels()]
    _follow(others, {model: found.mapping for model, found in matched.items()})
    return admitted


@dataclass
class _Matched:
    mapping: dict  # the backup's primary key → the one here, or None when left out
    new: set  # primary keys (here) of the rows let in


def _match(entry, model, using, admitted, with_accounts):
    """Match the backup's rows of ``model`` (users or groups) to the rows here by name."""
    matched = _Matched({}, set())
    if entry is None:
        return matched
    name_field = getattr(model, "USERNAME_FIELD", "name")
    here = dict(model._base_manager.using(using).values_list(name_field, "pk"))
    column = _columns(entry)
    pk, name = column[model._meta.pk.attname], column[name_field]
    taken = set(here.values())
    next_free = _first_free(taken, entry, pk)
    rows = []
    for row in entry["rows"]:
        if row[name] in here:
            matched.mapping[row[pk]] = here[row[name]]
            if admitted is not None:
                admitted.kept_here.append(row[name])
            continue
        if admitted is not None and not with_accounts and _privileged(row, column):
            matched.mapping[row[pk]] = None
            superuser = "is_superuser" in column and bool(row[column["is_superuser"]])
            admitted.left_out.append((row[name], superuser))
            continue
        original = row[pk]
        if original in taken:
            row[pk], next_free = next_free, next_free + 1
        matched.mapping[original] = row[pk]
        matched.new.add(row[pk])
        rows.append(row)
    entry["rows"] = rows
    return matched


def _privileged(row, column):
    # A user model without these flags: every account counts as one that can log in.
    return any(row[column[flag]] if flag in column else True for flag in _FLAGS)


_FLAGS = ("is_staff", "is_superuser")


def _columns(entry):
    return {name: index for index, name in enumerate(entry["fields"])}


def _first_free(taken, entry, pk):
    """A primary key above those here and those of the backup."""
    return max([*taken, *(row[pk] for row in entry["rows"]), 0]) + 1


def _keep_links(entry, model, using, matched):
    """The rows of a many-to-many table whose ends were all let in, pointing at their keys
    here, each under its own key unless a row here holds it."""
    if entry is None:
        return
    column = _columns(entry)
    pk = column[model._meta.pk.attname]
    ends = [
        (column[relation.attname], matched[relation.related_model])
        for relation in model._meta.concrete_fields
        if relation.is_relation and relation.related_model in matched
    ]
    taken = set(model._base_manager.using(using).values_list("pk", flat=True))
    next_free = _first_free(taken, entry, pk)
    kept = []
    for row in entry["rows"]:
        for index, found in ends:
            row[index] = found.mapping.get(row[index])
        if all(row[index] in found.new for index, found in ends):
            if row[pk] in taken:
                row[pk], next_free = next_free, next_free + 1
            kept.append(row)
    entry["rows"] = kept


def _follow(entries, mappings):
    """Point every other row at the accounts as they are here; a row that pointed at one
    left out is changed as its ``on_delete`` says (and so on for rows that pointed at it)."""
    while mappings:
        dropped = {}
        for entry in entries:
            model = apps.get_model(entry["model"])
            column = _columns(entry)
            relations = [
                (column[relation.attname], relation, mappings[relation.related_model])
                for relation in model._meta.concrete_fields
                if relation.is_relation
                and (relation.many_to_one or relation.one_to_one)
                and relation.related_model in mappings
                and relation.attname in column
            ]
            if not relations:
                continue
            kept = []
            for row in entry["rows"]:
                if _points_on(row, relations):
                    kept.append(row)
                else:
                    dropped.setdefault(model, {})[row[column[model._meta.pk.attname]]] = None
            entry["rows"] = kept
        mappings = dropped


def _points_on(row, relations):
    """Rewrite ``row``'s keys through the mappings; False when it must go (CASCADE)."""
    for index, relation, mapping in relations:
        if row[index] not in mapping:
            continue  # not an account the backup holds: the load's key check speaks
        target = mapping[row[index]]
        if target is not None:
            row[index] = target
        elif relation.remote_field.on_delete is models.CASCADE:
            return False
        elif relation.null and relation.remote_field.on_delete is models.SET_NULL:
            row[index] = None
        else:
            raise RestoreError(
                f"{relation.model._meta.label_lower}.{relation.name} points at an account "
                "left out and cannot lose it: restore with --with-accounts."
            )
    return True
