"""tf.contrib and the moved TF 1.15 names in the TF 1.x mode (npu_bridge.hooks.tf1_contrib), in
scripts written the way the usage census' top names are used. Each scenario is a fresh
interpreter (the mode is process-wide) printing `RESULT <json>`."""
import pytest

from _contrib_helper import run_scenario
from npu_bridge.hooks import tf1_contrib

FORMS = r'''
import json, sys, os, gzip, warnings
import numpy as np
import npu_bridge.npu_init
import tensorflow as tf
r = {}
heavy = ("tf_slim", "tensorflow_probability", "tensorflow_addons")
r["lazy_before"] = [m for m in heavy if m in sys.modules]
from npu_bridge.hooks import tf1_mode
r["lib_has_contrib"] = hasattr(tf1_mode.library_tensorflow(), "contrib")
conv = tf.contrib.slim.conv2d
import tf_slim
r["slim_conv_same"] = conv is tf_slim.conv2d
r["lazy_after_slim"] = [m for m in heavy if m in sys.modules]
import tensorflow.contrib.slim as slim
from tensorflow.contrib import slim as slim2
from tensorflow.contrib.rnn import LSTMStateTuple
from tensorflow.contrib import quantize, learn, cloud, tfprof
from tensorflow.contrib.layers.python.layers import initializers, regularizers, layers as layers_lib
from tensorflow.contrib.framework.python.ops import add_arg_scope, arg_scope
from tensorflow.contrib.framework.python.ops import variables as contrib_variables
from tensorflow.contrib.slim.nets import vgg, resnet_v1
import tensorflow.contrib.slim.nets as nets
import importlib
r["forms"] = {
    "slim": slim is tf.contrib.slim and slim2 is slim and slim.arg_scope is tf_slim.arg_scope,
    "lstm_state": LSTMStateTuple is tf.compat.v1.nn.rnn_cell.LSTMStateTuple,
    "deep_layers": initializers is importlib.import_module("tf_slim.layers.initializers")
        and regularizers is importlib.import_module("tf_slim.layers.regularizers")
        and layers_lib is importlib.import_module("tf_slim.layers.layers"),
    "add_arg_scope": add_arg_scope is tf_slim.add_arg_scope and arg_scope is tf_slim.arg_scope,
    "variables_module": contrib_variables is importlib.import_module("tf_slim.ops.variables"),
    "nets": vgg is importlib.import_module("tf_slim.nets.vgg") and nets.resnet_v1 is resnet_v1
        and tf.contrib.slim.nets.inception.inception_v3 is importlib.import_module("tf_slim.nets.inception_v3").inception_v3,
    "data": tf.contrib.data.map_and_batch is tf.compat.v1.data.experimental.map_and_batch
        and tf.contrib.data.AUTOTUNE == tf.data.experimental.AUTOTUNE,
    "tpu": tf.contrib.tpu.TPUEstimator is tf.compat.v1.estimator.tpu.TPUEstimator
        and tf.contrib.tpu.CrossShardOptimizer is tf.compat.v1.tpu.CrossShardOptimizer,
    "cluster": tf.contrib.cluster_resolver.TPUClusterResolver is tf.distribute.cluster_resolver.TPUClusterResolver,
    "learn_modekeys": learn.ModeKeys is tf.estimator.ModeKeys,
    "framework_nest": tf.contrib.framework.nest.is_sequence([1]) is True,
    "lookup": tf.contrib.lookup.index_table_from_tensor is not None and tf.contrib.lookup.HashTable is not None,
    "summary": tf.contrib.summary.always_record_summaries is not None,
    "hparams": tf.contrib.training.HParams(a=[1]).parse("a=[2,3]").a == [2, 3],
    "dir": "conv2d" in dir(slim) and "nets" in dir(slim) and "slim" in dir(tf.contrib),
}
r["lazy_after_forms"] = [m for m in heavy if m in sys.modules]
dist = tf.contrib.distributions.Normal(0.0, 1.0)
r["tfp"] = type(dist).__module__.startswith("tensorflow_probability")
err("quantize", lambda: quantize.create_training_graph())
err("learn", lambda: learn.Experiment)
err("cloud", lambda: cloud.BigQueryReader)
err("tfprof", lambda: tfprof.model_analyzer)
err("opt", lambda: tf.contrib.opt.AdamWOptimizer)
err("seq2seq", lambda: tf.contrib.seq2seq.BeamSearchDecoder)
err("embed", lambda: tf.contrib.layers.embed_sequence)
err("unknown_sub", lambda: importlib.import_module("tensorflow.contrib.nosuchthing"))
def from_quantize():
    from tensorflow.contrib.quantize import experimental_create_training_graph
err("from_quantize", from_quantize)
# forms the zoo probe found (probe_findings.md)
import tensorflow.contrib as tc
from tensorflow.contrib.image.python.ops import distort_image_ops
from tensorflow.contrib.tpu.python.ops import tpu_ops
from tensorflow.contrib.tpu.python.tpu import tpu_function, tpu_estimator
from tensorflow.contrib.compiler import xla
from tensorflow.contrib.framework.python.ops import audio_ops as contrib_audio
from tensorflow.contrib.layers.python import layers as tf_layers
from tensorflow.contrib.saved_model.python.saved_model import reader
from tensorflow.python import graph_util
from tensorflow.python.keras.preprocessing.image import ImageDataGenerator, apply_affine_transform
from keras.layers.advanced_activations import LeakyReLU
from keras.layers.core import Activation
from tensorflow.contrib.training.python.training import evaluation as contrib_evaluation
from tensorflow.contrib.framework.python.framework import checkpoint_utils
from tensorflow.contrib.learn.python.learn.datasets import base as learn_base
learn = tf.contrib.learn
from tensorflow.contrib import quantize as contrib_quantize
r["probe_forms"] = {"tc": tc is tf.contrib, "distort": hasattr(distort_image_ops, "random_hsv_in_yiq"),
     "tpu_est": hasattr(tpu_estimator, "TPUEstimator"), "xla": hasattr(xla, "compile"),
     "audio": hasattr(contrib_audio, "mfcc"), "tf_layers": hasattr(tf_layers, "batch_norm"),
     "reader": hasattr(reader, "read_saved_model"), "gu": hasattr(graph_util, "convert_variables_to_constants"),
     "keras_old": LeakyReLU.__name__ == "LeakyReLU" and Activation.__name__ == "Activation",
     "idg": ImageDataGenerator.__name__,
     "evaluation": hasattr(contrib_evaluation, "evaluate_repeatedly"),
     "checkpoint_utils": hasattr(checkpoint_utils, "list_variables"),
     "learn_base": learn_base.Datasets(train=1, validation=2, test=3).test == 3}
# more forms of the zoo probe
from tensorflow_core.contrib.mixed_precision.python.loss_scale_manager import ExponentialUpdateLossScaleManager
from tensorflow.contrib.mixed_precision import LossScaleOptimizer, FixedLossScaleManager
from tensorflow.contrib.mixed_precision.python.loss_scale_optimizer import LossScaleOptimizer as L2
from tensorflow.python.keras.applications.mobilenet import MobileNet
from tensorflow.python.keras.optimizers import Adam, SGD
from tensorflow.python.keras.utils import Sequence
from tensorflow.python.training.tracking import base as checkpointable
from tensorflow.contrib.layers import flatten
from tensorflow.contrib.slim import parallel_reader, tfexample_decoder
from tensorflow.contrib import metrics, slim, tpu as contrib_tpu, training as contrib_training, image as image_ops, data as contrib_data, framework as contrib_framework, cluster_resolver
import tensorflow_core
class ConvGRUCell(tf.contrib.rnn.RNNCell):
    pass
r["probe_forms2"] = {"core": tensorflow_core is tf, "lso": L2 is LossScaleOptimizer, "mobilenet": MobileNet.__name__,
     "adam": Adam is tf.keras.optimizers.Adam, "seq": Sequence is tf.keras.utils.Sequence,
     "trackable": hasattr(checkpointable, "Trackable"), "pr": hasattr(parallel_reader, "parallel_read"),
     "eulsm": ExponentialUpdateLossScaleManager.__name__}
# internal module paths: they import, their names fail when used
from tensorflow.contrib.data import batch_and_drop_remainder
from tensorflow.contrib.cudnn_rnn.python.layers import cudnn_rnn
from tensorflow.contrib.cudnn_rnn.python.ops import cudnn_rnn_ops
from tensorflow.contrib.seq2seq.python.ops import decoder
from tensorflow.contrib.quantize.python import graph_matcher
from tensorflow.contrib.rnn.python.ops import core_rnn_cell
from tensorflow.contrib.rnn.python.ops import rnn_cell
ds = tf.data.Dataset.range(7).apply(batch_and_drop_remainder(3))
nxt = ds.make_one_shot_iterator().get_next()
with tf.Session() as sess:
    r["internal_bdr"] = [sess.run(nxt).tolist(), sess.run(nxt).tolist()]
    try:
        sess.run(nxt); r["internal_bdr_end"] = False
    except tf.errors.OutOfRangeError:
        r["internal_bdr_end"] = True
r["internal_cudnn_cell"] = cudnn_rnn_ops.CudnnCompatibleLSTMCell is tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell
r["internal_rnn_cell"] = rnn_cell.LSTMCell is tf.compat.v1.nn.rnn_cell.LSTMCell
errs = {}
for key, fn in (("cudnn_lstm", lambda: cudnn_rnn.CudnnLSTM), ("decoder", lambda: decoder.BaseDecoder),
                ("matcher", lambda: graph_matcher.GraphMatcher), ("linear", lambda: core_rnn_cell._linear)):
    try:
        fn(); errs[key] = None
    except AttributeError as e:
        errs[key] = [type(e).__name__, str(e)]
try:
    from tensorflow.contrib.rnn.python.ops.core_rnn_cell import _linear
except ImportError as e:
    errs["from_linear"] = [type(e).__name__, str(e)]
r["internal_errs"] = errs
r["hasattr_missing"] = hasattr(tf.contrib.opt, "AdamWOptimizer")
r["errors"] = errors
print("RESULT " + json.dumps(r))
'''

