#!/bin/sh
# Runs every case of the damage catalogue (DamageCatalogueTests, docs/FUZZING.md) on
# both templates, to its end: a case that traps ends the test process, so the run
# keeps a journal (.build/damage-journal) and is started again until it completes;
# the journal records the interrupted case as a trap (or a hang) and the next run
# carries on after it. Needs the tests built (`make fuzz-damage` builds them).
#   DAMAGE_ATTEMPTS=50 Fuzz/run-damage.sh
# Writes the summary to .build/damage-report.txt and the last run's output to
# .build/damage-run.log. Exits non-zero when any case was not fine.
set -u
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
JOURNAL=.build/damage-journal
REPORT=.build/damage-report.txt
mkdir -p .build
rm -f "$JOURNAL" "$REPORT"
attempts=${DAMAGE_ATTEMPTS:-200}
n=0
while [ "$n" -lt "$attempts" ]; do
    n=$((n + 1))
    STRATA_DAMAGE_FULL=1 STRATA_DAMAGE_JOURNAL="$JOURNAL" STRATA_DAMAGE_REPORT="$REPORT" SWIFT_BACKTRACE=enable=no \
        "$SWIFT" test --skip-build --filter "DamageCatalogueTests/everyDamagedField" > .build/damage-run.log 2>&1
    rc=$?
    # A run that reached its end wrote the report; one that trapped did not.
    if [ -f "$REPORT" ]; then
        head -1 "$REPORT"
        grep -E "^HARNESS PROBLEM" "$REPORT"
        exit $rc
    fi
    grep -E "damage case (in progress|HANGS)" .build/damage-run.log | tail -1
done
echo "damage catalogue: no run completed in $attempts attempts (see .build/damage-run.log)"
exit 1
