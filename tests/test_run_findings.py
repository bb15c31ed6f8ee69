"""A run-time finding made before any configuration was resolved reaches the run's report:
`npu-bridge run` on a script that creates a loss-scale manager inside
`tf.control_dependencies` (NPB176, npu_failure_cases.md row 7) reports the error whether the
manager comes before the first session or after it (issue 23: before, it was lost), and when
the script never resolves a configuration at all (Keras fit, a graph run without a session the
patch sees): then it is listed under the report's `unattached`. Each case is one subprocess
(TensorFlow starts in it)."""
import json
import textwrap

import pytest

import run_cli  # noqa: E402  (tests/run_cli.py)

SCRIPT = textwrap.dedent("""\
    import sys
    from npu_bridge.npu_init import *
    import tensorflow as tf
    from npu_bridge.estimator.npu.npu_loss_scale_manager import ExponentialUpdateLossScaleManager
    v1 = tf.compat.v1
    config = v1.ConfigProto()
    config.graph_options.rewrite_options.custom_optimizers.add().name = "NpuOptimizer"
    v = v1.get_variable("v", [2])
    upd = v1.assign_add(v, [1.0, 1.0])

    def manager():
        with tf.control_dependencies([upd]):
            ExponentialUpdateLossScaleManager(2 ** 10, 100)

    if sys.argv[1] in ("before", "never"):
        manager()
    if sys.argv[1] == "never":   # no NPU configuration is ever resolved
        print("script done", flush=True)
        sys.exit(0)
    with v1.Session(config=config) as sess:
        if sys.argv[1] == "after":
            manager()
        sess.run(v1.global_variables_initializer())
    print("script done", flush=True)
    """)


@pytest.mark.parametrize("when", ["before", "after"])
def test_loss_scale_manager_under_control_dependencies_is_reported(tmp_path, when):
    (tmp_path / "s.py").write_text(SCRIPT)
    proc = run_cli.run(["--report", "r.json", "s.py", when], str(tmp_path), timeout=300)
    assert "script done" in proc.stdout, proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    found = [d for c in data["configurations"] for d in c["diagnostics"] if d["code"] == "NPB176"]
    assert len(found) == 1, (when, proc.stderr)
    assert found[0]["severity"] == "error" and "AssignAdd" in found[0]["message"]
    assert data["summary"]["errors"] >= 1 and proc.returncode != 0
    assert "NPB176" in proc.stderr


def test_a_finding_waiting_at_the_end_of_the_run_is_reported(tmp_path):
    """No configuration ever comes for the manager's NPB176: it is reported at the run's end
    (the report's `unattached`, counted in the summary, printed, exit code 1)."""
    (tmp_path / "s.py").write_text(SCRIPT)
    proc = run_cli.run(["--report", "r.json", "s.py", "never"], str(tmp_path), timeout=300)
    assert "script done" in proc.stdout, proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["configurations"] == []
    found = [d for d in data["unattached"] if d["code"] == "NPB176"]
    assert len(found) == 1, proc.stderr
    assert found[0]["severity"] == "error" and "AssignAdd" in found[0]["message"]
    assert data["summary"]["errors"] == 1 and proc.returncode == 1
    assert "NPB176" in proc.stderr and "no NPU configuration" in proc.stderr