GRAPH = r'''
import json, sys, os, gzip, struct, warnings
import numpy as np
from npu_bridge.npu_init import *
import tensorflow as tf
import tensorflow.contrib.slim as slim
r = {}
# tf.contrib.layers in a v1 graph: collections, update ops, a training step
tf.set_random_seed(0)
x = tf.placeholder(tf.float32, [None, 6, 6, 3])
y = tf.placeholder(tf.int64, [None])
is_training = tf.placeholder_with_default(True, [])
h = tf.contrib.layers.conv2d(x, 4, 3, weights_initializer=tf.contrib.layers.xavier_initializer(),
                             weights_regularizer=tf.contrib.layers.l2_regularizer(0.01),
                             normalizer_fn=tf.contrib.layers.batch_norm,
                             normalizer_params={"is_training": is_training, "decay": 0.9})
h = tf.contrib.layers.layer_norm(tf.contrib.layers.flatten(h))
logits = tf.contrib.layers.fully_connected(
    h, 3, activation_fn=None,
    weights_initializer=tf.contrib.layers.variance_scaling_initializer(factor=1.0))
loss = tf.losses.sparse_softmax_cross_entropy(y, logits) + tf.losses.get_regularization_loss()
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
r["update_ops"] = len(update_ops)
r["reg_losses"] = len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
r["restore"] = sorted(v.op.name for v in slim.get_variables_to_restore())
r["model_vars"] = len(slim.get_model_variables())
r["var_types"] = sorted({type(v).__name__ for v in tf.global_variables()})
mean = [v for v in tf.global_variables() if v.op.name.endswith("moving_mean")][0]
rng = np.random.RandomState(0)
feed = {x: rng.rand(8, 6, 6, 3), y: rng.randint(0, 3, 8)}
with tf.Session(config=npu_config_proto()) as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, feed)
    for _ in range(30):
        sess.run(train, feed)
    r["loss"] = [float(first), float(sess.run(loss, feed))]
    r["moving_mean_moved"] = float(np.abs(sess.run(mean)).sum()) > 0
# tf.contrib.data
ds = tf.data.Dataset.range(10).apply(tf.contrib.data.map_and_batch(lambda i: i * 2, 4, drop_remainder=True))
ds = ds.prefetch(tf.contrib.data.AUTOTUNE)
nxt = ds.make_one_shot_iterator().get_next()
with tf.Session() as sess:
    r["map_and_batch"] = [sess.run(nxt).tolist(), sess.run(nxt).tolist()]
# tf.contrib.rnn cells in dynamic_rnn
with tf.Graph().as_default():
    tf.set_random_seed(1)
    seq = tf.constant(np.random.RandomState(1).rand(2, 5, 3), tf.float32)
    cells = tf.contrib.rnn.MultiRNNCell([
        tf.contrib.rnn.DropoutWrapper(tf.contrib.rnn.LSTMCell(4), output_keep_prob=0.9),
        tf.contrib.rnn.GRUCell(4), tf.contrib.rnn.BasicLSTMCell(4)])
    out, state = tf.nn.dynamic_rnn(cells, seq, dtype=tf.float32)
    static_out, _ = tf.contrib.rnn.static_rnn(tf.contrib.rnn.BasicRNNCell(2), tf.unstack(seq, axis=1), dtype=tf.float32)
    cudnn_out, _ = tf.nn.dynamic_rnn(tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell(3), seq, dtype=tf.float32, scope="cudnn")
    rnn_loss = tf.reduce_mean(tf.square(out))
    step = tf.train.AdamOptimizer(0.05).minimize(rnn_loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(rnn_loss)
        for _ in range(30):
            sess.run(step)
        r["rnn"] = {"out": list(out.shape.as_list()), "state_is_tuple": isinstance(state[0], tf.contrib.rnn.LSTMStateTuple),
                    "static": len(static_out), "cudnn_vars": sorted(v.op.name for v in tf.global_variables() if v.op.name.startswith("cudnn/")),
                    "loss_down": float(sess.run(rnn_loss)) < float(before)}
# moved TF names
from tensorflow.python.util import nest
from tensorflow.python import pywrap_tensorflow
from tensorflow.python.data.experimental.ops import threadpool
from tensorflow.python.distribute import distribution_strategy_context
from tensorflow.python.training import distribution_strategy_context as dsc_old
from tensorflow.python.keras.layers import LSTM, BatchNormalization
from tensorflow.python.keras._impl.keras.layers import Activation
from keras.utils import np_utils
from keras.utils.np_utils import to_categorical
moved = {"is_sequence": [nest.is_sequence([1]), nest.is_sequence(1)],
         "ctx": distribution_strategy_context.get_replica_context() is not None,
         "ctx_old": dsc_old.get_tower_context is distribution_strategy_context.get_replica_context,
         "keras_layers": LSTM is tf.keras.layers.LSTM and BatchNormalization is tf.keras.layers.BatchNormalization,
         "impl_keras": Activation is tf.keras.layers.Activation,
         "np_utils": to_categorical([1, 0], 2).tolist(),
         "deconv2d": tf.nn.deconv2d is tf.compat.v1.nn.conv2d_transpose,
         "optimizer_options": tf.compat.v2.OptimizerOptions.ON_1 == tf.OptimizerOptions.ON_1,
         "policy": type(tf.keras.mixed_precision.experimental.Policy("float32")).__name__,
         "set_policy": tf.keras.mixed_precision.experimental.set_policy is not None}
with tf.Graph().as_default():
    v = tf.Variable([1.0, 2.0], name="w")
    ds = threadpool.override_threadpool(tf.data.Dataset.range(3), threadpool.PrivateThreadPool(2, display_name="p"))
    moved["threadpool"] = ds.options().threading.private_threadpool_size
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, os.path.join(os.getcwd(), "ckpt"))
    reader = pywrap_tensorflow.NewCheckpointReader(path)
    moved["checkpoint"] = reader.get_tensor("w").tolist()
with tf.Graph().as_default():
    step = tf.train.get_or_create_global_step()
    writer = tf.compat.v1.summary.create_file_writer(os.path.join(os.getcwd(), "logs"))
    with writer.as_default(), tf.compat.v1.summary.always_record_summaries():
        tf.contrib.summary.scalar("loss", tf.constant(1.5), step=step)
    ops = tf.compat.v1.summary.all_summary_ops()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.contrib.summary.summary_writer_initializer_op())
        sess.run(ops)
        sess.run(writer.flush())
    moved["summary_files"] = len(os.listdir("logs"))
import keras.backend as K
keras_sess = tf.Session()
K.set_session(keras_sess)
moved["keras_session"] = K.get_session() is keras_sess
keras_sess.close()
r["moved"] = moved
# MNIST reader on local files
os.makedirs("mnist", exist_ok=True)
def idx(name, magic, dims, data):
    with gzip.open(os.path.join("mnist", name), "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + data.tobytes())
imgs = np.random.RandomState(2).randint(0, 256, (12, 28, 28)).astype(np.uint8)
labels = (np.arange(12) % 10).astype(np.uint8)
from tensorflow.examples.tutorials.mnist import input_data
try:
    input_data.read_data_sets("mnist")
except FileNotFoundError as e:
    r["mnist_missing"] = str(e)
idx("train-images-idx3-ubyte.gz", 2051, (12, 28, 28), imgs)
idx("train-labels-idx1-ubyte.gz", 2049, (12,), labels)
idx("t10k-images-idx3-ubyte.gz", 2051, (4, 28, 28), imgs[:4])
idx("t10k-labels-idx1-ubyte.gz", 2049, (4,), labels[:4])
mnist = input_data.read_data_sets("mnist", one_hot=True, validation_size=2)
bx, by = mnist.train.next_batch(4)
r["mnist"] = {"train": mnist.train.num_examples, "val": mnist.validation.num_examples,
              "test": mnist.test.images.shape[0], "batch": [list(bx.shape), list(by.shape)],
              "max": float(mnist.train.images.max()), "epochs": [mnist.train.next_batch(8) and mnist.train.epochs_completed]}
# flags: a str enum_values as the official ResNet r1 flags pass it
from absl import flags
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    flags.DEFINE_enum(name="fp16_implementation", default="keras",
                      enum_values=("keras', 'graph_rewrite"), help="x")
r["flag_warning"] = [str(w.message) for w in caught if "enum_values" in str(w.message)]
flags.FLAGS(["prog", "--fp16_implementation=graph_rewrite"])
r["flag_value"] = flags.FLAGS.fp16_implementation
try:
    flags.FLAGS(["prog", "--fp16_implementation=nope"])
except flags.IllegalFlagValueError as e:
    r["flag_bad"] = str(e)
# TPUEstimator(use_tpu=False) with npu_run_config_init
rng = np.random.RandomState(0)
X = rng.rand(64, 4).astype(np.float32)
Y = (X.sum(1) > 2).astype(np.int32)

def input_fn(params):
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(params["batch_size"], drop_remainder=True)
    return ds

def model_fn(features, labels, mode, params):
    logits = tf.layers.dense(features, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    opt = tf.train.GradientDescentOptimizer(0.5)
    if params.get("use_tpu"):
        opt = tf.contrib.tpu.CrossShardOptimizer(opt)
    if mode == tf.estimator.ModeKeys.TRAIN:
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)
    def metric_fn(labels, logits):
        return {"accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1))}
    return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))

run_config = tf.contrib.tpu.RunConfig(
    model_dir=os.path.join(os.getcwd(), "model"), save_checkpoints_steps=20,
    tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=10, num_shards=1,
        per_host_input_for_training=tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2))
run_config = npu_run_config_init(run_config=run_config)
est = tf.contrib.tpu.TPUEstimator(model_fn=model_fn, config=run_config, use_tpu=False,
                                  train_batch_size=16, eval_batch_size=16, params={"use_tpu": False})
est.train(input_fn, max_steps=40)
res = est.evaluate(input_fn, steps=4)
r["tpu_global_step"] = int(res["global_step"])
r["tpu_accuracy"] = float(res["accuracy"])
r["tpu_npu_config"] = any(o.name == "NpuOptimizer" for o in run_config.session_config.graph_options.rewrite_options.custom_optimizers)
print("RESULT " + json.dumps(r))
'''


