"""tf.contrib.seq2seq and tf.contrib.opt in the TF 1.x mode, as TF 1.x graph-mode scripts use
them: what TensorFlow Addons serves with the TF 1.x meaning (attention, sequence_loss,
tile_batch), the project's LazyAdamOptimizer (a v1 Optimizer), and the errors for the rest."""
import pytest

from tests._contrib_helper import run_scenario

SCENARIO = r'''
import json
import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *
from tensorflow.contrib.seq2seq.python.ops import attention_wrapper   # the NMT / GNMT form

r = {}
B, T, D, U, V = 3, 5, 4, 6, 7
rng = np.random.RandomState(0)

# tile_batch and sequence_loss: TF 1.15's meaning, in a graph
r["tile"] = tf.Session().run(tf.contrib.seq2seq.tile_batch(tf.constant([[1, 2], [3, 4]]), 2)).tolist()
logits_np = rng.randn(2, 3, V).astype(np.float32)
targets_np = rng.randint(0, V, (2, 3)).astype(np.int32)
weights_np = np.array([[1, 1, 0], [1, 0, 0]], np.float32)
loss_t = tf.contrib.seq2seq.sequence_loss(tf.constant(logits_np), tf.constant(targets_np),
                                          tf.constant(weights_np))
p = np.exp(logits_np) / np.exp(logits_np).sum(-1, keepdims=True)
xent = -np.log(np.take_along_axis(p, targets_np[..., None], -1)[..., 0])
r["seq_loss"] = [float(tf.Session().run(loss_t)), float((xent * weights_np).sum() / weights_np.sum())]

# an NMT-style attention decoder (TF 1.x): zero_state(...).clone(cell_state=...), dynamic_rnn
src = tf.placeholder(tf.float32, [B, T, D])
src_len = tf.placeholder(tf.int32, [B])
tgt_in = tf.placeholder(tf.float32, [B, 4, D])
tgt_out = tf.placeholder(tf.int32, [B, 4])
with tf.variable_scope("encoder"):
    enc_out, enc_state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(U), src, sequence_length=src_len,
                                           dtype=tf.float32)
results = {}
for kind, make in (("luong", lambda: tf.contrib.seq2seq.LuongAttention(U, enc_out, memory_sequence_length=src_len, scale=True)),
                   ("bahdanau", lambda: attention_wrapper.BahdanauAttention(U, enc_out, memory_sequence_length=src_len, normalize=True))):
    with tf.variable_scope("decoder_" + kind):
        cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(U), make(),
                                                   attention_layer_size=U, alignment_history=True)
        init = cell.zero_state(B, tf.float32).clone(cell_state=enc_state)
        out, final = tf.nn.dynamic_rnn(cell, tgt_in, initial_state=init)
        logits = tf.layers.dense(out, V)
        loss = tf.contrib.seq2seq.sequence_loss(logits, tgt_out, tf.ones([B, 4]))
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        results[kind] = (init, final.alignment_history.stack(), loss, train)
feed = {src: rng.randn(B, T, D), src_len: [5, 3, 1], tgt_in: rng.randn(B, 4, D),
        tgt_out: rng.randint(0, V, (B, 4))}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for kind, (init, align, loss, train) in results.items():
        r[kind + "_state"] = type(init).__name__ == "AttentionWrapperState" and isinstance(
            init, tf.contrib.seq2seq.AttentionWrapperState)
        first = sess.run(loss, feed)
        for _ in range(30):
            sess.run(train, feed)
        a = sess.run(align, feed)                    # [decoder time, batch, memory time]
        r[kind] = {"loss": [float(first), float(sess.run(loss, feed))],
                   "align_sums": np.allclose(a.sum(-1), 1.0, atol=1e-5),
                   "masked": [float(a[:, 1, 3:].max()), float(a[:, 2, 1:].max())]}
    r["global_step"] = int(sess.run(tf.train.get_global_step()))

# BasicDecoder with TrainingHelper (training) and GreedyEmbeddingHelper (inference, reusing
# the variables), as TF 1.x NMT scripts decode
from tensorflow.contrib.seq2seq.python.ops.helper import TrainingHelper
g = tf.Graph()
with g.as_default():
    emb = tf.get_variable("emb", [V, D])
    ids = tf.placeholder(tf.int32, [B, 4])
    ids_len = tf.placeholder(tf.int32, [B])
    state0 = tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([B, U]), tf.ones([B, U]))
    with tf.variable_scope("dec") as scope:
        cell = tf.nn.rnn_cell.LSTMCell(U)
        dense = tf.layers.Dense(V, name="output_projection")
        helper = TrainingHelper(tf.nn.embedding_lookup(emb, ids), ids_len)
        decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, state0, output_layer=dense)
        out, _, lengths = tf.contrib.seq2seq.dynamic_decode(decoder, scope=scope)
        mask = tf.sequence_mask(ids_len, tf.shape(out.rnn_output)[1], dtype=tf.float32)
        loss = tf.contrib.seq2seq.sequence_loss(out.rnn_output, ids[:, :tf.shape(out.rnn_output)[1]], mask)
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=tf.train.get_or_create_global_step())
    n_vars = len(tf.global_variables())
    with tf.variable_scope("dec", reuse=True) as scope:
        greedy = tf.contrib.seq2seq.GreedyEmbeddingHelper(emb, tf.fill([B], 1), 2)
        infer = tf.contrib.seq2seq.BasicDecoder(cell, greedy, state0, output_layer=dense)
        inf_out, _, inf_len = tf.contrib.seq2seq.dynamic_decode(infer, maximum_iterations=6, scope=scope)
    class ThreeSteps(tf.contrib.seq2seq.Helper):          # a TF 1.x Helper subclass
        batch_size = property(lambda self: B)
        sample_ids_shape = property(lambda self: tf.TensorShape([]))
        sample_ids_dtype = property(lambda self: tf.int32)
        def initialize(self, name=None):
            return tf.zeros([B], tf.bool), tf.zeros([B, D])
        def sample(self, time, outputs, state, name=None):
            return tf.argmax(outputs, -1, output_type=tf.int32)
        def next_inputs(self, time, outputs, state, sample_ids, name=None):
            return tf.fill([B], time + 1 >= 3), tf.zeros([B, D]), state
    with tf.variable_scope("dec", reuse=True) as scope:
        own = tf.contrib.seq2seq.BasicDecoder(cell, ThreeSteps(), state0, output_layer=dense)
        own_len = tf.contrib.seq2seq.dynamic_decode(own, scope=scope)[2]
    r["decoder_vars"] = sorted(v.name for v in tf.trainable_variables())
    r["reused"] = len(tf.global_variables()) == n_vars
    r["output_type"] = isinstance(out, tf.contrib.seq2seq.BasicDecoderOutput)
    feed = {ids: rng.randint(3, V, (B, 4)), ids_len: [4, 2, 3]}
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(30):
            sess.run(train, feed)
        r["dec_loss"] = [float(first), float(sess.run(loss, feed))]
        r["dec_lengths"] = sess.run(lengths, feed).tolist()
        logits, sample, n = sess.run([inf_out.rnn_output, inf_out.sample_id, inf_len])
        r["own_helper_len"] = sess.run(own_len).tolist()
        r["greedy"] = {"shape": list(sample.shape), "argmax": bool((logits.argmax(-1) == sample).all()),
                       "max_len": int(n.max())}

# LazyAdamOptimizer: a v1 Optimizer; a sparse gradient updates only its rows
def lazy_run(optimizer_cls, use_resource):
    g = tf.Graph()
    with g.as_default():
        emb = tf.get_variable("emb", initializer=np.arange(10, dtype=np.float32).reshape(5, 2),
                              use_resource=use_resource)
        dense = tf.get_variable("dense", initializer=np.ones(3, np.float32), use_resource=use_resource)
        ids = tf.placeholder(tf.int32, [None])
        loss = tf.reduce_sum(tf.gather(emb, ids) * [1.0, -2.0]) + tf.reduce_sum(tf.square(dense))
        step = tf.train.get_or_create_global_step()
        opt = optimizer_cls(0.1)
        train = opt.minimize(loss, global_step=step)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {ids: [0, 0, 2]})        # duplicate index: summed
            sess.run(train, {ids: [1]})
            return {"emb": sess.run(emb).tolist(), "dense": sess.run(dense).tolist(),
                    "m": sess.run(opt.get_slot(emb, "m")).tolist(), "step": int(sess.run(step))}
for res in (False, True):
    r["lazy_%s" % res] = lazy_run(tf.contrib.opt.LazyAdamOptimizer, res)
    r["adam_%s" % res] = lazy_run(tf.train.AdamOptimizer, res)
r["lazy_is_v1"] = issubclass(tf.contrib.opt.LazyAdamOptimizer, tf.train.Optimizer)

for name in ("seq2seq.ScheduledEmbeddingTrainingHelper", "seq2seq.CustomHelper",
             "seq2seq.BeamSearchDecoder", "opt.AdamWOptimizer", "opt.LARSOptimizer",
             "opt.NadamOptimizer", "opt.MovingAverageOptimizer", "graph_editor.reroute_ts",
             "legacy_seq2seq.sequence_loss_by_example"):
    def get(name=name):
        obj = tf.contrib
        for part in name.split("."):
            obj = getattr(obj, part)
    err(name, get)
def from_helper():
    from tensorflow.contrib.seq2seq.python.ops.helper import InferenceHelper
err("from_helper", from_helper)
r["errors"] = errors
print("RESULT " + json.dumps(r))
'''


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return run_scenario(tmp_path_factory.mktemp("s2s"), SCENARIO)


