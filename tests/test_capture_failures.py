"""A graph whose capture or GE memory plan failed (`state.CAPTURE.unplanned`), or whose
partition failed (`state.CAPTURE.unpartitioned`), is said by `npu-bridge run` and `npu-bridge
memory`, in the text and the JSON, never dropped silently (docs/cli.md, report_schema.md).
The failures are injected by the script itself (it runs in the command's process)."""
import json
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import numpy as np
    from npu_bridge.npu_init import *
    import npu_bridge.hooks.graph_capture as capture
    import npu_bridge.hooks.partition_capture as partition

    def fail_partition(*args, **kwargs):
        raise RuntimeError("injected partition failure")

    real_note_new = capture._note_new

    def fail_capture(rec, key, session, fetches, feed_dict):
        if getattr(fetches, "name", "").startswith("loss"):
            raise ValueError("injected capture failure")
        return real_note_new(rec, key, session, fetches, feed_dict)

    partition.partition_run = fail_partition
    capture._note_new = fail_capture
    x = tf.placeholder(tf.float32, [8, 16], name="x")
    w = tf.get_variable("w", [16, 16])
    loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)), name="loss")
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(loss, {x: np.zeros((8, 16), np.float32)})
    print("ok")
""")

NOT_PLANNED = "Session#1: ValueError: injected capture failure"
NOT_PARTITIONED = "Session#1/1: RuntimeError: injected partition failure"


def _cli(argv, cwd):
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    for var in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY", "OP_NO_REUSE_MEM"):
        env.pop(var, None)
    return subprocess.run([sys.executable, "-m", "npu_bridge"] + argv, cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _said(lines):
    """The lines naming the two failures: (not planned, not partitioned)."""
    return ([l for l in lines if NOT_PLANNED in l], [l for l in lines if NOT_PARTITIONED in l])


def test_run_says_which_graphs_were_not_planned_or_partitioned(tmp_path):
    (tmp_path / "s.py").write_text(SCRIPT)
    done = _cli(["run", "--report", "r.json", "s.py"], str(tmp_path))
    assert done.returncode == 0, done.stderr
    planned, partitioned = _said(done.stderr.splitlines())
    assert planned == ["memory NOT planned: %s (its capture or GE memory plan failed: in no "
                       "memory line; docs/memory.md)" % NOT_PLANNED], done.stderr
    assert partitioned == ["partition NOT made: %s (its GE memory is planned for the whole "
                           "graph; docs/partition.md)" % NOT_PARTITIONED], done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["not_captured"] == []
    assert report["not_planned"] == [NOT_PLANNED]
    assert report["not_partitioned"] == [NOT_PARTITIONED]


def test_memory_says_which_graphs_were_not_planned_or_partitioned(tmp_path):
    (tmp_path / "s.py").write_text(SCRIPT)
    done = _cli(["memory", "s.py"], str(tmp_path))
    assert done.returncode == 0, done.stderr
    planned, partitioned = _said(done.stdout.splitlines())
    assert len(planned) == 1 and len(partitioned) == 1, done.stdout
    done = _cli(["memory", "--format", "json", "s.py"], str(tmp_path))
    data = json.loads(done.stdout)
    assert (data["not_planned"], data["not_partitioned"]) == ([NOT_PLANNED], [NOT_PARTITIONED])
    assert data["not_captured"] == []
    assert _said(data["notes"]) == (planned, partitioned)


# the partial_run script memory's test runs (two partial_run runs, not captured)
from test_callable_capture import PARTIAL_RUN  # noqa: E402


def test_run_says_which_runs_were_not_captured(tmp_path):
    """`npu-bridge memory` named the runs it could not capture (partial_run), `run` dropped
    them: now both say so, and the report keeps them."""
    (tmp_path / "p.py").write_text(PARTIAL_RUN)
    done = _cli(["run", "--report", "r.json", "p.py"], str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "not captured: Session#1: partial_run: 2 run(s) ran, in no plan (docs/memory.md)" \
        in done.stderr.splitlines(), done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["not_captured"] == ["Session#1: partial_run: 2 run(s)"]
    assert (report["not_planned"], report["not_partitioned"]) == ([], [])
