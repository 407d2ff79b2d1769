#!/usr/bin/env bash
# Installs the Debian packages named, without their recommendations. The package lists are
# updated first unless this script did it in the last hour (var/apt-updated: apt keeps the
# lists' files with the server's dates): `make test-deps` installs the browser's and the
# generators' packages one after the other, and one update serves both.
set -euo pipefail
[ $# -gt 0 ] || exit 0
echo "installing Debian packages: $*"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
cd "$(dirname "$0")/.."
if ! find var/apt-updated -mmin -60 2>/dev/null | grep -q .; then
  $SUDO apt-get update -qq
  mkdir -p var && touch var/apt-updated
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
