"""--precision emulate: the NPU's precision mode, overflow mode and loss-scale skips on the CPU
(npu_bridge.hooks.precision_emulation, npu_bridge.ge.precision; docs/precision.md)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.ge import NpuConfigError, forced_product
from npu_bridge.ge import precision as gp
from npu_bridge.ge import records as _records
from npu_bridge.estimator.npu import npu_plugin, npu_scope
from npu_bridge.estimator.npu.npu_loss_scale_manager import ExponentialUpdateLossScaleManager
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import NPULossScaleOptimizer
from npu_bridge.hooks import precision_emulation as pe
from npu_bridge.hooks import session_patch, state

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_cli import REPO, run  # noqa: E402  (tests/run_cli.py)

v1 = tf.compat.v1


@pytest.fixture
def emulate(monkeypatch):
    """Emulation on, a fresh graph, the full Session patch, no sat mode set."""
    session_patch.patch()
    monkeypatch.setattr(_records.RUN, "precision", True)
    monkeypatch.setattr(npu_plugin._ADAPTER, "sat_mode", None)
    monkeypatch.delenv("RANK_SIZE", raising=False)
    with tf.Graph().as_default() as graph:
        yield graph


# --- the subprocess runs: each a TensorFlow process of 10-30 s, so they are started together
# (at most _WORKERS at a time) the first time a test asks for one, and only those the
# selected tests need; each test then reads its own results.
_WORKERS = 3
_OVERFLOW = os.path.join(REPO, "examples", "precision_overflow.py")
_DEMO = os.path.join(REPO, "examples", "digits_estimator.py")
_RUNS = {   # name -> (argv of npu-bridge run, or ("python", env, argv) for a plain python run)
    "a2_report": ["--precision", "emulate", "--product", "atlas-a2-training", "--report",
                  "{tmp}/r.json", _OVERFLOW, "--steps", "2", "--precision-mode",
                  "allow_fp32_to_fp16"],
    "off": ["--no-report", "--product", "atlas-training", _OVERFLOW, "--steps", "1"],
    "saturation": ["--no-report", "--precision", "emulate", "--product", "atlas-training",
                   _OVERFLOW, "--steps", "2"],
    "bad_env": ("run", {"NPU_BRIDGE_PRECISION": "on"}, ["--no-report", _OVERFLOW]),
    "plain": ("python", {"NPU_BRIDGE_PRECISION": "emulate"},
              [_OVERFLOW, "--steps", "2", "--precision-mode", "allow_fp32_to_fp16"]),
    # the demo twice in one process (one TensorFlow start): emulated, then float32
    "demo": ("python", {}, ["-c", """if True:
        import json, runpy
        from npu_bridge.ge import precision as gp, records
        from npu_bridge.hooks import precision_emulation as pe
        demo = runpy.run_path(%r, run_name="digits")   # its main() not run at load
        for mode in ("emulate", "off"):
            pe.enable(mode == "emulate")
            records.clear()
            print("mode", mode, flush=True)
            assert demo["main"](["--steps", "300"]) == 0
            confs = [gp.configuration_precision(r) for r in records.records()]
            low = {}
            for c in confs:
                for g in (c or {}).get("graphs", ()):
                    low.update(g["ops_low"])
            print("precision", mode, json.dumps({"emulated": any(c and c["emulated"] for c in confs),
                  "low": c and c["low"], "ops_low": low}), flush=True)
        """ % _DEMO]),
}
_NEEDS = {   # test -> the runs it reads
    "test_run_summary_and_report_say_what_was_emulated": ("a2_report", "off", "saturation"),
    "test_bad_environment_value_is_a_usage_error": ("bad_env",),
    "test_plain_python_run_with_the_environment_variable": ("plain",),
    "test_demo_under_emulated_allow_mix_precision_is_within_a_point_of_float32": ("demo",),
}


def _start(spec, tmp):
    if isinstance(spec, list):
        return run([a.replace("{tmp}", tmp) for a in spec], cwd=tmp, timeout=600)
    how, extra, argv = spec
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2", **extra)
    env.pop("NPU_BRIDGE_PRODUCT", None)
    cmd = [sys.executable] + (["-m", "npu_bridge", "run"] if how == "run" else []) + argv
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    """name -> (future of its CompletedProcess, its working directory)."""
    import concurrent.futures
    wanted = []
    for item in request.session.items:
        for name in _NEEDS.get(getattr(item, "originalname", item.name), ()):
            if name not in wanted:
                wanted.append(name)
    pool = concurrent.futures.ThreadPoolExecutor(_WORKERS)
    started = {}
    for name in sorted(wanted, key=lambda n: not n.startswith("demo")):   # longest first
        tmp = str(tmp_path_factory.mktemp(name))
        started[name] = (pool.submit(_start, _RUNS[name], tmp), tmp)
    yield started
    pool.shutdown(wait=True)   # every process ended (their timeouts bound it)


def _result(runs, name):
    future, tmp = runs[name]
    return future.result(), tmp


def _config(**params):
    config = v1.ConfigProto()
    custom = config.graph_options.rewrite_options.custom_optimizers.add()
    custom.name = "NpuOptimizer"
    for key, value in params.items():
        custom.parameter_map[key].s = tf.compat.as_bytes(value)
    return config


def _big_matmul(name="big", keep=False):
    """A MatMul whose float32 output (120000) is beyond float16's 65504."""
    x = v1.placeholder(tf.float32, [8, 4], name="x_" + name)
    w = v1.get_variable("w_" + name, initializer=tf.fill([4, 4], 300.0))
    if keep:
        with npu_scope.keep_dtype_scope():
            return x, w, tf.matmul(x, w, name=name)
    return x, w, tf.matmul(x, w, name=name)


