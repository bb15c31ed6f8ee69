"""`npu-bridge run ARGV` in a subprocess, as a user's shell would start it: the repository on
PYTHONPATH, none of the single-device job variables or product/static-memory settings of the
calling environment, TensorFlow's C++ info logs off. Shared by the `run` tests."""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv, cwd, timeout=600):
    """The `subprocess.CompletedProcess` (text output) of `python -m npu_bridge run ARGV`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    for var in ("RANK_SIZE", "RANK_ID", "DEVICE_ID", "NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY",
                "NPU_BRIDGE_PRECISION"):
        env.pop(var, None)
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    return subprocess.run([sys.executable, "-m", "npu_bridge", "run"] + argv, cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
