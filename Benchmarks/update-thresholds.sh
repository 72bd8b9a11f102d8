#!/usr/bin/env bash
# Records the p90 thresholds of every benchmark into Thresholds/ (committed), so that
# `swift package benchmark thresholds check` (make bench-check) shows a regression.
#
# package-benchmark 1.38 writes threshold files with spaces turned into underscores but
# looks them up by the benchmark's own name, spaces included; without the rename below
# every check fails with "Could not find any matching absolute thresholds". Our
# benchmark names contain no underscore, so the rename is exact.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf Thresholds
swift package --allow-writing-to-package-directory benchmark thresholds update "$@"
for file in Thresholds/*_*; do
    mv "$file" "Thresholds/$(basename "$file" | tr '_' ' ')"
done