# The deep paths the last zoo probe stopped at (docs/real_scripts.md), used as those scripts do.
ZOO_PATHS = r'''
import json
import numpy as np
import npu_bridge.npu_init
import tensorflow as tf
from tensorflow.contrib.rnn.python.ops.rnn_cell import _Linear          # DIEN
from tensorflow.contrib.rnn.python.ops.core_rnn_cell import _Linear as _Linear2   # DIN
from tensorflow.contrib.framework.python.framework import tensor_util   # GNMT
from tensorflow.contrib.seq2seq.python.ops import decoder               # NMT
from tensorflow.contrib.image.ops import gen_image_ops                  # MVSNet
r = {"same_linear": _Linear is _Linear2}
x = tf.constant([[1.0, 2.0]]); h = tf.constant([[3.0]])
with tf.variable_scope("gates"):
    lin = _Linear([x, h], 2, True, bias_initializer=tf.constant_initializer(0.5),
                  kernel_initializer=tf.constant_initializer([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]]))
with tf.variable_scope("single"):
    one = _Linear(x, 3, False, kernel_initializer=tf.ones_initializer())
y, y1 = lin([x, h]), one(x)
r["vars"] = sorted(v.name for v in tf.global_variables())
errs = []
for bad in ([], tf.zeros([2]), tf.placeholder(tf.float32, [None, None])):
    try:
        _Linear(bad, 2, True)
    except ValueError as e:
        errs.append(str(e).split(":")[0])
r["linear_errors"] = errs
a = tf.zeros([2, 3]); b = tf.placeholder(tf.float32, [None, 3])
same = tensor_util.with_same_shape(a, b)
try:
    tensor_util.with_same_shape(a, tf.zeros([3, 2])); r["static_mismatch"] = None
except ValueError as e:
    r["static_mismatch"] = str(e)
bt = decoder._transpose_batch_time(tf.reshape(tf.range(6), [1, 2, 3]))
img = tf.reshape(tf.range(9, dtype=tf.float32), [1, 3, 3, 1])
shifted = gen_image_ops.image_projective_transform_v2(   # translate by +1 in x (MVSNet's call)
    img, output_shape=[3, 3], transforms=tf.constant([[1, 0, 1, 0, 1, 0, 0, 0]], tf.float32),
    interpolation="NEAREST")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    r["y"], r["y1"] = sess.run(y).tolist(), sess.run(y1).tolist()
    r["same"] = sess.run(same, {b: np.ones([2, 3])}).tolist()
    try:
        sess.run(same, {b: np.ones([4, 3])}); r["dynamic_mismatch"] = False
    except tf.errors.InvalidArgumentError:
        r["dynamic_mismatch"] = True
    r["bt"] = sess.run(bt).shape
    r["shifted"] = sess.run(shifted)[0, :, :, 0].tolist()
r["bt"] = list(r["bt"])
r["assert_scalar"] = tensor_util.assert_scalar is tf.debugging.assert_scalar
from tensorflow.python.framework import ops as framework_ops                # GNMT's variable_mgr
r["conversion"] = framework_ops.register_tensor_conversion_function is tf.register_tensor_conversion_function
from tensorflow.contrib.seq2seq import dynamic_decode                   # Tacotron2
from tensorflow.contrib.util import loader                              # MVSNet (import only)
from tensorflow.contrib.all_reduce.python import all_reduce             # GNMT
with tf.device("/cpu:0"):
    ring = all_reduce.build_shuffle_all_reduce([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])],
                                               ["/cpu:0"], tf.add_n)   # shuffle reduces a list
r["all_reduce_same"] = tf.contrib.all_reduce.build_shuffle_all_reduce is all_reduce.build_shuffle_all_reduce
class Count(decoder.Decoder):   # a TF 1.x decoder (NMT's BasicDecoder(decoder.Decoder) form)
    batch_size = 2
    output_size = tf.TensorShape([])
    output_dtype = tf.float32
    def initialize(self, name=None):
        return tf.constant([False, False]), tf.zeros([2]), tf.zeros([2, 1])   # state [batch, 1]
    def step(self, time, inputs, state, name=None):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        return (state[:, 0] + 1.0) * w, state + 1.0, inputs, time + 1 >= tf.constant([2, 3])
r["decoder_same"] = decoder.Decoder is tf.contrib.seq2seq.Decoder
outs, state, lengths = dynamic_decode(Count(), impute_finished=True, maximum_iterations=5)
r["decode_vars"] = [v.name for v in tf.global_variables() if "w:" in v.name]
try:
    dynamic_decode(object()); r["decode_type"] = None
except TypeError as e:
    r["decode_type"] = str(e)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    o, st, ln = sess.run([outs, state, lengths])
    r["ring"] = [t.tolist() for t in sess.run(ring)]
r["decode"] = [o.tolist(), st.tolist(), ln.tolist()]
try:
    loader.load_op_library("x.so"); r["loader"] = None
except AttributeError as e:
    r["loader"] = str(e)
from tensorflow.python.keras.utils import multi_gpu_model              # voxelmorph
r["multi_gpu"] = []
for gpus in (1, 2, [0, 1]):
    try:
        multi_gpu_model(None, gpus=gpus)
    except ValueError as e:
        r["multi_gpu"].append(str(e))
print("RESULT " + json.dumps(r))
'''


