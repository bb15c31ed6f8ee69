"""`npu-bridge memory`: the plan table, each option's effect, and the picture."""
import dataclasses
import os
import subprocess
import sys
import textwrap

import pytest

from npu_bridge.tools import memory_cli
from npu_bridge.ge import memory_plan as mp

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F = "float32"


def _chain_plan(n=6):
    return mp.plan_graph(_chain_graph(n))


def test_plot_png_of_stated_size(tmp_path):
    plt_image = pytest.importorskip("matplotlib.image")
    path = str(tmp_path / "plan.png")
    opts = mp.MemoryOptions(graph_budget=8 * 2 ** 20, product="atlas-training")
    memory_cli.plot(_chain_plan(), opts, path, variables=2 ** 20)
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    size = (memory_cli.PLOT_SIZE[0] * memory_cli.PLOT_DPI, memory_cli.PLOT_SIZE[1] * memory_cli.PLOT_DPI)
    assert (width, height) == size == (800, 700)
    pixels = plt_image.imread(path)
    assert pixels.shape[:2] == (700, 800)
    assert pixels[..., :3].std() > 0.05          # not a blank canvas
    # lines drawn: some pixels far from white and from the axes' black
    colored = ((abs(pixels[..., 0] - pixels[..., 2]) > 0.3)).sum()
    assert colored > 500


def test_plot_svg_and_bad_suffix(tmp_path):
    path = str(tmp_path / "plan.svg")
    memory_cli.plot(_chain_plan(), mp.MemoryOptions(), path)
    text = open(path).read()
    assert text.lstrip().startswith("<?xml") and "no reuse" in text
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        memory_cli.plot(_chain_plan(), mp.MemoryOptions(), str(tmp_path / "plan.jpg"))


SCRIPT = textwrap.dedent("""
    import numpy as np
    from npu_bridge.npu_init import *
    x = tf.placeholder(tf.float32, [64, 512], name="x")
    w = tf.get_variable("w", [512, 512])
    y = x
    for i in range(3):
        y = tf.nn.relu(tf.matmul(y, w))
    loss = tf.reduce_sum(y)
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["graph_memory_max_size"].s = b"%(budget)d"
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(loss, {x: np.zeros((64, 512), np.float32)})
        sess.run(loss, {x: np.zeros((64, 512), np.float32)})
    print("ok")
""")


