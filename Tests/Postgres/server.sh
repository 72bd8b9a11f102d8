#!/usr/bin/env bash
# A throwaway PostgreSQL 15 for the tests: `server.sh start DIR` installs PostgreSQL
# with apt-get when it is missing, creates a cluster in DIR (initdb and pg_ctl run as
# the `postgres` user, as PostgreSQL refuses root), listening on a Unix socket in DIR
# and on 127.0.0.1 only, and prints the location tests open stores at
# (STRATA_TEST_POSTGRES). `server.sh stop DIR` stops it and removes DIR.
set -euo pipefail
command=${1:?usage: server.sh start|stop DIR}
dir=${2:?usage: server.sh start|stop DIR}
bin=/usr/lib/postgresql/15/bin
as_postgres() {
    if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

case "$command" in
start)
    if [ ! -x "$bin/initdb" ]; then
        echo "Installing PostgreSQL 15 (apt-get)…" >&2
        SUDO=$([ "$(id -u)" = "0" ] || echo sudo)
        $SUDO apt-get update -qq >&2
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
    fi
    mkdir -p "$dir"
    chown postgres: "$dir" 2>/dev/null || sudo chown postgres: "$dir"
    port=$((20000 + RANDOM % 20000))
    as_postgres "$bin/initdb" -D "$dir/data" -U strata -A trust --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # fsync off unless STRATA_PG_SETTINGS says otherwise: the tests kill clients,
    # not the server, whose durability is its own; benchmarks run with it on.
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 ${STRATA_PG_SETTINGS--c fsync=off -c synchronous_commit=off -c full_page_writes=off}" start >&2 \
        || { cat "$dir/server.log" >&2; exit 1; }
    "$bin/createdb" -h "$dir" -p "$port" -U strata strata_test
    echo "postgres://strata@/strata_test?host=$dir&port=$port"
    ;;
stop)
    [ -d "$dir/data" ] && as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop >&2 || true
    rm -rf "$dir"
    ;;
*)
    echo "usage: server.sh start|stop DIR" >&2
    exit 2
    ;;
esac
