"""iterations_per_loop N with step counts that are not multiples of N: train(max_steps=M) and
train(steps=K) end exactly at their step, the last loop running only the steps left (hooks see
each loop's end step, the last one being M), from a fresh or a resumed model_dir, in
train_and_evaluate too; a user StopAtStepHook ends exactly at its step as well (the smaller
bound winning); evaluate(steps=K) runs K steps. And set_iteration_per_loop on a graph a
session has already run changes no attribute of an op that was run."""
import numpy as np
import pytest
import tensorflow as tf

from npu_bridge import npu_init  # noqa: F401  (patches the Session as scripts do)
from npu_bridge.estimator.npu import util
from npu_bridge.estimator.npu.npu_config import NPURunConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
from step_recorder import StepRecorder  # noqa: E402  (tests/step_recorder.py)
from npu_protos import proto  # noqa: E402

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(1)
X = rng.randn(64, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-1.0], [2.0]], np.float32)).astype(np.float32)


def input_fn():
    return tf.compat.v1.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(16)


def model_fn(features, labels, mode):
    predictions = tf.compat.v1.layers.dense(features, 1, name="linear")
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    if mode == tf.estimator.ModeKeys.EVAL:
        # A metric counting the evaluation steps that actually ran.
        count = tf.compat.v1.get_local_variable("eval_steps", [], tf.int64,
                                                tf.zeros_initializer())
        update = tf.compat.v1.assign_add(count, 1)
        return NPUEstimatorSpec(mode=mode, loss=loss,
                                eval_metric_ops={"eval_steps": (tf.identity(count), update)})
    step = tf.compat.v1.train.get_or_create_global_step()
    counter = tf.compat.v1.get_variable("train_steps", [], tf.int64, tf.zeros_initializer(),
                                        trainable=False)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
    with tf.control_dependencies([train_op]):
        train_op = tf.compat.v1.assign_add(counter, 1).op    # counts the steps executed
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def make(model_dir, n, **kwargs):
    kwargs.setdefault("save_checkpoints_steps", 1000)
    return NPUEstimator(model_fn=model_fn,
                        config=NPURunConfig(model_dir=str(model_dir), iterations_per_loop=n,
                                            **kwargs))


def train(estimator, **kwargs):
    recorder = StepRecorder()
    estimator.train(input_fn, hooks=[recorder], **kwargs)
    return recorder.steps


def test_max_steps_not_a_multiple_ends_at_max_steps(tmp_path):
    estimator = make(tmp_path, 5)
    assert train(estimator, max_steps=37) == [5, 10, 15, 20, 25, 30, 35, 37]
    assert estimator.get_variable_value("global_step") == 37
    assert estimator.get_variable_value("train_steps") == 37     # no step beyond M ran
    # steps= counts from the current step: 37 + 13 = 50, in loops of 5 from 37.
    assert train(estimator, steps=13) == [42, 47, 50]
    assert estimator.get_variable_value("global_step") == 50
    assert estimator.get_variable_value("train_steps") == 50


def test_fewer_steps_than_one_loop(tmp_path):
    estimator = make(tmp_path, 10)
    assert train(estimator, max_steps=4) == [4]
    assert train(estimator, steps=3) == [7]
    assert train(estimator, steps=10) == [17]
    assert estimator.get_variable_value("train_steps") == 17


def test_multiples_keep_full_loops(tmp_path):
    estimator = make(tmp_path, 4)
    assert train(estimator, max_steps=12) == [4, 8, 12]
    assert train(estimator, steps=8) == [16, 20]


def test_resumed_model_dir_at_a_step_that_is_not_a_multiple(tmp_path):
    make(tmp_path, 1).train(input_fn, max_steps=7)
    estimator = make(tmp_path, 5)                     # same model_dir, resumes at 7
    assert train(estimator, max_steps=20) == [12, 17, 20]
    assert train(estimator, max_steps=20) == []       # already there: no training
    assert train(estimator, steps=6) == [25, 26]
    assert estimator.get_variable_value("global_step") == 26
    assert estimator.get_variable_value("train_steps") == 26


def test_checkpoint_at_the_last_step(tmp_path):
    estimator = make(tmp_path, 5, save_checkpoints_steps=10)
    estimator.train(input_fn, max_steps=23)
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("-23")


