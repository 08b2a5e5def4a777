# The two set-up commands of README.md:
#   make run    install what is missing, build, open the app (the demo recording when no camera)
#   make test   install what is missing, build, check formatting and lints, run every test
# Installing is idempotent: packages already present are not touched.

SHELL := /bin/bash
CARGO ?= cargo

.PHONY: run test deps build check screenshot

run: deps
	$(CARGO) build --release
	./target/release/spotter app

test: deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) test --all-targets

build: deps
	$(CARGO) build --release

deps:
	@bash scripts/install-deps.sh
