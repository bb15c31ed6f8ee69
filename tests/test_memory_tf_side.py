"""Captured TensorFlow graphs as GE plans them (issue 22 item 5): GE's folding passes before
assignment, control edges in GE's order, output sizes as GE's engines set them, and the
acceptance graph of the issue (examples/tanh36_memory.py) planned without running it."""
import json
import os
import subprocess
import sys

import pytest

from npu_bridge.ge import memory_graph as mg
from npu_bridge.ge import memory_plan as mp

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIB = 2 ** 30
BIG = ((1024, 1024), "float32")     # 4 MiB + 32 bytes


def _node(name, op, outputs=(BIG,), inputs=(), control=()):
    return mp.Node(name, op, tuple(outputs), tuple(inputs), control=tuple(control))


def _gradient_graph(x_shape=(1024, 1024)):
    """y = x * w (broadcast) and the gradient helpers TensorFlow emits for it."""
    x = ((x_shape, "float32"),)
    return mp.Graph("g", (
        _node("x", "GetNext", x),
        _node("w", "Const", (((1024,), "float32"),)),
        _node("y", "Mul", x, [("x", 0), ("w", 0)]),
        _node("sx", "Shape", [((2,), "int32")], [("x", 0)]),
        _node("sw", "Shape", [((1,), "int32")], [("w", 0)]),
        _node("bga", "BroadcastGradientArgs", [((None,), "int32"), ((None,), "int32")],
              [("sx", 0), ("sw", 0)]),
        _node("sum", "Sum", [((1024,), "float32")], [("y", 0), ("bga", 1)]),
        _node("tile", "Tile", x, [("sw", 0), ("sx", 0)]),
    ), outputs=(("sum", 0), ("tile", 0)))


def test_shape_and_broadcast_gradient_args_of_static_shapes_fold():
    folded = mg.fold_constants(_gradient_graph())
    ops = {n.name: n.op for n in folded.nodes}
    # DimensionComputePass: Shape of a static shape; ConstantFoldingPass: BroadcastGradientArgs
    # of constants. Tile has no GE built-in kernel: it stays (AI CPU host kernels not modelled)
    assert ops["sx"] == ops["sw"] == ops["bga"] == "Const"
    assert ops["tile"] == "Tile" and ops["sum"] == "Sum" and ops["y"] == "Mul"
    by = {n.name: n for n in folded.nodes}
    assert by["sx"].inputs == () and by["bga"].inputs == ()
    # the folded Shape no longer reads x: x's life ends at y, not at the Shape
    ge = mg.to_ge_graph(folded, mp.MemoryOptions(train=True), mp.Assumptions())
    assert not [e for e in ge.edges if e[0] == "x" and e[2] == "sx"]
    # the folded constants are weights (GE's weight memory), not feature map
    plan = mp.plan_graph(_gradient_graph(), mp.MemoryOptions(train=True))
    # (BroadcastGradientArgs's outputs have no static shape in TensorFlow: unfolded, they
    # would make the graph dynamic; folded, GE knows their values: weights of unknown size)
    assert not plan.dynamic
    consts = [mp.block_bytes(mp.tensor_bytes(s, d)) for n in folded.nodes if n.op == "Const"
              for s, d in n.outputs if s and None not in s]
    assert plan.weights == sum(consts) and len(consts) == 3   # w, sx, sw
    assert not [t for t in plan.assignment.tensors if t.node in ("sx", "sw", "bga")
                and t.offset is not None]


def test_shape_of_unknown_shape_does_not_fold_and_its_producer_stays():
    g = _gradient_graph(x_shape=(None, 1024))
    ops = {n.name: n.op for n in mg.fold_constants(g).nodes}
    assert ops["sx"] == "Shape" and ops["bga"] == "BroadcastGradientArgs"
    assert ops["sw"] == "Const"   # w's shape is static


def test_a_producer_left_without_consumers_is_deleted_unless_an_input():
    g = mp.Graph("g", (
        _node("a", "Relu", (BIG,)),
        _node("s", "Shape", [((2,), "int32")], [("a", 0)]),
        _node("d", "Data", (BIG,)),
        _node("s2", "Shape", [((2,), "int32")], [("d", 0)]),
        _node("out", "Pack", [((2, 2), "int32")], [("s", 0), ("s2", 0)]),
    ), inputs=("d",), outputs=(("out", 0),))
    names = [n.name for n in mg.fold_constants(g).nodes]
    # folding_pass.cc Folding: a producer with no data consumer left is deleted (not Data)
    assert "a" not in names and "d" in names
    assert {n.name: n.op for n in mg.fold_constants(g).nodes}["out"] == "Const"   # Pack of consts