def test_evaluate_steps_runs_exactly_those_steps(tmp_path):
    estimator = make(tmp_path, 5)
    estimator.train(input_fn, max_steps=5)
    metrics = estimator.evaluate(input_fn, steps=7)
    assert metrics["eval_steps"] == 7 and metrics["global_step"] == 5


def test_train_and_evaluate_ends_at_max_steps(tmp_path):
    estimator = make(tmp_path, 5, save_checkpoints_steps=10)
    recorder = StepRecorder()
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=37, hooks=[recorder])
    eval_spec = tf.estimator.EvalSpec(input_fn, steps=3, throttle_secs=0)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert metrics["global_step"] == 37 and metrics["eval_steps"] == 3
    assert recorder.steps[-1] == 37 and all(s % 5 == 0 for s in recorder.steps[:-1])
    assert estimator.get_variable_value("train_steps") == 37


def test_loop_count_restored_after_a_short_last_loop(tmp_path):
    # The short last loop changes the count of this graph's loop op only for that run; a new
    # train call builds a new graph whose loop op runs N steps again.
    estimator = make(tmp_path, 5)
    assert train(estimator, max_steps=3) == [3]
    assert train(estimator, max_steps=13) == [8, 13]


def counting_graph():
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.group(tf.compat.v1.assign_add(step, 1))    # named group_deps
    return graph, step, train_op


def test_set_iteration_per_loop_after_a_run_changes_no_run_op(capfd):
    graph, step, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=4)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        sess.run(train_op)                                 # the graph has been run
        before = {op.name: op.node_def.SerializeToString(deterministic=True)
                  for op in graph.get_operations()}
        loop_op = util.set_iteration_per_loop(sess, train_op, 4)
        after = {op.name: op.node_def.SerializeToString(deterministic=True)
                 for op in graph.get_operations() if op.name in before}
        assert after == before
        assert [c.name for c in loop_op.control_inputs] == [train_op.name]
        assert loop_op.name == "IterationOp"
        for _ in range(3):
            sess.run(loop_op)
        assert sess.run(step) == 13
    assert "after it was run by a session" not in capfd.readouterr().err


def test_iteration_per_loop_class_after_a_run_changes_no_run_op(capfd):
    graph, step, train_op = counting_graph()
    with graph.as_default(), tf.compat.v1.Session(config=proto(iterations_per_loop=3)) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        before = train_op.node_def.SerializeToString(deterministic=True)
        loop = util.IterationPerLoop()
        loop_op = loop.create_iteration_per_loop_var(train_op)
        loop.load_iteration_per_loop_var(sess, 3)
        assert train_op.node_def.SerializeToString(deterministic=True) == before
        sess.run(loop_op)
        assert sess.run(step) == 3
    assert "after it was run by a session" not in capfd.readouterr().err


@pytest.mark.parametrize("device", ["", "/device:CPU:0"])
def test_loop_op_keeps_the_device_and_name_scope(device):
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(device):
            step = tf.compat.v1.train.get_or_create_global_step()
            train_op = tf.compat.v1.assign_add(step, 1).op
        with tf.compat.v1.Session(config=proto(iterations_per_loop=2)) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            with tf.name_scope("outer"):
                loop_op = util.set_iteration_per_loop(sess, train_op, 2)
            assert loop_op.name == "outer/IterationOp" and loop_op.type == "NoOp"
            assert loop_op.device == train_op.device
            sess.run(loop_op)
            assert sess.run(step) == 2


def _npb124(estimator):
    from npu_bridge.ge import records as _records
    rec = [r for r in _records.records() if r.get("options") is estimator.npu_ge_options]
    assert len(rec) == 1
    return [d for d in rec[0].get("runtime", ()) if d.code == "NPB124"]


