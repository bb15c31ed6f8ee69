"""npu_run_config_init(RunConfig) estimator + NPUEstimator with iterations_per_loop and a finite
dataset (no max_steps: train to end of data), predict, NPUEstimatorSpec with training_hooks,
model_fn(features, labels, mode, params, config)."""
import tempfile
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

rng = np.random.RandomState(0)
X = rng.randn(200, 3).astype(np.float32); Y = X @ np.array([[1.], [1.], [1.]], np.float32)

def input_fn(params):
    return tf.data.Dataset.from_tensor_slices((X, Y)).batch(params["batch_size"], drop_remainder=True).repeat(5)

def model_fn(features, labels, mode, params, config):
    pred = tf.layers.dense(features, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return NPUEstimatorSpec(mode, predictions=pred)
    loss = tf.losses.mean_squared_error(labels, pred)
    train_op = npu_tf_optimizer(tf.train.GradientDescentOptimizer(0.1)).minimize(loss, tf.train.get_global_step())
    hook = tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=10)
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[hook])

# 200/20 = 10 batches * 5 epochs = 50 steps; iterations_per_loop=4 does not divide 50
cfg = NPURunConfig(model_dir=tempfile.mkdtemp(), iterations_per_loop=4, save_checkpoints_steps=20,
                   save_summary_steps=0, log_step_count_steps=None, precision_mode="allow_fp32_to_fp16")
est = NPUEstimator(model_fn=model_fn, config=cfg, params={"batch_size": 20})
est.train(input_fn)
step = est.get_variable_value("global_step")
print("global_step after finite data:", step)
preds = list(est.predict(lambda params: tf.data.Dataset.from_tensor_slices(X[:5]).batch(5)))
assert len(preds) == 5
assert step == 50, step

# migrated-tool form around a plain estimator
rc = npu_run_config_init(run_config=tf.estimator.RunConfig(model_dir=tempfile.mkdtemp(), save_summary_steps=0,
                        session_config=npu_session_config_init(session_config=tf.ConfigProto())))
est2 = tf.estimator.Estimator(model_fn=model_fn, config=rc, params={"batch_size": 20})
est2.train(lambda: input_fn({"batch_size": 20}), steps=30, hooks=npu_hooks_append())
assert est2.get_variable_value("global_step") == 30
print("ok step=%d" % step)
