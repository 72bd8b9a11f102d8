# Strata — set-up, demo and tests. Every target first installs what a fresh
# machine lacks (liblz4-dev and libsqlite3-dev via apt-get; wrk for the load test),
# then builds with SwiftPM.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: deps build demo test docs test-postgres postgres-races bench-postgres test-service service-load service-kill-test test-tsan test-asan fuzz fuzz-build fuzz-damage fuzz-seeds crash-campaign crash-campaign-group-commit bench bench-full bench-summary bench-maintenance bench-history bench-instructions bench-check bench-thresholds clean

deps:
	@if ! { pkg-config --exists liblz4 2>/dev/null || [ -f /usr/include/lz4.h ]; }; then \
		echo "Installing liblz4-dev (apt-get)…"; \
		$(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblz4-dev pkg-config; \
	fi
	@command -v pkg-config >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config; }
	@[ -f /usr/include/sqlite3.h ] || { echo "Installing libsqlite3-dev (apt-get)…"; $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev; }

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) build -c release --product strata
	$(SWIFT) run -c release --skip-build strata demo $(DEMO_ARGS)

# The suite with the Postgres trait on (StrataPostgres built), the docs, then, on a
# throwaway PostgreSQL 15 (installed with apt-get when missing, while the package
# builds), the object-layer suites again and the example service's tests, with its
# store both local and on the server.
# The example service, a package of its own, builds in this package's .build: the
# dependencies both share (swift-nio, BoringSSL, postgres-nio…) are compiled once. Only
# its test product: a plain build would also compile every target of the Strata package
# it depends on by path, the macros and swift-syntax among them. It builds after the
# docs (it compiles Strata's modules without testability, which the package's own
# builds would compile back) and while the PostgreSQL pass runs — the pass waits on the
# server more than it computes, and runs its test bundle directly, as SwiftPM's lock on
# .build is the service build's.
# The test builds carry no debug information (TEST_BUILD_FLAGS): failures name their
# source lines through Swift Testing's own locations, and the builds spend less time
# compiling and linking.
TEST_BUILD_FLAGS ?= -Xswiftc -gnone
test: deps
	@mkdir -p .build
	dir=$$(mktemp -d /tmp/strata-pg.XXXXXX); server=; trap '[ -z "$$server" ] || wait $$server; $(CURDIR)/Tests/Postgres/server.sh stop "$$dir"' EXIT; \
		Tests/Postgres/server.sh start "$$dir" > .build/postgres-location 2> .build/postgres-server.log & server=$$!; \
		$(SWIFT) build --build-tests --traits Postgres $(TEST_BUILD_FLAGS) || exit 1; \
		bin=$$($(SWIFT) build --show-bin-path --traits Postgres $(TEST_BUILD_FLAGS)) || exit 1; \
		$(SWIFT) test --skip-build --traits Postgres || exit 1; \
		$(MAKE) --no-print-directory docs || exit 1; \
		wait $$server || { cat .build/postgres-server.log; exit 1; }; location=$$(cat .build/postgres-location); \
		STRATA_TEST_POSTGRES="$$location" TEST_BINARY="$$bin/StrataPackageTests.xctest" Tests/Postgres/run-pass.sh \
			> .build/postgres-pass.log 2>&1 & pass=$$!; \
		(cd Examples/Todos && $(SWIFT) build --product TodosPackageTests --scratch-path $(CURDIR)/.build $(TEST_BUILD_FLAGS)); built=$$?; \
		wait $$pass; status=$$?; cat .build/postgres-pass.log; \
		[ $$built = 0 ] && [ $$status = 0 ] || exit 1; \
		cd Examples/Todos && STRATA_TEST_POSTGRES="$$location" STRATA_REQUIRE_POSTGRES=1 \
			$(SWIFT) test --skip-build --scratch-path $(CURDIR)/.build --no-parallel

