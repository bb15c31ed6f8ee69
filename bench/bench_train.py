"""Benchmark 1: a training step under NPUEstimator against tf.estimator.Estimator.

The same model_fn and input_fn (scikit-learn's bundled 8x8 digits, 1,500 training images,
batch 64), on two models: a small MLP (64-128-10) and a small CNN (two 3x3 conv layers of 8
and 16 filters, max-pool, dense). Variants, run in one process, interleaved (rotating order each repeat),
each `train()` call in its own fresh model_dir:
- baseline: `tf.estimator.Estimator` with `tf.estimator.RunConfig`, the stock Session
  (the Session patch removed with `npu_bridge._session_patch.unpatch()` while it runs);
- shim_ipl1 / shim_ipl10: `NPUEstimator` with `NPURunConfig(iterations_per_loop=1 / 10)`,
  Session patch installed (as after `from npu_bridge.npu_init import *`);
- control: the baseline again; its ratio to the baseline (printed, no bound) is the noise
  floor of the figures.
Both configs are the same otherwise: checkpoints (NPURunConfig's default cadence), summaries and step logging every 100
steps, one intra-/inter-op thread (the machine is shared; this keeps the noise down).

Steps per second come from a timing hook (`after_run` wall clock and the global step it
fetched) over the runs after `--warmup` steps (graph building, session creation and
warm-up excluded): a repeat's time per step is the median over its runs of (seconds
between two runs / steps they advanced) -- on 2 cores shared with other work, the mean
over the whole span mostly measures when a neighbour held the core (it is printed too).
Figure: R = median over repeats of shim time per step / same for baseline (= baseline
steps/s / shim steps/s), so R <= 1.03 means "no slower".

Prints per model:
    train_<model>_ipl1 ratio=R (baseline=X steps/s, shim=Y steps/s)
    train_<model>_ipl10 ratio=R (baseline=X steps/s, shim=Y steps/s)
Usage: python bench/bench_train.py [--repeats N] [--steps N] [--warmup N] [--models mlp,cnn]
"""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from npu_bridge import _session_patch  # noqa: E402
from npu_bridge.estimator.npu.npu_config import NPURunConfig  # noqa: E402
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator  # noqa: E402

BATCH = 64


def load_digits_data():
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.RandomState(0).permutation(len(x))
    return x[order][:1500], y[order][:1500]


X, Y = load_digits_data()


def input_fn():
    dataset = tf.data.Dataset.from_tensor_slices((X, Y))
    return dataset.repeat().batch(BATCH, drop_remainder=True)


def _mlp(features):
    hidden = tf.compat.v1.layers.dense(features, 128, activation=tf.nn.relu)
    return tf.compat.v1.layers.dense(hidden, 10)


def _cnn(features):
    x = tf.reshape(features, [-1, 8, 8, 1])
    x = tf.compat.v1.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu)
    x = tf.compat.v1.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu)
    x = tf.compat.v1.layers.max_pooling2d(x, 2, 2)
    x = tf.reshape(x, [-1, 4 * 4 * 16])
    return tf.compat.v1.layers.dense(x, 10)


MODELS = {"mlp": _mlp, "cnn": _cnn}


def make_model_fn(net):
    def model_fn(features, labels, mode, params):
        logits = net(features)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
    return model_fn


class StepTimer(tf.estimator.SessionRunHook):
    """Wall clock and global step after every Session.run of the training loop."""

    def __init__(self):
        self.marks = []

    def begin(self):
        self._gs = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.estimator.SessionRunArgs(self._gs)

    def after_run(self, run_context, run_values):
        self.marks.append((_common.clock(), int(run_values.results)))

    def seconds_per_step(self, warmup):
        """(median, mean) seconds per step after `warmup` steps: the median over the runs of
        each run's seconds per step (robust to the moments another process held the core),
        and the plain mean over the whole span (for information)."""
        start = next(i for i, (_, gs) in enumerate(self.marks) if gs >= warmup)
        marks = self.marks[start:]
        per_run = [(t1 - t0) / (g1 - g0) for (t0, g0), (t1, g1) in zip(marks, marks[1:]) if g1 > g0]
        if len(per_run) < 3:
            raise RuntimeError("too few runs after warm-up: %r" % (self.marks[-3:],))
        (t0, g0), (t1, g1) = marks[0], marks[-1]
        return _common.median(per_run), (t1 - t0) / (g1 - g0)


