#!/bin/sh
# Runs each libFuzzer target of Fuzz/ for FUZZ_SECONDS (default 20) with its seed
# corpus and dictionary, one after another (`make fuzz`; docs/FUZZING.md).
#   FUZZ_SECONDS=1800 FUZZ_TARGETS="store predicate" FUZZ_TIMEOUT=10 Fuzz/run-fuzzers.sh
# New inputs go to Fuzz/.work/corpus/<target>/ (not committed; merge the ones worth
# keeping into Fuzz/Corpus/<target>/ with -merge=1), crashes to Fuzz/.work/crashes/,
# logs to Fuzz/.work/logs/. Exits non-zero when a target crashed, hung or leaked.
set -u
cd "$(dirname "$0")"
SECONDS_EACH=${FUZZ_SECONDS:-20}
# libFuzzer's per-input timeout counts wall time: on a loaded machine (or under
# `nice`) a 1-second input can pass 10 s without being slow. Raise it there.
TIMEOUT=${FUZZ_TIMEOUT:-10}
TARGETS=${FUZZ_TARGETS:-"segment records-block index manifest blob object-record store model predicate mapping import-line"}
# FUZZ_BIN: the built targets' folder when they were built with another --scratch-path.
BIN=${FUZZ_BIN:-$(swift build --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address --show-bin-path)}
mkdir -p .work/logs .work/crashes
status=0
for target in $TARGETS; do
    # fuzz target name → executable: records-block → FuzzRecordsBlock
    exe=Fuzz$(echo "$target" | awk -F- '{ for (i = 1; i <= NF; i++) printf "%s%s", toupper(substr($i, 1, 1)), substr($i, 2) }')
    mkdir -p ".work/corpus/$target" ".work/crashes/$target"
    log=".work/logs/$target.log"
    SWIFT_BACKTRACE=enable=no "$BIN/$exe" ".work/corpus/$target" "Corpus/$target" \
        -dict="Dictionaries/$target.dict" -max_total_time="$SECONDS_EACH" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix=".work/crashes/$target/" > "$log" 2>&1
    rc=$?
    runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{ print $2 }')
    cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' )
    printf '%-14s exit %-3s %10s runs  %s\n' "$target" "$rc" "${runs:-?}" "${cov:-}"
    [ "$rc" -eq 0 ] || { status=1; grep -E 'ERROR|Fatal error|SUMMARY' "$log" | head -3; }
done
exit $status