def test_zoo_deep_paths_linear_tensor_util_decoder_image_ops(tmp_path):
    r = run_scenario(tmp_path, ZOO_PATHS)
    assert r["same_linear"] is True
    # hand computation: [1, 2, 3] @ [[1, 0], [0, 1], [2, -1]] + 0.5 = [7.5, -0.5]; [1, 2] @ ones
    assert r["y"] == [[7.5, -0.5]] and r["y1"] == [[3.0, 3.0, 3.0]]
    assert r["vars"] == ["gates/bias:0", "gates/kernel:0", "single/kernel:0"]
    assert r["linear_errors"] == ["`args` must be specified", "linear is expecting 2D arguments",
                                  "linear expects shape[1] to be provided for shape (?, ?), but saw ?"]
    assert r["same"] == [[1.0] * 3] * 2 and r["dynamic_mismatch"] is True
    assert "incompatible" in r["static_mismatch"]
    assert r["bt"] == [2, 1, 3]
    # output(x, y) = input(x + 1, y); outside the image: 0 (TF 1.15 contrib's constant fill)
    assert r["shifted"] == [[1.0, 2.0, 0.0], [4.0, 5.0, 0.0], [7.0, 8.0, 0.0]]
    assert r["assert_scalar"] is True and r["conversion"] is True
    # hand computation: out_t = (t + 1) * w, w = 2; batch 0 finishes after 2 steps (imputed 0)
    assert r["decoder_same"] is True
    assert r["decode"] == [[[2.0, 4.0, 0.0], [2.0, 4.0, 6.0]], [[2.0], [3.0]], [2, 3]]
    assert r["decode_vars"] == ["decoder/w:0"]      # TF 1.15's variable scope
    assert r["decode_type"].startswith("Expected decoder to be type Decoder")
    assert "tf.contrib.util.loader.load_op_library is not available" in r["loader"]
    assert r["ring"] == [[4.0, 6.0], [4.0, 6.0]] and r["all_reduce_same"] is True   # both summed
    one, two, ids = r["multi_gpu"]      # TF 1.15's ValueErrors on a machine without GPUs
    assert "`gpus >= 2`. Received: `gpus=1`" in one
    assert "['/cpu:0', '/gpu:0', '/gpu:1']" in two and "only has: ['/cpu:0']" in two
    assert "`gpus=[0, 1]`" in ids


