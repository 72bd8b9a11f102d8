#!/bin/sh
# Writes Fixtures/stores/format-<N>/, N being the on-disk format version the current
# `strata` writes, from the JSON Lines files in Fixtures/stores/data/ (README.md here).
#
#   Fixtures/stores/regenerate.sh            refuses to touch an existing format-<N>/
#   Fixtures/stores/regenerate.sh --replace  rewrites it (only while format N is unreleased)
#   Fixtures/stores/regenerate.sh --add-missing
#                                            adds the stores format-<N>/ lacks (a fixture
#                                            new in this release), leaving the others
#
# Folders of other format versions are never touched: they are what users' stores of
# those versions look like, and they must keep opening (docs/FORMAT.md §1.2).
#
# STRATA_SCRATCH overrides the build directory (default .build-fixtures, so that the
# build does not contend for the lock of a .build another build is using).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=${STRATA_SCRATCH:-$root/.build-fixtures}

replace=no
case "${1:-}" in
    "") ;;
    --replace) replace=yes ;;
    --add-missing) replace=missing ;;
    *) echo "usage: $0 [--replace | --add-missing]" >&2; exit 2 ;;
esac

swift build --package-path "$root" --scratch-path "$scratch" --product strata
swift build --package-path "$root" --scratch-path "$scratch" --product StrataFixtureWriter
bin="$(swift build --package-path "$root" --scratch-path "$scratch" --show-bin-path)"
strata="$bin/strata"
writer="$bin/StrataFixtureWriter"

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-fixtures.XXXXXX")
trap 'rm -rf "$work"' EXIT

# name  model file  lines per transaction (several transactions, so the log holds
# more than one commit frame)
fixtures="employees-v1:Employees-v1.json:5
events-v1:Events-v1.json:6
tasting-notes-v1:TastingNotes-v1.json:4"

version=""
check_version() {
    written=$("$strata" stats "$1" --json | sed -n 's/^ *"formatVersion" *: *\([0-9][0-9]*\).*/\1/p')
    if [ -z "$written" ] || { [ -n "$version" ] && [ "$written" != "$version" ]; }; then
        echo "cannot tell the format version of $1 (got '$written', expected '$version')" >&2
        exit 1
    fi
    version=$written
}
for fixture in $fixtures; do
    name=${fixture%%:*}
    rest=${fixture#*:}
    model=${rest%%:*}
    batch=${rest#*:}
    store="$work/$name.strata"
    "$strata" create "$store" --model "$root/Fixtures/models/$model"
    "$strata" import "$store" --file "$here/data/$name.jsonl" --batch "$batch"
    "$strata" verify "$store"
    check_version "$store"
    # Git keeps no empty directory, so an empty index/ gets a placeholder. Names
    # that are not NNNNNN.hint or NNNNNN.idx are left alone by open.
    if [ -z "$(ls -A "$store/index")" ]; then
        : > "$store/index/.gitkeep"
    fi
    cp "$here/data/$name.jsonl" "$work/$name.jsonl"
done

# Scenario 1 after a life of use (sealed segments, index files, compaction output,
# tombstones, several blob files), which import cannot make at this size: written by
# StrataFixtureWriter, which also writes the data file the store must match.
"$writer" lifecycle "$work/employees-lifecycle-v1.strata" "$root/Fixtures/models/Employees-v1.json" "$work/employees-lifecycle-v1.jsonl"
"$strata" verify "$work/employees-lifecycle-v1.strata"
check_version "$work/employees-lifecycle-v1.strata"
# Scenario 2's tasks through two lightweight stages run in place: records of
# three layouts in one store, some compacted. Written by StrataFixtureWriter too.
"$writer" layouts "$work/tasks-layouts.strata" "$root/Fixtures/models/Tasks-v1.json" \
    "$root/Fixtures/models/Tasks-layouts-v2.json" "$root/Fixtures/models/Tasks-layouts-v3.json" "$work/tasks-layouts.jsonl"
"$strata" verify "$work/tasks-layouts.strata"
check_version "$work/tasks-layouts.strata"
"$writer" history "$work/employees-history-v1.strata" "$root/Fixtures/models/Employees-v1.json" "$work/employees-history-v1.jsonl"
"$strata" verify "$work/employees-history-v1.strata"
check_version "$work/employees-history-v1.strata"
names="$(for fixture in $fixtures; do echo "${fixture%%:*}"; done) employees-lifecycle-v1 tasks-layouts employees-history-v1"

target="$here/format-$version"
if [ -e "$target" ] && [ "$replace" = missing ]; then
    added=""
    for name in $names; do
        if [ ! -e "$target/$name.strata" ]; then
            mv "$work/$name.strata" "$work/$name.jsonl" "$target/"
            added="$added $name"
        fi
    done
    echo "added to $target:${added:- nothing, every store is there}"
    exit 0
fi
if [ -e "$target" ]; then
    if [ "$replace" != yes ]; then
        echo "$target exists: fixtures of a format version are kept as they are." >&2
        echo "Pass --replace only if format $version has not been released." >&2
        exit 1
    fi
    rm -rf "$target"
fi
mkdir -p "$target"
for name in $names; do
    mv "$work/$name.strata" "$work/$name.jsonl" "$target/"
done
echo "wrote $target"