def test_nothing_to_fold_returns_the_graph_itself():
    g = mp.Graph("g", (_node("a", "Relu"), _node("b", "Relu", inputs=[("a", 0)])))
    assert mg.fold_constants(g) is g


def test_control_inputs_become_ge_control_edges():
    g = mp.Graph("g", (_node("a", "Relu"), _node("n", "NoOp", (), control=["a"]),
                       _node("b", "Identity", inputs=[("a", 0)], control=["n"])))
    ge = mg.to_ge_graph(g, mp.MemoryOptions(), mp.Assumptions())
    assert ge.control == [("a", "n"), ("n", "b")]


@pytest.mark.parametrize("shape, op, expected", [
    ((1024, 1024), "Mul", 4 * 2 ** 20 + 32),   # align32 + padding 32
    ((3,), "Mul", 32 + 32),                     # 12 bytes -> 32, + 32
    ((), "Mul", 64),                            # a scalar: 1 element
    ((0, 5), "Mul", 64),                        # empty: FE counts 1 element
    ((0, 5), "Data", 32),                       # empty Data: 32 bytes (auto padding)
])
def test_output_bytes_as_ge_engines_set_them(shape, op, expected):
    assert mg.output_bytes(shape, "float32", op) == expected


def _memory(argv, cwd, timeout=600):
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    for var in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY", "OP_NO_REUSE_MEM"):
        env.pop(var, None)
    return subprocess.run([sys.executable, "-m", "npu_bridge", "memory"] + argv, cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)


EXAMPLE = os.path.join(REPO, "examples", "tanh36_memory.py")


def _step_graph(data):
    (session,) = data["sessions"]
    step = [g for g in session["graphs"] if g["feature_map"]]
    assert len(step) == 1, session["graphs"]
    return session, step[0]


