"""The fediverse peer: bovine-herd (a real ActivityPub server) under hypercorn, over HTTPS.

Run with ``.venv-peer``'s Python by :mod:`tests.fediverse_peer` (never imported by the tests:
bovine lives in its own virtualenv), in a folder of the run's own, with the environment:
``PEER_DB_URL`` (its SQLite database, made here), ``PEER_DOMAIN`` (``localhost:<port>``: the
host of its ids, and the port it listens on), ``PEER_HANDLE`` (its one user), ``PEER_DID_KEY``
(the ``did:key`` whose Ed25519 key the test signs with, to act as that user through bovine's
client API, Moo-Auth-1), ``PEER_CERT`` and ``PEER_KEY`` (its certificate, from the run's test CA),
``PEER_ACTOR_FILE`` (where its user's actor, as its owner sees it, is written before it serves).
One process does it all: each start of bovine's own command line costs ~0.6 s of CPU.
"""

import asyncio
import json
import logging
import os

from bovine.types import Visibility
from bovine_herd import BovineHerd
from bovine_store import bovine_admin_store
from hypercorn.asyncio import serve
from hypercorn.config import Config
from quart import Quart
from tortoise import Tortoise


async def register_user(db_url, domain, handle, did_key):
    """The store's tables, its user, the test's key as one of the user's identities; the
    user's actor."""
    async with bovine_admin_store(db_url=db_url, domain=domain) as store:
        await Tortoise.generate_schemas()
        name = await store.register(handle)
        await store.add_identity_string_to_actor(name, "test", did_key)
        actor = await store.actor_for_name(name)
        await actor.session.close()
        return actor.actor_object.build(visibility=Visibility.OWNER)


def main():
    env = os.environ
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    actor = asyncio.run(
        register_user(
            env["PEER_DB_URL"], env["PEER_DOMAIN"], env["PEER_HANDLE"], env["PEER_DID_KEY"]
        )
    )
    app = Quart("fediverse_peer")
    BovineHerd(app, db_url=env["PEER_DB_URL"])
    config = Config()
    config.bind = [f"127.0.0.1:{env['PEER_DOMAIN'].rsplit(':', 1)[1]}"]
    config.certfile, config.keyfile = env["PEER_CERT"], env["PEER_KEY"]
    config.accesslog, config.errorlog = "-", None  # errors: through logging, once
    with open(env["PEER_ACTOR_FILE"] + ".part", "w") as file:
        json.dump(actor, file)
    os.replace(env["PEER_ACTOR_FILE"] + ".part", env["PEER_ACTOR_FILE"])
    asyncio.run(serve(app, config))


if __name__ == "__main__":
    main()
