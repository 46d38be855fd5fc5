# Quick start: `make run` (joule status here, then on a fixture) and `make test` (every test).
SWIFT ?= swift
FIXTURE ?= hw-fixtures/thinkpad-t480-two-batteries-discharging

.PHONY: deps build run test bench fuzz clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

run: build
	.build/debug/joule status
	.build/debug/joule status --json --root $(FIXTURE)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

# Every comparison against peers in one run (release build, ~10 min); writes BENCHMARKS.md.
bench: deps
	python3 scripts/bench.py

# libFuzzer on every parser for FUZZ_SECONDS each (default 60); records results in BENCHMARKS.md.
fuzz: deps
	./scripts/fuzz.sh

clean:
	rm -rf .build .build-fuzz fuzz-work
