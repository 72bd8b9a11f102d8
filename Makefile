# Strata — set-up, demo and tests. Every target first installs what a fresh
# machine lacks (liblz4-dev via apt-get), then builds with SwiftPM.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: deps build demo test test-tsan bench bench-full bench-check bench-thresholds clean

deps:
	@if ! { pkg-config --exists liblz4 2>/dev/null || [ -f /usr/include/lz4.h ]; }; then \
		echo "Installing liblz4-dev (apt-get)…"; \
		$(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblz4-dev pkg-config; \
	fi
	@command -v pkg-config >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config; }

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) build -c release --product strata
	$(SWIFT) run -c release --skip-build strata demo $(DEMO_ARGS)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Concurrent readers while a writer saves, under the thread sanitizer.
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter Concurrency

bench: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

bench-full: deps
	cd Benchmarks && STRATA_BENCH_FULL=1 $(SWIFT) package --allow-writing-to-package-directory benchmark

# Fails when a benchmark's p50 leaves the tolerance around the committed thresholds
# (Benchmarks/Thresholds/); bench-thresholds records new ones after an intended change.
bench-check: deps
	cd Benchmarks && $(SWIFT) package benchmark thresholds check

bench-thresholds: deps
	Benchmarks/update-thresholds.sh

clean:
	rm -rf .build .build-* Benchmarks/.build
