"""Shared test setup: the hypothesis profiles of the fuzz tests (marker `fuzz`, pytest.ini).

`fast` (default, `make test`): a few dozen examples per property, derandomized so that CI
runs are reproducible (new inputs are explored by `make fuzz`).
`full` (`NPU_BRIDGE_FUZZ=full`, `make fuzz`): 10,000 examples per property; the 12 fuzz-marked
properties (test_fuzz_ge, test_fuzz_config, test_lint_safety) run 120,000 examples.

Also: the subprocess runs of modules with EARLY_RUNS (test_import_check) start when collection
ends, one at a time in the background beside the in-process tests (tests/_pool.py).
"""
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.filter_too_much])
settings.register_profile("fast", max_examples=60, derandomize=True, **_COMMON)
settings.register_profile("full", max_examples=10_000, derandomize=False, **_COMMON)
settings.load_profile("full" if os.environ.get("NPU_BRIDGE_FUZZ") == "full" else "fast")



def pytest_collection_finish(session):
    """The subprocess runs of modules with EARLY_RUNS start now, in the background (tests/_pool.py)."""
    import _pool
    _pool.start_early(session)


def pytest_sessionfinish(session):
    import _pool
    _pool.stop_early()


@pytest.fixture(autouse=True)
def _fresh_ge_initialization():
    """Each test starts as a fresh process would as far as GE is concerned: GE is initialized
    once per process while NPU sessions are open (`_session_patch` "GE initialization"), and
    sessions a previous test left open must not decide this test's global options."""
    patch = sys.modules.get("npu_bridge.hooks.session_patch")
    if patch is not None:
        patch.reset_ge_initialization()
    yield