def test_36_layer_graph_fits_a2_training_not_atlas_training(tmp_path):
    """Issue 22's acceptance graph: 36 x tanh(h * scale + shift) over [8192, 32768] float32
    from tf.data, GradientDescentOptimizer. --steps 0: captured and planned, never computed
    (one batch is 1 GiB)."""
    proc = _memory(["--format", "json", "--steps", "0", "--product", "atlas-a2-training",
                    EXAMPLE], str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    assert "before training step 1" in data["steps_done"]
    assert "loss" not in proc.stdout.replace('"loss', "")   # the step never ran
    session, g = _step_graph(data)
    theory_min = g["imas"]["theory_min"]
    assert theory_min <= g["feature_map"] <= 1.05 * theory_min
    assert g["largest_live"] <= 40 * GIB
    # 36 tanh outputs are kept for the backward pass: at least 36 GiB live at once
    assert g["largest_live"] >= 36 * GIB
    assert g["topo_mode"] == "BFS" and session["verdict"]["fits"] is True
    assert g["verdict"]["fits"] is True
    proc = _memory(["--format", "json", "--steps", "0", "--product", "atlas-training",
                    EXAMPLE], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    session, g2 = _step_graph(json.loads(proc.stdout))
    assert g2["feature_map"] == g["feature_map"]
    message = ("Sum of total_mem_offset:%d and var_mem_size:%d is greater than memory manager "
               "malloc max size %d" % (g2["checked"], session["variables"],
                                       session["graph_budget"]))
    assert g2["verdict"] == {"fits": False, "message": message, "reason": ""}


def test_steps_n_runs_n_training_steps_then_stops(tmp_path):
    proc = _memory(["--steps", "1", EXAMPLE, "--layers", "2", "--batch", "8", "--width", "16",
                    "--steps", "3"], str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.count("loss ") == 1 and "ok" not in out.split("\n")   # one step ran, then stopped
    assert "script stopped before training step 2 of graph Session#1/2 (--steps 1)" in out
    assert "graph Session#1/2 (training step): " in out


def test_negative_steps_is_a_usage_error(tmp_path):
    proc = _memory(["--steps", "-1", EXAMPLE], str(tmp_path), timeout=120)
    assert proc.returncode == 2 and "--steps -1: give 0 or more training steps" in proc.stderr


def test_memory_json_stdout_is_json_even_when_the_script_prints(tmp_path):
    """`memory --format json SCRIPT | jq`: the script's own output (print, and a write to
    file descriptor 1) goes to stderr, stdout carries the JSON object alone."""
    script = tmp_path / "chatty.py"
    script.write_text(
        "import os\n"
        "import tensorflow as tf\n"
        "from npu_bridge.npu_init import *\n"
        "print('hello from the script')\n"
        "os.write(1, b'raw write\\n')\n"
        "x = tf.constant([[1.0, 2.0]])\n"
        "w = tf.Variable([[1.0], [2.0]])\n"
        "loss = tf.reduce_sum(tf.matmul(x, w))\n"
        "train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "config = tf.ConfigProto()\n"
        "custom_op = config.graph_options.rewrite_options.custom_optimizers.add()\n"
        "custom_op.name = 'NpuOptimizer'\n"
        "with tf.Session(config=config) as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(train)\n"   # one step, then the loss: sess.run([train, loss]) has no order
        "    print('loss', sess.run(loss))\n")
    proc = _memory(["--format", "json", str(script)], str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    assert data["sessions"], data
    for text in ("hello from the script", "raw write", "loss 4.5"):
        assert text in proc.stderr and text not in proc.stdout
    assert "no GE graph ran" not in proc.stdout   # the notes agree with the sessions


# A script whose initializer is observable: a py_func in it appends a line to a file; a dataset
# initializer (host-only graph), a read of the variable and the ready check of a
# MonitoredSession-style start come before the training step.
_INIT_SCRIPT = """\
import sys
import numpy as np
from npu_bridge.npu_init import *

def note_init(x):
    with open(sys.argv[1], "a") as fh:
        fh.write("init\\n")
    return x

ds = tf.data.Dataset.from_tensor_slices(np.ones([64, 4], np.float32)).batch(8, drop_remainder=True)
it = tf.compat.v1.data.make_initializable_iterator(ds)
x = it.get_next()
value = tf.compat.v1.py_func(note_init, [tf.fill([4, 4], 0.5)], tf.float32, stateful=True)
value.set_shape([4, 4])
w = tf.compat.v1.get_variable("w", initializer=value)
loss = tf.reduce_mean(tf.matmul(x, w))
train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
config = tf.compat.v1.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
with tf.compat.v1.Session(config=config) as sess:
    sess.run(it.initializer)
    sess.run(tf.compat.v1.global_variables_initializer())
    print("uninitialized", sess.run(tf.compat.v1.report_uninitialized_variables()).tolist())
    print("w", sess.run(w).tolist(), "named", sess.run({"w": "w:0"})["w"].shape)
    print("scalar", type(sess.run(tf.reduce_sum(w))).__name__)
    for step in range(2):
        print("loss", sess.run([train, loss])[1])
"""


@pytest.mark.parametrize("steps, init_runs", [("0", 0), ("1", 1)])
def test_steps_0_computes_nothing_of_the_npu_sessions(tmp_path, steps, init_runs):
    script = tmp_path / "init_seen.py"
    script.write_text(_INIT_SCRIPT)
    marker = tmp_path / "init.log"
    proc = _memory(["--all", "--steps", steps, "--product", "atlas-a2-training", str(script),
                    str(marker)], str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    # --steps 0: the initializer is captured and planned, not run; --steps 1 runs it (the step
    # needs initialized variables)
    runs = marker.read_text().count("init") if marker.exists() else 0
    assert runs == init_runs, out
    assert "graph Session#1/2 (variable initialization)" in out
    assert "graph Session#1/6 (training step)" in out
    assert "script stopped before training step %d of graph Session#1/6 (--steps %s)" % (
        int(steps) + 1, steps) in out
    assert "scalar float32" in out   # a scalar as Session.run returns it (a numpy scalar)
    if steps == "0":   # each run until the step returned zeros of its fetches' static shapes
        assert "uninitialized []" in out and "w [[0.0, 0.0, 0.0, 0.0]," in out
        assert "named (4, 4)" in out and "loss" not in out
    else:
        assert "w [[0.5, 0.5, 0.5, 0.5]," in out and out.count("loss ") == 1
