# g5net: `make demo` and `make test` on a fresh Debian 12 machine, as root.
# Every target installs what it needs first (Debian packages, a virtualenv).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
G5NET  := $(BIN)/g5net
# Debian packages the host side needs; the guest's own packages are read from
# disk-images/ by the image build and fetched with apt-get download.
HOST_PACKAGES := $(shell awk '!/^\#/ && NF {print $$1}' disk-images/host-packages.txt)

.PHONY: help deps artifacts demo test test-fast lint bench docs gem5 clean

help:
	@echo "make demo       install what is missing, build the quickstart's kernel + image, run it"
	@echo "make test       the full test suite (boots guests; gem5 tests run where gem5 is found)"
	@echo "make test-fast  unit tests only (no guest boots, no builds)"
	@echo "make lint       ruff and mypy (make test runs them first)"
	@echo "make bench      speed figures (quickstart wall time, boot time, parser MB/s, ...)"
	@echo "make artifacts  build (or reuse) the kernels and the disk image"
	@echo "make docs       regenerate docs/spec.md and docs/metrics.md from the code"
	@echo "make gem5 GEM5_SRC=DIR   build X86 gem5.opt (v24) from your gem5 source tree (~1.5 h on 2 cores)"

deps: $(BIN)/.installed
	@missing=""; for p in $(HOST_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

$(BIN)/.installed: pyproject.toml
	@# Debian's python3 makes venvs only with python3-venv installed.
	$(PYTHON) -m venv $(VENV) || { apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv && \
	  $(PYTHON) -m venv --clear $(VENV); }
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

artifacts: deps
	$(G5NET) artifacts build

# The best engine present; gem5 runs the quickstart sized for it (a detailed
# CPU takes host minutes per simulated second): ~10 minutes the first time
# (the boot checkpoint), ~5 after.
# Only what that spec boots is built first (one kernel and the image); other
# artifacts are built when a spec first needs them.
demo: deps
	@if $(G5NET) doctor --json | $(BIN)/python -c 'import json, sys; sys.exit(not json.load(sys.stdin)["gem5"]["ok"])'; then \
	  echo "gem5 found: examples/quickstart-gem5.toml"; \
	  spec=examples/quickstart-gem5.toml; engine=gem5; \
	else \
	  echo "no usable gem5 (g5net doctor says why): examples/quickstart.toml on QEMU"; \
	  spec=examples/quickstart.toml; engine=qemu; \
	fi; \
	$(G5NET) artifacts build --for $$spec && $(G5NET) run $$spec --engine $$engine --out results

# One pytest worker per core (TEST_WORKERS=0: all in this process), a test file
# to a worker, in the order tests/conftest.py puts them: gem5's files first.
# (xdist otherwise hands out the files with the most tests first, and the
# boots started last.)
TEST_WORKERS ?= auto
test: lint artifacts
	$(BIN)/pytest -rs --durations=30 -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# Settings in pyproject.toml: ruff's rules, mypy on g5net/.
lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy

test-fast: $(BIN)/.installed
	$(BIN)/pytest -rs -m "not slow" -n $(TEST_WORKERS) --dist loadfile

# FRESH=1: time make demo on an empty artifact cache instead (packages, kernel, image, run).
bench: $(if $(FRESH),deps,artifacts)
	$(BIN)/python scripts/bench.py $(if $(FRESH),--fresh)

docs: $(BIN)/.installed
	$(BIN)/python scripts/gen_docs.py

# gem5 from a source tree you have (checked to be v24 before anything is
# installed or compiled); ends with the G5NET_GEM5= line to export.
gem5:
	@bash scripts/build_gem5.sh "$(GEM5_SRC)"

clean:
	rm -rf $(VENV) build .pytest_cache
