#!/usr/bin/env bash
# Run N workers (config.server: uvicorn) on consecutive ports (PORT, PORT+1, ...) for a reverse proxy to balance.
# Every worker must share the database and the Redis channel layer, so REDIS_URL is required.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${WORKERS:-4}
port=${PORT:-8001}
host=${HOST:-127.0.0.1}
if [ -z "${REDIS_URL:-}" ]; then
  echo "error: REDIS_URL is required for several workers (the in-memory layer is per process)" >&2
  exit 2
fi
.venv/bin/python manage.py migrate --noinput -v 0
.venv/bin/python manage.py collectstatic --noinput -v 0
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait' INT TERM EXIT
for i in $(seq 0 $((workers - 1))); do
  # config.server takes no proxy headers: the server would trust an X-Forwarded-For entry the
  # client writes. The app takes the rightmost entry the TRUSTED_PROXIES proxies appended (core.net).
  TRUSTED_PROXIES=${TRUSTED_PROXIES:-1} .venv/bin/python -m config.server --host "$host" --port $((port + i)) &
  pids+=($!)
  echo "worker $((i + 1)) on http://$host:$((port + i))"
done
wait