_X = np.full([8, 4], 100.0, np.float32)


def _train_big(config, product=None, steps=3):
    x, w, h = _big_matmul()
    loss = tf.reduce_mean(h) * 1e-6
    train = v1.train.GradientDescentOptimizer(1e-9).minimize(loss)
    with forced_product(product), v1.Session(config=config) as sess:
        sess.run(v1.global_variables_initializer())
        losses = [sess.run([train, loss], {x: _X})[1] for _ in range(steps)]
        return losses, state.of(sess).record


def test_activations_beyond_float16_overflow_only_under_emulated_allow_fp32_to_fp16(emulate, monkeypatch):
    config = _config(precision_mode="allow_fp32_to_fp16")
    monkeypatch.setattr(_records.RUN, "precision", False)
    with tf.Graph().as_default():
        losses, rec = _train_big(config)
    assert all(np.isfinite(losses)) and losses[0] == pytest.approx(0.12)
    assert rec.precision is None   # off: nothing looked at, nothing rewritten
    monkeypatch.setattr(_records.RUN, "precision", True)
    losses, rec = _train_big(config)
    assert all(np.isinf(losses))
    report = gp.configuration_precision(rec)
    assert report["emulated"] and report["mode"] == "allow_fp32_to_fp16"
    assert report["sat_mode"] == "inf_nan"   # no product: INF/NaN assumed, said in sat_source
    graph = [g for g in report["graphs"] if g["steps"] == 3][0]
    assert graph["ops_low"]["MatMul"] >= 2   # forward and the gradient's MatMul
    assert graph["overflow_steps"] == 3
    assert graph["first_overflow"]["op"] == "big" and graph["first_overflow"]["max_abs"] == 120000.0
    found = [d for d in rec["runtime"] if d.code == "NPB180"]
    assert len(found) == 1
    # a forward op: no loss scale changes its output, so loss scaling is not the advice
    assert "keep_dtype_scope() around big" in found[0].message
    assert "forward pass" in found[0].message and "NPULossScaleOptimizer" not in found[0].message
    low = pe.low_ops_of(emulate)
    assert low.get("big") == "low"
    assert not any(k.startswith("Add") for k in graph["ops_low"])   # vector ops kept


