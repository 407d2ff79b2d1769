"""PostgreSQL: ``pg_dump`` in its custom format, beside the portable dump, when installed."""

import os
import shutil
import subprocess

from django.db import connections


class DumpError(Exception):
    pass


def pg_dump_available():
    return shutil.which("pg_dump") is not None


def pg_dump(using, target):
    """``pg_dump -Fc`` of the database ``using``, one consistent snapshot; restore by hand with
    ``pg_restore --no-owner --dbname=… db.pgdump``."""
    params = connections[using].get_connection_params()
    env = dict(os.environ)
    if params.get("password"):
        env["PGPASSWORD"] = str(params["password"])
    command = ["pg_dump", "--format=custom", "--no-owner", f"--file={target}"]
    for option, key in (("--host", "host"), ("--port", "port"), ("--username", "user")):
        if params.get(key):
            command.append(f"{option}={params[key]}")
    command.append(params.get("dbname") or connections[using].settings_dict["NAME"])
    result = subprocess.run(command, env=env, capture_output=True, text=True)  # noqa: S603
    if result.returncode != 0:
        raise DumpError(f"pg_dump failed: {result.stderr.strip()}")
