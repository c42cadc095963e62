# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BELLICA := $(VENV)/bin/bellica
BUILD := build

.PHONY: demo test long bench venv chromium clean

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[sources,test,bench]'
	touch $@

# Browser tests need Debian's chromium; install it only when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

demo: venv
	$(BELLICA) map build --out $(BUILD)/mediterranean.duckdb --quiet --force
	$(BELLICA) render map $(BUILD)/mediterranean.duckdb --out $(BUILD)/mediterranean.html --force
	$(BELLICA) campaign new --scenario first-punic-war --map $(BUILD)/mediterranean.duckdb --out $(BUILD)/first-punic-war.duckdb --force
	$(PY) -m bellica.demo $(BUILD)/first-punic-war.duckdb
	$(BELLICA) render map $(BUILD)/first-punic-war.duckdb --out $(BUILD)/first-punic-war.html --force
	$(PY) -m bellica.demo_mare_nostrum $(BUILD)/mare-nostrum.duckdb
	$(BELLICA) render map $(BUILD)/mare-nostrum.duckdb --out $(BUILD)/mare-nostrum.html --force
	@echo "Mare Nostrum map (one turn played): $(abspath $(BUILD)/mare-nostrum.html)"
	$(PY) -m bellica.demo_magna_graecia $(BUILD)/magna-graecia.duckdb
	$(BELLICA) render map $(BUILD)/magna-graecia.duckdb --out $(BUILD)/magna-graecia.html --force
	@echo "Magna Graecia map (Sicily, 397 BC, five turns played): $(abspath $(BUILD)/magna-graecia.html)"
	$(PY) -m bellica.demo_trossian $(BUILD)/trossian.duckdb
	$(BELLICA) render map $(BUILD)/trossian.duckdb --out $(BUILD)/trossian.html --force
	@echo "Trossian map (the Black Sea, 1806, one phase played): $(abspath $(BUILD)/trossian.html)"
	@echo "terrain map:  $(abspath $(BUILD)/mediterranean.html)"
	@echo "campaign map: $(abspath $(BUILD)/first-punic-war.html)"
	$(BELLICA) serve tokens $(BUILD)/first-punic-war.duckdb
	@echo "play through the browser: $(BELLICA) serve $(BUILD)/first-punic-war.duckdb  (then open a link above)"

# On every core (pytest-xdist): tests are handed out one by one as workers free up (worksteal); the
# Mediterranean map and the campaigns many tests start from are built once a run, by the first
# worker to ask (tests/conftest.py, built_once), and each worker has one chromium (tests/app/conftest.py).
# The warm server's tests (marker serial) time forks, signals and sockets: they run afterwards, apart
# from the rest, one per core (their 18 s one at a time are mostly waits: 10 s on two cores, and they
# passed so with two busy loops beside them), and once more, one at a time, when one fails, because a
# loaded machine can delay a fork past their waits; only the files that mark tests serial are
# collected for them (collecting the whole suite costs 12 s of CPU).
# The tests' files go to /dev/shm when it has 6 GB free (tests/conftest.py): DuckDB syncs every commit to disk.
# Python writes its bytecode caches (__pycache__, ignored by git) even where the environment says
# not to (PYTHONDONTWRITEBYTECODE, as some containers set): otherwise every test process, and every
# `bellica` the tests run as a subprocess, compiles the package and rewrites the test files' asserts
# again (12.6 s of CPU to collect the suite instead of 5 s; 16% of the CPU of the CLI tests).
test long: export PYTHONDONTWRITEBYTECODE =
SERIAL_FILES = $(shell grep -rlE 'mark\.serial\b' tests --include='*.py')
test: venv chromium
	$(PY) -m pytest -q -n auto --dist worksteal -m "not serial and not slow"
	$(PY) -m pytest -q -n auto -m serial $(SERIAL_FILES) || $(PY) -m pytest -q -m serial --last-failed $(SERIAL_FILES)

# The suite's bounded cases at full size: the fuzz tests at four times their stated examples and
# the property tests over every played state (make test tries a third and a stride: tests/bounds.py),
# then the tests on large data or local Dask clusters (marker slow: a 20000 x 20000 raster, maps made on Dask).
LONG_TESTS := tests/cli/test_fuzz.py tests/cli/test_fuzz_games.py tests/cli/test_fuzz_declared.py tests/app/test_app_nodes_hostile.py \
	tests/engine/test_mare_nostrum_views.py
long: venv
	BELLICA_FUZZ_SCALE=4 $(PY) -m pytest -q -n auto --dist worksteal $(LONG_TESTS)
	$(PY) -m pytest -q -m slow

bench: venv
	$(PY) -m benchmarks.run

clean:
	rm -rf $(BUILD) .pytest_cache
