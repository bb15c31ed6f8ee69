"""Benchmark: a training step under `--precision emulate` against the same step in float32.

The models of bench_train (scikit-learn's 8x8 digits, batch 64, Adam): the MLP (64-128-10) and
the small CNN (two 3x3 conv layers, max-pool, dense), each built twice in its own graph and
trained with `Session.run` in one thread, one intra-/inter-op thread, under an NpuOptimizer
with precision_mode allow_mix_precision (the mode of `make demo` under emulation: most ops
round trip through float16). The emulated graph's first run rewrites it (not timed: warm-up).
Chunks of --chunk steps alternate (emulated, float32, float32, emulated, ...: ABBA), with the
emulation switched on only around the emulated chunks; the figure is the median over chunk
pairs of (emulated seconds per step) / (float32 seconds per step).

Prints per model:
    precision_<model> ratio=R (baseline=X steps/s, shim=Y steps/s)
Bound (bench/run_all.py): R <= 2.0. With the emulation off nothing is rewritten: the other
benches' step ratios cover that.
Usage: python bench/bench_precision.py [--chunks N] [--chunk N] [--models mlp,cnn]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from npu_bridge.ge import records as _records  # noqa: E402
from npu_bridge.hooks import session_patch as _session_patch  # noqa: E402
import bench_train  # noqa: E402  (the models and data)

v1 = tf.compat.v1
BATCH = bench_train.BATCH


def _config():
    config = v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    custom = config.graph_options.rewrite_options.custom_optimizers.add()
    custom.name = "NpuOptimizer"
    custom.parameter_map["precision_mode"].s = b"allow_mix_precision"
    return config


def _build(net):
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(1)
        x = v1.placeholder(tf.float32, [BATCH, 64])
        y = v1.placeholder(tf.int32, [BATCH])
        loss = v1.losses.sparse_softmax_cross_entropy(y, net(x))
        train = v1.train.AdamOptimizer(1e-3).minimize(loss)
        init = v1.global_variables_initializer()
    sess = v1.Session(graph=graph, config=_config())
    sess.run(init)
    return sess, x, y, train, loss


def _batches():
    i = 0
    while True:
        if i + BATCH > len(bench_train.X):
            i = 0
        yield bench_train.X[i:i + BATCH], bench_train.Y[i:i + BATCH]
        i += BATCH


def _chunk(variant, n, data):
    sess, x, y, train, loss = variant
    t0 = _common.clock()
    for _ in range(n):
        bx, by = next(data)
        sess.run([train, loss], {x: bx, y: by})
    return (_common.clock() - t0) / n


def measure(model, chunks, chunk):
    _session_patch.patch()
    net = bench_train.MODELS[model]
    emulated, plain = _build(net), _build(net)
    data = _batches()
    _records.RUN.precision = True
    _chunk(emulated, 5, data)   # warm-up; the first run rewrites the graph
    _records.RUN.precision = False
    _chunk(plain, 5, data)
    times = {"emulated": [], "float32": []}
    for i in range(chunks):
        order = ("emulated", "float32") if i % 2 == 0 else ("float32", "emulated")
        for name in order:
            _records.RUN.precision = name == "emulated"
            try:
                times[name].append(_chunk(emulated if name == "emulated" else plain, chunk, data))
            finally:
                _records.RUN.precision = False
    ratios = [e / f for e, f in zip(times["emulated"], times["float32"])]
    from npu_bridge.hooks import state as _state
    rec = _state.of(emulated[0]).record
    graphs = (rec.precision or {}).get("graphs", ())
    low = sum(sum(g["ops_low"].values()) for g in graphs)
    if not low:
        raise SystemExit("precision_%s: the emulated graph has no op in float16: nothing measured"
                         % model)
    for s in (emulated[0], plain[0]):
        s.close()
    return _common.median(ratios), _common.median(times["float32"]), _common.median(
        times["emulated"]), low


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=12)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--models", default="mlp,cnn")
    args = parser.parse_args(argv)
    for model in args.models.split(","):
        ratio, base, shim, low = measure(model, args.chunks, args.chunk)
        print("precision_%s: %d op(s) in float16, float32 %s/step, emulated %s/step"
              % (model, low, _common.fmt_seconds(base), _common.fmt_seconds(shim)))
        _common.report("precision_" + model, ratio, "%.1f steps/s" % (1 / base),
                       "%.1f steps/s" % (1 / shim))


if __name__ == "__main__":
    main()
