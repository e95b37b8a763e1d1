#!/usr/bin/env bash
# Makes sure a Redis answers on 127.0.0.1:6379 (or $REDIS_PORT) (the BullMQ tests use it; they also start private redis-servers,
# so redis-server must be installed). Order: already answering → start the installed redis-server → install it with
# apt-get first. Idempotent; exits non-zero only when no Redis can be had.
set -euo pipefail

HOST=127.0.0.1
PORT="${REDIS_PORT:-6379}"

answers() {
  command -v redis-cli >/dev/null 2>&1 && [ "$(redis-cli -h "$HOST" -p "$PORT" ping 2>/dev/null)" = "PONG" ]
}

as_root() {
  if [ "$(id -u)" = "0" ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else "$@"; fi
}

if answers; then
  echo "redis: answering on $HOST:$PORT"
  exit 0
fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis: redis-server not found; installing with apt-get"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq redis-server >/dev/null
fi

echo "redis: starting redis-server on $HOST:$PORT"
redis-server --bind "$HOST" --port "$PORT" --daemonize yes --save '' --appendonly no \
  --dir "${TMPDIR:-/tmp}" --logfile "${TMPDIR:-/tmp}/tollgate-ci-redis.log"

for _ in $(seq 1 50); do
  if answers; then
    echo "redis: answering on $HOST:$PORT"
    exit 0
  fi
  sleep 0.1
done
echo "redis: redis-server did not answer on $HOST:$PORT (see ${TMPDIR:-/tmp}/tollgate-ci-redis.log)" >&2
exit 1
