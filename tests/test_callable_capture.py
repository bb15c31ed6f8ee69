"""Runs that bypass `Session.run` (Keras's graph-mode functions, `make_callable` without a feed
list) are captured and counted like `Session.run`'s under `npu-bridge run` / `memory` and
`--precision emulate`; the emulation's per-graph counts carry the capture's graph names
(docs/keras.md, docs/memory.md, docs/precision.md)."""
import os
import re
import subprocess
import sys
import textwrap

from run_cli import REPO, run

KERAS_FIT = textwrap.dedent("""
    import sys
    import numpy as np
    import tensorflow as tf
    from npu_bridge.npu_init import *

    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].s = b"allow_fp32_to_fp16"
    sess = set_keras_session_npu_config(config=config)
    x = np.random.RandomState(0).rand(64, 10).astype(np.float32) * 100 + 50
    y = (x[:, :1] > 100).astype(np.float32)
    init = tf.keras.initializers.Constant(100.0)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(10,), kernel_initializer=init),
        tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=npu_keras_optimizer(tf.keras.optimizers.SGD(0.001)),
                  loss="binary_crossentropy")
    h = model.fit(x, y, batch_size=32, epochs=2, verbose=0)
    print("LOSSES", h.history["loss"])
    model.predict(x[:2])
    close_session(sess)
""")

SESSION = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    from npu_bridge.npu_init import *
    from npu_bridge.estimator.npu import util

    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
    custom_op.parameter_map["iterations_per_loop"].i = 3
    x = tf.placeholder(tf.float32, [4, 8], name="x")
    w = tf.Variable(tf.fill([8, 4], 300.0), name="w")
    proj = tf.matmul(x, w, name="proj")          # 8*100*300 = 240000 > 65504
    out = tf.nn.relu(tf.reduce_mean(x), name="out")
    c = tf.Variable(tf.fill([8, 8], 300.0), name="c")
    sq = tf.matmul(c, c, name="sq")              # no feed: a callable without feed list
    step = tf.group(tf.assign_add(c, tf.zeros([8, 8]) * sq[0, 0]), name="step")
    util.register_loop_op(step, 3)
    feed = {x: np.full([4, 8], 100.0, np.float32)}
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())       # /1
        for i in range(2):
            sess.run([proj, out], feed_dict=feed)          # /2: 2 steps
        sess.run({"p": proj}, feed_dict=feed)              # /3: 1 step
        call = sess.make_callable(sq)                      # /4: 2 steps
        call(); call()
        sess.run(step)                                     # /5: a loop of 3 steps
    print("DONE")
""")


def _summary_graph_lines(out):
    return dict(re.findall(r"^    (Session#1/\d+|Session#1 fetch set \d+): (\d+) step\(s\)", out,
                           re.M))


def test_keras_fit_is_emulated_captured_and_reported(tmp_path):
    script = tmp_path / "keras_fit.py"
    script.write_text(KERAS_FIT)
    proc = run(["--no-report", "--precision", "emulate", "--product", "atlas-a2-training",
                str(script)], cwd=str(tmp_path), timeout=300)
    out = proc.stdout + proc.stderr
    assert "LOSSES [nan, nan]" in out, out[-4000:]
    # the emulated ops ran: never "NOT emulated", the overflow is found and named
    assert "NOT emulated" not in out, out[-4000:]
    assert "NPB180" in out and "first overflow: dense/MatMul" in out, out[-4000:]
    # the training graph's memory line and precision line carry one name
    train = re.search(r"memory: graph (Session#1/\d+) \(training step\)", out)
    assert train, out[-4000:]
    steps = _summary_graph_lines(out)
    assert steps.get(train.group(1)) == "4", out[-4000:]   # 2 epochs of 2 batches
    assert re.search(r"memory: graph Session#1/\d+ \(evaluation/inference step\)", out)


def _memory(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "memory"] + list(args),
                          cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    return out


def test_memory_plans_the_graphs_keras_runs(tmp_path):
    script = tmp_path / "keras_fit.py"
    script.write_text(KERAS_FIT)
    out = _memory(tmp_path, str(script))
    train = re.search(r"graph (Session#1/\d+) \(training step\)", out)
    assert train, out[-4000:]
    assert re.search(r"graph Session#1/\d+ \(evaluation/inference step\)", out), out[-4000:]
    assert "LOSSES [" in out and "LOSSES [0.0" not in out, out[-4000:]   # computed
    # --steps 0 computes no run of an NPU session, Keras's callables included: the script
    # stops before the first training step, its graph planned
    out = _memory(tmp_path, "--steps", "0", str(script))
    assert ("script stopped before training step 1 of graph %s (--steps 0)" % train.group(1)
            in out), out[-4000:]
    assert re.search(r"graph %s \(training step\)" % train.group(1), out), out[-4000:]
    assert "LOSSES" not in out, out[-4000:]


def test_emulation_counts_under_the_capture_graph_names(tmp_path):
    script = tmp_path / "sess.py"
    script.write_text(SESSION)
    proc = run(["--no-report", "--precision", "emulate", str(script)], cwd=str(tmp_path),
               timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "DONE" in out, out[-4000:]
    assert "fetch set" not in out, out[-4000:]
    captured = set(re.findall(r"^  partition (Session#1/\d+):", out, re.M))
    steps = _summary_graph_lines(out)
    # the dict fetch is its own graph; the callable's runs and the loop's iterations count
    assert steps == {"Session#1/2": "2", "Session#1/3": "1", "Session#1/4": "2",
                     "Session#1/5": "3"}, out[-4000:]
    assert set(steps) <= captured, out[-4000:]   # the names of the captured graphs


PARTIAL_RUN = textwrap.dedent("""
    import tensorflow as tf
    from npu_bridge.npu_init import *

    config = tf.ConfigProto()
    config.graph_options.rewrite_options.custom_optimizers.add().name = "NpuOptimizer"
    a = tf.placeholder(tf.float32, [2], name="a")
    b = tf.add(a, 1.0, name="b")
    c = tf.multiply(b, 2.0, name="c")
    with tf.Session(config=config) as sess:
        sess.run(c, {a: [1.0, 2.0]})                       # captured: Session#1/1
        h = sess.partial_run_setup([b, c], [a])
        print("B", sess.partial_run(h, b, feed_dict={a: [1.0, 2.0]}).tolist())
        print("C", sess.partial_run(h, c).tolist())
""")


def test_memory_names_runs_it_could_not_capture(tmp_path):
    script = tmp_path / "partial.py"
    script.write_text(PARTIAL_RUN)
    out = _memory(tmp_path, str(script))
    assert "B [2.0, 3.0]" in out and "C [4.0, 6.0]" in out, out[-4000:]   # computed
    assert "graph Session#1/1" in out, out[-4000:]
    assert ("not captured: Session#1: partial_run: 2 run(s) ran, in no plan (docs/memory.md)"
            in out), out[-4000:]
