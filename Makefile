# The two commands a fresh machine needs (see README): `make demo` and `make test`.
# Each creates or refreshes the virtual environment in .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean

venv: $(STAMP)

# scrapyd 1.6 needs setuptools < 81 (it imports pkg_resources). An editable install makes
# setuptools say "Editable installation." in a box at every install, a notice about its own
# import hooks (it is no problem of ours): it is told to keep quiet.
$(STAMP): setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools<81' wheel
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip install --quiet -e '.[test,plots,status,redis,scrapyd,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/newsforagers demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info
