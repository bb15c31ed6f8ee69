"""Where the tests find ../shared (the reference facts and the acceptance scripts): the
NPU_BRIDGE_REFERENCE variable, else ../shared beside this checkout (CI's layout), else
/work/shared. Tests that read it skip when it is absent (a user's clone)."""
import os

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BESIDE = os.path.join(_REPO, "..", "shared")
SHARED = _BESIDE if os.path.isdir(_BESIDE) else "/work/shared"
REFERENCE = os.environ.get("NPU_BRIDGE_REFERENCE", os.path.join(SHARED, "reference"))
