# The two commands a fresh machine needs (see README): `make demo` and `make test`.
# Each creates or refreshes the virtual environment in .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean

venv: $(STAMP)

$(STAMP): setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/python -m pip install --quiet -e '.[test,plots,status,redis,scrapyd,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/newsforagers demo

test: $(STAMP)
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info
