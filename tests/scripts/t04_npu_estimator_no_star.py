"""NPUEstimator without star import: input_fn(params) using params['batch_size'], NPURunConfig with
DumpConfig/ProfilingConfig/save_checkpoints_secs/session_config with own parameter_map,
train_and_evaluate, export_saved_model."""
import os, tempfile
import numpy as np
import tensorflow as tf
from npu_bridge.estimator.npu.npu_config import NPURunConfig, DumpConfig, ProfilingConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec
from npu_bridge.estimator.npu.npu_optimizer import NPUDistributedOptimizer
from npu_bridge.estimator import npu_ops
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

rng = np.random.RandomState(0)
X = rng.randn(512, 5).astype(np.float32)
Y = (X[:, 0] + X[:, 1] > 0).astype(np.int32)

def input_fn(params):
    bs = params["batch_size"]
    ds = tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).shuffle(512).repeat()
    return ds.batch(bs, drop_remainder=True)

def eval_input_fn(params):
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(params["batch_size"], drop_remainder=True)

def model_fn(features, labels, mode, params):
    x = features["x"]
    h = tf.layers.dense(x, 16, activation=tf.nn.relu)
    if mode == tf.estimator.ModeKeys.TRAIN:
        h = npu_ops.dropout(h, 0.9)
    logits = tf.layers.dense(h, 2)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return NPUEstimatorSpec(mode, predictions={"cls": tf.argmax(logits, 1)},
                                export_outputs={"serving_default": tf.estimator.export.PredictOutput({"cls": tf.argmax(logits, 1)})})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    opt = NPUDistributedOptimizer(tf.train.GradientDescentOptimizer(params["lr"]))
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    acc = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={"acc": acc})

session_config = tf.ConfigProto(allow_soft_placement=True)
custom_op = session_config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["hcom_parallel"].b = True
custom_op.parameter_map["op_debug_level"].i = 0
session_config.graph_options.rewrite_options.remapping = RewriterConfig.OFF

d = tempfile.mkdtemp()
dump_dir = tempfile.mkdtemp(); prof_dir = tempfile.mkdtemp()
run_config = NPURunConfig(
    model_dir=d, save_checkpoints_secs=60, keep_checkpoint_max=3, log_step_count_steps=50,
    iterations_per_loop=10, session_config=session_config,
    precision_mode="allow_mix_precision", enable_data_pre_proc=True, hcom_parallel=True,
    dump_config=DumpConfig(enable_dump=True, dump_path=dump_dir, dump_step="0|5", dump_mode="all"),
    profiling_config=ProfilingConfig(enable_profiling=True, profiling_options='{"output":"%s","training_trace":"on","task_trace":"on","fp_point":"","bp_point":""}' % prof_dir))
est = NPUEstimator(model_fn=model_fn, config=run_config, params={"batch_size": 32, "lr": 0.5})
train_spec = tf.estimator.TrainSpec(input_fn=input_fn, max_steps=200)
eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None, throttle_secs=0)
res = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
print(res)
metrics = est.evaluate(eval_input_fn)
assert metrics["acc"] > 0.9, metrics
def serving_input_fn():
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
export_dir = est.export_saved_model(os.path.join(d, "export"), serving_input_fn)
print("exported", export_dir)
assert os.path.exists(os.path.join(export_dir, b"saved_model.pb" if isinstance(export_dir, bytes) else "saved_model.pb"))
print("ok acc=%.3f step=%d" % (metrics["acc"], metrics["global_step"]))