# EDSR's export (run.py): TransformGraph(graph_def, inputs, outputs, transforms) on TF's own
# C++ transforms, as TF 1.15's tensorflow/tools/graph_transforms/__init__.py called them.
GRAPH_TRANSFORMS = r'''
import json
import npu_bridge.npu_init
import tensorflow as tf
from tensorflow.tools.graph_transforms import TransformGraph
import tensorflow.tools.graph_transforms as gt
r = {"same": gt.TransformGraph is TransformGraph}
g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.constant([[1., 2.], [3., 4.], [5., 6.]], name="w")
    y = tf.identity(tf.matmul(x, w), name="y")
    tf.add(x, 1.0, name="unused")
out = TransformGraph(g.as_graph_def(), ["x"], ["y"], ["strip_unused_nodes", "sort_by_execution_order"])
r["type"] = type(out).__name__
r["nodes"] = sorted(n.name for n in out.node)
with tf.Graph().as_default() as g2:
    tf.import_graph_def(out, name="")
    with tf.Session() as sess:
        r["y"] = sess.run("y:0", {"x:0": [[1., 0., 1.]]}).tolist()
try:
    TransformGraph(g.as_graph_def(), ["x"], ["y"], ["no_such_transform"])
except Exception as e:
    r["bad"] = [type(e).__name__, str(e)]
print("RESULT " + json.dumps(r))
'''


