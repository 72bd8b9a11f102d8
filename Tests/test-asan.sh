#!/bin/sh
# `make test-asan`: the whole suite under AddressSanitizer, in its own scratch path
# (.build-asan), with LeakSanitizer on. XCTest, Foundation and the Swift runtime leak
# at exit on Linux (TOOLCHAIN.md), so leaks do not fail the run by themselves: every
# process's report (the test runner and the children it starts) is written to
# .build-asan/leaks/, and the run fails if any leaked block was allocated with a frame
# in Sources/ — Strata's own code, library or tools — on its stack. Memory errors
# (overflows, use after free) fail the run as usual.
set -u
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
LEAKS=.build-asan/leaks
"$SWIFT" build --build-tests --sanitize=address --scratch-path .build-asan || exit 1
rm -rf "$LEAKS" && mkdir -p "$LEAKS"
symbolizer=$(command -v llvm-symbolizer || echo "$(dirname "$(command -v "$SWIFT")")/llvm-symbolizer")
ASAN_OPTIONS="detect_leaks=1:log_path=$PWD/$LEAKS/report" LSAN_OPTIONS=exitcode=0 ASAN_SYMBOLIZER_PATH="$symbolizer" \
    "$SWIFT" test --skip-build --sanitize=address --scratch-path .build-asan
status=$?
# A report block starts at "Direct leak" / "Indirect leak" and ends at a blank line.
awk -v root="$PWD/Sources/" '
    /^(Direct|Indirect) leak of/ { block = $0 "\n"; inblock = 1; ours = 0; next }
    inblock && /^$/ { if (ours) { printf "%s\n", block; count++ } inblock = 0; next }
    inblock { block = block $0 "\n"; if (index($0, root) > 0) ours = 1 }
    END {
        if (count > 0) { printf "%d leaked block(s) allocated from Sources/ (reports in .build-asan/leaks/)\n", count; exit 1 }
    }
' "$LEAKS"/report.* 2>/dev/null
leaks=$?
total=$(grep -hcE '^(Direct|Indirect) leak of' "$LEAKS"/report.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
echo "test-asan: test status $status; $total leaked block(s) reported in all, none of them from Sources/ unless listed above"
[ "$status" -eq 0 ] && [ "$leaks" -eq 0 ]
