"""An Ascend-style TF1 estimator script, run on the CPU: `make demo`.

Written the way Ascend training scripts are (star import, MemoryConfig inside NPURunConfig,
NPUEstimator, npu_ops.dropout with a keep probability, iterations_per_loop). It trains a small
MLP on scikit-learn's bundled 8x8 digits (1,797 images, no download), prints the test
accuracy, then the GE options the NPU would get for this configuration: one table per level
(GE key, value), then the diagnostics.

Usage: python examples/digits_estimator.py [--steps N] [--iterations-per-loop N] [--all]
                                          [--model-dir DIR]
The checkpoints go to a temporary directory removed at the end, or to --model-dir (kept).
"""
import argparse
import sys
import tempfile

import numpy as np
from npu_bridge.npu_init import *  # noqa: F401,F403  (the way real scripts import it)
from sklearn.datasets import load_digits

tf.compat.v1.disable_eager_execution()


def load_data():
    """(X_train, y_train, X_test, y_test): pixels scaled to [0, 1], a fixed shuffle."""
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.RandomState(0).permutation(len(x))
    x, y = x[order], y[order]
    return x[:1500], y[:1500], x[1500:], y[1500:]


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    hidden = tf.compat.v1.layers.dense(features, 128, activation=tf.nn.relu)
    if training:
        hidden = npu_ops.dropout(hidden, keep_prob=0.9)   # NPU meaning: keep probability
    logits = tf.compat.v1.layers.dense(hidden, 10)
    classes = tf.argmax(logits, axis=1, output_type=tf.int32)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return NPUEstimatorSpec(mode=mode, predictions={"class": classes})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return NPUEstimatorSpec(mode=mode, loss=loss, eval_metric_ops={
            "accuracy": tf.compat.v1.metrics.accuracy(labels, classes)})
    optimizer = npu_tf_optimizer(tf.compat.v1.train.AdamOptimizer(params["learning_rate"]))
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_or_create_global_step())
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


def print_table(title, rows):
    """Print rows of (key, value) under `title` as two aligned columns."""
    print("\n%s" % title)
    if not rows:
        print("  (none)")
        return
    width = max(len("GE key"), max(len(k) for k, _ in rows))
    print("  %-*s  %s" % (width, "GE key", "value"))
    print("  %s  %s" % ("-" * width, "-" * 5))
    for key, value in rows:
        print("  %-*s  %s" % (width, key, value))


def print_ge_options(ge_options, show_empty=False):
    """The resolved GE options per level (keys sent with an empty value are counted, and
    listed only with `show_empty`), then the diagnostics."""
    print("\nGE options for this configuration (product: %s)" % (ge_options.product or "not set"))
    for level, options in (("GEInitialize (global)", ge_options.global_options),
                           ("ge::Session (session)", ge_options.session_options),
                           ("AddGraph (graph)", ge_options.graph_options)):
        rows = sorted((k, v) for k, v in options.items() if show_empty or v != "")
        empty = len(options) - len(rows)
        print_table("%s: %d keys%s" % (level, len(options),
                                       ", %d sent empty not shown" % empty if empty else ""), rows)
    print("\nDiagnostics")
    if not ge_options.diagnostics:
        print("  (none)")
    for diag in ge_options.diagnostics:
        print("  %-7s %-7s %s=%s: %s" % (diag.severity, diag.code, diag.option, diag.value,
                                         diag.message))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="training steps (global steps)")
    parser.add_argument("--iterations-per-loop", type=int, default=10,
                        help="steps per Session.run, as on the NPU")
    parser.add_argument("--all", action="store_true", help="also list GE keys sent empty")
    parser.add_argument("--model-dir", help="keep the checkpoints there (default: a temporary "
                                            "directory, removed at the end)")
    args = parser.parse_args(argv)
    if args.model_dir:
        return run(args, args.model_dir)
    with tempfile.TemporaryDirectory(prefix="digits_") as model_dir:
        return run(args, model_dir)


def run(args, model_dir):
    """Train and evaluate with checkpoints in `model_dir`, print the tables; the exit code."""
    x_train, y_train, x_test, y_test = load_data()

    def train_input_fn():
        ds = tf.compat.v1.data.Dataset.from_tensor_slices((x_train, y_train))
        return ds.shuffle(1500, seed=1).repeat().batch(64, drop_remainder=True)

    def eval_input_fn():
        return tf.compat.v1.data.Dataset.from_tensor_slices((x_test, y_test)).batch(128)

    run_config = NPURunConfig(
        model_dir=model_dir,
        iterations_per_loop=args.iterations_per_loop,
        save_checkpoints_steps=args.steps,
        precision_mode="allow_mix_precision",
        memory_config=MemoryConfig(atomic_clean_policy=1, static_memory_policy=2),
        session_config=tf.compat.v1.ConfigProto(allow_soft_placement=True),
        log_step_count_steps=200,
        tf_random_seed=0)   # the same weights and dropout every run: the same accuracy
    estimator = NPUEstimator(model_fn=model_fn, config=run_config, params={"learning_rate": 0.005})
    estimator.train(train_input_fn, max_steps=args.steps, hooks=npu_hooks_append())
    metrics = estimator.evaluate(eval_input_fn)

    print("\ntest accuracy: %.3f after %d global steps (%d per Session.run)"
          % (metrics["accuracy"], metrics["global_step"], args.iterations_per_loop))
    print_ge_options(estimator.npu_ge_options, show_empty=args.all)
    return 0 if metrics["accuracy"] >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