def test_graph_transforms_transform_graph_runs_tensorflows_own_transforms(tmp_path):
    r = run_scenario(tmp_path, GRAPH_TRANSFORMS)
    assert r["same"] is True and r["type"] == "GraphDef"
    assert r["nodes"] == ["MatMul", "w", "x", "y"]      # "unused" stripped
    assert r["y"] == [[6.0, 8.0]]                       # [1, 0, 1] @ w by hand
    assert r["bad"] == ["ValueError", "Transform 'no_such_transform' not recognized."]


# EfficientDet / EfficientNet_V1 (the zoo probe): keras_applications' imagenet_utils (TF 1.15
# installed Keras-Applications 1.0.8) and Keras 2.x's keras.utils.*_utils module paths.
KERAS_PATHS = r'''
import json
import numpy as np
import npu_bridge.npu_init
import tensorflow as tf
import keras
from keras import backend as K
from keras_applications.imagenet_utils import _obtain_input_shape, decode_predictions
from keras_applications.imagenet_utils import preprocess_input as _preprocess
from keras.utils.generic_utils import get_custom_objects, CustomObjectScope
from keras.utils.layer_utils import count_params
import keras.utils.data_utils as data_utils
import keras.backend.tensorflow_backend as KTF
r = {}
r["ktf"] = KTF.set_session is tf.compat.v1.keras.backend.set_session and KTF.floatx() == "float32"
r["shape"] = list(_obtain_input_shape(None, default_size=224, min_size=32,
                                      data_format="channels_last", require_flatten=True))
x = np.array([[[[255.0, 0.0, 127.5]]]])
r["torch"] = [round(v, 4) for v in _preprocess(x, "channels_last", mode="torch", backend=K,
                                               layers=keras.layers, models=keras.models,
                                               utils=keras.utils)[0, 0, 0].tolist()]
try:
    _preprocess(x, mode="torch", engine=None)
except TypeError as e:
    r["bad_kwarg"] = str(e)
try:
    decode_predictions(np.zeros((1, 10)), backend=K)
except ValueError as e:
    r["decode"] = str(e)[:40]
r["custom"] = get_custom_objects() is keras.utils.get_custom_objects()
r["scope"] = CustomObjectScope is keras.utils.CustomObjectScope
r["sequence"] = data_utils.Sequence is keras.utils.Sequence
r["count"] = int(count_params([tf.compat.v1.Variable(np.zeros((2, 3)))]))
try:
    import keras_applications.resnet50
except ImportError as e:
    r["resnet"] = [type(e).__name__, str(e)]
print("RESULT " + json.dumps(r))
'''


def test_keras_applications_imagenet_utils_and_keras_2_utils_paths(tmp_path):
    r = run_scenario(tmp_path, KERAS_PATHS)
    assert r["shape"] == [224, 224, 3]
    # torch mode by hand: (x / 255 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    assert r["torch"] == [2.2489, -2.0357, 0.4178]
    assert r["bad_kwarg"] == "Invalid keyword argument: engine"
    assert r["decode"] == "`decode_predictions` expects a batch of "
    assert r["ktf"] is True         # Keras 2.2's backend module: the v1 Keras backend
    assert r["custom"] and r["scope"] and r["sequence"] and r["count"] == 6
    kind, message = r["resnet"]
    assert kind == "MissingTF1ModuleError" and message.startswith("keras_applications.resnet50 is not available")
    assert "keras.applications" in message


