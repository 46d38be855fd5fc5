# Quick start: `make run` (joule status here, then on a fixture) and `make test` (every test).
SWIFT ?= swift
FIXTURE ?= hw-fixtures/thinkpad-t480-two-batteries-discharging

.PHONY: deps build run test test-vm test-install release build-release install uninstall bench fuzz clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

run: build
	.build/debug/joule status
	.build/debug/joule status --json --root $(FIXTURE)

# JOULE_PPD: the real power-profiles-daemon for its tests (unpacked, never installed).
# JOULE_PROMTOOL: Prometheus's promtool for `promtool check metrics` (unpacked, never installed).
# At most 8 tests at once: each starts buses, daemons and CLIs of its own, and an unbounded
# width only piles load onto 2 cores (same wall time, a third of the load).
# Then every fuzz target for 500 runs from a fixed seed after its committed seeds (crashes found
# before among them), built -Onone (much faster to compile; BENCHMARKS.md untouched).
test: deps
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 JOULE_PPD="$$(./scripts/fetch-ppd.sh)" \
		JOULE_PROMTOOL="$$(./scripts/fetch-promtool.sh)" $(SWIFT) test
	FUZZ_RUNS=500 FUZZ_REPORT=0 FUZZ_OPT=-Onone ./scripts/fuzz.sh
	SWIFT=$(SWIFT) ./scripts/test-install.sh
	SWIFT=$(SWIFT) VM_JOULE=$(CURDIR)/.build-release/release/joule ./scripts/vm/run.sh

# The live cgroup v2 and HCI paths in a qemu VM (Debian's kernel, busybox); SKIPPED without qemu.
# VM_SCENARIOS=cgroup-freeze,... runs only those (Tests/VM/scenarios/NAME.sh).
test-vm: deps
	SWIFT=$(SWIFT) ./scripts/vm/run.sh

# `make install DESTDIR=tmp PREFIX=/usr` into a temporary directory: every file laid out,
# systemd-analyze verify on the units, no Swift runtime library in ldd, uninstall leaves nothing.
test-install: deps
	SWIFT=$(SWIFT) ./scripts/test-install.sh

# Installing as a service: `make release` (as yourself), then `sudo make install`.
# Directories: PREFIX, DESTDIR, BINDIR, DATADIR, MANDIR, SYSCONFDIR as usual; these default in
# scripts/install.sh: SYSTEMDSYSTEMUNITDIR and SYSTEMDUSERUNITDIR (pkg-config systemd, relative
# to PREFIX), DBUSPOLICYDIR ($(DATADIR)/dbus-1/system.d for PREFIX=/usr, else
# $(SYSCONFDIR)/dbus-1/system.d, the only places dbus-daemon reads), DBUSSERVICEDIR,
# DBUSINTERFACEDIR, POLKITACTIONDIR, BASHCOMPLETIONDIR, ZSHCOMPLETIONDIR, FISHCOMPLETIONDIR.
# STRIP= keeps the binary's symbols. `make uninstall` with the same variables removes it all.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
SYSCONFDIR ?= /etc
STRIP ?= strip
# Passed to scripts/install.sh only (exported, they would leak into `make test`'s nested makes).
INSTALL_ENV = SWIFT="$(SWIFT)" PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BINDIR="$(BINDIR)" \
	DATADIR="$(DATADIR)" MANDIR="$(MANDIR)" SYSCONFDIR="$(SYSCONFDIR)" STRIP="$(STRIP)" \
	SYSTEMDSYSTEMUNITDIR="$(SYSTEMDSYSTEMUNITDIR)" SYSTEMDUSERUNITDIR="$(SYSTEMDUSERUNITDIR)" \
	DBUSPOLICYDIR="$(DBUSPOLICYDIR)" DBUSSERVICEDIR="$(DBUSSERVICEDIR)" \
	DBUSINTERFACEDIR="$(DBUSINTERFACEDIR)" POLKITACTIONDIR="$(POLKITACTIONDIR)" \
	BASHCOMPLETIONDIR="$(BASHCOMPLETIONDIR)" ZSHCOMPLETIONDIR="$(ZSHCOMPLETIONDIR)" \
	FISHCOMPLETIONDIR="$(FISHCOMPLETIONDIR)"

# The static-stdlib release joule in .build-release, its man pages and completions.
release: deps
	$(INSTALL_ENV) ./scripts/install.sh build

build-release: release

install: release
	$(INSTALL_ENV) ./scripts/install.sh install

uninstall:
	$(INSTALL_ENV) ./scripts/install.sh uninstall

# Every comparison against peers in one run (release build, ~10 min); writes BENCHMARKS.md.
bench: deps
	python3 scripts/bench.py

# libFuzzer on every parser for FUZZ_SECONDS each (default 60); records results in BENCHMARKS.md
# (FUZZ_REPORT=0: not).
fuzz: deps
	./scripts/fuzz.sh

clean:
	rm -rf .build .build-fuzz .build-vm .build-release .vm-cache fuzz-work
