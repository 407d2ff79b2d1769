"""The search index's rows: one :class:`SearchDocument` per note, of folded text.

The rows are derived data, written only by :mod:`blog.search.index` (never in the admin or a
form) from :func:`blog.search.text.build_document`. Each database's own index over them is
created by migration ``0004_searchdocument``, not declared in ``Meta.indexes``, because
``Meta.indexes`` apply to every database:

* **SQLite**: FTS5 tables kept in step with this table by triggers (external content):
  ``blog_search_fts`` (trigram tokenizer) over ``text``, for terms of three characters or
  more; ``blog_search_head``, the same over ``title`` and ``tags``, for ranking; and
  ``blog_search_grams`` (``unicode61``) over the three n-gram columns, for one- and
  two-character terms, which the trigram tokenizer cannot look up. A schema change of this
  model on SQLite rebuilds the table and so drops the triggers: recreate them as 0004 does.
* **PostgreSQL**: pg_trgm GIN indexes (``GinIndex(..., opclasses=["gin_trgm_ops"])``) over
  ``text`` and ``grams`` for matching, and over ``title``, ``tags``, ``title_grams`` and
  ``tag_grams`` for ranking; ``LIKE '%term%'`` (``__contains``) uses them.
"""

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

    FIELDS = ("title", "tags", "text", "title_grams", "tag_grams", "grams")

    class Meta:
        # Derived data: nothing to translate or show, so no verbose names.
        default_permissions = ()

    def __str__(self):
        return f"Search document of note {self.note_id}"
