"""Benchmark 1: a training step under NPUEstimator against tf.estimator.Estimator.

The same model_fn and input_fn (scikit-learn's bundled 8x8 digits, 1,500 training images,
batch 64), on two models: a small MLP (64-128-10) and a small CNN (two 3x3 conv layers of 8
and 16 filters, max-pool, dense). Variants, each an `train()` call in its own fresh model_dir:
- baseline: `tf.estimator.Estimator` with `tf.estimator.RunConfig`, stock TensorFlow (see
  below);
- shim_ipl1 / shim_ipl10: `NPUEstimator` with `NPURunConfig(iterations_per_loop=1 / 10)`;
- control: the baseline again; its ratio to the baseline (printed, no bound) is the noise
  floor of the figures.
Both configs are the same otherwise: checkpoints every 100 steps, summaries and step
logging every 100 steps, one intra-/inter-op thread.

Paired in time. The four variants train at the same time, each in its own thread, but
take turns (a baton): one trains a chunk of --chunk steps while the others wait, then the
next, round-robin. So the i-th chunks of all variants are measured within a few tens of
milliseconds of each other, and a slow stretch of the shared machine hits them alike; the
figure is the median over all chunks after --warmup steps, over --rounds rounds (fresh
estimators each; the turn order changes per round so that each variant follows each other
one as often), of (shim seconds per step in chunk i) / (baseline seconds per step in
chunk i). A chunk's time runs from the end of its first run (that run also pays for
switching threads) to the end of its last run's hooks: the Session.run and every hook of
the estimator, no waiting.
The Session patch is installed in check-only mode (what any `import npu_bridge` does; the
shim's TensorFlow configuration is the same as under `npu_init`: checked when this bench
starts). The baseline's configuration has no NpuOptimizer, so its sessions are created by
stock TensorFlow, and its Session.run is TensorFlow's own (the patch's wrapper is bypassed on
the session object, checked).
Figure: R = median of the paired ratios (time per step, shim / baseline; = baseline
steps/s / shim steps/s), so R <= 1.03 means "no slower".

Prints per model:
    train_<model>_ipl1 ratio=R (baseline=X steps/s, shim=Y steps/s)
    train_<model>_ipl10 ratio=R (baseline=X steps/s, shim=Y steps/s)
Usage: python bench/bench_train.py [--rounds N] [--steps N] [--chunk N] [--warmup N]
                                   [--models mlp,cnn]
"""
import argparse
import os
import shutil
import sys
import tempfile
import threading
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from npu_bridge.hooks import session_patch as _session_patch  # noqa: E402
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


class Baton:
    """Round-robin turns between the training threads: one variant trains at a time."""

    TIMEOUT = 600.0   # seconds a variant may wait for its turn (a hung thread fails the bench)

    def __init__(self, names):
        self._cond = threading.Condition()
        self._order = list(names)
        self._active = list(names)
        self._turn = self._order[0]
        self.error = None

    def wait(self, name):
        with self._cond:
            if not self._cond.wait_for(lambda: self._turn == name or self.error is not None,
                                       self.TIMEOUT):
                self.error = self.error or RuntimeError("%s waited too long for its turn" % name)
            if self.error is not None and self._turn != name:
                raise RuntimeError("another variant failed: %r" % (self.error,))

    def _next(self, name):
        if not self._active:
            return None
        i = self._order.index(name)
        for other in self._order[i + 1:] + self._order[:i + 1]:
            if other in self._active:
                return other
        return None

    def pass_on(self, name):
        with self._cond:
            self._turn = self._next(name)
            self._cond.notify_all()

    def finish(self, name, error=None):
        with self._cond:
            if error is not None and self.error is None:
                self.error = error
            if name in self._active:
                self._active.remove(name)
            if self._turn == name:
                self._turn = self._next(name)
            self._cond.notify_all()


class ChunkTimer(tf.estimator.SessionRunHook):
    """Trains in chunks of `chunk` steps when the baton says so; records each chunk's
    (seconds per step, global step at its start). The baseline's session runs with
    TensorFlow's own Session.run (`stock`)."""

    def __init__(self, name, baton, chunk, stock):
        self.name, self.baton, self.chunk, self.stock = name, baton, chunk, stock
        self.chunks = []
        self._start = None
        self._gs_value = 0   # a fresh model_dir: training starts at global step 0

    def begin(self):
        self._gs = tf.compat.v1.train.get_global_step()

    def after_create_session(self, session, coord):
        if self.stock:
            original = type(session).run
            original = getattr(original, "_npu_bridge_original", original)
            session.run = types.MethodType(original, session)   # shadows the patched method
            assert session.run.__func__ is original

    def before_run(self, run_context):
        if self._start is None:
            self.baton.wait(self.name)
            self._start = [self._gs_value, None, None]   # chunk start; clock start (t, g)
        return tf.estimator.SessionRunArgs(self._gs)

    def after_run(self, run_context, run_values):
        gs = int(run_values.results)
        self._gs_value = gs
        now = _common.clock()
        chunk_start, t0, g0 = self._start
        if t0 is None:
            # the clock starts after the chunk's first run: that run also pays for the
            # thread switch (waking this thread and TensorFlow's), the same for every variant
            self._start[1:] = now, gs
            if gs - chunk_start < self.chunk:
                return
        elif gs - chunk_start < self.chunk:
            return
        if gs > g0:
            self.chunks.append(((now - t0) / (gs - g0), chunk_start))
        self._start = None
        self.baton.pass_on(self.name)


def _session_config():
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