def test_tile_batch_and_sequence_loss_keep_tf1_meaning(result):
    assert result["tile"] == [[1, 2], [1, 2], [3, 4], [3, 4]]
    got, expected = result["seq_loss"]
    assert got == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("kind", ["luong", "bahdanau"])
def test_attention_wrapper_trains_as_a_tf1_cell(result, kind):
    assert result[kind + "_state"] is True
    got = result[kind]
    first, last = got["loss"]
    assert last < first * 0.8, got
    assert got["align_sums"] is True
    assert got["masked"] == [0.0, 0.0]          # memory_sequence_length masks the alignments
    assert result["global_step"] == 60


@pytest.mark.parametrize("res", [False, True])
def test_lazy_adam_updates_only_the_rows_of_a_sparse_gradient(result, res):
    lazy, adam = result["lazy_%s" % res], result["adam_%s" % res]
    assert result["lazy_is_v1"] is True and lazy["step"] == 2
    assert lazy["dense"] == pytest.approx(adam["dense"])        # dense: Adam's update
    emb, m = lazy["emb"], lazy["m"]
    assert emb[3] == [6.0, 7.0] and emb[4] == [8.0, 9.0] and m[3] == m[4] == [0.0, 0.0]
    # step 1: rows 0 (gradient summed over its two ids) and 2, Adam's first step (lr 0.1)
    assert emb[0] == pytest.approx([0 - 0.1, 1 + 0.1], abs=1e-5)       # step 2 left row 0 alone
    assert emb[2] == pytest.approx([4 - 0.1, 5 + 0.1], abs=1e-5)
    assert m[0] == pytest.approx([0.2, -0.4], abs=1e-6)                  # 0.1 * (2, -4)
    # step 2: row 1's first update, with the bias correction of step 2 (lazy: m was zero)
    lr2 = 0.1 * (1 - 0.999 ** 2) ** 0.5 / (1 - 0.9 ** 2) * 0.1 / 0.001 ** 0.5
    assert emb[1] == pytest.approx([2 - lr2, 3 + lr2], abs=1e-4)
    assert adam["emb"][0] != pytest.approx(emb[0], abs=1e-3)            # plain Adam moved it


