# Two entry points (see README): `make demo` and `make test`. Each creates .venv on first use and
# installs only what it needs: the demo divergent and matplotlib (its HTML report's charts), the
# tests the dev extras and Ray (the Ray executor's tests).
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
DEV_INSTALLED  := $(VENV)/.installed-dev
DEMO_INSTALLED := $(VENV)/.installed-demo
DEMO_OUT       := build/demo

.PHONY: demo test lint sandbox-tools browser-tools test-tools benchmarks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(DEV_INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,ray]'
	@touch $@

$(DEMO_INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[plots]'
	@touch $@

# the development install (what `make test` uses)
$(BIN)/divergent: $(DEV_INSTALLED)
	@touch $@

# Best effort: bubblewrap gives the strongest sandbox (docs/sandbox.md). Needs root and apt.
sandbox-tools:
	@if command -v bwrap >/dev/null 2>&1; then echo "bubblewrap: present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null)) \
	  && echo "bubblewrap: installed" || echo "bubblewrap: could not install; a weaker sandbox level will be used"; \
	else echo "bubblewrap: absent (install it for the strongest sandbox; see docs/sandbox.md)"; fi

# Best effort: Debian's Chromium renders the HTML reports in the tests (tests/test_report_html.py);
# without it those tests are skipped. Needs root and apt.
browser-tools:
	@if command -v chromium >/dev/null 2>&1; then echo "chromium: present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get install -y -qq chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)) \
	  && echo "chromium: installed" || echo "chromium: could not install; the browser tests will be skipped"; \
	else echo "chromium: absent (the HTML reports' browser tests will be skipped)"; fi

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
# It also writes the HTML report and a pytest module reproducing the difference under build/demo/.
demo: $(DEMO_INSTALLED)
	@mkdir -p $(DEMO_OUT)
	$(BIN)/divergent check examples/old.py examples/new.py --function normalize --budget 10 \
	  --html $(DEMO_OUT)/report.html --emit-test $(DEMO_OUT)/test_normalize.py; \
	  status=$$?; [ $$status -eq 1 ] || { echo "demo: expected a counterexample (exit 1), got $$status"; exit 1; }
	@echo "demo: open $(DEMO_OUT)/report.html in a browser; $(DEMO_OUT)/test_normalize.py reproduces the difference under pytest"

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
