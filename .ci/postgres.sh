#!/usr/bin/env bash
# Makes sure a PostgreSQL answers on 127.0.0.1:5432 with trust auth for user postgres (the PostgreSQL store suites
# create a database per test file there). Order: already answering → start the installed cluster → install
# postgresql with apt-get and start it. Idempotent; exits non-zero only when no PostgreSQL can be had.
set -euo pipefail

answers() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; }

if answers; then
  echo "postgres: answering on 127.0.0.1:5432"
  exit 0
fi
if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  echo "postgres: not installed; installing with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  conf=$(ls -d /etc/postgresql/*/main | head -n 1)
  # Test machines use trust auth on loopback (no passwords in tests).
  sed -i -E 's/^(host\s+all\s+all\s+127\.0\.0\.1\/32\s+)\S+/\1trust/; s/^(local\s+all\s+postgres\s+)\S+/\1trust/' "$conf/pg_hba.conf"
fi
version=$(ls /etc/postgresql | head -n 1)
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 30); do
  if answers; then echo "postgres: started"; exit 0; fi
  sleep 1
done
echo "postgres: no PostgreSQL answers on 127.0.0.1:5432" >&2
exit 1
