"""Benchmark 2: start-up cost of importing the package, in fresh interpreters.

Each sample is one fresh `python -c "<import>"` process (same interpreter, same environment);
variants interleaved (rotating order), median of --repeats (>= 7) per variant:
- baseline: `import tensorflow, tensorflow_estimator`
- shim:     `import npu_bridge.npu_init` (which imports both, switches the TF 1.x API mode on
            and installs the Session patch)
- ge:       `import npu_bridge.ge` alone; the process also checks that it did not import
            tensorflow (the bench fails if it did).
The time is the CPU time (user + system) of the whole child process, interpreter start-up
included (the same for every variant): on 2 cores shared with other work, wall clock mostly
measures the neighbours (it is printed too, with its ratio, for information). Figures: startup ratio = median shim / median baseline (<= 1.05: no worse);
startup_ge ratio = median ge / median baseline (informational: how much lighter it is).
Prints:
    startup ratio=R (baseline=X s, shim=Y s)
    startup_ge ratio=R (baseline=X s tensorflow+estimator, shim=Y s npu_bridge.ge)
Usage: python bench/bench_startup.py [--repeats N]
"""
import argparse
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

CODE = {
    "baseline": "import tensorflow, tensorflow_estimator",
    "shim": "import npu_bridge.npu_init",
    "ge": "import sys, npu_bridge.ge\n"
          "bad = sorted(m for m in sys.modules if m == 'tensorflow' or m.startswith('tensorflow.'))\n"
          "assert not bad, 'import npu_bridge.ge imported %s' % bad[:5]",
}


def run(variant):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(
        p for p in (_common.ROOT, os.environ.get("PYTHONPATH")) if p))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = _common.clock()
    proc = subprocess.run([sys.executable, "-c", CODE[variant]], env=env, cwd=_common.ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = _common.clock() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("startup %s failed:\n%s" % (variant, proc.stderr.decode()[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    variants = ["baseline", "shim", "ge"]
    for v in variants:
        run(v)  # warm the file cache
    times = {v: [] for v in variants}
    walls = {v: [] for v in variants}
    for r in range(max(args.repeats, 7)):
        for v in variants[r % 3:] + variants[:r % 3]:
            cpu, wall = run(v)
            times[v].append(cpu)
            walls[v].append(wall)
    for v in variants:
        print("startup %s cpu median=%s (%s), wall median=%s (%s); %d fresh processes: %s"
              % (v, _common.fmt_seconds(_common.median(times[v])), _common.spread(times[v]),
                 _common.fmt_seconds(_common.median(walls[v])), _common.spread(walls[v]),
                 len(times[v]), CODE[v].splitlines()[0]))
    print("startup wall-clock ratio (informational) shim/baseline=%.3f"
          % (_common.median(walls["shim"]) / _common.median(walls["baseline"])))
    print("startup_ge imports no tensorflow: ok")
    b, s, g = (_common.median(times[v]) for v in variants)
    _common.report("startup", s / b, _common.fmt_seconds(b), _common.fmt_seconds(s))
    _common.report("startup_ge", g / b, "%s tensorflow+estimator" % _common.fmt_seconds(b),
                   "%s npu_bridge.ge" % _common.fmt_seconds(g))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
