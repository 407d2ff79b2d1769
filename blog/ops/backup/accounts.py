"""Which of a backup's accounts a restore lets in: an account here is never changed, and a staff
account not here comes in only with ``with_accounts``.

May import what :mod:`blog.ops` may.
"""

from dataclasses import dataclass, field

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import models

from blog.ops.backup import dump_reader
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


@dataclass
class Plan:
    """How a restore loads the dump (:mod:`blog.ops.backup.dump_reader`): the account models'
    rows as admitted, every other row with its keys to accounts rewritten, and without the
    rows that go with an account left out."""

    admitted: Admitted
    labels: list[str]  # every model of the dump, in its order
    accounts: dict  # label → the account model's rows as admitted
    mappings: dict  # account model → {the backup's primary key: the one here, or None}
    dropped: dict  # model → primary keys of its rows that go with an account left out

    def rows_of(self, entry, model):
        """The rows of ``entry`` (a model of the dump) to load."""
        if entry.model in account_labels():
            return iter(self.accounts.get(entry.model, []))
        return _rewritten(entry, model, self.mappings, self.dropped)


def admit(path, using, *, with_accounts):
    """Read the dump at ``path`` for its accounts and the rows that point at them; returns the
    :class:`Plan` by which loading it lets in only the accounts the rules above admit, under
    primary keys free here."""
    labels, entries = [], {}
    with open(path, "rb") as stream:
        for entry in dump_reader.entries(stream):
            labels.append(entry.model)
            if entry.model in account_labels():
                entries[entry.model] = {"fields": entry.fields, "rows": list(entry.rows)}
    user, group, *links = account_models()
    admitted = Admitted()
    matched = {
        user: _match(entries.get(user._meta.label_lower), user, using, admitted, with_accounts),
        group: _match(entries.get(group._meta.label_lower), group, using, None, True),
    }
    for link in links:  # memberships and permissions: only of the accounts and groups let in
        _keep_links(entries.get(link._meta.label_lower), link, using, matched)
    mappings = {model: found.mapping for model, found in matched.items()}
    accounts = {label: entry["rows"] for label, entry in entries.items()}
    return Plan(admitted, labels, accounts, mappings, _follow(path, mappings))


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
    column = _columns(entry["fields"])
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


def _columns(fields):
    return {name: index for index, name in enumerate(fields)}


def _first_free(taken, entry, pk):
    """A primary key above those here and those of the backup."""
    return max([*taken, *(row[pk] for row in entry["rows"]), 0]) + 1


def _keep_links(entry, model, using, matched):
    """The rows of a many-to-many table whose ends were all let in, pointing at their keys
    here, each under its own key unless a row here holds it."""
    if entry is None:
        return
    column = _columns(entry["fields"])
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


def _relations(model, column, models):
    """(column index, relation) of each key of ``model`` (to one row) to one of ``models``."""
    return [
        (column[relation.attname], relation)
        for relation in model._meta.concrete_fields
        if relation.is_relation
        and (relation.many_to_one or relation.one_to_one)
        and relation.related_model in models
        and relation.attname in column
    ]


def _follow(path, mappings):
    """The rows (model → primary keys) that go with an account left out, as their
    ``on_delete`` says (and so on for rows that pointed at them): one more reading of the dump
    for each step of such a chain, none when every account is let in."""
    dropped = {}
    gone = {
        model: {pk for pk, here in mapping.items() if here is None}
        for model, mapping in mappings.items()
    }
    gone = {model: keys for model, keys in gone.items() if keys}
    while gone:
        newly = {}
        with open(path, "rb") as stream:
            for entry in dump_reader.entries(stream):
                if entry.model in account_labels():
                    continue
                try:
                    model = apps.get_model(entry.model)
                except LookupError:
                    continue  # a model unknown here: the load refuses the backup, naming it
                column = _columns(entry.fields)
                relations = _relations(model, column, gone)
                if not relations:
                    continue
                pk = column[model._meta.pk.attname]
                before = dropped.get(model, set())
                for row in entry.rows:
                    if row[pk] not in before and _goes(row, relations, gone):
                        newly.setdefault(model, set()).add(row[pk])
        for model, keys in newly.items():
            dropped.setdefault(model, set()).update(keys)
        gone = newly
    return dropped


def _goes(row, relations, gone):
    """Whether ``row`` goes with a row that went (CASCADE); a key that can be emptied is, at
    load (:func:`_rewritten`); any other ``on_delete`` refuses the restore."""
    for index, relation in relations:
        if row[index] not in gone[relation.related_model]:
            continue
        if relation.remote_field.on_delete is models.CASCADE:
            return True
        if not (relation.null and relation.remote_field.on_delete is models.SET_NULL):
            raise RestoreError(
                f"{relation.model._meta.label_lower}.{relation.name} points at an account "
                "left out and cannot lose it: restore with --with-accounts."
            )
    return False


def _rewritten(entry, model, mappings, dropped):
    """``entry``'s rows pointing at the accounts as they are here, but those that go."""
    column = _columns(entry.fields)
    to_accounts = _relations(model, column, mappings)
    to_dropped = _relations(model, column, dropped)
    gone = dropped.get(model, set())
    pk = column[model._meta.pk.attname]
    for row in entry.rows:
        if row[pk] in gone:
            continue
        for index, relation in to_accounts:
            if row[index] in mappings[relation.related_model]:
                row[index] = mappings[relation.related_model][row[index]]  # None: SET_NULL
        for index, relation in to_dropped:
            if row[index] in dropped[relation.related_model]:
                row[index] = None  # a row that went with an account: SET_NULL (_goes)
        yield row