# MLSP (the zoo probe, issue 25): standalone Keras 2.2/2.3's keras.engine package and its
# keras.engine.topology module (Keras 2.15 keeps them in keras.src.engine, Network renamed
# Functional).
KERAS_ENGINE = r'''
import json
import numpy as np
import npu_bridge.npu_init
import tensorflow as tf
import keras
from keras import backend as K
from keras.engine.topology import Layer, InputSpec, Node, Input, InputLayer, Network, get_source_inputs
from keras.engine import Model as EngineModel, Input as EngineInput, Layer as EngineLayer
from keras.engine.training import Model
from keras.engine.base_layer import Layer as BaseLayer
from keras.engine import base_layer_utils
r = {"same": [Layer is keras.layers.Layer, InputSpec is keras.layers.InputSpec,
              Input is keras.Input, InputLayer is keras.layers.InputLayer,
              Model is keras.Model, EngineModel is keras.Model, EngineInput is keras.Input,
              EngineLayer is keras.layers.Layer, BaseLayer is keras.layers.Layer,
              Node.__name__ == "Node",
              base_layer_utils.make_variable.__module__ == "keras.src.engine.base_layer_utils"]}


class Scale(Layer):   # MLSP's kutils layers subclass keras.engine.topology.Layer
    def build(self, input_shape):
        self.input_spec = InputSpec(ndim=2)
        self.w = self.add_weight(name="w", shape=(1,), initializer="ones")
        super().build(input_shape)

    def call(self, x):
        return x * self.w * 3.0


inp = Input(shape=(2,))
model = Model(inp, Scale()(inp))
r["sources"] = [t is inp for t in get_source_inputs(model.outputs[0])]
r["network"] = isinstance(model, Network)   # a functional Model: Keras 2.3's Network
r["value"] = model.predict(np.array([[1.0, 2.0]], np.float32)).tolist()
try:
    from keras.engine.topology import no_such_name
except ImportError as e:
    r["missing"] = [type(e).__name__, str(e)[:60]]
# CS-GAN (5 zoo files): TF 1.15's tensorflow.python.keras.datasets, a CIFAR batch file read
import pickle
from tensorflow.python.keras.datasets.cifar import load_batch
from tensorflow.python.keras.datasets import mnist
with open("batch", "wb") as fh:
    pickle.dump({b"data": (np.arange(3072).reshape(1, 3072) % 251).astype(np.uint8), b"labels": [7]}, fh)
data, labels = load_batch("batch")
r["cifar"] = [list(data.shape), int(data[0, 2, 31, 31]), labels, callable(mnist.load_data)]
print("RESULT " + json.dumps(r))
'''


def test_keras_2_engine_and_topology_and_tf_keras_datasets_paths(tmp_path):
    r = run_scenario(tmp_path, KERAS_ENGINE)
    assert r["same"] == [True] * 11, r["same"]
    assert r["sources"] == [True] and r["network"] is True
    assert r["value"] == [[3.0, 6.0]]
    assert r["missing"][0] in ("MissingTF1ModuleError", "MissingTF1AttributeError"), r["missing"]
    # the batch's last value (index 3071: 3071 % 251 = 59) is channel 2's pixel (31, 31)
    assert r["cifar"] == [[1, 3, 32, 32], 59, [7], True]


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    return run_scenario(tmp_path_factory.mktemp("forms"), FORMS)


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return run_scenario(tmp_path_factory.mktemp("graph"), GRAPH)


def test_internal_module_paths_import_and_fail_on_use(forms):
    assert forms["internal_bdr"] == [[0, 1, 2], [3, 4, 5]] and forms["internal_bdr_end"] is True
    assert forms["internal_cudnn_cell"] is True and forms["internal_rnn_cell"] is True
    errs = forms["internal_errs"]
    for key, name, hint in (
            ("cudnn_lstm", "tf.contrib.cudnn_rnn.python.layers.cudnn_rnn.CudnnLSTM", "keras.layers.LSTM"),
            ("decoder", "tf.contrib.seq2seq.python.ops.decoder.BaseDecoder", "tensorflow_addons"),
            ("matcher", "tf.contrib.quantize.python.graph_matcher.GraphMatcher",
             "tensorflow_model_optimization"),
            ("linear", "tf.contrib.rnn.python.ops.core_rnn_cell._linear", "layers.dense")):
        kind, message = errs[key]
        assert kind == "MissingTF1AttributeError", key
        assert message.startswith(name + " is not available") and hint in message, message
    assert errs["from_linear"][0] == "MissingTF1ModuleError"
    assert "core_rnn_cell._linear is not available" in errs["from_linear"][1]


def test_lazy_nothing_heavy_until_contrib_is_touched(forms):
    assert forms["lazy_before"] == []                  # after npu_init + tensorflow
    assert forms["lazy_after_slim"] == ["tf_slim"]      # tf.contrib.slim loads tf_slim only
    assert forms["lazy_after_forms"] == ["tf_slim"]     # tpu/rnn/data/... load no tfp / tfa
    assert forms["tfp"] is True                         # distributions: tensorflow_probability
    assert forms["lib_has_contrib"] is False            # TF 2 libraries do not see tf.contrib


def test_every_import_form_gives_the_maintained_object(forms):
    assert forms["slim_conv_same"] is True
    assert forms["forms"] == {k: True for k in forms["forms"]}, forms["forms"]


