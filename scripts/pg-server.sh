#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 (Debian's postgresql-15) for the tests of the PostgreSQL
# backend: a new cluster in a temporary folder, listening on 127.0.0.1 only, on a free port,
# trusting local connections (it holds test data only and never leaves loopback).
#   eval "$(bash scripts/pg-server.sh start)"   # sets TTLSTORE_TEST_PG, TTLSTORE_PG_DIR, _PID
#   bash scripts/pg-server.sh stop "$TTLSTORE_PG_DIR"
#   bash scripts/pg-server.sh halt|resume "$TTLSTORE_PG_DIR"   # outage tests: stop, start again
#   bash scripts/pg-server.sh crash "$TTLSTORE_PG_DIR"   # kill -9 the postmaster (then: resume)
#   bash scripts/pg-server.sh standby "$TTLSTORE_PG_DIR"  # a synchronous standby of it (below)
#   bash scripts/pg-server.sh promote "$TTLSTORE_PG_DIR"  # the standby becomes the primary
#   PG_EXTRA_OPTIONS='-c fsync=on …' bash scripts/pg-server.sh start  # appended to the server's
#                                     options below (a later -c wins): e.g. bench/backends.py
# initdb refuses to run as root: as root the cluster is owned and run by the `postgres` user
# that the Debian package creates.
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
[ -x "$bin/initdb" ] || { echo "postgresql-15 is not installed (scripts/install-deps.sh)" >&2; exit 1; }
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "${1:-}" in
  start)
    dir=$(mktemp -d /tmp/ttlstore-pg.XXXXXX)
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U ttlstore -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    # Enough connections for several servers' pools at once. fsync off: test data only, and the
    # tests kill processes, never the machine, so the OS page cache keeps every written WAL byte.
    # synchronous_commit stays on: a commit's WAL reaches the OS before it is acknowledged, so
    # `crash` (kill -9 of the postmaster) loses no acknowledged write, as on a production server.
    echo "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=on -c full_page_writes=off ${PG_EXTRA_OPTIONS:-}" >"$dir/options"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$(cat "$dir/options")" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U ttlstore ttlstore
    echo "export TTLSTORE_TEST_PG='host=127.0.0.1 port=$port user=ttlstore dbname=ttlstore'"
    echo "export TTLSTORE_PG_DIR='$dir'"
    ;;
  halt)
    as_owner "$bin/pg_ctl" -D "${2:?}/data" -m fast -w stop >/dev/null
    ;;
  crash)
    # SIGKILL to the postmaster, as a crash would: no shutdown checkpoint, so the next start runs
    # crash recovery from the WAL. Its backends notice their parent's death and exit; a new
    # postmaster refuses to start while one of them still holds the shared memory, so wait.
    dir=${2:?}
    pid=$(head -1 "$dir/data/postmaster.pid")
    children=$(pgrep -P "$pid" || true)
    kill -9 "$pid"
    for _ in $(seq 1 200); do
      alive=""
      for c in $pid $children; do [ -d "/proc/$c" ] && alive=1; done
      [ -z "$alive" ] && break
      sleep 0.05
    done
    ;;
  standby)
    # A streaming standby made by pg_basebackup (in DIR/standby, on a port of its own), then
    # made synchronous: the primary acknowledges a commit only once the standby has its WAL
    # (synchronous_standby_names = '*', synchronous_commit on), so a failover loses no
    # acknowledged write. Prints TTLSTORE_STANDBY_PORT.
    dir=${2:?}
    port=$(sed -E 's/^-p ([0-9]+) .*/\1/' "$dir/options")
    sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U ttlstore -D "$dir/standby" -R \
      -X stream -c fast >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    sed -E "s/^-p [0-9]+ /-p $sport /" "$dir/options" >"$dir/standby-options"
    as_owner "$bin/pg_ctl" -D "$dir/standby" -l "$dir/standby.log" -w -t 60 \
      -o "$(cat "$dir/standby-options")" start >/dev/null || { cat "$dir/standby.log" >&2; exit 1; }
    psql_p() { psql "host=127.0.0.1 port=$port user=ttlstore dbname=ttlstore" -qAt -c "$1"; }
    for _ in $(seq 1 200); do
      [ "$(psql_p "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ] && break
      sleep 0.05
    done
    psql_p "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
    psql_p "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 200); do
      [ "$(psql_p "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] && break
      sleep 0.05
    done
    [ "$(psql_p "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] ||
      { echo "the standby did not become synchronous" >&2; cat "$dir/standby.log" >&2; exit 1; }
    echo "export TTLSTORE_STANDBY_PORT='$sport'"
    ;;
  promote)
    as_owner "$bin/pg_ctl" -D "${2:?}/standby" -w -t 60 promote >/dev/null
    ;;
  resume)
    dir=${2:?}
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$(cat "$dir/options")" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    ;;
  stop)
    dir=${2:?usage: pg-server.sh stop DIR}
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    if [ -d "$dir/standby" ]; then
      as_owner "$bin/pg_ctl" -D "$dir/standby" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: pg-server.sh start | stop DIR | halt DIR | resume DIR | crash DIR | standby DIR | promote DIR" >&2
    exit 2
    ;;
esac
