# The two commands of the README: `make demo` and `make test`. Both set up
# what they need first (virtualenv, pinned requirements, NLTK models) and are
# quick when nothing changed.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SHARED ?= ../shared
NLTK_PACKAGES := punkt_tab averaged_perceptron_tagger_eng

.PHONY: setup demo test lint docs bench clean

setup: $(VENV)/.installed .nltk_data

$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-docs.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# NLTK_DATA when it is set, else the shared models beside the project;
# otherwise one download at setup time (never at run time). Offline with
# none of these: say what to do.
.nltk_data:
	@if [ -n "$$NLTK_DATA" ] && [ -d "$$NLTK_DATA" ]; then \
		ln -sfn "$$(cd "$$NLTK_DATA" && pwd)" .nltk_data; \
	elif [ -d "$(SHARED)/nltk_data" ]; then \
		ln -sfn "$$(cd "$(SHARED)/nltk_data" && pwd)" .nltk_data; \
	else \
		$(PY) -m nltk.downloader -q -d .nltk_data.tmp $(NLTK_PACKAGES) && mv .nltk_data.tmp .nltk_data || { \
		rm -rf .nltk_data.tmp; \
		echo "NLTK models missing: put $(NLTK_PACKAGES) in a folder and set NLTK_DATA to it," \
		     "or place the project beside shared/ (with shared/nltk_data)." >&2; exit 1; }; \
	fi

demo: setup
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py demo

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

# ruff, mypy on the typed seams (pyproject.toml), and a syntax check of every script the pages load.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	@command -v node >/dev/null || { echo "lint: node is needed to check the JavaScript (apt-get install nodejs)" >&2; exit 1; }
	@files=$$(git ls-files '*.js'); for file in $$files; do node --check "$$file" || exit 1; done; \
		echo "node --check: $$(echo $$files | wc -w) JavaScript files parse"

# The documentation site into site/ (docs/hooks.py generates the reference pages); --strict: a broken link fails.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@echo "docs: site/index.html"

bench: setup
	$(PY) bench/filter_bench.py
	$(PY) bench/filter_quality.py

clean:
	rm -rf $(VENV) .nltk_data site db.sqlite3 db.sqlite3-wal db.sqlite3-shm