def test_steps_not_a_multiple_of_the_loop_warn_npb124_once(tmp_path):
    # The vendor docs require the training steps to be a multiple of iterations_per_loop
    # (reference option_values.json, iterations_per_loop notes): on the NPU every loop runs N.
    estimator = make(tmp_path, 5)
    train(estimator, max_steps=37)
    (d,) = _npb124(estimator)
    assert d.severity == "warning" and d.option == "iterations_per_loop" and d.value == 5
    assert "37" in d.message and "40" in d.message and "multiple" in d.message
    train(estimator, max_steps=37)          # already there: nothing new
    train(estimator, steps=10)              # 37 -> 47: 10 is a multiple of 5, but the
    assert len(_npb124(estimator)) == 1     # loops start at 37: fine, as on the NPU


def test_multiples_do_not_warn(tmp_path):
    estimator = make(tmp_path, 4)
    train(estimator, max_steps=12)
    train(estimator, steps=8)
    assert _npb124(estimator) == []


# A user StopAtStepHook (train(hooks=...), TrainSpec hooks, or the model_fn's training hooks)
# with iterations_per_loop N > 1: the last loop is shortened to its last step as for
# steps/max_steps (it used to end at the end of the loop crossing it: last_step=25 with N=10
# ended at 30); with max_steps/steps as well, the smaller bound wins. N == 1 is stock.

def train_with(estimator, *user_hooks, **kwargs):
    recorder = StepRecorder()
    estimator.train(input_fn, hooks=[recorder, *user_hooks], **kwargs)
    return recorder.steps


@pytest.mark.parametrize("make_hook", [
    lambda: tf.estimator.StopAtStepHook(last_step=25),
    lambda: tf.compat.v1.train.StopAtStepHook(last_step=25),
    lambda: tf.estimator.StopAtStepHook(num_steps=25),
    lambda: tf.compat.v1.train.StopAtStepHook(25),
    lambda: type("MyStop", (tf.compat.v1.train.StopAtStepHook,), {})(last_step=25),
], ids=["estimator-last", "v1-last", "estimator-num", "v1-num-positional", "subclass"])
def test_user_stop_at_step_hook_ends_at_its_step(tmp_path, make_hook):
    estimator = make(tmp_path, 10)
    assert train_with(estimator, make_hook()) == [10, 20, 25]
    assert estimator.get_variable_value("global_step") == 25
    assert estimator.get_variable_value("train_steps") == 25     # no step beyond 25 ran


def test_user_stop_at_step_hook_num_steps_from_a_resumed_step(tmp_path):
    make(tmp_path, 1).train(input_fn, max_steps=7)
    estimator = make(tmp_path, 5)
    hook = tf.estimator.StopAtStepHook(num_steps=13)
    assert train_with(estimator, hook) == [12, 17, 20]
    assert estimator.get_variable_value("train_steps") == 20


@pytest.mark.parametrize("last_step, kwargs, expected", [
    (25, {"max_steps": 37}, [10, 20, 25]),    # the hook is the smaller bound
    (37, {"max_steps": 25}, [10, 20, 25]),    # max_steps is
    (12, {"steps": 30}, [10, 12]),
    (40, {"steps": 15}, [10, 15]),
])
def test_user_stop_at_step_hook_and_train_bounds_the_smaller_wins(tmp_path, last_step, kwargs,
                                                                  expected):
    estimator = make(tmp_path, 10)
    assert train_with(estimator, tf.estimator.StopAtStepHook(last_step=last_step),
                      **kwargs) == expected
    assert estimator.get_variable_value("train_steps") == expected[-1]


def test_several_user_stop_at_step_hooks_the_smallest_wins(tmp_path):
    estimator = make(tmp_path, 4)
    hooks = [tf.estimator.StopAtStepHook(last_step=30), tf.estimator.StopAtStepHook(num_steps=9)]
    assert train_with(estimator, *hooks) == [4, 8, 9]


def test_user_stop_at_step_hook_in_train_spec(tmp_path):
    estimator = make(tmp_path, 10, save_checkpoints_steps=10)
    recorder = StepRecorder()
    train_spec = tf.estimator.TrainSpec(
        input_fn, hooks=[tf.estimator.StopAtStepHook(last_step=25), recorder])
    eval_spec = tf.estimator.EvalSpec(input_fn, steps=3, throttle_secs=0)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert recorder.steps == [10, 20, 25]
    assert metrics["global_step"] == 25 and metrics["eval_steps"] == 3
    assert estimator.get_variable_value("train_steps") == 25


