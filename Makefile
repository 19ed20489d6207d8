# Two entry points a fresh machine needs: `make release` and `make test`.
# Each creates its own virtual environment from pyproject.toml on first use.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
export DAGSTER_HOME ?= $(CURDIR)/outputs/dagster

.PHONY: release test lint ui clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

release: $(VENV)/.installed  ## build a full release (1,000 trajectories planned) with the procedural backend
	$(BIN)/atbench validate
	$(BIN)/atbench build --out outputs/release

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Test files are spread over this many processes (pytest-xdist; 0 runs them in this one);
# a file's tests stay together, so a module's shared build is made once.
TEST_WORKERS ?= 2

test: lint  ## lint, type-check and run the tests
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile

ui: $(VENV)/.installed  ## open the Dagster UI on the CLI's instance
	mkdir -p $(DAGSTER_HOME) && touch $(DAGSTER_HOME)/dagster.yaml
	$(BIN)/dagster dev -w workspace.yaml

clean:
	rm -rf outputs/builds outputs/cache outputs/release outputs/dagster