def _session_config():
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


COMMON = dict(save_checkpoints_steps=100, save_checkpoints_secs=None, save_summary_steps=100,
              log_step_count_steps=100, tf_random_seed=1)


def run_once(variant, model, steps, warmup, root):
    model_dir = tempfile.mkdtemp(prefix="%s_%s_" % (model, variant), dir=root)
    model_fn = make_model_fn(MODELS[model])
    if variant in ("baseline", "control"):
        _session_patch.unpatch()
        config = tf.estimator.RunConfig(model_dir=model_dir, session_config=_session_config(),
                                        **COMMON)
        estimator = tf.estimator.Estimator(model_fn=model_fn, config=config)
    else:
        _session_patch.patch()
        ipl = int(variant.rsplit("ipl", 1)[1])
        config = NPURunConfig(model_dir=model_dir, session_config=_session_config(),
                              iterations_per_loop=ipl, **COMMON)
        estimator = NPUEstimator(model_fn=model_fn, config=config)
    timer = StepTimer()
    try:
        estimator.train(input_fn=input_fn, steps=steps, hooks=[timer])
    finally:
        _session_patch.patch()
        shutil.rmtree(model_dir, ignore_errors=True)
    return timer.seconds_per_step(warmup)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)   # 5 left the median +-5% between runs
    parser.add_argument("--steps", type=int, default=400, help="measured steps per train call")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--models", default="mlp,cnn")
    args = parser.parse_args(argv)
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    # control: a second stock baseline, timed like the others; its ratio to the baseline is
    # the noise floor of the figures (1.000 on a quiet machine); printed, no bound
    variants = ["baseline", "shim_ipl1", "shim_ipl10", "control"]
    total = args.warmup + args.steps
    total += (-total) % 10  # a multiple of iterations_per_loop 10
    root = tempfile.mkdtemp(prefix="npu_bench_train_")
    lines = []
    try:
        for model in args.models.split(","):
            for v in variants:  # warm-up: first graph build, imports, op kernels
                run_once(v, model, 100, 20, root)
            times = {v: [] for v in variants}
            means = {v: [] for v in variants}
            for r in range(args.repeats):
                order = variants[r % 4:] + variants[:r % 4]
                for v in order:
                    med, mean = run_once(v, model, total, args.warmup, root)
                    times[v].append(med)
                    means[v].append(mean)
            base = _common.median(times["baseline"])
            for v in variants:
                print("train_%s %s steps_per_s median=%.1f (%s per step; %d repeats of %d steps, "
                      "%d warm-up)" % (model, v, 1 / _common.median(times[v]),
                                       _common.spread(times[v]), args.repeats, total - args.warmup,
                                       args.warmup), flush=True)
            control = [c / b for c, b in zip(times["control"], times["baseline"])]
            print("train_%s control (informational, the noise floor) ratio_of_medians=%.3f "
                  "paired_ratio_median=%.3f per-repeat %.3f..%.3f"
                  % (model, _common.median(times["control"]) / base, _common.median(control),
                     min(control), max(control)), flush=True)
            for v in ("shim_ipl1", "shim_ipl10"):
                shim = _common.median(times[v])
                paired = _common.median([s / b for s, b in zip(times[v], times["baseline"])])
                span = _common.median(means[v]) / _common.median(means["baseline"])
                print("train_%s_%s (informational) paired_ratio_median=%.3f whole_span_ratio=%.3f"
                      % (model, v[5:], paired, span))
                lines.append(("train_%s_%s" % (model, v[5:]), shim / base,
                              "%.1f steps/s" % (1 / base), "%.1f steps/s" % (1 / shim)))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for line in lines:
        _common.report(*line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
