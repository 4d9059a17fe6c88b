# Two commands do all set-up: `make run` (the main job) and `make test` (the whole suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-test

.PHONY: run test lint build clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(TESTSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(STAMP)

## run: set up, validate and build the graph from data/, then show the seed profile
run: $(STAMP)
	$(BIN)/kgprofiles validate
	$(BIN)/kgprofiles build
	$(BIN)/kgprofiles profile horace-he

## test: set up with the test extras and run the whole suite
test: $(TESTSTAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/python -m pytest

build: $(STAMP)
	$(BIN)/kgprofiles build

clean:
	rm -rf $(VENV) .kgprofiles .pytest_cache
