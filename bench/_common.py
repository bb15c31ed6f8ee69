"""Shared helpers of the benchmarks (no TensorFlow import).

Every benchmark prints its raw figures, then one final line per figure:

    NAME ratio=R (baseline=..., shim=...)

Ratio direction (bench/RESULTS.md): for times, R = shim time / baseline time, so R <= bound
means "the shim is no worse"; for throughputs (lint), R = files/s / target; for absolute
costs (the memory plans), R = seconds / bound; resolution: R = microseconds per call / the
floor (only reading the map) timed in the same process. Baseline and shim are measured in the
same run, interleaved (A B B A A B ...), median of the repeats.
"""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # the checkout, also when not installed

median = statistics.median


def interleaved(variants, repeats, measure):
    """Run `measure(variant)` `repeats` times per variant, interleaved in ABBA order.

    Returns {variant: [figure, ...]} in measurement order.
    """
    out = {v: [] for v in variants}
    for r in range(repeats):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for v in order:
            out[v].append(measure(v))
    return out


def fmt_seconds(s):
    if s >= 1:
        return "%.3f s" % s
    if s >= 1e-3:
        return "%.3f ms" % (s * 1e3)
    return "%.2f us" % (s * 1e6)


def report(name, ratio, baseline, shim):
    """Print the final line of one figure."""
    print("%s ratio=%.3f (baseline=%s, shim=%s)" % (name, ratio, baseline, shim), flush=True)


def spread(values):
    """'min..max' of a list of seconds, for the raw-figure lines."""
    return "%s..%s" % (fmt_seconds(min(values)), fmt_seconds(max(values)))


def clock():
    return time.perf_counter()
