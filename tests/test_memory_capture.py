"""The GE graphs of a run: capture of a session's fetch sets, their plans in the record, the
report's `memory` and the `npu-bridge run` summary line."""
import json
import os
import textwrap

import numpy as np
import pytest

import npu_bridge.npu_init  # noqa: F401  (the Session patch)
import tensorflow as tf
from npu_bridge.hooks import graph_capture as _graph_capture
from npu_bridge.ge import records as _records
from npu_bridge.ge import memory_plan as mp

import run_cli
from _capture_helper import capturing  # noqa: F401  (fixture)




def _graphs():
    return [e for r in _records.records() for e in r.get("graphs", ())]


def test_capture_static_graph_and_plan(capturing):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [8, 256], name="x")
        w = tf.compat.v1.get_variable("w", [256, 10])
        y = tf.nn.relu(tf.matmul(x, w), name="y")
        loss = tf.reduce_sum(y, name="loss")
        train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session() as sess:
            sess.run(init)
            for _ in range(3):   # later steps: no new graph
                sess.run([train, loss], {x: np.ones((8, 256), np.float32)})
    graphs = _graphs()
    assert len(graphs) == 2            # the initializer and the training step
    step = graphs[1]["captured"].graph
    assert step.inputs == ("x",) and step.outputs == (("loss", 0),)
    data = [n for n in step.nodes if n.op == "Data"]
    assert [(n.name, n.outputs) for n in data] == [("x", (((8, 256), "float32"),))]
    # topological: every input names an earlier node
    seen = set()
    for n in step.nodes:
        assert all(i[0] in seen for i in n.inputs), n
        seen.add(n.name)
    plan = graphs[1]["plan"]
    assert not plan.dynamic
    assert plan.variables == mp.block_bytes(256 * 10 * 4 + 32)
    # x (8x256 float32: 8192 + 32 -> 8704) is a graph input: a zero-copy block of its own
    # after the reusable region (GE's AssignZeroCopyMemory)
    assert mp.block_bytes(mp.tensor_bytes((8, 256), "float32")) == 8704
    (x,) = [t for t in plan.assignment.tensors if t.node == "x"]
    assert x.region == "zero_copy" and x.size == 8192 + 32
    assert plan.assignment.zero_copy >= 8704 and plan.checked == plan.feature_map - \
        plan.assignment.zero_copy
    assert plan.largest_live <= plan.feature_map <= plan.reuse_off
    assert plan.topo_mode == "BFS"     # the adapter sends ge.graphRunMode=1: a training graph


def test_capture_dynamic_graph_names_inputs(capturing):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="feat")
        y = tf.reduce_sum(x * 2.0)
        with tf.compat.v1.Session() as sess:
            sess.run(y, {x: np.ones((3, 4), np.float32)})
    (entry,) = _graphs()
    plan = entry["plan"]
    assert plan.dynamic and plan.feature_map is None and plan.dynamic_inputs == ["feat"]
    line = mp.summary_line(plan, mp.verdict(None, 0, mp.MemoryOptions()), mp.MemoryOptions())
    assert "dynamic shape (inputs feat)" in line and "dynamic_dims" in line


def test_capture_off_records_nothing():
    _records.clear()
    _graph_capture.reset()
    g = tf.Graph()
    with g.as_default():
        y = tf.constant(1.0) + 1.0
        with tf.compat.v1.Session() as sess:
            sess.run(y)
    assert _graphs() == []


def test_cond_graph_is_ordered(capturing):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [4, 4], name="x")
        p = tf.compat.v1.placeholder(tf.bool, [], name="p")
        v = tf.compat.v1.get_variable("v", [4, 4], use_resource=False)
        y = tf.cond(p, lambda: tf.matmul(x, v), lambda: x + 1.0)
        opt = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(opt, {x: np.ones((4, 4), np.float32), p: True})
    entry = _graphs()[-1]
    assert not entry["plan"].dynamic and entry["plan"].feature_map > 0
    assert entry["captured"].tf_types.get("Switch", 0) > 0


SCRIPT = textwrap.dedent("""
    import numpy as np
    from npu_bridge.npu_init import *
    import tensorflow as tf
    x = tf.placeholder(tf.float32, [%(n)d, 1024], name="x")
    w = tf.get_variable("w", [1024, 1024])
    y = x
    for i in range(4):
        y = tf.nn.relu(tf.matmul(y, w))
    loss = tf.reduce_sum(y)
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        print("loss", sess.run(loss, {x: np.zeros((%(n)d, 1024), np.float32)}))
""")


def test_run_reports_memory_and_summary_line(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT % {"n": 64})
    proc = run_cli.run(["--product", "atlas-training", "--report", "r.json", str(script)],
                       str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["version"] == 2
    mem = data["configurations"][0]["memory"]
    assert mem["graph_budget"] == 26 * 2 ** 30 and mem["policy"] == 0
    assert mem["variables"] == mp.block_bytes(1024 * 1024 * 4 + 32)
    step = mem["graphs"][-1]
    assert step["inputs"] == 1 and step["outputs"] == 1 and step["verdict"]["fits"] is True
    assert [g["role"] for g in mem["graphs"]] == ["variable initialization",
                                                  "evaluation/inference step"]
    # by default the step first (it is what the script does), then the largest static graph
    # (the initializer, 8 MiB feature map: policy 2's pool); each named by its role
    out = proc.stderr
    step = out.index("memory: graph Session#1/2 (evaluation/inference step): feature map")
    assert step < out.index("memory: graph Session#1/1 (variable initialization): feature map")
    assert "more graph" not in out
    assert "fits yes" in proc.stderr


def test_each_session_gets_its_graphs(capturing):
    # a later session (whose id may be the freed one's) is a new GE session: captured again
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [4, 4], name="x")
        y = tf.reduce_sum(x * 3.0)
        feed = {x: np.ones((4, 4), np.float32)}
        config = tf.compat.v1.ConfigProto()
        config.graph_options.rewrite_options.custom_optimizers.add().name = "NpuOptimizer"
        for _ in range(3):
            with tf.compat.v1.Session(config=config) as sess:
                sess.run([y], feed)
                sess.run([y], feed)
    counts = [len(r.get("graphs", ())) for r in _records.records()]
    assert counts == [1, 1, 1]
