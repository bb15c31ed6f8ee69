"""Shared by tests/test_memory_capture.py and tests/test_memory_failures.py."""
import pytest

from npu_bridge.hooks import graph_capture as _graph_capture
from npu_bridge.ge import records as _records


@pytest.fixture
def capturing():
    """Graph capture on (as under `npu-bridge run`), with no records before or after."""
    _records.clear()
    _graph_capture.reset()
    _graph_capture.enable()
    yield
    _graph_capture.enable(False)
    _records.clear()
