# Veil: the first commands.
#   make        install missing Debian packages, build build/veil (optimized)
#   make demo   install missing packages, build only build/veil, then train
#               on built-in synthetic data, split over 3 federated parties
#               (in-process actors), and print metrics
#   make test   ... then build and run every test (ctest)
#   make bench  ... then compare with XGBoost and time OpBoost's
#               desensitization (see docs/benchmarks.md)
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build demo test bench format clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Only what the demo runs: the veil program, not the tests.
demo: configure
	@cmake --build $(BUILD) --target veil -j$(JOBS)
	./$(BUILD)/veil train --protocol plain --parties 3

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	bash bench/run_centralized.sh
	./$(BUILD)/veil-bench-opboost

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp')

clean:
	rm -rf $(BUILD)
