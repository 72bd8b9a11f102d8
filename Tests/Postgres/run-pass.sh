#!/usr/bin/env bash
# The object-layer suites a second time, on PostgreSQL: runs the suites of
# Tests/StrataTests/{Context,Fetch,Validation,Scenarios} and the PostgreSQL-only suites
# with STRATA_TEST_POSTGRES naming a server. When STRATA_TEST_POSTGRES is already set,
# that server; otherwise a throwaway one (server.sh), stopped whatever the outcome.
# STRATA_REQUIRE_POSTGRES makes a pass without a server fail.
# Expects `swift build --build-tests --traits Postgres` to have run. With TEST_BINARY
# naming the built test bundle (.build/debug/StrataPackageTests.xctest), runs it
# directly instead of through `swift test`: `make test` runs the pass while SwiftPM
# builds the example service in the same .build, and holds its lock.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
location=${STRATA_TEST_POSTGRES:-}
if [ -z "$location" ]; then
    dir=$(mktemp -d /tmp/strata-pg.XXXXXX)
    trap 'Tests/Postgres/server.sh stop "$dir"' EXIT
    location=$(Tests/Postgres/server.sh start "$dir")
fi
suites=$(grep -ho "^\(final class\|struct\|@Suite.*struct\) [A-Za-z]*Tests\b" \
    Tests/StrataTests/{Context,Fetch,Validation,Scenarios,Postgres}/*.swift Tests/StrataTests/StoreUnderTest.swift \
    | awk '{print $NF}' | sort -u | paste -sd'|')
echo "PostgreSQL pass against $location: $(echo "$suites" | tr '|' '\n' | wc -l) suites"
filter="StrataTests\.($suites)(/|$)"
if [ -n "${TEST_BINARY:-}" ]; then
    STRATA_TEST_POSTGRES="$location" STRATA_REQUIRE_POSTGRES=1 "$TEST_BINARY" --testing-library swift-testing --filter "$filter"
else
    STRATA_TEST_POSTGRES="$location" STRATA_REQUIRE_POSTGRES=1 $SWIFT test --skip-build --traits Postgres --filter "$filter"
fi
