# Every target creates .venv at the repository root when it is missing.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SHARED ?= $(abspath ../shared)
# Acceptance scripts whose issue is still open (run.sh reports them as SKIP); remove a name
# when its issue lands.
ACCEPTANCE_SKIP ?=

.PHONY: demo test fuzz bench bench-check bench-ranks test-ranks8 acceptance probe clean

$(STAMP): setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	# An editable install leaves the package uncompiled; TensorFlow ships compiled.
	$(PY) -m compileall -q npu_bridge hccl
	touch $(STAMP)

# The main job: an Ascend-style estimator script training on digits on the CPU.
demo: $(STAMP)
	$(PY) examples/digits_estimator.py

# Unit tests, then the shared acceptance scripts (skipped, with a note, when ../shared is absent).
test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider tests
	@if [ -x "$(SHARED)/acceptance/run.sh" ]; then \
	  ACCEPTANCE_SKIP="$(ACCEPTANCE_SKIP)" bash "$(SHARED)/acceptance/run.sh" "$(abspath $(PY))"; \
	else \
	  echo "NOTE: $(SHARED)/acceptance not found (a user's clone has no ../shared): acceptance scripts skipped"; \
	fi

fuzz: $(STAMP)
	NPU_BRIDGE_FUZZ=full $(PY) -m pytest -q -p no:cacheprovider tests -m fuzz

bench: $(STAMP)
	$(PY) bench/run_all.py

bench-check: $(STAMP)
	$(PY) bench/run_all.py --check

# Several ranks (docs/collectives.md): the 2-rank step-time ratio and the 4 MiB allreduce; the
# 8-rank job (about a minute on 2 cores, so not in `make test`).
bench-ranks: $(STAMP)
	$(PY) bench/bench_ranks.py

test-ranks8: $(STAMP)
	NPU_BRIDGE_RANKS8=1 $(PY) -m pytest -q -p no:cacheprovider tests/test_ranks.py -k eight

# The open probe of the real world (docs/real_scripts.md): each model folder of a work tree of
# Ascend/ModelZoo-TensorFlow run with --help under `npu-bridge run`, then `npu-bridge lint` over
# its npu_bridge files. Its own venv (setup.py's pins + tools/zoo_probe_requirements.txt), not .venv.
ZOO ?= ../zoo
PROBE_VENV ?= .probe-venv
PROBE_OUT ?= probe-out
PROBE_ARGS ?=
probe:
	@test -d "$(ZOO)" || { echo "ZOO=$(ZOO): not a folder (make probe ZOO=/path/to/ModelZoo-TensorFlow)"; exit 2; }
	test -x $(PROBE_VENV)/bin/python || $(PYTHON) -m venv $(PROBE_VENV)
	$(PROBE_VENV)/bin/python -m pip install -q $$($(PROBE_VENV)/bin/python tools/zoo_probe.py --print-requires) -r tools/zoo_probe_requirements.txt
	$(PROBE_VENV)/bin/python tools/zoo_probe.py "$(ZOO)" --preload --jobs 2 --timeout 60 --out $(PROBE_OUT) $(PROBE_ARGS)
	$(PROBE_VENV)/bin/python tools/zoo_probe.py "$(ZOO)" --lint --jobs 2 --out $(PROBE_OUT)

clean:
	rm -rf $(VENV) build *.egg-info
