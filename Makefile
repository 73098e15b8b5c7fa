# Two entry points (see README): `make demo` and `make test`. Each creates .venv on first use.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin

.PHONY: demo test lint sandbox-tools benchmarks clean

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

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build src/*.egg-info
