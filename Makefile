# Everything a newcomer needs: `make serve` and `make test` work on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup serve train test check fuzz lint bench browser nginx redis systemd clean widgets page notebook font

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,notebook]'
	touch $(STAMP)

setup: $(STAMP)

serve: $(STAMP)
	$(BIN)/attnlab serve

train: $(STAMP)
	$(BIN)/attnlab train

# Debian's Chromium drives the end-to-end tests (no browser can be downloaded here).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; fi; }

# Debian's nginx runs the "past one machine" recipe in tests/e2e/test_nginx.py (never as a service).
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; fi; }

# Debian's redis-server: the shared class store's tests start their own (never the service).
redis:
	@command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; fi; }

# Debian's systemd-analyze checks README's unit file in tests/cli/test_service_unit.py (offline:
# `verify` needs no running systemd, and nothing is started or enabled).
systemd:
	@command -v systemd-analyze >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null; fi; }

# axe-core for the accessibility test, pinned by tests/e2e/package-lock.json (a test asset only).
E2E_ASSETS := tests/e2e/node_modules/.package-lock.json
$(E2E_ASSETS): tests/e2e/package-lock.json
	cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error

# esbuild for the notebook widgets' bundles, pinned by widgets/package-lock.json (build-only):
# tests/widgets/test_bundles.py rebuilds them and fails when the committed ones are stale.
WIDGET_TOOLS := widgets/node_modules/.package-lock.json
$(WIDGET_TOOLS): widgets/package-lock.json
	cd widgets && npm ci --no-audit --no-fund --loglevel=error

# Rebuild the bundles in src/attnlab/widgets/bundles after a view, lib module or sheet changed.
widgets: $(WIDGET_TOOLS)
	cd widgets && node build.mjs

# Rebuild the page's Chinese font (static/fonts/cjk-*.woff and css/cjk.css) after a text gained a
# character: tests/test_webfont.py fails until then. Needs Debian's fonts-noto-cjk (the source).
font: $(STAMP) browser
	$(BIN)/python -m attnlab.webfont

# Rebuild the page's bundle in src/attnlab/static/bundle (what `attnlab serve` sends) after a page
# module, a sheet or index.html's page block changed: tests/web/test_page_bundle.py fails when stale.
page: $(WIDGET_TOOLS)
	cd widgets && node page.mjs

# Store the tutorial's outputs (its PNGs and text, for readers without a kernel) after a figure,
# its drawing or the notebook changed: tests/widgets/test_notebook.py fails when they are stale.
notebook: $(STAMP)
	$(BIN)/python docs/notebooks/outputs.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

# Every test, on every core (pytest-xdist: a file's tests stay in one process, so a module's
# server or browser starts once). A test that fails is run once more, and one that passes then
# is named at the end as flaky (tests/flaky.py): a defect to mend, never a silent pass.
# --tb=native: Python 3.11's ast.parse can fail beside Playwright's greenlets ("AST constructor
# recursion depth mismatch", pytest-dev/pytest#10763), and pytest's own traceback parses source
PYTEST_ALL := -n auto --dist loadfile --reruns 1 --durations=15 --tb=native

test: $(STAMP) browser nginx redis systemd lint $(E2E_ASSETS) $(WIDGET_TOOLS)
	$(BIN)/pytest $(PYTEST_ALL)

# The edit-test loop: everything that needs no browser and no server process.
check: $(STAMP) lint $(WIDGET_TOOLS)
	$(BIN)/pytest -n auto --dist loadfile -m "not e2e and not server" --durations=10

# The OpenAPI description against many more generated requests than `make test` sends.
fuzz: $(STAMP)
	ATTNLAB_SCHEMATHESIS_EXAMPLES=200 $(BIN)/pytest tests/web/test_openapi_conformance.py

# Speed is measured here, not in tests: each script prints ratios against a reference measured
# in the same run (PyTorch eager for training, the 50 ms / 20 ms budgets for figures and the API,
# nbclient's display with its PNG for a widget's display in JupyterLab).
bench: $(STAMP)
	$(BIN)/pip install -q torch==2.13.0 py-spy==0.4.3
	$(BIN)/python benchmarks/train_speed.py
	$(BIN)/python benchmarks/figure_speed.py
	$(BIN)/python benchmarks/web_latency.py
	$(BIN)/python benchmarks/train_batching.py
	$(BIN)/python benchmarks/classroom.py
	$(BIN)/python benchmarks/widget_display.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .ruff_cache tests/e2e/node_modules widgets/node_modules
