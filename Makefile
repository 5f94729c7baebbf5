# One-command entry points; each bootstraps .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

# The JAX build: cpu, cuda12 or cuda13. Detected from nvidia-smi unless given (make run JAX_EXTRA=cpu);
# the stamp names it, so another JAX_EXTRA re-runs the install.
ifeq ($(strip $(JAX_EXTRA)),)
JAX_EXTRA := $(shell $(PY) scripts/jax_extra.py --name 2>/dev/null)
endif
STAMP := $(VENV)/.installed-$(JAX_EXTRA)
# plotly's cartesian bundle for the browser (package.json): a third of the full bundle the Python package carries, so
# a first visit evaluates a third of the code. Optional: without npm, or offline, the charts use the full bundle.
BUNDLE := node_modules/plotly.js-cartesian-dist-min/package.json

.PHONY: run test check bench bench-quick bench-gpu lint venv clean

# The first line checks JAX_EXTRA (exit 2 on a bad value) and says which build and why; the CUDA plugins of
# another build are removed, since JAX would try to load them too.
$(STAMP): requirements.txt requirements-dev.txt
	@$(PY) scripts/jax_extra.py --name >/dev/null
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	stale="$$($(BIN)/python scripts/jax_extra.py --stale $(JAX_EXTRA))"; \
	  test -z "$$stale" || $(BIN)/python -m pip uninstall --quiet --yes $$stale
	$(if $(filter-out cpu,$(JAX_EXTRA)),$(BIN)/python -m pip install --quiet \
	  "jax[$(JAX_EXTRA)]==$$($(BIN)/python scripts/jax_extra.py --jax-version)")
	rm -f $(VENV)/.installed*
	touch $(STAMP)

$(BUNDLE): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1 && timeout 300 npm ci --no-audit --no-fund --loglevel=error; then touch $(BUNDLE); \
	  else echo "plotly's cartesian bundle not installed (npm missing or failed): the charts use the full bundle"; fi

venv: $(STAMP) $(BUNDLE)

run: $(STAMP) $(BUNDLE)
	$(BIN)/python -m safebandit_ui.serve --server.port $(PORT)

test: $(STAMP) $(BUNDLE)
	$(BIN)/python -m pytest -n 2

# The inner loop (under a minute on 2 cores): lint, then the unit tests of the figures, fields, links, uploads,
# exports, the store and the import boundaries; no browser, no statistical check, no long compile.
CHECK_TESTS := tests/viz tests/core/test_fields.py tests/core/test_jsondoc.py tests/core/test_names.py \
  tests/core/test_captions.py tests/core/test_export.py tests/core/test_uploads.py tests/core/test_boundaries.py \
  tests/core/test_verdicts.py tests/logged/test_inputs.py tests/ui/test_store.py tests/ui/test_links.py \
  tests/ui/test_shutdown.py tests/ui/test_naming.py tests/ui/test_plot_element.py

check: $(STAMP)
	$(BIN)/python -m ruff check .
	$(BIN)/python -m pytest -n 2 -q -m "not slow and not browser" $(CHECK_TESTS)

bench: $(STAMP) $(BUNDLE)
	$(BIN)/python -m benchmarks

bench-quick: $(STAMP) $(BUNDLE)
	$(BIN)/python -m benchmarks --quick

bench-gpu: $(STAMP) $(BUNDLE)
	$(BIN)/python -m benchmarks --gpu

lint: $(STAMP)
	$(BIN)/python -m ruff check .

clean:
	rm -rf $(VENV) node_modules .pytest_cache .ruff_cache