# The documentation of every library a user imports (StrataLog, Strata and StrataData
# from their DocC catalogs, StrataService from its doc comments) through
# swift-docc-plugin, with warnings as errors: a broken symbol link or an unknown or
# missing parameter fails the build.
# The archives land in .build/plugins/Swift-DocC/outputs/.
docs: deps
	@mkdir -p .build
	for target in StrataLog Strata StrataData StrataService; do \
		$(SWIFT) package generate-documentation --target $$target --warnings-as-errors > .build/docs-$$target.log 2>&1 \
			|| { grep -A12 -E "(error|warning):" .build/docs-$$target.log || tail -40 .build/docs-$$target.log; exit 1; }; \
		echo "docs: $$target built"; \
	done

# The object-layer suites on PostgreSQL only (after a build with the trait).
test-postgres: deps
	$(SWIFT) build --build-tests --traits Postgres
	SWIFT=$(SWIFT) Tests/Postgres/run-pass.sh

# The PostgreSQL race tests at full size: 2 processes × 8 contexts × 1,000
# increments, 4 × 10,000 inserts, 1,000 unique races (about five minutes).
postgres-races: deps
	$(SWIFT) build --build-tests --traits Postgres
	dir=$$(mktemp -d /tmp/strata-pg.XXXXXX); trap 'Tests/Postgres/server.sh stop "$$dir"' EXIT; \
		location=$$(Tests/Postgres/server.sh start "$$dir"); \
		STRATA_TEST_POSTGRES="$$location" STRATA_TEST_RACE_COUNT=1000 $(SWIFT) test --skip-build --traits Postgres --filter PostgresStoreTests

# The example service, Examples/Todos (its own package: Hummingbird over Strata and
# over SQLite through GRDB), built and tested against both engines, one test at a
# time: the liveness and backup tests each load the two cores with 64 clients. Its
# tests of a store on PostgreSQL run when STRATA_TEST_POSTGRES names a server (`make
# test` starts one).
test-service: deps
	cd Examples/Todos && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build --no-parallel

# The service under wrk, both engines in one run, loopback only, about 10 s a cell:
# writes Examples/Todos/RESULTS.md. Installs wrk when missing.
service-load: deps
	Examples/Todos/Scripts/service-load.sh

# 20 rounds of SIGKILL under 64 writing connections; fails if any acknowledged todo is lost.
service-kill-test: deps
	Examples/Todos/Scripts/service-kill-test.sh

# Concurrent readers while a writer saves or compacts (ConcurrentReadTests), contexts
# on several threads (ContextConcurrencyTests), group commit and the async lanes
# (GroupCommitTests, AsyncAccessTests), under the thread sanitizer.
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter "Concurren|GroupCommit|AsyncAccess"

# The whole suite under AddressSanitizer in .build-asan, LeakSanitizer on: the run
# fails on any memory error, and on any leak allocated from Strata's own code (the
# runtime's and XCTest's are reported, not failed; Tests/test-asan.sh, docs/FUZZING.md).
test-asan: deps
	SWIFT=$(SWIFT) Tests/test-asan.sh

# libFuzzer targets (Fuzz/, docs/FUZZING.md): each runs FUZZ_SECONDS (default 20,
# about four minutes for all ten); FUZZ_TARGETS picks some. Not in CI: `make test`
# replays the committed corpora instead.
FUZZ_SECONDS ?= 20
fuzz-build: deps
	cd Fuzz && $(SWIFT) build --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run-fuzzers.sh; status=$$?; \
		$(MAKE) fuzz-damage || status=1; exit $$status

# The damage catalogue in full (DamageCatalogueTests with STRATA_DAMAGE_FULL=1): every
# field of every file of the template store edited with its checksums recomputed, both
# templates, rerun past traps until it completes; the summary goes to
# .build/damage-report.txt. `make test` runs a sample of it.
fuzz-damage: deps
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) Fuzz/run-damage.sh

# Rewrites the seed corpora (Fuzz/Corpus/*/seed-*) from the store template and fixtures.
fuzz-seeds: deps
	$(SWIFT) build --build-tests
	STRATA_WRITE_FUZZ_SEEDS=1 $(SWIFT) test --skip-build --filter FuzzSeedTests

