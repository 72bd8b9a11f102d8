#!/usr/bin/env bash
# Kill test: every todo the Todos service acknowledged with 201 survives SIGKILL.
#
# ROUNDS times (20): start the server on the Strata engine over the same data
# directory, POST todos from 64 concurrent connections (todo_client.py logs every
# id and title that got a 201), SIGKILL the server at a random moment 0.3-3 s in,
# restart it, and GET every todo acknowledged in any round so far: each must be
# there with its title (this round's one GET /todos/ID each, earlier rounds' through
# the pages of GET /todos). Exits 1 on the first loss. Loopback only; every step is
# bounded in time.
#
# Usage, from the repository root: Examples/Todos/Scripts/service-kill-test.sh
# Environment: ROUNDS (20), ENGINE (strata), BUILD (release).
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PACKAGE=$(cd "$SCRIPTS/.." && pwd)
ROUNDS=${ROUNDS:-20}
ENGINE=${ENGINE:-strata}
BUILD=${BUILD:-release}
PORT=$((20000 + RANDOM % 20000))

# What a fresh Debian machine lacks, with apt-get (through sudo unless root).
SUDO=$([[ "$(id -u)" == 0 ]] || echo sudo)
missing=()
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
if (( ${#missing[@]} > 0 )); then
    echo "installing ${missing[*]} (apt-get)" >&2
    $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "building Todos ($BUILD)" >&2
swift build -c "$BUILD" --package-path "$PACKAGE" --product Todos >&2
BINARY="$(swift build -c "$BUILD" --package-path "$PACKAGE" --show-bin-path)/Todos"

WORK=$(mktemp -d /tmp/todos-kill.XXXXXX)
DATA="$WORK/data"
LOG="$WORK/acknowledged.tsv"
: >"$LOG"
SERVER_PID=""
CLIENT_PID=""
cleanup() {
    for pid in "$CLIENT_PID" "$SERVER_PID"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

start_server() {
    "$BINARY" --engine "$ENGINE" --data "$DATA" --hostname 127.0.0.1 --port "$PORT" --log-level warning >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 300); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health" 2>/dev/null; then return 0; fi
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "the server did not start:" >&2; tail -50 "$WORK/server.log" >&2; exit 1
}

# SIGTERM: drain, close the store, exit 0 (within 30 s).
stop_server() {
    kill -TERM "$SERVER_PID"
    for _ in $(seq 300); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$SERVER_PID" 2>/dev/null; then echo "round $round: the server did not stop on SIGTERM" >&2; exit 1; fi
    local status=0
    wait "$SERVER_PID" || status=$?
    SERVER_PID=""
    if [[ $status -ne 0 ]]; then echo "round $round: the server exited $status on SIGTERM" >&2; exit 1; fi
}

for round in $(seq "$ROUNDS"); do
    start_server
    python3 "$SCRIPTS/todo_client.py" post "$PORT" "$LOG" 64 20 100000 "round $round" >"$WORK/posted.txt" &
    CLIENT_PID=$!
    sleep "$(python3 -c 'import random; print(round(random.uniform(0.3, 3.0), 2))')"
    kill -KILL "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    wait "$CLIENT_PID" || { echo "round $round: the client failed" >&2; exit 1; }
    CLIENT_PID=""
    start_server
    if ! python3 "$SCRIPTS/todo_client.py" verify "$PORT" "$LOG" "round $round" >"$WORK/verified.txt"; then
        echo "round $round: acknowledged todos were lost" >&2
        cat "$WORK/verified.txt" >&2
        exit 1
    fi
    echo "round $round: $(cat "$WORK/posted.txt") acknowledged before SIGKILL; $(cat "$WORK/verified.txt")" >&2
    stop_server
done
echo "kill test passed: $ROUNDS rounds, $(wc -l <"$LOG") acknowledged todos, none lost" >&2
