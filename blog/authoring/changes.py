"""What an admin save changed, by field name, and the sentence that says so in the reader's
language.

Django's ``form.changed_data`` over-reports: tags shown in the admin's language, a text whose
line endings the browser rewrote, a time shown without its seconds all look changed. Here they
are compared as the author sees them. Revision comments keep field names, so the history reads
in the language of whoever looks at it; comments written as text are shown as they are.
"""

import json

from django import forms
from django.contrib.admin.models import LogEntry
from django.core.exceptions import FieldDoesNotExist
from django.utils.text import capfirst
from django.utils.translation import override
from taggit.forms import TagField

from blog.authoring.merge import normalise
from blog.models import Tag


def changed_fields(form):
    """The names of the fields whose submitted value differs as the author sees it."""
    changed = []
    for name in form.changed_data:
        field = form.fields[name]
        initial = form.get_initial_for_field(field, name)
        value = form.cleaned_data.get(name) if hasattr(form, "cleaned_data") else None
        if isinstance(field, TagField):
            if _tag_keys(initial) == _tag_keys(value):
                continue
        elif name not in getattr(form, "cleaned_data", {}):
            pass  # not valid: a change, as Django says
        elif isinstance(field, (forms.DateTimeField, forms.SplitDateTimeField)):
            if shown(field, initial) == shown(field, value):
                continue
        elif isinstance(field, forms.CharField) and isinstance(value, str):
            if normalise(initial if isinstance(initial, str) else "") == normalise(value):
                continue
        changed.append(name)
    return changed


def shown(field, value):
    """``value`` as ``field``'s widget shows it to the author (a list for a multi-widget)."""
    widget = field.widget
    if isinstance(widget, forms.MultiWidget):
        parts = widget.decompress(value) if value else [None] * len(widget.widgets)
        return [sub.format_value(part) for sub, part in zip(widget.widgets, parts, strict=False)]
    return widget.format_value(field.prepare_value(value))


def _tag_keys(tags):
    """A set that is the same for the same tags however they are given: Tag objects, or names in
    either language or pairs as typed before the save."""
    keys = set()
    for item in tags or ():
        item = getattr(item, "tag", item)
        if getattr(item, "pk", None) is not None:
            keys.add(item.pk)
            continue
        names = [item] if isinstance(item, str) else [getattr(item, a, "") for a in ("zh", "en")]
        found = next(filter(None, (Tag.objects.find(name) for name in names if name)), None)
        keys.add(found.pk if found is not None else "new:" + "/".join(names).casefold())
    return keys


def change_message(form, add):
    """A save's change message, with field names: ``[{"changed": {"fields": [...]}}]``."""
    if add:
        return [{"added": {}}]
    fields = changed_fields(form)
    return [{"changed": {"fields": fields}}] if fields else []


def with_labels(message, model):
    """``message`` as Django's admin log keeps it: fields by their English labels."""
    with override(None):
        return _renamed(message, model, lambda field: str(capfirst(field.verbose_name)))


def describe(comment, model):
    """A revision's comment as a sentence in the active language (see the module docstring)."""
    try:
        message = json.loads(comment)
    except (TypeError, ValueError):
        return comment
    if not isinstance(message, list) or not all(isinstance(part, dict) for part in message):
        return comment
    named = _renamed(message, model, lambda field: str(field.verbose_name))
    return LogEntry(change_message=json.dumps(named)).get_change_message()


def _renamed(message, model, name_of):
    renamed = []
    for part in message:
        changed = part.get("changed")
        if isinstance(changed, dict) and isinstance(changed.get("fields"), list):
            fields = [_field_name(model, name, name_of) for name in changed["fields"]]
            part = {**part, "changed": {**changed, "fields": fields}}
        renamed.append(part)
    return renamed


def _field_name(model, name, name_of):
    try:
        return name_of(model._meta.get_field(name))
    except (FieldDoesNotExist, TypeError):
        return str(name)