def test_user_stop_at_step_hook_in_train_spec_with_max_steps(tmp_path):
    estimator = make(tmp_path, 10, save_checkpoints_steps=10)
    recorder = StepRecorder()
    train_spec = tf.estimator.TrainSpec(
        input_fn, max_steps=37, hooks=[recorder, tf.estimator.StopAtStepHook(last_step=25)])
    eval_spec = tf.estimator.EvalSpec(input_fn, steps=3, throttle_secs=0)
    metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    assert recorder.steps == [10, 20, 25] and metrics["global_step"] == 25


def test_stop_at_step_hook_in_the_model_fn_training_hooks(tmp_path):
    def hooked_model_fn(features, labels, mode):
        spec = model_fn(features, labels, mode)
        if mode == tf.estimator.ModeKeys.TRAIN:
            spec = spec._replace(training_hooks=[tf.estimator.StopAtStepHook(last_step=13)])
        return spec
    estimator = NPUEstimator(model_fn=hooked_model_fn,
                             config=NPURunConfig(model_dir=str(tmp_path), iterations_per_loop=5,
                                                 save_checkpoints_steps=1000))
    assert train_with(estimator) == [5, 10, 13]


def test_user_stop_at_step_hook_with_one_iteration_per_loop_is_stock(tmp_path):
    estimator = make(tmp_path, 1)
    assert train_with(estimator, tf.estimator.StopAtStepHook(last_step=6)) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("n", [1, 5])
def test_reused_user_stop_at_step_hooks_behave_as_stock(tmp_path, n):
    # The user's hook keeps running its own (stock) code: a last_step hook is reusable as is; a
    # num_steps hook fixes its last step in the first session (stock StopAtStepHook sets
    # _last_step then), so a second train() runs a single step, whatever N.
    last = tf.estimator.StopAtStepHook(last_step=12)
    for sub in ("a", "b"):
        assert train_with(make(tmp_path / sub, n), last)[-1] == 12
    assert last._last_step == 12 and last._num_steps is None
    num = tf.estimator.StopAtStepHook(num_steps=12)
    estimator = make(tmp_path / "c", n)
    assert train_with(estimator, num)[-1] == 12
    assert train_with(estimator, num) == [13]
    assert estimator.get_variable_value("train_steps") == 13


def test_user_stop_at_step_hook_not_a_multiple_warns_npb124(tmp_path):
    estimator = make(tmp_path, 10)
    train_with(estimator, tf.estimator.StopAtStepHook(last_step=25))
    (d,) = _npb124(estimator)
    assert d.value == 10 and "25" in d.message and "30" in d.message
    assert "StopAtStepHook" in d.message
    estimator = make(tmp_path / "multiple", 10)
    train_with(estimator, tf.estimator.StopAtStepHook(last_step=20), max_steps=37)
    assert _npb124(estimator) == []       # 20, the smaller bound, is a multiple of 10


def skipping_model_fn(features, labels, mode):
    """A train op whose global step moves only in every second step (as a loss-scale
    overflow skips an update, global_step included); `train_steps` counts every step run."""
    predictions = tf.compat.v1.layers.dense(features, 1, name="linear")
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    step = tf.compat.v1.train.get_or_create_global_step()
    counter = tf.compat.v1.get_variable("train_steps", [], tf.int64, tf.zeros_initializer(),
                                        trainable=False)
    count = tf.compat.v1.assign_add(counter, 1)
    with tf.control_dependencies([count]):
        train_op = tf.cond(tf.equal(count % 2, 0),
                           lambda: tf.compat.v1.assign_add(step, 1).op, tf.no_op)
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def test_skipped_updates_keep_full_loops_as_on_the_npu(tmp_path):
    # 8 steps in loops of 4 (a multiple: no NPB124): the global step moves 2 per loop, so the
    # NPU runs 4 full loops (16 steps) to reach 8; a shortened loop would run 4+4+4+2+1+1.
    estimator = NPUEstimator(model_fn=skipping_model_fn, config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=4, save_checkpoints_steps=1000))
    assert train(estimator, max_steps=8) == [2, 4, 6, 8]
    assert estimator.get_variable_value("train_steps") == 16
    assert _npb124(estimator) == []
