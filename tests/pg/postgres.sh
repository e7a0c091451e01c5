#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL server on 127.0.0.1 for the test run.
#   postgres.sh start STATE_DIR   -> writes STATE_DIR/url (postgresql://...@127.0.0.1:PORT/postgres)
#   postgres.sh stop STATE_DIR
# PostgreSQL refuses to run as root, so under root the server runs as the "postgres" user.
set -euo pipefail
action=${1:?start or stop}
state=${2:?state directory}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/pg_ctl" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
start)
  if [ -f "$state/url" ] && as_owner "$bin/pg_ctl" -D "$state/data" status >/dev/null 2>&1; then
    exit 0
  fi
  rm -rf "$state"
  mkdir -p "$state"
  [ "$(id -u)" = 0 ] && chown postgres "$state"
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_owner "$bin/initdb" -D "$state/data" -U postgres --auth=trust -E UTF8 --no-locale >"$state/initdb.log"
  # Durability is not under test here; fsync off keeps the suites fast.
  as_owner "$bin/pg_ctl" -D "$state/data" -l "$state/server.log" -w -t 60 \
    -o "-p $port -k $state -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
  echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$state/url"
  echo "PostgreSQL ready on 127.0.0.1:$port"
  ;;
stop)
  if [ -d "$state/data" ]; then
    as_owner "$bin/pg_ctl" -D "$state/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$state"
  ;;
*) echo "usage: postgres.sh start|stop STATE_DIR" >&2; exit 2 ;;
esac
