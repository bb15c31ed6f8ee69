"""Benchmark: `npu-bridge lint` throughput over a generated tree of Ascend-style scripts.

Generates (in a temporary folder) at least 2,000 realistic script files with
`bench/gen_tree.py`, runs `lint_paths` over the tree with all CPUs, and prints
    lint_throughput files_per_s=X (files=N, seconds=S)
    lint ratio=R (baseline=400 files/s, shim=X files/s)
where R = X / 400 (400 files/s is the target). Usage: python bench/bench_lint.py [--files N]
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the checkout, also when not installed
import gen_tree  # noqa: E402

from npu_bridge.tools import lint  # noqa: E402

BASELINE = 400.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="npu_lint_bench_") as tmp:
        gen_tree.generate(tmp, max(args.files, 1))
        start = time.perf_counter()
        findings, nfiles = lint.lint_paths([tmp], jobs=args.jobs)
        seconds = time.perf_counter() - start
    rate = nfiles / seconds if seconds > 0 else float("inf")
    print("lint_findings=%d" % len(findings))
    print("lint_throughput files_per_s=%.1f (files=%d, seconds=%.3f)" % (rate, nfiles, seconds))
    print("lint ratio=%.2f (baseline=%d files/s, shim=%.1f files/s)" % (rate / BASELINE, BASELINE, rate))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
