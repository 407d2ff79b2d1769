"""Which tests run on PostgreSQL and Redis too: the ``engine`` marker, given by rule.

Every test runs on SQLite with the local-memory cache. A test runs on PostgreSQL with the Redis
cache as well when its outcome can depend on the engine or the cache, which is when it checks
one of these (docs/testing.md, "Which tests run on PostgreSQL"):

- the database's own SQL: search (SQLite's FTS5 index, PostgreSQL's side table), migrations,
  backups and restores, and the order of text (collations differ);
- what SQLite does not enforce: column lengths, date ranges, constraints, hostile or
  oversized input that reaches a column;
- locks and transactions: the background runner's claims, races, conflicts, what a change
  queues after its commit (the reaction table; sending email);
- query counts (a test whose name speaks of queries, wherever it is);
- the cache: the page cache, validators, memos, the content version, throttles, outages.
  Which pages a change refreshes is decided above the cache's API: one such walk runs on Redis
  (:data:`ONE_OF`), the others once.

Everything else (templates, forms, text, the admin's screens, imports' content) runs the same
code above the ORM on either engine, and runs once.
"""

MARKER = "engine"

MODULES = {
    # the database's own SQL
    "test_search", "test_search_deadline", "test_search_glossary", "test_search_index",
    "test_search_math_snippets", "test_search_mixed_scripts", "test_migrations",
    "test_translation_sync",
    "test_backup_restore", "test_restore_hostile", "test_glossary_porting",
    "test_translation_sync_porting", "test_views_indexes", "test_glossary_pages",
    "test_related_notes", "test_admin_note_list_reads",
    # what SQLite does not enforce
    "test_models", "test_dates_in_range", "test_admin_validation", "test_import_limits",
    "test_wordpress_hostile_input", "test_import_bad_files", "test_admin_render_bounds",
    "test_fediverse_security",
    "test_admin_series_positions",
    # locks and transactions
    "test_background_runner", "test_mail_sending", "test_import_fairness", "test_tag_race",
    "test_edit_conflicts", "test_worker_resilience", "test_import_in_background",
    "test_reactions", "test_import_dry_run_lock",
    # the cache
    "test_page_cache", "test_page_cache_trust",
    "test_conditional_get", "test_conditional_requests", "test_cache_outage",
    "test_content_version", "test_memos", "test_site_settings_freshness",
    "test_login_throttling", "test_subscribe_abuse", "test_chrome", "test_near_pages",
    "test_cold_page_data",
}  # fmt: skip

# Modules of which one test stands for the rest on PostgreSQL and Redis: the others check the
# same code above the engine and the cache with another change (~25 s of the run's CPU).
ONE_OF = {
    "test_page_cache_parts": "test_fixing_a_typo_renders_again_only_the_pages_that_show_the_note",
}


def depends_on_the_engine(item):
    module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
    return module in MODULES or ONE_OF.get(module) == item.name or "quer" in item.name


def mark(item):
    """Give ``item`` the marker when the rule above says it runs on PostgreSQL too."""
    if depends_on_the_engine(item):
        item.add_marker(MARKER)
