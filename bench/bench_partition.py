"""Benchmark: what the partition of a real training graph costs against that graph's first run.

partition_resnet50: the TF adapter's partition (npu_bridge.hooks.partition_capture: reading the
run's graph, then npu_bridge.ge.partition) of the tf_slim `resnet_v1_50` training graph (batch
32, --image x --image pixels, momentum optimizer; bench_memory's graph), the fastest of
--repeats, divided by the median of session creation + the first training run with graph
capture off; bound 0.05 (docs/partition.md). Prints the raw figures, then
    partition_resnet50 ratio=R (baseline=first run, shim=partition)
Usage: python bench/bench_partition.py [--repeats N] [--image N]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402
from bench_memory import _config, resnet_graph  # noqa: E402  (the same graph and config)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from npu_bridge.ge import partition as _partition, supported_ops  # noqa: E402
from npu_bridge.ge import records as _records  # noqa: E402
from npu_bridge.hooks import graph_capture as _graph_capture  # noqa: E402
from npu_bridge.hooks import partition_capture  # noqa: E402

v1 = tf.compat.v1


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--image", type=int, default=112)
    args = ap.parse_args(argv)
    g, x, labels, train, loss, init = resnet_graph(args.image)
    feed = {x: np.random.RandomState(0).rand(32, args.image, args.image, 3).astype(np.float32),
            labels: np.zeros(32, np.int32)}
    config = _config()
    _graph_capture.enable(False)

    def first_run():
        _records.clear()
        with g.as_default():
            t0 = _common.clock()
            sess = v1.Session(config=config)
            sess.run(init)
            sess.run([train, loss], feed)
            t1 = _common.clock()
            sess.close()
        return t1 - t0
    first_run()   # warm-up: TensorFlow's first session in the process
    runs = [first_run() for _ in range(args.repeats)]
    ops = supported_ops.default()
    opts = _partition.PassOptions()
    times = []
    for i in range(args.repeats):
        t0 = _common.clock()
        pg = partition_capture.describe(g, [train, loss], {x: None, labels: None}, "resnet_v1_50")
        part = _partition.partition(pg, opts, ops, i + 1)
        times.append(_common.clock() - t0)
    print("resnet_v1_50 training graph (%dx%d): %d nodes, %d GeOp(s) of %s ops, %d host op(s)" % (
        args.image, args.image, len(pg.nodes), len(part.geops),
        "/".join(str(len(gp.ops)) for gp in part.geops), len(part.host_ops)))
    print("first run %s; partition %s" % (_common.spread(runs), _common.spread(times)))
    base = _common.median(runs)
    _common.report("partition_resnet50", min(times) / base, _common.fmt_seconds(base),
                   _common.fmt_seconds(min(times)))


if __name__ == "__main__":
    main()
