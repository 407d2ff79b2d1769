"""The build's memory, ``DIR/.biji-build.json``: what the last build wrote and from what, which
lets the next one be incremental, and whether it may be.

It records each file's content type and kind (which ``publish_site`` serves it by), each URL's
file, the parts it shows with their versions (:mod:`.part_versions`) and its links, and what the
whole copy depends on: the release, the base URL, the subscription endpoint and the content
state's schedule key. When one of those changed, or the last build did not finish, the next
build is a full one (:func:`rebuild_reason`).
"""

import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

from blog.caching import release
from blog.ops.static_site.page_files import subscribe_endpoint

MANIFEST = ".biji-build.json"
FORMAT = 1


def read_manifest(folder):
    """The last build's manifest in ``folder``, or None (none, unreadable, another format)."""
    try:
        manifest = json.loads((Path(folder) / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        return None
    return manifest


def rebuild_reason(old, *, asked, base_url, state):
    """``(True, why)`` when everything must be built again (``asked``: ``--full``), after the
    last build's manifest ``old`` (``{}`` when there is none) and the content ``state`` now;
    else ``(False, "")``."""
    if asked:
        return True, "asked for"
    if not old:
        return True, "no earlier build"
    checks = (
        (old.get("complete"), "the last build did not finish"),
        (old.get("release") == release.fingerprint(), "a new release"),
        (old.get("base_url") == base_url, "another base URL"),
        (old.get("subscribe_url") == subscribe_endpoint(), "another subscription endpoint"),
        (old.get("schedule_key") == state.schedule_key, "a scheduled note came due"),
    )
    for ok, why in checks:
        if not ok:
            return True, why
    return False, ""


def new_manifest(state, complete, *, base_url, files, pages):
    next_at = state.next_scheduled_at
    return {
        "format": FORMAT,
        "complete": complete,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "release": release.fingerprint(),
        "base_url": base_url,
        "subscribe_url": subscribe_endpoint(),
        "schedule_key": state.schedule_key,
        "next_scheduled_at": next_at.isoformat() if next_at else None,
        "files": dict(sorted(files.items())),
        "pages": dict(sorted(pages.items())),
    }


def write_manifest(folder, manifest):
    data = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
    temporary = folder / f"{MANIFEST}.{uuid.uuid4().hex}.tmp"
    temporary.write_bytes(data)
    os.replace(temporary, folder / MANIFEST)
