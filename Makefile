# Quick start: `make run` (joule status here, then on a fixture) and `make test` (every test).
SWIFT ?= swift
FIXTURE ?= hw-fixtures/thinkpad-t480-two-batteries-discharging

.PHONY: deps build run test test-vm bench fuzz clean

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
	SWIFT=$(SWIFT) ./scripts/vm/run.sh

# The live cgroup v2 and HCI paths in a qemu VM (Debian's kernel, busybox); SKIPPED without qemu.
# VM_SCENARIOS=cgroup-freeze,... runs only those (Tests/VM/scenarios/NAME.sh).
test-vm: deps
	SWIFT=$(SWIFT) ./scripts/vm/run.sh

# Every comparison against peers in one run (release build, ~10 min); writes BENCHMARKS.md.
bench: deps
	python3 scripts/bench.py

# libFuzzer on every parser for FUZZ_SECONDS each (default 60); records results in BENCHMARKS.md.
fuzz: deps
	./scripts/fuzz.sh

clean:
	rm -rf .build .build-fuzz .build-vm .vm-cache fuzz-work
