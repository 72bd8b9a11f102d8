#!/usr/bin/env bash
# Loads the Todos service over each engine in turn with wrk, on loopback only, and
# writes Examples/Todos/RESULTS.md.
#
# Each cell (route × connection count × engine) gets a fresh data directory and a new
# server process (so that its peak RSS and store size are its own), seeded the same
# way for both engines (World rows from one fixed seed, no todos). The server is
# pinned to core 0 and wrk to core 1: a 2 s warm-up, then DURATION of measurement.
#
# Latencies are wrk's closed-loop figures: each connection sends its next request
# when the previous one answers, so a slow response delays the requests behind it
# instead of being measured by them (coordinated omission); wrk then adds, for each
# response slower than twice a connection's mean interval, the samples it held back,
# so one stall shows in p99 as well as in max. They compare the engines; they are not what an
# open-loop client would see.
#
# Usage, from the repository root: Examples/Todos/Scripts/service-load.sh
# Environment: DURATION (10s), WARMUP (2s), CONNECTIONS ("16 64 256"), ENGINES ("strata sqlite").
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PACKAGE=$(cd "$SCRIPTS/.." && pwd)
REPOSITORY=$(cd "$PACKAGE/../.." && pwd)
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONNECTIONS=${CONNECTIONS:-"16 64 256"}
ENGINES=${ENGINES:-"strata sqlite"}
PATHS=("/json" "/db" "/queries?queries=20" "/updates?queries=1" "/updates?queries=20" "POST /todos")
PORT=$((20000 + RANDOM % 20000))
RESULTS="$PACKAGE/RESULTS.md"

