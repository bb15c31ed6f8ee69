"""NPUEstimator / NPUEstimatorSpec: construction-time resolution, iterations_per_loop step
counts seen by hooks, host_call, evaluate/predict/export, train_and_evaluate."""
import os

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.framework import op_def_registry

from npu_bridge.ge import records as _records
from npu_bridge import npu_init  # noqa: F401  (patches the Session as scripts do)
from npu_bridge.estimator.npu.npu_config import MemoryConfig, NPURunConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
from npu_bridge.ge import NpuConfigError
from step_recorder import StepRecorder  # noqa: E402  (tests/step_recorder.py)

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(0)
X = rng.randn(128, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-1.0], [2.0]], np.float32)).astype(np.float32)


def input_fn():
    return tf.compat.v1.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(16)


def eval_input_fn():
    return tf.compat.v1.data.Dataset.from_tensor_slices((X, Y)).batch(64)


def model_fn(features, labels, mode, params):
    predictions = tf.compat.v1.layers.dense(features, 1, name="linear")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return NPUEstimatorSpec(mode=mode, predictions={"y": predictions},
                                export_outputs={"y": tf.estimator.export.PredictOutput({"y": predictions})})
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    if mode == tf.estimator.ModeKeys.EVAL:
        return NPUEstimatorSpec(mode=mode, loss=loss)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(params.get("lr", 0.1)).minimize(
        loss, global_step=tf.compat.v1.train.get_or_create_global_step())
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def make(tmp_path, **kwargs):
    kwargs.setdefault("save_checkpoints_steps", 1000)
    return NPUEstimator(model_fn=model_fn, config=NPURunConfig(model_dir=str(tmp_path), **kwargs),
                        params={"lr": 0.1})


def test_config_must_be_an_npu_run_config(tmp_path):
    with pytest.raises(ValueError, match="NPURunConfig"):
        NPUEstimator(model_fn=model_fn, config=tf.estimator.RunConfig(model_dir=str(tmp_path)))
    with pytest.raises(ValueError, match="NPURunConfig"):
        NPUEstimator(model_fn=model_fn)


def test_bad_config_fails_at_construction_before_model_fn(tmp_path):
    calls = []

    def counting_model_fn(features, labels, mode):
        calls.append(mode)

    count = len(_records.records())
    with pytest.raises(NpuConfigError) as info:
        NPUEstimator(model_fn=counting_model_fn,
                     config=NPURunConfig(model_dir=str(tmp_path),
                                         memory_config=MemoryConfig(atomic_clean_policy=3)))
    assert any(d.option == "atomic_clean_policy" and d.severity == "error"
               for d in info.value.diagnostics)
    assert calls == []
    # recorded as refused, so `npu-bridge run` counts it even when the script catches it
    (rec,) = _records.records()[count:]
    assert rec["kind"] == "estimator" and rec["refused"] is True and str(tmp_path) in rec["name"]
    assert [d.option for d in rec["options"].errors] == ["atomic_clean_policy"]


def test_session_config_and_record(tmp_path):
    user_session = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    run_config = NPURunConfig(model_dir=str(tmp_path), iterations_per_loop=4,
                              session_config=user_session,
                              memory_config=MemoryConfig(static_memory_policy=2))
    count = len(_records.records())
    estimator = NPUEstimator(model_fn=model_fn, config=run_config)
    session_config = estimator.config.session_config
    ops = [o for o in session_config.graph_options.rewrite_options.custom_optimizers
           if o.name == "NpuOptimizer"]
    assert len(ops) == 1
    assert ops[0].parameter_map["iterations_per_loop"].i == 4
    assert ops[0].parameter_map["static_memory_policy"].i == 2
    assert ops[0].parameter_map["use_off_line"].b
    assert session_config.allow_soft_placement
    # The caller's objects are not changed.
    assert not user_session.graph_options.rewrite_options.custom_optimizers
    (record,) = _records.records()[count:]
    assert record["kind"] == "estimator" and str(tmp_path) in record["name"]
    assert record["refused"] is False
    assert record["options"].global_options["ge.exec.staticMemoryPolicy"] == "2"
    assert estimator.npu_ge_options is record["options"]


def test_model_dir_conflict(tmp_path):
    with pytest.raises(ValueError, match="model_dir"):
        NPUEstimator(model_fn=model_fn, model_dir=str(tmp_path / "a"),
                     config=NPURunConfig(model_dir=str(tmp_path / "b")))


@pytest.mark.parametrize("policy", [0, 2])
def test_iterations_per_loop_advances_n_steps_per_run(tmp_path, policy):
    estimator = make(tmp_path, iterations_per_loop=5,
                     memory_config=MemoryConfig(static_memory_policy=policy))
    recorder = StepRecorder()
    estimator.train(input_fn, max_steps=30, hooks=[recorder])
    assert recorder.steps == [5, 10, 15, 20, 25, 30]
    assert estimator.get_variable_value("global_step") == 30
    # steps= counts from the current step; a second train continues in loops of 5.
    recorder = StepRecorder()
    estimator.train(input_fn, steps=10, hooks=[recorder])
    assert recorder.steps == [35, 40]


def test_iterations_per_loop_one_is_one_step_per_run(tmp_path):
    estimator = make(tmp_path, iterations_per_loop=1)
    recorder = StepRecorder()
    estimator.train(input_fn, max_steps=3, hooks=[recorder])
    assert recorder.steps == [1, 2, 3]


