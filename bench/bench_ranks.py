"""Benchmark: a 2-rank data-parallel MLP step under `npu-bridge run --ranks 2` against the same
graph written directly with TensorFlow's collective ops, plus a 4 MiB allreduce.

Run plainly, this script starts itself with `python -m npu_bridge run --no-report --ranks 2`.
In each rank, one tf.Graph holds two copies of the same MLP (784-256-256-10, batch 64, SGD):
- shim: `NPUDistributedOptimizer` (gradients through `hccl_ops.allreduce`), trained with
  `Session.run` as patched by npu_bridge (the run's collective key, the timeout diagnosis);
- baseline: the same gradients averaged with `collective_ops.all_reduce(..., "Add", "Id")`
  divided by the rank count (the graph the shim builds, keys chosen by hand), trained with
  TensorFlow's own `Session.run` (the patch's wrapper bypassed) on the same session.
Both ranks alternate chunks of --chunk steps of each variant in the same order; the figure is
the median over chunks of (shim seconds per step) / (baseline seconds per step), after
--warmup steps. Then an allreduce "sum" of 4 MiB (1,048,576 float32) is timed (median of
--reps runs) through `hccl_ops.allreduce`.

Prints (rank 0's figures):
    ranks2_mlp_step ratio=R (baseline=X ms/step, shim=Y ms/step) bound 1.05 ok|FAILED
    ranks2_allreduce_4MiB time=T ms algbw=A MB/s busbw=B MB/s
Usage: python bench/bench_ranks.py [--chunks N] [--chunk N] [--warmup N] [--reps N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BOUND = 1.05
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _mlp(tf, x, y, scope):
    with tf.compat.v1.variable_scope(scope):
        h = x
        for i, width in enumerate((256, 256)):
            h = tf.compat.v1.layers.dense(h, width, tf.nn.relu, name="d%d" % i,
                                          kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=i))
        logits = tf.compat.v1.layers.dense(h, 10, name="out",
                                           kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=9))
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def worker(args):
    import numpy as np
    from npu_bridge.npu_init import NPUDistributedOptimizer, hccl_ops, npu_config_proto  # noqa: F401
    import tensorflow as tf
    from tensorflow.python.client import session as session_lib
    from tensorflow.python.ops import collective_ops
    from hccl.manage.api import get_rank_id, get_rank_size

    rank, size = get_rank_id(), get_rank_size()
    rng = np.random.RandomState(rank)
    x = tf.constant(rng.rand(64, 784).astype(np.float32))
    y = tf.constant(rng.randint(0, 10, 64).astype(np.int64))
    opt = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    shim_train = NPUDistributedOptimizer(opt).minimize(_mlp(tf, x, y, "shim"),
                                                       var_list=tf.compat.v1.trainable_variables("shim"))
    loss = _mlp(tf, x, y, "base")
    grads = opt.compute_gradients(loss, var_list=tf.compat.v1.trainable_variables("base"))
    averaged = [(collective_ops.all_reduce(g, size, 4000, 4000 * 64 + i, "Add", "Id") / size, v)
                for i, (g, v) in enumerate(grads)]
    base_train = opt.apply_gradients(averaged)
    big = hccl_ops.allreduce(tf.constant(np.ones(1 << 20, np.float32)), "sum")
    plain_run = session_lib.BaseSession.run._npu_bridge_original   # TensorFlow's own run
    with tf.compat.v1.Session(config=npu_config_proto()) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        for _ in range(args.warmup):
            sess.run(shim_train)
            plain_run(sess, base_train)
        ratios, shim_t, base_t = [], [], []
        for i in range(args.chunks):
            order = ("shim", "base") if i % 2 == 0 else ("base", "shim")
            took = {}
            for name in order:
                start = time.perf_counter()
                for _ in range(args.chunk):
                    if name == "shim":
                        sess.run(shim_train)
                    else:
                        plain_run(sess, base_train)
                took[name] = (time.perf_counter() - start) / args.chunk
            ratios.append(took["shim"] / took["base"])
            shim_t.append(took["shim"])
            base_t.append(took["base"])
        got = sess.run(big)
        assert float(got[0]) == size, got[0]
        times = []
        for _ in range(args.reps):
            start = time.perf_counter()
            sess.run(big.op)
            times.append(time.perf_counter() - start)
    out = {"rank": rank, "ratio": statistics.median(ratios), "shim_ms": 1e3 * statistics.median(shim_t),
           "base_ms": 1e3 * statistics.median(base_t), "allreduce_s": statistics.median(times)}
    print("BENCH " + json.dumps(out), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--chunk", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--worker", action="store_true")
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return 0
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="2")
    for var in ("RANK_SIZE", "RANK_ID", "RANK_TABLE_FILE"):
        env.pop(var, None)
    cmd = [sys.executable, "-m", "npu_bridge", "run", "--no-report", "--ranks", "2",
           os.path.abspath(__file__), "--worker", "--chunks", str(args.chunks), "--chunk", str(args.chunk),
           "--warmup", str(args.warmup), "--reps", str(args.reps)]
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    found = {}
    for line in proc.stdout.splitlines():
        if "BENCH " in line:
            data = json.loads(line.split("BENCH ", 1)[1])
            found[data["rank"]] = data
    if proc.returncode != 0 or 0 not in found:
        print(proc.stdout[-3000:], proc.stderr[-3000:], file=sys.stderr)
        print("ranks2 bench FAILED: the 2-rank run exited %d" % proc.returncode)
        return 1
    r0 = found[0]
    ok = r0["ratio"] <= BOUND
    print("ranks2_mlp_step ratio=%.3f (baseline=%.2f ms/step, shim=%.2f ms/step) bound %.2f %s"
          % (r0["ratio"], r0["base_ms"], r0["shim_ms"], BOUND, "ok" if ok else "FAILED"))
    nbytes, t = 4 << 20, r0["allreduce_s"]
    print("ranks2_allreduce_4MiB time=%.2f ms algbw=%.0f MB/s busbw=%.0f MB/s"
          % (1e3 * t, nbytes / t / 1e6, nbytes / t / 1e6 * 2 * (2 - 1) / 2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