def test_saturation_mode_clips_to_float16_max(emulate):
    losses, rec = _train_big(_config(precision_mode="allow_fp32_to_fp16"), product="atlas-training")
    # the MatMul saturates at 65504: mean 65504 * 1e-6, finite, wrong
    assert losses[0] == pytest.approx(0.065504, rel=1e-4)
    report = gp.configuration_precision(rec)
    assert report["sat_mode"] == "saturation"
    assert max(g["overflow_steps"] for g in report["graphs"]) == 3
    assert not any(d.code == "NPB180" for d in rec["runtime"])   # the loss stayed finite
    # ... but the values were clipped and nothing checked them: the NPU says nothing, we warn
    sat = [d for d in rec["runtime"] if d.code == "NPB182"]
    assert len(sat) == 1 and sat[0].severity == "warning", rec["runtime"]
    msg = sat[0].message
    assert "at step 1" in msg and "big (MatMul)" in msg and "1.2e+05" in msg and "65504" in msg
    assert "no NPULossScaleOptimizer" in msg
    # the MatMul feeds the loss: loss scaling cannot remove it, so it is not the advice
    assert "keep_dtype_scope() around big" in msg and "forward pass" in msg
    assert "add NPULossScaleOptimizer" not in msg and "modify_mixlist" not in msg


