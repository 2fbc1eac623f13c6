# Tongiaki: `make run` starts everything, `make test` runs every test.
# Both set up .venv on first use; nothing else needs installing by hand.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: help install run test pytest lint typecheck bench clean

help:
	@echo "make run        start the game server and the web client"
	@echo "make test       lint, type-check and run every test"
	@echo "make bench      run the benchmarks and print their figures"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m engine random --seats 4 --seed 1

test: lint typecheck pytest

pytest: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy engine tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/engine_bench.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