COMMON = dict(save_checkpoints_steps=100, save_checkpoints_secs=None, save_summary_steps=100,
              log_step_count_steps=100, tf_random_seed=1)


def make_estimator(variant, model, root):
    model_dir = tempfile.mkdtemp(prefix="%s_%s_" % (model, variant), dir=root)
    model_fn = make_model_fn(MODELS[model])
    if variant in ("baseline", "control"):
        config = tf.estimator.RunConfig(model_dir=model_dir, session_config=_session_config(),
                                        **COMMON)
        return tf.estimator.Estimator(model_fn=model_fn, config=config)
    ipl = int(variant.rsplit("ipl", 1)[1])
    config = NPURunConfig(model_dir=model_dir, session_config=_session_config(),
                          iterations_per_loop=ipl, **COMMON)
    return NPUEstimator(model_fn=model_fn, config=config)


def train_round(variants, model, steps, chunk, root):
    """Train every variant for `steps` steps, taking turns; {variant: [(seconds per step,
    global step at the chunk's start), ...]}."""
    baton = Baton(variants)
    timers = {v: ChunkTimer(v, baton, chunk, stock=v in ("baseline", "control")) for v in variants}

    def train(v):
        error = None
        try:
            make_estimator(v, model, root).train(input_fn=input_fn, steps=steps, hooks=[timers[v]])
        except BaseException as err:  # pylint: disable=broad-except
            error = err
        finally:
            baton.finish(v, error)

    threads = [threading.Thread(target=train, args=(v,), name="bench-" + v) for v in variants]
    for t in threads:
        t.start()
    for t in threads:
        t.join(Baton.TIMEOUT * 2)
        if t.is_alive():
            raise RuntimeError("training thread %s hung" % t.name)
    if baton.error is not None:
        raise baton.error
    return {v: timers[v].chunks for v in variants}


_WILLIAMS = ((0, 1, 3, 2), (1, 2, 0, 3), (2, 3, 1, 0), (3, 0, 2, 1))


def _check_shim_config():
    """The shim's TensorFlow session configuration is the same in check-only mode (this
    bench) as under `npu_init` (the full patch)."""
    estimator = make_estimator("shim_ipl1", "mlp", tempfile.gettempdir())
    config = getattr(estimator, "_session_config", None) or estimator.config.session_config
    cpu = []
    for inject in (False, True):
        copy = tf.compat.v1.ConfigProto()
        copy.CopyFrom(config)
        key = (copy.SerializeToString(), None, None, inject)
        cpu.append(_session_patch.RESOLUTIONS.prepare(copy, key, inject).cpu_config)
    _session_patch.clear_caches()
    if cpu[0] != cpu[1]:
        raise SystemExit("the shim's session configuration differs in check-only mode")
    shutil.rmtree(estimator.model_dir, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--steps", type=int, default=600, help="measured steps per train call")
    parser.add_argument("--chunk", type=int, default=20, help="steps per turn")
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--models", default="mlp,cnn")
    args = parser.parse_args(argv)
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    if args.chunk % 10:
        parser.error("--chunk must be a multiple of 10 (iterations_per_loop 10)")
    _session_patch.patch(inject_defaults=False)
    _check_shim_config()
    variants = ["baseline", "shim_ipl1", "shim_ipl10", "control"]
    total = args.warmup + args.steps
    total += (-total) % args.chunk
    root = tempfile.mkdtemp(prefix="npu_bench_train_")
    lines = []
    try:
        for model in args.models.split(","):
            train_round(variants, model, 2 * args.chunk, args.chunk, root)  # first graph build
            per_step = {v: [] for v in variants}   # every measured chunk, all rounds
            ratios = {v: [] for v in variants}
            for r in range(args.rounds):
                # the turn order of the round: a row-complete Latin square over the rounds, so
                # each variant follows each other one as often (a variant's leftovers, such as
                # a checkpoint being flushed, land on whoever comes next)
                order = [variants[i] for i in _WILLIAMS[r % 4]]
                chunks = train_round(order, model, total, args.chunk, root)
                base = {g0: t for t, g0 in chunks["baseline"] if g0 >= args.warmup}
                for v in variants:
                    mine = {g0: t for t, g0 in chunks[v] if g0 >= args.warmup}
                    per_step[v].extend(mine.values())
                    ratios[v].extend(mine[g] / base[g] for g in sorted(mine) if g in base)
            for v in variants:
                print("train_%s %s steps_per_s median=%.1f (%s per step over %d chunks of %d "
                      "steps, %d rounds, %d warm-up steps)"
                      % (model, v, 1 / _common.median(per_step[v]), _common.spread(per_step[v]),
                         len(per_step[v]), args.chunk, args.rounds, args.warmup), flush=True)
            control = ratios["control"]
            print("train_%s control (informational, the noise floor) paired_ratio_median=%.3f "
                  "(%d pairs, per-pair %.3f..%.3f)"
                  % (model, _common.median(control), len(control), min(control), max(control)),
                  flush=True)
            base = _common.median(per_step["baseline"])
            for v in ("shim_ipl1", "shim_ipl10"):
                shim = _common.median(per_step[v])
                lines.append(("train_%s_%s" % (model, v[5:]), _common.median(ratios[v]),
                              "%.1f steps/s" % (1 / base), "%.1f steps/s" % (1 / shim)))
                print("train_%s_%s paired ratios: %d pairs, %.3f..%.3f"
                      % (model, v[5:], len(ratios[v]), min(ratios[v]), max(ratios[v])), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for line in lines:
        _common.report(*line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