def test_deep_paths_and_moved_modules_the_zoo_probe_met(forms):
    probe = dict(forms["probe_forms"])
    assert probe.pop("idg") == "ImageDataGenerator"
    assert probe == {k: True for k in probe}, probe
    probe = dict(forms["probe_forms2"])
    assert probe.pop("mobilenet") == "MobileNet"
    assert probe.pop("eulsm") == "ExponentialUpdateLossScaleManager"   # via tensorflow_core
    assert probe == {k: True for k in probe}, probe


@pytest.mark.parametrize("key,name,hint", [
    ("quantize", "tf.contrib.quantize.create_training_graph", "tensorflow_model_optimization"),
    ("learn", "tf.contrib.learn.Experiment", "tf.estimator"),
    ("cloud", "tf.contrib.cloud.BigQueryReader", "tensorflow_io"),
    ("tfprof", "tf.contrib.tfprof.model_analyzer", "tf.compat.v1.profiler"),
    ("opt", "tf.contrib.opt.AdamWOptimizer", "tensorflow_addons.optimizers.AdamW"),
    ("seq2seq", "tf.contrib.seq2seq.BeamSearchDecoder", "tensorflow_addons.seq2seq"),
    ("embed", "tf.contrib.layers.embed_sequence", "tf.keras.layers.Embedding"),
])
def test_missing_names_raise_attribute_errors_naming_the_replacement(forms, key, name, hint):
    kind, message = forms["errors"][key]
    assert kind == "MissingTF1AttributeError"
    assert message.startswith(name + " is not available") and hint in message
    assert forms["hasattr_missing"] is False


@pytest.mark.parametrize("key,name,hint", [
    ("unknown_sub", "tf.contrib.nosuchthing", "no single replacement"),
    ("from_quantize", "tf.contrib.quantize.experimental_create_training_graph",
     "tensorflow_model_optimization"),
])
def test_missing_imports_raise_import_errors_naming_the_replacement(forms, key, name, hint):
    kind, message = forms["errors"][key]
    assert kind == "MissingTF1ModuleError"
    assert message.startswith(name + " is not available") and hint in message


def test_contrib_layers_build_v1_graph_variables_and_collections(graph):
    assert graph["update_ops"] == 2            # batch_norm's moving mean and variance
    assert graph["reg_losses"] == 1            # l2_regularizer on the conv weights
    assert graph["restore"] == [
        "Conv/BatchNorm/beta", "Conv/BatchNorm/moving_mean", "Conv/BatchNorm/moving_variance",
        "Conv/weights", "LayerNorm/beta", "LayerNorm/gamma", "fully_connected/biases",
        "fully_connected/weights"]
    assert graph["model_vars"] == 8 and graph["var_types"] == ["RefVariable"]
    first, last = graph["loss"]
    assert last < first / 5, graph["loss"]
    assert graph["moving_mean_moved"] is True


def test_contrib_data_and_rnn(graph):
    assert graph["map_and_batch"] == [[0, 2, 4, 6], [8, 10, 12, 14]]
    rnn = graph["rnn"]
    assert rnn["out"] == [2, 5, 4] and rnn["state_is_tuple"] and rnn["static"] == 5
    assert rnn["cudnn_vars"] == ["cudnn/cudnn_compatible_lstm_cell/bias",
                                 "cudnn/cudnn_compatible_lstm_cell/kernel"]
    assert rnn["loss_down"] is True


def test_moved_tensorflow_and_keras_names(graph):
    moved = graph["moved"]
    assert moved["is_sequence"] == [True, False]
    assert moved["ctx"] and moved["ctx_old"] and moved["keras_layers"] and moved["impl_keras"]
    assert moved["np_utils"] == [[0.0, 1.0], [1.0, 0.0]]
    assert moved["deconv2d"] and moved["optimizer_options"] and moved["set_policy"]
    assert moved["policy"] == "Policy"
    assert moved["threadpool"] == 2
    assert moved["checkpoint"] == [1.0, 2.0]
    assert moved["summary_files"] == 1
    assert moved["keras_session"] is True


def test_mnist_input_data_reads_local_files_and_names_missing_ones(graph):
    missing = graph["mnist_missing"]
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                 "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"):
        assert name in missing
    assert "does not download" in missing
    mnist = graph["mnist"]
    assert (mnist["train"], mnist["val"], mnist["test"]) == (10, 2, 4)
    assert mnist["batch"] == [[4, 784], [4, 10]] and mnist["max"] <= 1.0
    assert mnist["epochs"] == [1]              # 4 + 8 > 10 examples: one epoch completed


def test_flags_take_a_str_enum_values_as_tf115_absl(graph):
    assert len(graph["flag_warning"]) == 1 and "keras', 'graph_rewrite" in graph["flag_warning"][0]
    assert graph["flag_value"] == "graph_rewrite"
    assert "fp16_implementation=nope" in graph["flag_bad"]


def test_tpu_estimator_use_tpu_false_trains_and_evaluates_on_cpu(graph):
    assert graph["tpu_global_step"] == 40
    assert graph["tpu_accuracy"] >= 0.75
    assert graph["tpu_npu_config"] is True


def test_table_rows_are_data():
    # every row names a target (or a replacement) and where the mapping comes from
    for key, row in tf1_contrib.MOVED.items():
        assert isinstance(row, tf1_contrib.Row), key
        if row.target is None or row.target == ():
            assert row.nearest, key
        else:
            assert row.version and row.source, key
    assert tf1_contrib.lookup_equivalent("tf.contrib.rnn.LSTMCell") == \
        "tf.compat.v1.nn.rnn_cell.LSTMCell"
    assert tf1_contrib.lookup_equivalent("tf.contrib.layers.python.layers.initializers") == \
        "tf_slim.layers.initializers"