def _memory(argv, cwd):
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    for var in ("NPU_BRIDGE_PRODUCT", "GE_USE_STATIC_MEMORY", "OP_NO_REUSE_MEM"):
        env.pop(var, None)
    return subprocess.run([sys.executable, "-m", "npu_bridge", "memory"] + argv, cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


def test_memory_command_table_and_plot(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT % {"budget": 2 ** 30})
    proc = _memory(["--product", "atlas-training", "--plot", "p.png", str(script)],
                   str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    # x and the 3 relu outputs: 64 x 512 float32 = 131072 + 32 bytes
    assert "graph Session#1/2 (evaluation/inference step): " in out and "1 inputs, 1 outputs" in out
    # the largest tensors with their shapes and dtypes (131104 bytes each)
    assert "largest tensors (of " in out
    assert "128.0 KiB  [64, 512] float32            MatMul" in out, out
    assert "peak at node" in out
    assert "reuse off (ge.exec.disableReuseMemory=1): feature map " in out
    # each option's effect, GE's assigner run again: the other orders, MemoryPriority, the
    # other atomic-clean policy (no atomic memory known in a captured graph: said so)
    for label in ("ge.topoSortingMode=1 (DFS): feature map ", "ge.topoSortingMode=2 (RDFS)",
                  "ge.topoSortingMode=3 (StableRDFS)",
                  "ge.exec.memoryOptimizationPolicy=MemoryPriority: feature map ",
                  "ge.exec.atomicCleanPolicy=1: no change"):
        assert label in out, label
    assert "strategy: binary-block wins (max-block " in out
    assert "theory_min ([IMAS])" in out and "the plan: " in out
    assert "policy 0 (each graph its own)" in out and "policy 2 (one pool" in out
    assert "plot: p.png (graph Session#1/" in out
    assert os.path.getsize(tmp_path / "p.png") > 5000


def test_plan_lines_report_ge_message_when_over_budget():
    from types import SimpleNamespace
    from npu_bridge.ge import resolve
    plan = _chain_plan()
    opts = resolve({"graph_memory_max_size": "100000"}, product="atlas-training")
    rec = {"name": "Session#1", "options": opts,
           "graphs": [{"captured": SimpleNamespace(graph=_chain_graph()), "plan": plan}]}
    lines = "\n".join(memory_cli.plan_lines(rec, mp.Assumptions()))
    # x + 6 relus of 256 x 1024 float32 (1 MiB + 32 -> 1 MiB + 512), GE's rules: r0..r4
    # alternate between 2 reusable blocks (a block is freed after its last consumer, and
    # level 1 takes only an equal-size freed block); x (graph input) and r5 (graph output)
    # are zero-copy blocks after the reusable region: 4 blocks; reuse off: 7. GE's check
    # (ReAssignMemory) runs before the zero-copy region is added: 2 blocks.
    blk = 2 ** 20 + 512
    assert plan.feature_map == 4 * blk and plan.reuse_off == 7 * blk
    assert plan.checked == 2 * blk and plan.assignment.zero_copy == 2 * blk
    # GE's exact text (bytes) is the JSON's; people read binary units
    assert ("fits: NO - checked feature map 2.0 MiB + variables 0 B > budget 97.7 KiB (GE: "
            "ACL_ERROR_GE_MEMORY_ALLOCATION; exact text: --format json)") in lines
    assert "reuse off (ge.exec.disableReuseMemory=1): feature map 7.0 MiB (+3.0 MiB), fits NO" \
        in lines
    assert "feature-map budget 97.7 KiB (graph_memory_max_size)" in lines
    # a small graph: the difference in its own unit (KiB), not a MiB figure rounded to 0.0
    # (1024 float32 = 4 KiB + 32 -> blocks of 4.5 KiB: 4 with reuse, 7 without)
    small = _chain_graph(shape=(1024,))
    rec["graphs"] = [{"captured": SimpleNamespace(graph=small), "plan": mp.plan_graph(small)}]
    lines = "\n".join(memory_cli.plan_lines(rec, mp.Assumptions()))
    assert "feature map 31.5 KiB (+13.5 KiB)" in lines, lines


def _chain_graph(n=6, shape=(256, 1024)):
    nodes = [mp.Node("x", "Data", ((shape, F),))]
    prev = "x"
    for i in range(n):
        nodes.append(mp.Node("r%d" % i, "Relu", ((shape, F),), ((prev, 0),)))
        prev = "r%d" % i
    return mp.Graph("chain", tuple(nodes), ("x",), ((prev, 0),))


ESTIMATOR = textwrap.dedent("""
    import tempfile
    import numpy as np
    import tensorflow as tf
    from npu_bridge.estimator.npu.npu_config import NPURunConfig
    from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec

    X = np.random.RandomState(0).randn(256, 8).astype(np.float32)
    Y = (X[:, 0] > 0).astype(np.int32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(32, drop_remainder=True)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(tf.layers.dense(features, 64, activation=tf.nn.relu), 2)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.AdamOptimizer(0.01).minimize(
            loss, global_step=tf.train.get_global_step())
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    est = NPUEstimator(model_fn=model_fn, config=NPURunConfig(model_dir=tempfile.mkdtemp(),
                                                              iterations_per_loop=1))
    est.train(input_fn, max_steps=3)
""")


def test_memory_leads_with_the_training_step_and_folds_bookkeeping(tmp_path):
    script = tmp_path / "est.py"
    script.write_text(ESTIMATOR)
    import _pool
    (tmp_path / "all").mkdir()
    (tmp_path / "lead").mkdir()
    every, proc = _pool.together(   # two TensorFlow start-ups at once, each in its own folder
        lambda: _memory(["--all", str(script)], str(tmp_path / "all")),
        lambda: _memory([str(script)], str(tmp_path / "lead")))
    assert every.returncode == 0, every.stderr[-3000:]
    roles = [l.split("(", 1)[1].split(")", 1)[0] for l in every.stdout.splitlines()
             if l.startswith("  graph ")]
    # capture order: the initializer runs first; a checkpoint is saved; the step runs
    assert roles[0] == "variable initialization", every.stdout
    assert "checkpoint save/restore" in roles and "training step" in roles
    assert "more graph" not in every.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    graphs = [l for l in lines if l.startswith("  graph ")]
    assert "(training step): " in graphs[0]
    assert all("(training step)" in l for l in graphs)
    folded = [l for l in lines if "more graph" in l]
    folded_roles = [r for r in roles if r != "training step"]
    assert len(folded) == 1 and folded[0].startswith("  %d more graphs: " % len(folded_roles))
    n_init = folded_roles.count("variable initialization")
    assert ("variable initialization (%d), checkpoint save/restore" % n_init) in folded[0]
    assert folded[0].endswith(": --all lists them"), proc.stdout
def test_table_rows_figures_and_order():
    """The table's rows (memory_table.GRAPH_ROWS): theory_min beside the plan, the strategy,
    the largest tensors with shapes and dtypes (an alias output is not a tensor of its own),
    each option's effect as GE's assigner gives it; rows can be reordered."""
    from npu_bridge.tools import memory_table
    graph = _chain_graph()
    plan = mp.plan_graph(graph)
    opts = mp.MemoryOptions(train=True)
    table = memory_table.Table(plan, mp.verdict(plan.checked, 0, opts), opts, 0, graph,
                               mp.Assumptions(), top=3)
    lines = memory_table.graph_lines(table)
    text = "\n".join(lines)
    a = plan.assignment
    assert "total_hbm = reusable %s + atomic 0 B + zero-copy %s" % (
        mp.mib(a.reusable), mp.mib(a.zero_copy)) in text
    assert "theory_min ([IMAS])" in text and mp.mib(plan.theory_min) in text
    assert "strategy: %s wins" % plan.strategy in text
    big = [line for line in lines if "[256, 1024] float32" in line]
    assert len(big) == 3 and "1.0 MiB" in big[0]
    off = mp.plan_graph(graph, dataclasses.replace(opts, reuse=False))
    assert ("reuse off (ge.exec.disableReuseMemory=1): feature map %s (+%s)" % (
        mp.mib(off.feature_map), mp.mib(off.feature_map - plan.feature_map))) in text
    # reordered: the rows' lines come in the order given
    first = memory_table.graph_lines(table, (memory_table.fits_row, memory_table.live_row))
    assert first[0].startswith("    fits: ") and "largest live set" in first[1]


@pytest.mark.parametrize("assumptions,mode,label,size", [
    (mp.Assumptions(float32_as_fp16=True), "", "float32 as float16", "512.0 KiB"),   # --fp16
    (mp.Assumptions(), "force_fp16", "float32 as float16", "512.0 KiB"),
    (mp.Assumptions(), "allow_mix_precision", "float32", "1.0 MiB")])
def test_largest_tensors_name_the_dtype_they_are_planned_as(assumptions, mode, label, size):
    """A tryout: `memory --fp16` listed `[32, 64] float32` at 4.0 KiB, half a float32's
    8 KiB, with nothing saying it was planned as float16."""
    from npu_bridge.tools import memory_table
    graph = _chain_graph()
    opts = mp.MemoryOptions(train=True, precision_mode=mode)
    plan = mp.plan_graph(graph, opts, assumptions)
    table = memory_table.Table(plan, mp.verdict(plan.checked, 0, opts), opts, 0, graph,
                               assumptions, top=3)
    big = [line for line in memory_table.graph_lines(table) if "[256, 1024] " in line]
    assert len(big) == 3, big
    assert all("[256, 1024] %s " % label in line and size in line for line in big), big


# A dataset initializer (a host-only graph: nothing GE compiles), the variables' initializer
# and a training step; static_memory_policy 1 (warning NPB103); a graph_memory_max_size given
# as the first argument (too small: error NPB177).
_DIAG_SCRIPT = """\
import sys
import numpy as np
from npu_bridge.npu_init import *

ds = tf.data.Dataset.from_tensor_slices(np.ones([64, 4], np.float32)).batch(8, drop_remainder=True)
it = tf.compat.v1.data.make_initializable_iterator(ds)
w = tf.compat.v1.get_variable("w", initializer=tf.fill([4, 4], 0.5))
loss = tf.reduce_mean(tf.matmul(it.get_next(), w))
train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
config = tf.compat.v1.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["static_memory_policy"].i = 1
if sys.argv[1] != "none":
    custom_op.parameter_map["graph_memory_max_size"].s = tf.compat.as_bytes(sys.argv[1])
with tf.compat.v1.Session(config=config) as sess:
    sess.run(it.initializer)
    sess.run(tf.compat.v1.global_variables_initializer())
    print("loss", sess.run([train, loss])[1])
"""


def _diagnostic_lines(text):
    """The summary's diagnostic lines (`  warning NPB103 [...]: ...` and their `fix:` lines)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith(("  error NPB", "  warning NPB", "  info NPB")):
            out.append(line)
            if i + 1 < len(lines) and lines[i + 1].lstrip().startswith("fix: "):
                out.append(lines[i + 1])
    return out


@pytest.mark.parametrize("budget, code", [("none", 0), ("1024", 1)])
def test_memory_prints_the_diagnostics_run_prints_and_exits_alike(tmp_path, budget, code):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run_cli import run
    script = tmp_path / "diag.py"
    script.write_text(_DIAG_SCRIPT)
    import _pool
    ran, mem = _pool.together(   # two TensorFlow start-ups at once; neither writes a file
        lambda: run(["--no-report", "--product", "atlas-training", str(script), budget],
                    str(tmp_path), timeout=300),
        lambda: _memory(["--product", "atlas-training", str(script), budget], str(tmp_path)))
    assert ran.returncode == mem.returncode == code, (ran.stderr[-2000:], mem.stderr[-2000:])
    expected = _diagnostic_lines(ran.stderr)
    assert any("warning NPB103 [static_memory_policy]" in l for l in expected), ran.stderr
    assert any(l.strip().startswith("fix: ") for l in expected)
    if code:
        assert any("error NPB177" in l for l in expected), ran.stderr
    # the same lines, under the same count line and configuration header as run's
    assert _diagnostic_lines(mem.stdout) == expected, mem.stdout
    counts = [l for l in ran.stderr.splitlines() if l.startswith("npu-bridge run: ")][0]
    assert counts.replace("npu-bridge run: ", "npu-bridge memory: ") in mem.stdout.splitlines()
    assert "[1] session Session#1 (product: atlas-training)" in mem.stdout.splitlines()
    # graph 1 (the dataset initializer) is host-only: said, not skipped in silence
    assert ("  host-only: graph Session#1/1 (nothing GE compiles: 7 host op(s), dataset_init 7):"
            " no GE memory") in mem.stdout.splitlines(), mem.stdout
    assert "graph Session#1/3 (training step)" in mem.stdout


_OOM_SCRIPT = textwrap.dedent("""
    import numpy as np
    from npu_bridge.npu_init import *
    x = tf.placeholder(tf.float32, [65536, 65536], name="x")   # 16 GiB: planned, never run
    y = x
    for i in range(4):
        y = tf.tanh(y * 1.5 + 0.5)
    loss = tf.reduce_sum(y)
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    with tf.Session(config=config) as sess:
        sess.run(loss, {x: np.zeros((1, 1), np.float32)})
""")


def test_memory_text_reads_sizes_in_binary_units_and_json_keeps_bytes(tmp_path):
    """try-out 10: the header said "(26/32 of atlas-training's 34359738368 bytes)" and NPB177
    "over 26/32 of atlas-training's 3435..." (cut): docs/cli.md promises KiB/MiB/GiB."""
    import json
    import re
    script = tmp_path / "oom.py"
    script.write_text(_OOM_SCRIPT)
    import _pool
    proc, as_json = _pool.together(   # two TensorFlow start-ups at once (--steps 0 writes nothing)
        lambda: _memory(["--steps", "0", "--product", "atlas-training", str(script)], str(tmp_path)),
        lambda: _memory(["--steps", "0", "--product", "atlas-training", "--format", "json",
                         str(script)], str(tmp_path)))
    out = proc.stdout
    assert "error NPB177" in out, (out, proc.stderr[-2000:])
    assert "feature-map budget 26.0 GiB (26/32 of atlas-training's 32.0 GiB)" in out, out
    assert "does not fit atlas-training: checked feature map 32.0 GiB + variables 0 B > budget " \
        "26.0 GiB" in out, out
    assert not re.search(r"\d{5,} bytes", out), out
    data = json.loads(as_json.stdout)
    text = json.dumps(data)
    assert "34359738368" in text or "27917287424" in text   # exact bytes stay in JSON
    # the findings once, in full (their text-output short lines are not repeated as notes)
    (oom,) = [d for d in data["diagnostics"] if d["code"] == "NPB177"]
    assert "ACL_ERROR_GE_MEMORY_ALLOCATION" in oom["message"], oom
    assert not [n for n in data["notes"] if "NPB177" in n or n.endswith("...")], data["notes"]