# SIGKILLs during save, compaction, import and migration with the prefix and
# old-or-new oracles (docs/FUZZING.md): CRASH_KILLS rounds in all (30% save, 25%
# compaction, 20% import, 25% migration; a few import and migration rounds finish
# before their kill), plus a tenth more of eight threads committing at once (group
# commit). Long — not in CI; prints one summary line per kind.
CRASH_KILLS ?= 1200
crash-campaign: deps
	$(SWIFT) build --build-tests
	mkdir -p .build
	STRATA_CRASH_CAMPAIGN=$(CRASH_KILLS) $(SWIFT) test --skip-build \
		--filter "CrashCampaignTests|crashCampaignMigration|ImportCrashCampaignTests|crashCampaignGroupCommit" > .build/crash-campaign.log 2>&1; \
		status=$$?; grep "crash-campaign " .build/crash-campaign.log; grep -E "✘|error:" .build/crash-campaign.log | head -20; exit $$status

# Group commit alone under SIGKILL: eight threads committing at once, killed at random
# GROUP_COMMIT_KILLS times, the per-thread prefix oracle after each kill. Long — not in CI.
GROUP_COMMIT_KILLS ?= 1000
crash-campaign-group-commit: deps
	$(SWIFT) build --build-tests
	mkdir -p .build
	STRATA_GROUP_COMMIT_KILLS=$(GROUP_COMMIT_KILLS) $(SWIFT) test --skip-build --filter "crashCampaignGroupCommit" > .build/crash-campaign-group-commit.log 2>&1; \
		status=$$?; grep "crash-campaign " .build/crash-campaign-group-commit.log; grep -E "✘|error:" .build/crash-campaign-group-commit.log | head -20; exit $$status

bench: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

bench-full: deps
	cd Benchmarks && STRATA_BENCH_FULL=1 $(SWIFT) package --allow-writing-to-package-directory benchmark

# Every BenchSummary section beside SQLite at 100k employees, three repetitions each:
# the main comparison, which README.md points to (Benchmarks/RESULTS.md). Builds the
# release `strata` first for the command-line rows; without the sqlite3 command on the
# PATH those rows are skipped with a note.
bench-summary: deps
	$(SWIFT) build -c release --product strata
	cd Benchmarks && $(SWIFT) build -c release --product BenchSummary
	{ echo "# Strata beside SQLite"; echo; \
	  echo "Generated by \`make bench-summary\` (BenchSummary \`--employees 100000 --serving-employees 100000 --cli-employees 100000 --repetitions 3\`, all sections) on $$(nproc) cores at commit $$(git rev-parse --short HEAD 2>/dev/null || echo unknown). Do not edit: run it again."; echo; \
	  Benchmarks/.build/release/BenchSummary --employees 100000 --serving-employees 100000 --cli-employees 100000 --repetitions 3 || exit 1; \
	} > Benchmarks/RESULTS.md.new && mv Benchmarks/RESULTS.md.new Benchmarks/RESULTS.md

# Maintenance beside SQLite at 100k and 1M employees, one run each: compaction (time,
# memory), the in-place migrations (a new unique rule among them), older-layout reads,
# compaction while serving (reads and 2 ms durable saves before and during it, beside
# VACUUM), and the inline photo split (a rewriting migration, beside GRDB's migrator).
# Writes Benchmarks/RESULTS-maintenance.md; about 15 minutes.
MAINTENANCE_SIZES ?= 100000 1000000
bench-maintenance: deps
	cd Benchmarks && $(SWIFT) build -c release --product BenchSummary
	{ echo "# Maintenance beside SQLite"; echo; \
	  echo "Generated by \`make bench-maintenance\` (BenchSummary \`--sections maintenance,serving,migration\` at each of $(MAINTENANCE_SIZES) employees, inline photos only) on $$(nproc) cores at commit $$(git rev-parse --short HEAD 2>/dev/null || echo unknown). Do not edit: run it again."; \
	  for n in $(MAINTENANCE_SIZES); do echo; echo "## $$n employees"; echo; \
	    Benchmarks/.build/release/BenchSummary --sections maintenance,serving,migration --employees $$n --serving-employees $$n --migration-employees $$n --blob-migration-employees 0 --repetitions 1 || exit 1; \
	  done; } > Benchmarks/RESULTS-maintenance.md.new && mv Benchmarks/RESULTS-maintenance.md.new Benchmarks/RESULTS-maintenance.md