# What a fresh Debian machine lacks, with apt-get (through sudo unless root).
SUDO=$([[ "$(id -u)" == 0 ]] || echo sudo)
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
command -v taskset >/dev/null || missing+=(util-linux)
command -v python3 >/dev/null || missing+=(python3)
if (( ${#missing[@]} > 0 )); then
    echo "installing ${missing[*]} (apt-get)" >&2
    $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "building Todos (release)" >&2
swift build -c release --package-path "$PACKAGE" --product Todos >&2
BINARY="$(swift build -c release --package-path "$PACKAGE" --show-bin-path)/Todos"

WORK=$(mktemp -d /tmp/todos-load.XXXXXX)
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Starts the server for engine $1 on a new data directory $2; waits for /health (30 s at most).
start_server() {
    rm -rf "$2" && mkdir -p "$2"
    taskset -c 0 "$BINARY" --engine "$1" --data "$2" --hostname 127.0.0.1 --port "$PORT" --log-level warning \
        >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 300); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health" 2>/dev/null; then return 0; fi
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "the server did not start:" >&2; cat "$WORK/server.log" >&2; exit 1
}

# Peak RSS of the server in KiB, from the kernel's high-water mark.
peak_rss_kib() { awk '/^VmHWM/ { print $2 }' "/proc/$SERVER_PID/status"; }

# Stops the server with SIGTERM (graceful: drain, close the store) and checks it exits 0 within 30 s.
stop_server() {
    kill -TERM "$SERVER_PID"
    local status=0
    for _ in $(seq 300); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$SERVER_PID" 2>/dev/null; then echo "the server did not stop on SIGTERM" >&2; exit 1; fi
    wait "$SERVER_PID" || status=$?
    SERVER_PID=""
    if [[ $status -ne 0 ]]; then echo "the server exited $status on SIGTERM:" >&2; cat "$WORK/server.log" >&2; exit 1; fi
}

# Runs wrk on core 1 against path $1 (or "POST /todos") with $2 connections for $3; prints its RESULT line.
run_wrk() {
    local script="$SCRIPTS/wrk/report.lua" path="$1"
    if [[ "$path" == "POST /todos" ]]; then script="$SCRIPTS/wrk/post-todo.lua"; path="/todos"; fi
    taskset -c 1 wrk -t1 -c"$2" -d"$3" --timeout 8 --latency -s "$script" "http://127.0.0.1:$PORT$path" | grep '^RESULT'
}

TABLE="$WORK/cells.tsv"
: >"$TABLE"
for engine in $ENGINES; do
    for path in "${PATHS[@]}"; do
        for connections in $CONNECTIONS; do
            data="$WORK/data-$engine"
            start_server "$engine" "$data"
            run_wrk "$path" "$connections" "$WARMUP" >/dev/null
            result=$(run_wrk "$path" "$connections" "$DURATION")
            rss=$(peak_rss_kib)
            stop_server
            size=$(du -sk "$data" | cut -f1)
            echo "$engine $path c=$connections: $result rss=${rss}KiB store=${size}KiB" >&2
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$engine" "$path" "$connections" "$(tr ' ' '\t' <<<"${result#RESULT }")" "$rss" "$size" >>"$TABLE"
        done
    done
    # Liveness under write load: 256 connections POST /todos while a second wrk, one
    # connection on the same core as the writers, probes /health.
    data="$WORK/data-$engine"
    start_server "$engine" "$data"
    taskset -c 1 wrk -t1 -c256 -d"$DURATION" --timeout 8 -s "$SCRIPTS/wrk/post-todo.lua" "http://127.0.0.1:$PORT/todos" >"$WORK/writers.txt" &
    writers=$!
    sleep 1
    health=$(taskset -c 1 wrk -t1 -c1 -d"$(( ${DURATION%s} - 2 ))s" --timeout 8 --latency -s "$SCRIPTS/wrk/report.lua" "http://127.0.0.1:$PORT/health" | grep '^RESULT')
    wait "$writers"
    writes=$(grep '^RESULT' "$WORK/writers.txt")
    rss=$(peak_rss_kib)
    stop_server
    size=$(du -sk "$data" | cut -f1)
    echo "$engine /health under 256 writers: $health (writers: $writes)" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$engine" "GET /health (256 POST /todos writers)" "1" "$(tr ' ' '\t' <<<"${health#RESULT }")" "$rss" "$size" >>"$TABLE"
done

COMMAND="Examples/Todos/Scripts/service-load.sh (DURATION=$DURATION WARMUP=$WARMUP CONNECTIONS=\"$CONNECTIONS\")"
COMMIT=$(git -C "$REPOSITORY" rev-parse HEAD)
if [[ -n "$(git -C "$REPOSITORY" status --porcelain -- Sources Examples/Todos/Sources Examples/Todos/Scripts 2>/dev/null)" ]]; then COMMIT="$COMMIT (with uncommitted changes)"; fi
python3 - "$TABLE" "$RESULTS" "$COMMAND" "$COMMIT" "$(date -u +%Y-%m-%dT%H:%MZ)" "$(nproc)" "$(uname -srm)" "$(findmnt -no FSTYPE,OPTIONS -T "$WORK" 2>/dev/null | awk '{print $1 " (" $2 ")"}' || stat -f -c %T "$WORK")" <<'PYTHON'
import sys
from collections import OrderedDict

table, output, command, commit, date, cores, uname, filesystem = sys.argv[1:]
cells = OrderedDict()
for line in open(table):
    engine, path, connections, rps, p50, p99, worst, socket_errors, non2xx, requests, rss, size = line.rstrip("\n").split("\t")
    cells.setdefault((path, int(connections)), {})[engine] = dict(
        rps=float(rps), p50=float(p50), p99=float(p99), max=float(worst), socket=int(socket_errors),
        non2xx=int(non2xx), rss=int(rss) / 1024, size=int(size) / 1024)

def latency(cell):
    return f"{cell['p50']:.2f} / {cell['p99']:.2f} / {cell['max']:.1f}" if cell else ""

def figure(cell, key, fmt):
    return format(cell[key], fmt) if cell else ""

lines = [
    "# Todos service: Strata and SQLite under wrk",
    "",
    f"- Command: `{command}`",
    f"- Commit: {commit}",
    f"- Date: {date}",
    f"- Machine: {cores} cores, {uname}; data directories on {filesystem} (fsync costs what this file system makes it cost)",
    "- Server pinned to core 0, wrk (one thread) to core 1, loopback only; each cell is a new server on a new data directory, "
    "a warm-up, then the measured run. SQLite: WAL, synchronous=FULL; Strata: durable commits. Both acknowledge a write only once it is on disk.",
    "- Latencies are closed-loop figures (wrk: each connection waits for its response before sending again), in milliseconds, p50 / p99 / max. wrk corrects them for coordinated omission: a response slower than twice a connection's mean interval adds the samples it held back, so a single stall (a slow fsync of the disk) moves p99 as well as max.",
    "- Errors: socket errors (connect, read, write, timeout) and non-2xx responses. RSS: the server's peak (VmHWM). Store: the data directory's size after the cell.",
    "- The /json row touches no store: it is what HTTP, JSON and scheduling alone let the server's one core answer, a ceiling on every other route.",
    "- The /health row: one wrk connection probing /health on the writers' core while 256 connections POST /todos.",
    "",
    "| route | conns | Strata req/s | SQLite req/s | Strata/SQLite | Strata latency ms | SQLite latency ms | Strata errors (socket, non-2xx) | SQLite errors (socket, non-2xx) | Strata RSS MiB | SQLite RSS MiB | Strata store MiB | SQLite store MiB |",
    "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: |",
]
for (path, connections), engines in cells.items():
    strata, sqlite = engines.get("strata"), engines.get("sqlite")
    ratio = f"{strata['rps'] / sqlite['rps']:.2f}" if strata and sqlite and sqlite["rps"] > 0 else ""
    errors = lambda c: f"{c['socket']}, {c['non2xx']}" if c else ""
    lines.append(f"| {path} | {connections} | {figure(strata, 'rps', '.0f')} | {figure(sqlite, 'rps', '.0f')} | {ratio} | "
                 f"{latency(strata)} | {latency(sqlite)} | {errors(strata)} | {errors(sqlite)} | "
                 f"{figure(strata, 'rss', '.1f')} | {figure(sqlite, 'rss', '.1f')} | {figure(strata, 'size', '.1f')} | {figure(sqlite, 'size', '.1f')} |")
open(output, "w").write("\n".join(lines) + "\n")
PYTHON
echo "wrote $RESULTS" >&2
