#!/usr/bin/env bash
# Varnish in front of biji, in the background, with the VCL biji ships (config/varnish/biji.vcl):
#   scripts/start-varnish.sh [BACKEND, 127.0.0.1:8000] [LISTEN, 127.0.0.1:6081] [MEMORY, 256m]
# Its working folder, VCL and pid file are in var/varnish/<listen port>/; stop it with
# `kill "$(cat var/varnish/6081/varnishd.pid)"`. Already running there: nothing to do.
set -euo pipefail
cd "$(dirname "$0")/.."
backend="${1:-127.0.0.1:8000}"
listen="${2:-127.0.0.1:6081}"
memory="${3:-256m}"
bash scripts/install-edge.sh
dir="$PWD/var/varnish/${listen##*:}"
mkdir -p "$dir"
if [ -f "$dir/varnishd.pid" ] && kill -0 "$(cat "$dir/varnishd.pid")" 2>/dev/null; then
  echo "Varnish already runs on $listen"
  exit 0
fi
sed -e "s/BACKEND_HOST/${backend%:*}/" -e "s/BACKEND_PORT/${backend##*:}/" \
  config/varnish/biji.vcl > "$dir/biji.vcl"
# -j none: no jail of its own, so it also runs as root in a container without a varnish user.
varnishd -n "$dir" -f "$dir/biji.vcl" -a "$listen" -s "malloc,$memory" -P "$dir/varnishd.pid" \
  -j none -p default_grace=0 -p default_keep=0
echo "Varnish on http://$listen/ in front of http://$backend/ (purges: BIJI_EDGE_PURGER=varnish BIJI_EDGE_PURGE_URLS=http://$listen/)"
