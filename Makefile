# Quick start: `make run` (joule status here, then on a fixture) and `make test` (every test).
SWIFT ?= swift
FIXTURE ?= hw-fixtures/thinkpad-t480-two-batteries-discharging

.PHONY: deps build run soak test check-layers test-tsan test-sanitize test-vm test-system test-install test-deb release build-release install uninstall deb bench fuzz clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

run: build
	.build/debug/joule status
	.build/debug/joule status --json --root $(FIXTURE)

# `make test` is what CI runs, in one debug build: every Swift test under ThreadSanitizer (.build-tsan),
# then the fuzz targets' short run (AddressSanitizer), the install check and the VM, both with
# that same ThreadSanitizer joule (a separate release build would double CI's time; the VM takes
# the Swift runtime's libraries along). Last, the Debian package (test-deb): lintian and
# dpkg-shlibdeps must judge the binary that ships, so this is CI's one release build (reused
# when .build-release is up to date), and then that package installed and driven in a Debian
# userspace booted with systemd (test-system). `make test-sanitize` adds AddressSanitizer with
# UndefinedBehaviorSanitizer (.build-asan). A report fails the test that saw it (TSan exits 66).
# JOULE_PPD: the real power-profiles-daemon for its tests (unpacked, never installed).
# JOULE_PROMTOOL: Prometheus's promtool for `promtool check metrics` (unpacked, never installed).
# At most 8 tests at once: each starts buses, daemons and CLIs of its own, and an unbounded
# width only piles load onto 2 cores (same wall time, a third of the load).
# The fuzz targets run for 500 runs from a fixed seed after their committed seeds (crashes found
# before among them), built -Onone (much faster to compile; BENCHMARKS.md untouched).
TSAN_SCRATCH = $(CURDIR)/.build-tsan
ASAN_SCRATCH = $(CURDIR)/.build-asan
# SWIFT_BACKTRACE=enable=no: under a sanitizer, the Swift runtime's crash handler forks
# swift-backtrace from inside the signal handler, which TSan's fork interceptor cannot do
# (CHECK failed in ForkChildAfter); the orphaned swift-backtrace then waits forever, holding
# the socket through which Foundation's Process learns of the exit, so a test that SIGABRTs
# the daemon (as systemd's watchdog does) never sees it end. The sanitizer prints its own
# report; a plain build keeps the backtracer.
# Width 4, not 8: since the desktop suites (Xvfb, openbox, headless sway, dconf) joined, 8 at
# once on 2 cores starved timing-bound tests under ThreadSanitizer (two clean-clone runs each
# failed one: the crash guard's exit and the pool's timer takeover), though each passes alone.
SUITE_ENV = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 SWIFT_BACKTRACE=enable=no \
	JOULE_PPD="$$(./scripts/fetch-ppd.sh)" JOULE_PROMTOOL="$$(./scripts/fetch-promtool.sh)"
test: deps check-layers test-tsan
	FUZZ_RUNS=500 FUZZ_REPORT=0 FUZZ_OPT=-Onone FUZZ_CHECKOUTS=$(TSAN_SCRATCH)/checkouts ./scripts/fuzz.sh
	SWIFT=$(SWIFT) JOULE_BINARY=$(TSAN_SCRATCH)/debug/joule JOULE_CHECKOUTS=$(TSAN_SCRATCH)/checkouts \
		JOULE_RELEASE_SCRATCH=$(CURDIR)/.build-install ./scripts/test-install.sh
	SWIFT=$(SWIFT) VM_JOULE=$(TSAN_SCRATCH)/debug/joule ./scripts/vm/run.sh
	SWIFT=$(SWIFT) ./scripts/install.sh build
	./scripts/test-deb.sh
	./scripts/system/run.sh

# The package graph's rules (imports only downward, declared, C only in gateways, a CLI
# without loops, a test target per module): a second, before anything builds.
check-layers:
	SWIFT=$(SWIFT) ./scripts/check-layers.sh

# Every Swift test under ThreadSanitizer.
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path $(TSAN_SCRATCH)
	$(SUITE_ENV) $(SWIFT) test --skip-build --sanitize=thread --scratch-path $(TSAN_SCRATCH)

# The Swift tests under ThreadSanitizer, then under AddressSanitizer with UndefinedBehavior-
# Sanitizer. swiftc has no -sanitize=undefined on Linux (Swift traps on overflow and bounds by
# itself): UBSan instruments the C (Joule's shims, libyaml, BoringSSL), ASan everything, and any
# report stops the process (halt_on_error), which fails its test.
ASAN_FLAGS = --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
test-sanitize: deps test-tsan
	$(SWIFT) build --build-tests $(ASAN_FLAGS) --scratch-path $(ASAN_SCRATCH)
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		$(SUITE_ENV) $(SWIFT) test --skip-build $(ASAN_FLAGS) --scratch-path $(ASAN_SCRATCH)

# The live cgroup v2 and HCI paths in a qemu VM (Debian's kernel, busybox); SKIPPED without qemu.
# VM_SCENARIOS=cgroup-freeze,... runs only those (Tests/VM/scenarios/NAME.sh).
test-vm: deps
	SWIFT=$(SWIFT) ./scripts/vm/run.sh

# The Debian package installed in a Debian 12 userspace booted with systemd in qemu (Debian's
# kernel; the image built by debootstrap and cached in .vm-cache by the hash of its package
# list), driven through systemctl, busctl, pkcheck and joule: Tests/System/scenarios, one
# `SYSTEM-SCENARIO <name> PASS|FAIL|SKIP` line each. SYSTEM_SCENARIOS=01-install,... runs only
# those. Uses the release build (`make release`); SKIPPED without qemu or debootstrap.
test-system: deps release
	./scripts/system/run.sh

# The Debian package from the release build: lintian (no error; each warning named in the
# README), the control fields, the file list against `make install`'s, and dpkg install,
# remove and purge in a throwaway root.
test-deb: deps release
	./scripts/test-deb.sh

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

# joule_VERSION_ARCH.deb here: make install's files (PREFIX=/usr), /etc/joule/joule.yaml as a
# conffile, maintainer scripts that enable and start joule.service (dist/debian).
deb: release
	./scripts/deb.sh

# Every comparison against peers in one run (release build, ~10 min); writes BENCHMARKS.md.
bench: deps
	python3 scripts/bench.py

# The daemon under load and faults for about 10 minutes (a benchmark, not a timed test): 8
# clients, uevents, reloads, churn and transfers at once; RSS, descriptors, properties and
# transitions measured into BENCHMARKS.md. SOAK_JOULE=PATH soaks another build.
soak: deps release
	/usr/bin/python3 scripts/soak.py

# libFuzzer on every parser for FUZZ_SECONDS each (default 60); records results in BENCHMARKS.md
# (FUZZ_REPORT=0: not).
fuzz: deps
	./scripts/fuzz.sh

clean:
	rm -rf .build .build-* .vm-cache fuzz-work
