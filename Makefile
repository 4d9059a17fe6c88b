# Two commands do all set-up: `make run` (the main job) and `make test` (the whole suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-test
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint build dist clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(TESTSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(STAMP)

## run: set up, validate and build the graph from data/, then serve it on http://$(HOST):$(PORT)/
run: $(STAMP)
	bash tools/install-test-deps.sh --editor-only
	$(BIN)/kgprofiles validate
	$(BIN)/kgprofiles build
	$(BIN)/kgprofiles serve --host $(HOST) --port $(PORT)

## test: set up with the test extras and what the web tests need, then run the whole suite
test: $(TESTSTAMP)
	bash tools/install-test-deps.sh
	$(BIN)/ruff check .
	$(BIN)/mypy
	# bytecode for the package, written once: the suite starts hundreds of kgprofiles processes, and
	# where PYTHONDONTWRITEBYTECODE is set each of them would compile every module again (~0.15 s)
	$(BIN)/python -m compileall -q src
	# four workers on two cores: many tests wait on subprocesses, servers and a browser, and the extra
	# workers overlap those waits (the whole suite 5:57 with three, about 6:50 with two; on a later
	# machine 5:09 with four against 5:28 with three and 5:41 with three stealing work, one run each).
	# Whole files to each worker, the longest first (tests/conftest.py, LONGEST_FIRST), so that the
	# workers end together: 4:56 against 5:21 with the tests given out in chunks of 136 in file-name order
	$(BIN)/python -m pytest -n 4 --dist loadfile --no-loadscope-reorder --durations=10

build: $(STAMP)
	$(BIN)/kgprofiles build

## dist: the wheel a user installs (ontology, shapes, queries and the query editor inside) in dist/
dist: $(TESTSTAMP)
	bash tools/install-test-deps.sh --editor-only
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

lint: $(TESTSTAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .kgprofiles .pytest_cache node_modules build dist