# History beside SQLite with a trigger-kept history table: durable saves with history
# on and off, bytes per save, history's bytes after deleteHistory and a compaction, a
# stalled feed (Benchmarks/RESULTS-history.md).
HISTORY_SIZES ?= 100000 1000000
# Instructions (callgrind) the local store's object-layer paths execute at BASE and at
# the working tree, from one driver: Benchmarks/RESULTS-instructions.md.
bench-instructions: deps
	@[ -n "$(BASE)" ] || { echo "usage: make bench-instructions BASE=COMMIT"; exit 2; }
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
	SWIFT=$(SWIFT) Benchmarks/instruction-counts.sh $(BASE)

bench-history: deps
	cd Benchmarks && $(SWIFT) build -c release --product BenchSummary
	{ echo "# History beside SQLite"; echo; \
	  echo "Generated by \`make bench-history\` (BenchSummary \`--sections history\` at each of $(HISTORY_SIZES) employees) on $$(nproc) cores at commit $$(git rev-parse --short HEAD 2>/dev/null || echo unknown). Do not edit: run it again."; \
	  for n in $(HISTORY_SIZES); do echo; echo "## $$n employees"; echo; \
	    Benchmarks/.build/release/BenchSummary --sections history --employees $$n --repetitions 3 || exit 1; \
	  done; } > Benchmarks/RESULTS-history.md.new && mv Benchmarks/RESULTS-history.md.new Benchmarks/RESULTS-history.md

# The PostgreSQL store type beside the local store and SQLite (BenchSummary
# `--sections postgres` at each of POSTGRES_SIZES employees) against a throwaway
# PostgreSQL 15 with its default durability (fsync on), on a Unix socket: writes
# Benchmarks/RESULTS-postgres.md.
POSTGRES_SIZES ?= 100000 1000000
bench-postgres: deps
	cd Benchmarks && $(SWIFT) build -c release --product BenchSummary
	dir=$$(mktemp -d /tmp/strata-pg.XXXXXX); trap 'Tests/Postgres/server.sh stop "$$dir"' EXIT; \
	location=$$(STRATA_PG_SETTINGS="-c shared_buffers=512MB" Tests/Postgres/server.sh start "$$dir"); \
	{ echo "# The PostgreSQL store type beside the local store and SQLite"; echo; \
	  echo "Generated by \`make bench-postgres\` (BenchSummary \`--sections postgres\` at each of $(POSTGRES_SIZES) employees, PostgreSQL 15 on a Unix socket, fsync on) on $$(nproc) cores at commit $$(git rev-parse --short HEAD 2>/dev/null || echo unknown). Do not edit: run it again."; \
	  for n in $(POSTGRES_SIZES); do echo; echo "## $$n employees"; echo; \
	    Benchmarks/.build/release/BenchSummary --sections postgres --postgres "$$location" --employees $$n --repetitions 1 || exit 1; \
	  done; } > Benchmarks/RESULTS-postgres.md.new && mv Benchmarks/RESULTS-postgres.md.new Benchmarks/RESULTS-postgres.md

# Fails when a benchmark's p50 leaves the tolerance around the committed thresholds
# (Benchmarks/Thresholds/); bench-thresholds records new ones after an intended change.
bench-check: deps
	cd Benchmarks && $(SWIFT) package benchmark thresholds check

bench-thresholds: deps
	Benchmarks/update-thresholds.sh

clean:
	rm -rf .build .build-* Benchmarks/.build Fuzz/.build Fuzz/.work Examples/Todos/.build
