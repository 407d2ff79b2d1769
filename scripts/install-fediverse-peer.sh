#!/usr/bin/env bash
# The fediverse peer of the journey test (tests/fediverse_peer.py): bovine-herd under hypercorn,
# in a virtualenv of its own, .venv-peer (bovine pins cryptography<46; biji's lock has a later
# one), exactly requirements-peer.lock's, all wheels (15-45 s, most of it downloading). Nothing
# to do when .venv-peer holds that lock already (it keeps a copy of the lock it was made from
# once the install succeeded).
set -euo pipefail
cd "$(dirname "$0")/.."

PEER_VENV=.venv-peer
if cmp -s requirements-peer.lock "$PEER_VENV/installed.lock" && [ -x "$PEER_VENV/bin/hypercorn" ]; then
  exit 0
fi
echo "installing the fediverse peer (bovine-herd) in $PEER_VENV"
rm -rf "$PEER_VENV"
"${PYTHON:-python3}" -m venv "$PEER_VENV"
"$PEER_VENV/bin/python" -m pip install --quiet --quiet --disable-pip-version-check --only-binary=:all: \
  --require-hashes -r requirements-peer.lock
cp requirements-peer.lock "$PEER_VENV/installed.lock"