def test_checkpoints_follow_global_steps(tmp_path):
    estimator = make(tmp_path, iterations_per_loop=10, save_checkpoints_steps=20)
    estimator.train(input_fn, max_steps=60)
    state = tf.train.get_checkpoint_state(str(tmp_path))
    steps = sorted(int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths)
    assert steps == [0, 20, 40, 60]     # 0: the stock hook saves when the session starts


def host_call_model_fn(features, labels, mode, params):
    spec = model_fn(features, labels, mode, params)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return spec
    counter = tf.compat.v1.get_variable("host_calls", [], tf.int64, tf.zeros_initializer(),
                                        trainable=False)

    def host_fn(loss):
        return tf.compat.v1.assign_add(counter, 1)

    return NPUEstimatorSpec(mode=mode, loss=spec.loss, train_op=spec.train_op,
                            host_call=(host_fn, [spec.loss]))


def test_host_call_runs_every_step_including_inside_loops(tmp_path):
    estimator = NPUEstimator(model_fn=host_call_model_fn,
                             config=NPURunConfig(model_dir=str(tmp_path), iterations_per_loop=4))
    estimator.train(input_fn, max_steps=12)
    assert estimator.get_variable_value("host_calls") == 12
    estimator.evaluate(eval_input_fn)      # in EVAL it runs with the loss, no error


def test_host_call_is_validated():
    loss = tf.constant(1.0)
    with pytest.raises(ValueError, match="two elements"):
        NPUEstimatorSpec(mode=tf.estimator.ModeKeys.EVAL, loss=loss, host_call=(len,))
    with pytest.raises(TypeError, match="callable"):
        NPUEstimatorSpec(mode=tf.estimator.ModeKeys.EVAL, loss=loss, host_call=(1, [loss]))
    with pytest.raises(RuntimeError, match="does not match"):
        NPUEstimatorSpec(mode=tf.estimator.ModeKeys.EVAL, loss=loss,
                         host_call=(lambda a, b: a, [loss]))
    spec = NPUEstimatorSpec(mode=tf.estimator.ModeKeys.EVAL, loss=loss,
                            host_call=(lambda **kw: kw, {"loss": loss}))
    assert isinstance(spec, tf.estimator.EstimatorSpec)


def test_evaluate_predict_and_export_without_npu_ops(tmp_path):
    estimator = make(tmp_path / "model", iterations_per_loop=10)
    estimator.train(input_fn, max_steps=200)
    metrics = estimator.evaluate(eval_input_fn)
    assert metrics["global_step"] == 200 and metrics["loss"] < 1e-2
    predictions = list(estimator.predict(
        lambda: tf.compat.v1.data.Dataset.from_tensor_slices(X[:4]).batch(4)))
    assert np.allclose([p["y"][0] for p in predictions], Y[:4, 0], atol=0.2)

    def serving_input_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        return tf.estimator.export.TensorServingInputReceiver(x, {"x": x})

    export_dir = estimator.export_saved_model(str(tmp_path / "export"), serving_input_fn)
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as sess:
        meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], export_dir)
        x = graph.get_tensor_by_name("x:0")
        out = sess.run(meta.signature_def["y"].outputs["y"].name, {x: X[:2]})
        assert np.allclose(out[:, 0], Y[:2, 0], atol=0.2)
    op_types = {node.op for node in meta.graph_def.node}
    # Every op of the SavedModel is a stock TensorFlow op, none is NPU-only.
    assert all(op_def_registry.get(t) is not None for t in op_types), op_types
    assert not op_types & {"IterationOp", "NpuOnnxGraphOp", "GeOp", "OutfeedEnqueueOp",
                           "DropOutDoMask", "DropOutGenMask", "HcomAllReduce", "HcomBroadcast"}


def test_train_and_evaluate(tmp_path):
    estimator = make(tmp_path, iterations_per_loop=5, save_checkpoints_steps=20)
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=40)
    eval_spec = tf.estimator.EvalSpec(eval_input_fn, steps=None, throttle_secs=0)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert metrics["global_step"] == 40


def test_output_tensor_and_tell_me_hooks(tmp_path, monkeypatch):
    from npu_bridge.estimator.npu.npu_hook import NPUOutputTensorHook, TellMeStepOrLossHook
    batches = []
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        inc = tf.compat.v1.assign_add(step, 1)
        output = NPUOutputTensorHook({"step": step}, output_fn=batches.append, output_every_n_steps=2)
        monkeypatch.setenv("STEP_NOW", "x")        # restored after the test
        monkeypatch.setenv("TOTAL_STEP", "x")
        tell = TellMeStepOrLossHook(step=step, total_step=5)
        with tf.compat.v1.train.MonitoredSession(hooks=[output, tell]) as sess:
            for _ in range(5):
                sess.run(inc)
    assert [len(b) for b in batches] == [2, 2, 1]          # every 2 runs, the rest at the end
    assert all(set(item) == {"step"} for b in batches for item in b)
    # The step is read in the same run as the increment: before or after it, as TF orders.
    assert os.environ["STEP_NOW"] in ("4", "5") and os.environ["TOTAL_STEP"] == "5"
    with pytest.raises(ValueError, match="step or loss"):
        TellMeStepOrLossHook()
