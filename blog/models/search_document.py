"""The search index's rows, written only by :mod:`blog.search.index`. Each database's index over
them is migration 0004's, not ``Meta.indexes`` (FTS5 with triggers, or pg_trgm); a schema change of
this model on SQLite drops the triggers."""

from django.db import models


class SearchDocument(models.Model):
    # No database constraint and DO_NOTHING: deleting a note never waits for (or fails on) the
    # index; its row is removed after commit (blog.search.receivers), and a row without a note can
    # never be shown, as results are notes. ``flush`` truncates the tables in any order.
    note = models.OneToOneField(
        "blog.Note",  # by name: blog.models imports this module
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    title = models.TextField(default="")
    tags = models.TextField(default="")  # one tag name per line
    text = models.TextField(default="")  # title, tags and body, one per line
    title_grams = models.TextField(default=" ")
    tag_grams = models.TextField(default=" ")
    grams = models.TextField(default=" ")  # of title, tags and body together
    # Publication time and id as one integer (blog.search.order): SQLite's FTS5 tables use it
    # as their rowid, so a match list comes newest first. Written with the rest of the row.
    order_key = models.BigIntegerField(null=True)

    FIELDS = ("title", "tags", "text", "title_grams", "tag_grams", "grams")

    class Meta:
        # Derived data: nothing to translate or show, so no verbose names.
        default_permissions = ()

    def __str__(self):
        return f"Search document of note {self.note_id}"
