"""One rank of the data-parallel training checks (tests/test_ranks.py): a linear model on this
rank's share of the data, rank 0's initial weights broadcast, gradients averaged; with a
session loop (NPUDistributedOptimizer + broadcast), NPUEstimator (its broadcast hook),
npu_distributed_optimizer_wrapper + the npu_hooks_append hook in a MonitoredSession,
NPULossScaleOptimizer(is_distributed=True) with an overflow on one rank only, and Keras
(KerasDistributeOptimizer + the broadcast callback). Writes $RANKS_OUT/rank<N>.json."""
import json
import os

import numpy as np

from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf
from hccl.manage.api import get_rank_id, get_rank_size
from npu_bridge.estimator.npu import npu_optimizer

STEPS, LR, FEATURES, ROWS = 20, 0.1, 4, 32
R, N = get_rank_id(), get_rank_size()
OUT = os.environ["RANKS_OUT"]
v1 = tf.compat.v1
rng = np.random.RandomState(3)
X = rng.randn(ROWS, FEATURES).astype(np.float32)
Y = (X @ np.arange(1, FEATURES + 1, dtype=np.float32) - 0.25).reshape(-1, 1)
SHARD = slice(R * ROWS // N, (R + 1) * ROWS // N)
PARTS = os.environ.get("RANKS_PARTS", "session,estimator,wrapper_hook,loss_scale,keras").split(",")
results = {}


def model(xs, ys):
    w = v1.get_variable("w", initializer=tf.fill([FEATURES, 1], float(R + 2)))
    b = v1.get_variable("b", initializer=tf.fill([1], float(-R)))
    return w, b, tf.reduce_mean(tf.square(tf.matmul(xs, w) + b - ys))


# 1. session loop: broadcast + NPUDistributedOptimizer
with tf.Graph().as_default():
    w, b, loss = model(tf.constant(X[SHARD]), tf.constant(Y[SHARD]))
    train = NPUDistributedOptimizer(v1.train.GradientDescentOptimizer(LR)).minimize(loss)
    bc = hccl_ops.broadcast([w, b], 0)
    sync = tf.group(v1.assign(w, bc[0]), v1.assign(b, bc[1]))
    # npu_optimizer.allreduce: the mean of a per-rank value
    mean = npu_optimizer.allreduce(tf.constant([float(R)]), average=True)
    with v1.Session(config=npu_config_proto()) as sess:
        sess.run(v1.global_variables_initializer())
        sess.run(sync)
        for _ in range(STEPS):
            sess.run(train)
        wv, bv, mv = sess.run([w, b, mean])
    results["session"] = {"w": wv.ravel().tolist(), "b": bv.tolist()}
    results["allreduce_mean"] = mv.tolist()

if PARTS == ["session"]:
    with open(os.path.join(OUT, "rank%d.json" % R), "w") as fh:
        json.dump(results, fh)
    raise SystemExit(0)


# 2. NPUEstimator: its NPUBroadcastGlobalVariablesHook gives every rank rank 0's start
def model_fn(features, labels, mode, params):
    w, b, loss = model(features, labels)
    opt = NPUDistributedOptimizer(v1.train.GradientDescentOptimizer(LR))
    train_op = opt.minimize(loss, global_step=v1.train.get_or_create_global_step())
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensors((X[SHARD], Y[SHARD])).repeat()


est = NPUEstimator(model_fn=model_fn, config=NPURunConfig(
    model_dir=os.path.join(OUT, "model%d" % R), save_checkpoints_steps=STEPS, log_step_count_steps=None,
    save_summary_steps=0))
est.train(input_fn, max_steps=STEPS)
results["estimator"] = {"w": est.get_variable_value("w").ravel().tolist(),
                        "b": est.get_variable_value("b").tolist()}

# 3. npu_distributed_optimizer_wrapper + the hook npu_hooks_append adds, MonitoredSession
with tf.Graph().as_default():
    w, b, loss = model(tf.constant(X[SHARD]), tf.constant(Y[SHARD]))
    opt = npu_distributed_optimizer_wrapper(v1.train.GradientDescentOptimizer(LR))
    train = opt.minimize(loss)
    hooks = npu_hooks_append([])
    with v1.train.MonitoredSession(session_creator=v1.train.ChiefSessionCreator(
            config=npu_config_proto()), hooks=hooks) as sess:
        for _ in range(STEPS):
            sess.run(train)
        wv, bv = sess.run([w, b])
    results["wrapper_hook"] = {"w": wv.ravel().tolist(), "b": bv.tolist()}

# 4. NPULossScaleOptimizer(is_distributed=True): an overflow on rank 1 only skips the step on all
with tf.Graph().as_default():
    w, b, loss = model(tf.constant(X[SHARD]), tf.constant(Y[SHARD]))
    bad = tf.compat.v1.placeholder(tf.float32, [])
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10, incr_every_n_steps=1000,
                                                decr_every_n_nan_or_inf=1, decr_ratio=0.5)
    opt = NPULossScaleOptimizer(NPUDistributedOptimizer(v1.train.GradientDescentOptimizer(LR)),
                                manager, is_distributed=True)
    train = opt.minimize(loss * bad)
    bc = hccl_ops.broadcast([w, b], 0)
    sync = tf.group(v1.assign(w, bc[0]), v1.assign(b, bc[1]))
    with v1.Session(config=npu_config_proto()) as sess:
        sess.run(v1.global_variables_initializer())
        sess.run(sync)
        before = sess.run(w)
        sess.run(train, {bad: np.inf if R == 1 else 1.0})
        after_overflow = sess.run(w)
        scale = sess.run(manager.get_loss_scale())
        sess.run(train, {bad: 1.0})
        after_good = sess.run(w)
    results["loss_scale"] = {"skipped": bool(np.array_equal(before, after_overflow)),
                             "scale": float(scale),
                             "moved": bool(not np.array_equal(after_good, after_overflow)),
                             "w": after_good.ravel().tolist()}

# 5. Keras: KerasDistributeOptimizer + NPUBroadcastGlobalVariablesCallback
with tf.Graph().as_default():
    sess = v1.Session(config=npu_config_proto())
    tf.compat.v1.keras.backend.set_session(sess)
    layer = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(R + 2.0),
                                  bias_initializer=tf.keras.initializers.Constant(-R))
    kmodel = tf.keras.Sequential([tf.keras.Input((FEATURES,)), layer])
    kmodel.compile(optimizer=KerasDistributeOptimizer(tf.keras.optimizers.legacy.SGD(LR)), loss="mse")
    kmodel.fit(X[SHARD], Y[SHARD], batch_size=ROWS // N, epochs=STEPS, shuffle=False, verbose=0,
               callbacks=[NPUBroadcastGlobalVariablesCallback(0)])
    kw, kb = layer.get_weights()
    results["keras"] = {"w": kw.ravel().tolist(), "b": kb.tolist()}

with open(os.path.join(OUT, "rank%d.json" % R), "w") as fh:
    json.dump(results, fh)
