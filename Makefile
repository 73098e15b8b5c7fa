# Two entry points (see README): `make demo` and `make test`. Each creates .venv on first use.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin

.PHONY: demo test lint sandbox-tools test-tools benchmarks clean

$(BIN)/divergent: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,ray]'
	@touch $@

# Best effort: bubblewrap gives the strongest sandbox (docs/sandbox.md). Needs root and apt.
sandbox-tools:
	@if command -v bwrap >/dev/null 2>&1; then echo "bubblewrap: present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null)) \
	  && echo "bubblewrap: installed" || echo "bubblewrap: could not install; a weaker sandbox level will be used"; \
	else echo "bubblewrap: absent (install it for the strongest sandbox; see docs/sandbox.md)"; fi

# Best effort: the toolchains of whole programs (docs/programs.md): gcc, g++, a JDK. Needs root and apt.
# Without them the tests of those languages are skipped, saying what to install (on CI they fail).
TOOL_PACKAGES := gcc:gcc g++:g++ javac:default-jdk-headless
test-tools:
	@missing=""; for pair in $(TOOL_PACKAGES); do tool=$${pair%%:*}; package=$${pair#*:}; \
	  command -v $$tool >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	if [ -z "$$missing" ]; then echo "toolchains: present (gcc, g++, javac)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get install -y -qq $$missing >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq $$missing >/dev/null)) \
	  && echo "toolchains: installed$$missing" || echo "toolchains: could not install$$missing; their tests will be skipped"; \
	else echo "toolchains: missing$$missing (apt-get install$$missing; see docs/programs.md)"; fi

# Runs `check` on the bundled pair; exit code 1 means "a difference was found", which is the point.
demo: $(BIN)/divergent
	$(BIN)/divergent check examples/old.py examples/new.py --function normalize --budget 10; \
	  status=$$?; [ $$status -eq 1 ] || { echo "demo: expected a counterexample (exit 1), got $$status"; exit 1; }

lint: $(BIN)/divergent
	$(BIN)/ruff check src tests benchmarks

test: $(BIN)/divergent lint
	$(BIN)/pytest -q

benchmarks: $(BIN)/divergent
	$(BIN)/python benchmarks/throughput.py
	$(BIN)/python benchmarks/engine_power.py
	$(BIN)/python benchmarks/real_samples.py
	$(BIN)/python benchmarks/programs.py all

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build src/*.egg-info