def _loss_scale_run(product, steps=6, sat_mode=None):
    """x = 1, w = 0.5: d(loss)/dw = 4 * scale: beyond float16 while scale >= 16384."""
    x = v1.placeholder(tf.float32, [4, 4], name="x")
    w = v1.get_variable("w", initializer=tf.fill([4, 4], 0.5))
    loss = tf.reduce_sum(tf.matmul(x, w))
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 15, incr_every_n_steps=1000,
                                                decr_every_n_nan_or_inf=2, decr_ratio=0.5)
    opt = NPULossScaleOptimizer(v1.train.GradientDescentOptimizer(1e-6), manager)
    step = v1.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=step)
    if sat_mode is not None:
        npu_plugin.set_device_sat_mode(sat_mode)
    seen = []
    with forced_product(product), v1.Session(config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        for _ in range(steps):
            before = sess.run([w, step])
            sess.run(train, {x: np.ones([4, 4], np.float32)})
            after = sess.run([w, step, manager.get_loss_scale()])
            seen.append((before, after))
        return seen, state.of(sess).record


@pytest.mark.parametrize("product,sat_mode,expected", [
    ("atlas-training", None, "saturation"),
    ("atlas-a2-training", None, "inf_nan"),
    ("atlas-a2-training", 0, "saturation"),
])
def test_dynamic_loss_scale_skips_overflowed_steps_and_falls_by_the_manager_rules(
        emulate, product, sat_mode, expected):
    seen, rec = _loss_scale_run(product, sat_mode=sat_mode)
    scales = [after[2] for _, after in seen]
    # 32768: 4*32768 overflows; 2 bad steps -> *0.5 = 16384 (4*16384 = 65536 still overflows);
    # 2 more -> 8192, then every step is finite and applied
    assert scales == [32768.0, 16384.0, 16384.0, 8192.0, 8192.0, 8192.0]
    for i, (before, after) in enumerate(seen):
        changed = not np.array_equal(before[0], after[0])
        assert changed == (i >= 4), i          # overflowed steps change no variable
        assert after[1] == before[1] + (1 if i >= 4 else 0)   # nor the global step
    report = gp.configuration_precision(rec)
    assert report["sat_mode"] == expected
    graph = max(report["graphs"], key=lambda g: g["steps"])
    assert graph["overflow_steps"] == 4 and graph["skipped_updates"] == 4
    assert graph["loss_scale"] == [[1, 32768.0], [2, 16384.0], [4, 8192.0]]
    # the manager did its job (gradient overflows skipped, the scale fell): nothing to warn
    assert not [d for d in rec["runtime"] if d.code in ("NPB180", "NPB182")], rec["runtime"]


def test_loss_scale_emulation_leaves_no_collection_in_the_script_s_graph(emulate, caplog):
    """What the emulation notes of NPULossScaleOptimizer and its manager (the checks, scales
    and losses) is kept outside the script's graph: a checkpoint's meta graph (Saver.save,
    export_meta_graph) holds only the script's own collections, and TensorFlow logs no "Type
    is unsupported ... CollectionDef" warning for an object of ours (seen in a tryout: one
    per checkpoint an NPUEstimator saved under --precision emulate)."""
    seen, rec = _loss_scale_run("atlas-a2-training")
    assert [after[2] for _, after in seen][-1] == 8192.0   # the emulation still saw the checks
    graph = v1.get_default_graph()
    assert not [k for k in graph.get_all_collection_keys() if "npu_bridge" in k]
    with caplog.at_level("WARNING"):
        meta = v1.train.export_meta_graph(graph=graph)
    assert not [k for k in meta.collection_def if "npu_bridge" in k], list(meta.collection_def)
    assert "CollectionDef" not in caplog.text


def test_gradient_overflow_applied_in_inf_nan_mode_names_the_gradient_op(emulate):
    """A gradient beyond float16 with no loss-scale optimizer: step 1's update writes inf into
    the variable (the loss of step 1 is still finite), step 2's loss is NaN with no op
    overflowing at step 2 itself: NPB180 names step 1's gradient op and advises loss scaling."""
    x = v1.placeholder(tf.float32, [4, 4], name="x")
    w = v1.get_variable("w", initializer=tf.fill([4, 4], 0.5))
    loss = tf.reduce_sum(tf.matmul(x, w, name="fwd")) * 32768.0   # d/dw = 4 * 32768
    train = v1.train.GradientDescentOptimizer(1e-6).minimize(loss)
    with forced_product("atlas-a2-training"), v1.Session(
            config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        losses = [sess.run([train, loss], {x: np.ones([4, 4], np.float32)})[1] for _ in range(2)]
        runtime = state.of(sess).record["runtime"]
    assert np.isfinite(losses[0]) and not np.isfinite(losses[1])
    found = [d for d in runtime if d.code == "NPB180"]
    assert len(found) == 1, runtime
    msg = found[0].message
    assert "at step 2" in msg and "overflowed at step 1" in msg and "gradients/fwd_grad/MatMul" in msg
    assert "add NPULossScaleOptimizer" in msg


def _mixlist(tmp_path, body):
    path = tmp_path / "ops_info.json"
    path.write_text(json.dumps(body))
    return str(path)


def test_modify_mixlist_black_list_keeps_matmul_float32_on_the_graph_run(emulate, tmp_path):
    x, w, h = _big_matmul()
    out = tf.nn.relu(h)
    plain = _config(precision_mode="allow_mix_precision")
    with v1.Session(config=plain) as sess:
        sess.run(v1.global_variables_initializer())
        assert np.isinf(sess.run(out, {x: _X})).all()   # white-listed MatMul: float16
    with tf.Graph().as_default() as graph:
        x, w, h = _big_matmul()
        out = tf.nn.relu(h)
        black = _config(precision_mode="allow_mix_precision", modify_mixlist=_mixlist(
            tmp_path, {"black-list": {"to-add": ["MatMul"]}}))
        with v1.Session(config=black) as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(out, {x: _X}), np.full([8, 4], 120000.0))
            assert "big" not in pe.low_ops_of(graph)
            assert gp.configuration_precision(state.of(sess).record)["lists"].endswith("ops_info.json")


def test_modify_mixlist_bad_file_is_npb181(emulate, tmp_path):
    path = _mixlist(tmp_path, {"black-list": {"to-ad": ["MatMul"]}, "grey-list": {}})
    white, black, diags = gp.apply_mixlist(path)
    assert white == gp.MIXED_WHITE and black == gp.MIXED_BLACK
    assert sorted(d.code for d in diags) == ["NPB181", "NPB181"]
    assert any("'to-ad'" in d.message and "to-add, to-remove" in d.message for d in diags)
    assert any("'grey-list'" in d.message for d in diags)


def test_keep_dtype_scope_keeps_its_ops_float32(emulate):
    x, w, kept = _big_matmul("kept", keep=True)
    _, _, low = _big_matmul("low")
    feeds = {x: _X, emulate.get_tensor_by_name("x_low:0"): _X}
    with v1.Session(config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        a, b = sess.run([tf.identity(kept), tf.identity(low)], feeds)
        report = gp.configuration_precision(state.of(sess).record)
    np.testing.assert_array_equal(a, np.full([8, 4], 120000.0))
    assert np.isinf(b).all()
    assert pe.low_ops_of(emulate) == {"low": "low"}
    assert report["graphs"][0]["keep_dtype_ops"] == 1


def test_bf16_mode_on_atlas_training_is_refused_before_anything_runs(emulate):
    _big_matmul()
    with forced_product("atlas-training"):
        with pytest.raises(NpuConfigError, match="allow_mix_precision_bf16"):
            v1.Session(config=_config(precision_mode="allow_mix_precision_bf16"))
    assert pe.low_ops_of(emulate) == {}


def test_bfloat16_and_cube_modes_round_as_the_npu_stores(emulate):
    x = v1.placeholder(tf.float32, [1, 1])
    w = tf.constant([[1.0]])
    y = tf.matmul(x, w, name="mm") + 0.0
    value = np.array([[1.001]], np.float32)   # 1.0 in bfloat16, 1.0009766 in float16
    with forced_product("atlas-a2-training"), v1.Session(
            config=_config(precision_mode="allow_mix_precision_bf16")) as sess:
        assert sess.run(y, {x: value})[0, 0] == 1.0
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [1, 1])
        y = tf.matmul(x, tf.constant([[3.0e4]]), name="mm") + 0.0
        with v1.Session(config=_config(precision_mode_v2="cube_fp16in_fp32out")) as sess:
            out = sess.run(y, {x: value})[0, 0]
            rep = gp.configuration_precision(state.of(sess).record)
    assert out == pytest.approx(np.float32(np.float16(1.001)) * 3.0e4)   # input float16, output float32 (> 65504)
    assert rep["graphs"][0]["ops_cube_in"] == {"MatMul": 1}


def test_plans_of_each_mode():
    def plan(product=None, **opts):
        class _O:
            global_options = {"ge.exec." + k: v for k, v in opts.items()}
        _O.product = product
        return gp.plan_for(_O())
    assert plan("atlas-training").mode == "allow_fp32_to_fp16"
    assert plan("atlas-training").set_by == "default (atlas-training)"
    assert plan("atlas-a2-training").low is None
    assert plan().not_emulated.startswith("no precision mode set and no target product")
    assert plan(precision_mode_v2="mixed_hif8").not_emulated.startswith("hifloat8")
    p = plan(precision_mode="force_fp32")
    assert (p.mode, p.kind("Conv2D"), p.kind("Relu")) == ("cube_fp16in_fp32out", "cube_in", "keep")
    p = plan(precision_mode_v2="fp16")
    assert (p.kind("Relu"), p.kind("AssignVariableOp")) == ("low", "keep")
    p = plan(precision_mode="allow_mix_precision")
    assert (p.kind("MatMul"), p.kind("Mean"), p.kind("Relu")) == ("low", "keep", "gray")
    assert p.kind("MatMul", keep_dtype=True) == "keep"
    assert plan(precision_mode="allow_fp32_to_bf16").low is None


def test_sat_mode_rules():
    assert gp.sat_mode_for("atlas-training", 1)[0] == "saturation"   # the only mode there
    assert gp.sat_mode_for("atlas-a3-training", None)[0] == "inf_nan"
    assert gp.sat_mode_for("atlas-a3-training", 0)[0] == "saturation"


def test_run_summary_and_report_say_what_was_emulated(runs):
    done, tmp = _result(runs, "a2_report")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "step 0: loss inf" in done.stdout
    err = done.stderr
    assert "precision: allow_fp32_to_fp16 (precision_mode), INF/NaN mode, emulated in float16" in err
    assert "ops in float16: MatMul" in err and "first overflow at step 1: dense/MatMul" in err
    assert "NPB180" in err and "numerics: not emulated" not in err
    assert "precision emulated (NPU_BRIDGE_PRECISION" not in err   # the summary, not the exit line
    with open(os.path.join(tmp, "r.json")) as fh:
        data = json.load(fh)
    assert data["precision"] == {"emulate": True}
    prec = data["configurations"][0]["precision"]
    assert prec["emulated"] and prec["sat_mode"] == "inf_nan" and prec["not_emulated"] is None
    graph = [g for g in prec["graphs"] if g["steps"] == 2][0]
    assert graph["overflow_steps"] == 2 and graph["nonfinite_loss"]["op"] == "dense/MatMul"
    # off (the default): float32, no precision object, one line saying so
    done, _ = _result(runs, "off")
    assert done.returncode == 0 and "step 0: loss 0.12" in done.stdout
    assert "numerics: not emulated (float32 on the CPU" in done.stderr
    assert "precision:" not in done.stderr
    memory_off = [l for l in done.stderr.splitlines() if "memory:" in l]
    done, _ = _result(runs, "saturation")
    assert "step 0: loss 0.065504" in done.stdout   # saturation: finite and wrong
    assert "saturation mode, emulated in float16" in done.stderr
    # ... and said: the NPU would clip silently (set_device_sat_mode.md)
    assert "1 warning(s)" in done.stderr and "NPB182" in done.stderr
    # the memory plan is the script's graph's, without the emulation's round trips
    assert memory_off and [l for l in done.stderr.splitlines() if "memory:" in l] == memory_off


def test_bad_environment_value_is_a_usage_error(runs):
    done, _ = _result(runs, "bad_env")
    assert done.returncode == 2, done.stderr
    assert "NPU_BRIDGE_PRECISION='on': allowed values are off, emulate" in done.stderr
    assert "step 0" not in done.stdout   # refused before the script ran


def test_tensorflow_amp_list_clash_and_session_amp_are_noted():
    env = {"TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_ALLOWLIST_ADD": "Relu,MatMul",
           "TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_DENYLIST_ADD": "Relu"}
    notes = gp.tf_amp_notes(env, session_amp_on=True)
    assert len(notes) == 2 and "grappler auto_mixed_precision on" in notes[0]
    assert "Op lists have conflicting entries" in notes[1] and "Relu: ALLOWLIST+DENYLIST" in notes[1]
    assert gp.tf_amp_notes({}) == []
    # TensorFlow's own pass fails on this one (checked with TF 2.15.1: docs/precision.md)
    deny = gp.tf_amp_notes({"TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_DENYLIST_ADD": "MatMul"})
    assert len(deny) == 1 and "MatMul: ALLOWLIST+DENYLIST" in deny[0]
    assert gp.tf_amp_notes({"TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_DENYLIST_ADD": "MatMul",
                            "TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_ALLOWLIST_REMOVE": "MatMul"}) == []


def test_plain_python_run_with_the_environment_variable(runs):
    done, _ = _result(runs, "plain")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "step 0: loss inf" in done.stdout
    # what was emulated, one line at exit on stderr (npu-bridge run prints its summary instead)
    lines = [l for l in done.stderr.splitlines() if "precision emulated" in l]
    assert len(lines) == 1, done.stderr[-2000:]
    assert ("Session#1: allow_fp32_to_fp16 (precision_mode), INF/NaN mode, in float16: MatMul"
            in lines[0])
    assert "first overflow at step 1: dense/MatMul" in lines[0] and "warning NPB180" in lines[0]


def test_demo_under_emulated_allow_mix_precision_is_within_a_point_of_float32(runs):
    """`make demo` (examples/digits_estimator.py: allow_mix_precision) emulated against the
    same training in float32 (one process, the emulation switched between the two; the
    `npu-bridge run --precision` path is the run tests')."""
    import re
    done, _ = _result(runs, "demo")
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    accuracy = dict(zip(re.findall(r"^mode (\w+)$", out, re.M),
                        map(float, re.findall(r"test accuracy: ([0-9.]+)", out))))
    precision = {m: json.loads(v) for m, v in re.findall(r"^precision (\w+) (.*)$", out, re.M)}
    assert sorted(accuracy) == sorted(precision) == ["emulate", "off"], out[-2000:]
    assert precision["emulate"]["emulated"] and precision["emulate"]["low"] == "float16"
    assert precision["emulate"]["ops_low"].get("MatMul", 0) >= 2
    assert not precision["off"]["emulated"] and precision["off"]["ops_low"] == {}
    assert abs(accuracy["emulate"] - accuracy["off"]) <= 0.01, accuracy


@pytest.mark.parametrize("product,skipped", [("atlas-training", 0), ("atlas-a2-training", 3)])
def test_fixed_manager_without_overflow_check(emulate, product, skipped):
    """enable_overflow_check=False: saturation mode checks nothing (every step applied, with
    saturated gradients); INF/NaN mode still skips non-finite gradients, as the real optimizer
    hands that mode to TF's LossScaleOptimizer (npu_loss_scale_optimizer.py line 50)."""
    from npu_bridge.estimator.npu.npu_loss_scale_manager import FixedLossScaleManager
    x = v1.placeholder(tf.float32, [4, 4], name="x")
    w = v1.get_variable("w", initializer=tf.fill([4, 4], 0.5))
    loss = tf.reduce_sum(tf.matmul(x, w))
    opt = NPULossScaleOptimizer(v1.train.GradientDescentOptimizer(1e-6),
                                FixedLossScaleManager(2 ** 15, enable_overflow_check=False))
    train = opt.minimize(loss)
    with forced_product(product), v1.Session(config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        for _ in range(3):
            sess.run(train, {x: np.ones([4, 4], np.float32)})
        final = sess.run(w)
        graph = max(gp.configuration_precision(state.of(sess).record)["graphs"],
                    key=lambda g: g["steps"])
        runtime = state.of(sess).record["runtime"]
    assert graph["overflow_steps"] == 3 and graph["skipped_updates"] == skipped
    assert graph["loss_scale"] == [[1, 32768.0]]
    sat = [d for d in runtime if d.code == "NPB182"]
    if skipped:
        np.testing.assert_array_equal(final, np.full([4, 4], 0.5))
        assert not sat   # INF/NaN mode skipped the steps
    else:   # the saturated gradient 65504 / 32768 applied three times
        np.testing.assert_allclose(final, 0.5 - 3 * 1e-6 * 65504 / 32768, rtol=1e-6)
        assert len(sat) == 1, runtime   # applied with clipped gradients: warned, fix named
        assert "enable_overflow_check=False" in sat[0].message
        assert "FixedLossScaleManager(enable_overflow_check=True)" in sat[0].message
        assert "add NPULossScaleOptimizer" not in sat[0].message


@pytest.mark.parametrize("product,code", [("atlas-a2-training", "NPB180"),
                                          ("atlas-training", "NPB182")])
def test_forward_overflow_with_loss_scaling_already_in_place(emulate, product, code):
    """The script already uses NPULossScaleOptimizer and a forward op overflows: INF/NaN mode
    makes the loss inf (NPB180), saturation mode skips every step (NPB182); neither advises
    adding the optimizer the script has, nor a lower scale (the op is before the loss)."""
    x, w, h = _big_matmul()
    loss = tf.reduce_mean(h) * 1e-6
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10, incr_every_n_steps=1000,
                                                decr_every_n_nan_or_inf=2, decr_ratio=0.5)
    train = NPULossScaleOptimizer(v1.train.GradientDescentOptimizer(1e-9), manager).minimize(loss)
    with forced_product(product), v1.Session(config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        for _ in range(2):
            sess.run([train, loss], {x: _X})
        runtime = state.of(sess).record["runtime"]
    found = [d for d in runtime if d.code in ("NPB180", "NPB182")]
    assert [d.code for d in found] == [code], runtime
    msg = found[0].message
    assert "big (MatMul)" in msg and "keep_dtype_scope() around big" in msg
    assert "already" in msg and "forward pass" in msg
    assert "add NPULossScaleOptimizer" not in msg and "loss scaling with" not in msg
    if code == "NPB182":
        assert "skipped" in msg


def test_force_fp16_rounds_vector_ops_too(emulate):
    x = v1.placeholder(tf.float32, [])
    y = tf.add(x, 0.0, name="vec") * 1.0
    with v1.Session(config=_config(precision_mode="force_fp16")) as sess:
        assert sess.run(y, {x: 1.0001}) == np.float32(np.float16(1.0001))
    assert pe.low_ops_of(emulate).get("vec") == "low"


def test_a_session_whose_runs_skipped_the_emulation_says_so(emulate):
    x, w, h = _big_matmul()
    with v1.Session(config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        call = sess.make_callable(h, [x])
        # with a feed list TensorFlow runs the callable through Session.run: emulated, and the
        # fetched MatMul output is what the NPU returns (inf)
        assert np.isinf(call(_X)).all()
        rec = state.of(sess).record
    rec.precision = None   # as for a session only ever run through callables
    prec = gp.configuration_precision(rec, emulate=True)
    assert prec["not_emulated"] == gp.NO_RUN and not prec["emulated"]
    assert gp.precision_lines({"precision": prec}) == ["  precision: NOT emulated: " + gp.NO_RUN]
    assert gp.configuration_precision(rec, emulate=False) is None


@pytest.mark.parametrize("product,expected", [(None, np.inf), ("atlas-training", 65504.0)])
def test_a_fetched_low_op_output_counts_its_overflow_and_is_the_npu_value(
        emulate, product, expected):
    # the overflowing op's own output is the fetched tensor: no later op reads the round trip
    x, w, h = _big_matmul()
    with forced_product(product), v1.Session(
            config=_config(precision_mode="allow_fp32_to_fp16")) as sess:
        sess.run(v1.global_variables_initializer())
        value = sess.run(h, {x: _X})
        # the same tensor in a dict, by name and in a namedtuple: each is the NPU's value
        import collections
        pair = collections.namedtuple("pair", "a b")
        by_dict = sess.run({"h": h, "w": w}, {x: _X})
        by_name = sess.run(["big:0"], {x: _X})[0]
        by_tuple = sess.run(pair(h, w), {x: _X})
        fed = sess.run(h, {x: _X, h: np.ones([8, 4], np.float32)})   # a fed tensor: its feed
        rec = state.of(sess).record
    for got in (value, by_dict["h"], by_name, by_tuple.a):
        assert got.dtype == np.float32 and (got == np.float32(expected)).all(), got
    assert (by_dict["w"] == 300.0).all() and isinstance(by_tuple, pair)
    assert (fed == 1.0).all()
    report = gp.configuration_precision(rec)
    graphs = [g for g in report["graphs"] if g["ops_low"].get("MatMul")]
    assert graphs and sum(g["steps"] for g in graphs) == 4
    assert sum(g["overflow_steps"] for g in graphs) == 4
    first = graphs[0]["first_overflow"]
    assert first["step"] == 1 and first["op"] == "big" and first["max_abs"] == 120000.0


def test_precision_line_names_lists_only_when_a_mode_has_them(emulate):
    for mode, lists in (("force_fp16", None), ("allow_fp32_to_fp16", "matrix ops of GE's fe.ini"),
                        ("allow_mix_precision", "stand-in TensorFlow AMP lists")):
        with tf.Graph().as_default():
            x = v1.placeholder(tf.float32, [])
            y = tf.matmul(tf.reshape(x, [1, 1]), [[2.0]]) * 1.0
            with v1.Session(config=_config(precision_mode=mode)) as sess:
                sess.run(y, {x: 1.0})
                prec = gp.configuration_precision(state.of(sess).record)
        head = gp.precision_lines({"precision": prec})[0]
        assert head.startswith("  precision: %s" % gp.MODES[mode][0]), head
        if lists is None:   # every float op: no list to name, no empty "lists: "
            assert "lists" not in head and head.endswith("emulated in float16"), head
        else:
            assert head.split("; lists: ")[1].startswith(lists), head
