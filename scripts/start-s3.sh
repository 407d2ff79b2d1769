#!/usr/bin/env bash
# An S3-compatible store for local use: moto's standalone server (a dev dependency, on PyPI), in the
# background, with the media bucket made:
#   scripts/start-s3.sh [PORT, 9000] [BUCKET, biji-media]
# Its pid file and log are in var/s3/<port>/; stop it with `kill "$(cat var/s3/9000/moto.pid)"`.
# Already running there: only the bucket is made if missing. moto keeps objects in memory: a
# restart starts empty. Then run biji with the environment the last line prints.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-9000}"
bucket="${2:-biji-media}"
endpoint="http://127.0.0.1:$port"
dir="$PWD/var/s3/$port"
mkdir -p "$dir"
# moto takes any credentials; boto3 wants some.
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-biji-local}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-biji-local}"

answers() {
  .venv/bin/python - "$endpoint" <<'PY' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/", timeout=1).read()
PY
}

if [ -f "$dir/moto.pid" ] && kill -0 "$(cat "$dir/moto.pid")" 2>/dev/null; then
  echo "The S3 server already runs on $endpoint"
elif answers; then
  echo "Something else answers on $endpoint: choose another port" >&2
  exit 1
else
  echo "starting moto's S3 server on $endpoint (log: $dir/moto.log)"
  setsid nohup .venv/bin/moto_server -H 127.0.0.1 -p "$port" >"$dir/moto.log" 2>&1 </dev/null &
  echo $! >"$dir/moto.pid"
  for _ in $(seq 100); do answers && break; sleep 0.1; done
  answers || { echo "moto did not answer on $endpoint: see $dir/moto.log" >&2; exit 1; }
fi

.venv/bin/python - "$endpoint" "$bucket" <<'PY'
import sys

import boto3

endpoint, bucket = sys.argv[1:]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
if bucket not in {b["Name"] for b in s3.list_buckets().get("Buckets", [])}:
    s3.create_bucket(Bucket=bucket)
    print(f"bucket {bucket} made")
PY
echo "Media on it: MEDIA_S3_BUCKET=$bucket MEDIA_S3_ENDPOINT_URL=$endpoint" \
  "AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY"
