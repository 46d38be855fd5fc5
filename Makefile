# Quick start: `make run` (joule status here, then on a fixture) and `make test` (every test).
SWIFT ?= swift
FIXTURE ?= hw-fixtures/thinkpad-t480-two-batteries-discharging

.PHONY: deps build run test clean

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

clean:
	rm -rf .build