@pytest.mark.parametrize("name,hint", [
    ("seq2seq.ScheduledEmbeddingTrainingHelper", "ScheduledEmbeddingTrainingSampler"),
    ("seq2seq.CustomHelper", "tensorflow_addons.seq2seq.CustomSampler"),
    ("seq2seq.BeamSearchDecoder", "tensorflow_addons.seq2seq.BeamSearchDecoder(cell, beam_width"),
    ("opt.AdamWOptimizer", "no global_step"),
    ("opt.LARSOptimizer", "tf.compat.v1.train.MomentumOptimizer"),
    ("opt.NadamOptimizer", "tf.keras.optimizers.Nadam"),
    ("opt.MovingAverageOptimizer", "ExponentialMovingAverage"),
    ("graph_editor.reroute_ts", "import_graph_def"),
    ("legacy_seq2seq.sequence_loss_by_example", "tensorflow_addons.seq2seq.sequence_loss"),
])
def test_names_without_tf1_meaning_are_errors_naming_the_nearest(result, name, hint):
    kind, message = result["errors"][name]
    assert kind == "MissingTF1AttributeError"
    assert message.startswith("tf.contrib.%s is not available" % name) and hint in message


def test_basic_decoder_with_tf1_helpers_trains_and_decodes_greedily(result):
    # dynamic_decode(scope=scope) opens that scope (TF 1.15: variable_scope(scope, "decoder"))
    assert result["decoder_vars"] == ["dec/lstm_cell/bias:0", "dec/lstm_cell/kernel:0",
                                      "dec/output_projection/bias:0",
                                      "dec/output_projection/kernel:0", "emb:0"]
    assert result["reused"] is True and result["output_type"] is True
    first, last = result["dec_loss"]
    assert last < first * 0.5, result["dec_loss"]
    assert result["dec_lengths"] == [4, 2, 3]
    assert result["own_helper_len"] == [3, 3, 3]
    greedy = result["greedy"]
    assert greedy["argmax"] is True and greedy["shape"][0] == 3 and greedy["max_len"] <= 6


def test_from_import_of_a_helper_is_an_import_error_naming_the_sampler(result):
    kind, message = result["errors"]["from_helper"]
    assert kind == "MissingTF1ModuleError" and "InferenceSampler" in message
