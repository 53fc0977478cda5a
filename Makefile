# inspectc: `make demo` runs a sample under capture; `make test` runs every check; `make docs`
# builds the documentation site (docs/, mkdocs.yml) into site/.
# Both set up what they need first: a venv in .venv (torch 2.13 CPU from pip, then the
# project and its dev tools) and Debian's graphviz for `dot` (and nodejs for the Perfetto test).

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.installed
OUT ?= out

.PHONY: setup sysdeps bytecode demo test lint typecheck pytest pytest-quick test-torch bench docs clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check "$(TORCH_SPEC)"
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev,tui]'
	touch $(STAMP)

# `dot` renders SVG/PNG; the Python graphviz package only writes DOT. node runs Perfetto's
# WebAssembly trace processor for tests/test_perfetto.py; Chromium and chromedriver open the
# HTML page for tests/test_html_browser.py.
sysdeps:
	@command -v dot >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq graphviz >/dev/null; }
	@command -v node >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq nodejs >/dev/null; }
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

# `make demo SAMPLE=samples/hf_bert.py` runs another sample; ARGS are the sample's own
# (`make demo SAMPLE=samples/compile_modes.py ARGS="--mode dynamic"`).
SAMPLE ?= samples/graph_breaks.py
ifeq ($(SAMPLE),samples/graph_breaks.py)
ARGS ?= --size 64
endif
DEMO_REPORT = $(OUT)/$(basename $(notdir $(SAMPLE))).inspectc
DEMO_PAGE = $(OUT)/$(basename $(notdir $(SAMPLE))).html

demo: setup sysdeps
	mkdir -p $(OUT)
	$(VENV)/bin/inspectc run -o $(DEMO_REPORT) $(SAMPLE) $(ARGS)
	@$(VENV)/bin/inspectc html -q $(DEMO_REPORT) -o $(DEMO_PAGE)
	@echo
	@echo "Browse it:  $(VENV)/bin/inspectc tui $(DEMO_REPORT)"
	@echo "In a browser (one offline page): $(DEMO_PAGE)"
	@echo "JSON:       $(VENV)/bin/inspectc export $(DEMO_REPORT) --json"

lint: setup
	$(VENV)/bin/ruff format --check inspectc tui tests benchmarks samples
	$(VENV)/bin/ruff check inspectc tui tests benchmarks
	$(VENV)/bin/lint-imports --no-cache  # the import contracts in pyproject.toml

typecheck: setup
	$(VENV)/bin/mypy inspectc tui/inspectc_tui

# The project's modules as bytecode (__pycache__, ignored by git). Where PYTHONDONTWRITEBYTECODE
# is set (this machine sets it), Python writes none, so each of the ~1,300 CLI subprocesses of
# tests/ compiled the project from source again: ~80 ms of CPU each (summary 0.24 -> 0.16 s).
bytecode: setup
	$(PY) -m compileall -q inspectc tui/inspectc_tui

# tests/ and tui/tests/ each have a conftest module: run them as two sessions, one after the
# other, each on two workers (pytest-xdist; in tests/ a file's tests share one worker and its
# fixtures, and the files go out in tests/conftest.py's order, heaviest first). Not at once:
# beside a one-core burner that made three timing tests fail. tui/tests runs and reports
# even when tests/ fails; the target fails if either did.
pytest: setup sysdeps bytecode
	@$(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder tests; a=$$?; $(PY) -m pytest -q -n 2 tui/tests; b=$$?; \
	  [ $$a -eq 0 ] && [ $$b -eq 0 ] || { echo "pytest: tests/ exit $$a, tui/tests exit $$b"; exit 1; }

# The quick lane: everything that compiles nothing (no torch.compile, no inspectc run) and is
# not marked slow (`make pytest` runs those too). Four workers on two cores: its tests mostly
# wait on CLI subprocesses.
pytest-quick: setup bytecode
	$(PY) -m pytest -q -n 4 -m "not capture and not slow" tests

test: lint typecheck pytest

# `make test-torch VERSION=2.14.1`: the capture tests that fit CI under another supported torch
# (2.11-2.14), in a venv of its own under .dev/ (that torch from pip: PyPI's Linux wheel, which
# runs on the CPU; then this project). TORCH_TESTS is the subset: capture, import, the torch
# API, compiled autograd, export, break sites, live-vs-import parity and the version logs.
VERSION ?= 2.14.1
TORCH_VENV := .dev/torch-$(VERSION)
TORCH_TESTS ?= tests/test_capture.py tests/test_torch_api.py tests/test_compiled_autograd.py \
  tests/test_export_records.py tests/test_break_site.py tests/test_run_parity.py \
  tests/test_versions_logs.py
test-torch: sysdeps
	test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv $(TORCH_VENV)
	$(TORCH_VENV)/bin/python -m pip install -q --disable-pip-version-check "torch==$(VERSION)"
	$(TORCH_VENV)/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,tui]'
	$(TORCH_VENV)/bin/python -c "import torch; assert torch.__version__.startswith('$(VERSION)'), torch.__version__"
	$(TORCH_VENV)/bin/python -m pytest -q -n 2 --dist loadfile $(TORCH_TESTS)

# Each prints a table of ratios against a baseline measured in the same run.
bench: setup sysdeps
	$(PY) benchmarks/bench_run.py --rounds 3
	$(PY) benchmarks/bench_timings.py --rounds 5
	$(PY) benchmarks/bench_tracefile.py
	$(PY) benchmarks/bench_import.py
	$(PY) benchmarks/bench_graph.py
	$(PY) benchmarks/bench_tui.py

# The reference in docs/ as a site (mkdocs-material, no web fonts): --strict fails on any
# warning, a broken link or #anchor among them. NO_MKDOCS_2_WARNING quiets Material's banner
# about its successor, which is no warning of the build.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) $(OUT) site .pytest_cache .ruff_cache .mypy_cache
