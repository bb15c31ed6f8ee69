"""Benchmark 2: start-up cost of importing the package, in fresh interpreters.

Each sample is one fresh `python -c "<code>"` process (same interpreter, same environment);
variants interleaved (rotating order), --repeats (>= 7) each:
- baseline: `import tensorflow, tensorflow_estimator`
- shim:     `import npu_bridge.npu_init` (which imports both, switches the TF 1.x API mode on
            and installs the Session patch)
- split:    `import tensorflow, tensorflow_estimator`, `gc.collect()` (timed: G), then
            `import npu_bridge.npu_init`, the latter timed inside the process (CPU time,
            `time.process_time`: E)
- ge:       `import npu_bridge.ge` alone; the process also checks that it did not import
            tensorflow (the bench fails if it did).
- contrib / tf_slim: after `import npu_bridge.npu_init`, the CPU time of
            `import tensorflow.contrib.slim as slim; slim.conv2d` against
            `import tf_slim as slim; slim.conv2d` (first use included: tf.contrib loads its
            library on first use), timed inside the process; the contrib process also checks
            that npu_init and tensorflow imported no tf_slim before.
A process's time is its CPU time (user + system), interpreter start-up included.

First the package's .pyc files are written (compileall, as `make`'s install step and a pip
install do): TensorFlow ships compiled, and a checkout run under PYTHONDONTWRITEBYTECODE would
compile ~50 files (~0.1 s) in every process.
The figure comes from the split processes: R = T / (T - E), T the whole process's CPU time
less G, E the part spent importing npu_bridge.npu_init after TensorFlow. G: TensorFlow's
import ends with a full garbage collection (~0.17 s, its ~290k objects) pending, which the
next code that allocates a few hundred objects pays (any import, a script's first lines);
without the `gc.collect()` it lands inside E (R read 1.08 for E ~0.04 s). It is timed and
printed, not counted on either side. The same comparison as shim
/ baseline, measured in one process, so the +-10% by which a fresh TensorFlow import's CPU
time varies from process to process (seen here: per-pair shim/baseline ratios 0.84-1.22 for
a ~1% difference, and the fastest processes 0.91) cancels out; R is the median over the
split processes. (In a split process the Session patch's import hook is installed after
TensorFlow is imported, not before: that hook only answers "not mine" for the other
modules TensorFlow imports, a few microseconds each.) The baseline and shim processes'
medians and paired ratios, the literal comparison, are printed for information.
startup_ge ratio = median ge / median baseline (informational: how much lighter it is).
startup_contrib ratio = median contrib import time / median tf_slim import time.
Prints:
    startup ratio=R (baseline=X s, shim=Y s)
    startup_ge ratio=R (baseline=X s tensorflow+estimator, shim=Y s npu_bridge.ge)
    startup_contrib ratio=R (baseline=X s import tf_slim, shim=Y s import tensorflow.contrib.slim)
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
    "split": "import gc, time\nimport tensorflow, tensorflow_estimator\ng = time.process_time()\n"
             "gc.collect()\ng = time.process_time() - g\nt = time.process_time()\n"
             "import npu_bridge.npu_init\nprint('EXTRA', time.process_time() - t, g)",
    "ge": "import sys, npu_bridge.ge\n"
          "bad = sorted(m for m in sys.modules if m == 'tensorflow' or m.startswith('tensorflow.'))\n"
          "assert not bad, 'import npu_bridge.ge imported %s' % bad[:5]",
    "contrib": "import sys, time\nimport npu_bridge.npu_init, tensorflow\n"
               "assert 'tf_slim' not in sys.modules, 'npu_init imported tf_slim'\n"
               "t = time.process_time()\nimport tensorflow.contrib.slim as slim\nslim.conv2d\n"
               "print('EXTRA', time.process_time() - t)",
    "tf_slim": "import sys, time\nimport npu_bridge.npu_init, tensorflow\n"
               "t = time.process_time()\nimport tf_slim as slim\nslim.conv2d\n"
               "print('EXTRA', time.process_time() - t)",
}


def _env():
    return dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(
        p for p in (_common.ROOT, os.environ.get("PYTHONPATH")) if p))


def compile_package():
    """Write the .pyc of npu_bridge and hccl (a checkout's are missing or stale, and under
    PYTHONDONTWRITEBYTECODE nothing writes them: each process would compile ~50 files,
    ~0.1 s). Returns how many were missing or out of date."""
    import compileall
    import importlib.util
    stale = 0
    for package in ("npu_bridge", "hccl"):
        for folder, _, files in os.walk(os.path.join(_common.ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    source = os.path.join(folder, name)
                    cached = importlib.util.cache_from_source(source)
                    if not os.path.exists(cached) or \
                            os.stat(cached).st_mtime < os.stat(source).st_mtime:
                        stale += 1
        compileall.compile_dir(os.path.join(_common.ROOT, package), quiet=1)
    return stale


def run(variant):
    env = _env()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = _common.clock()
    proc = subprocess.run([sys.executable, "-c", CODE[variant]], env=env, cwd=_common.ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = _common.clock() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("startup %s failed:\n%s" % (variant, proc.stderr.decode()[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if variant == "split":   # (T - G, E): the collection TensorFlow's import left pending apart
        extra, collect = map(float, proc.stdout.decode().split("EXTRA", 1)[1].split())
        return (cpu - collect, extra, collect), wall
    if variant in ("contrib", "tf_slim"):
        extra = float(proc.stdout.decode().split("EXTRA", 1)[1])
        return (cpu, extra), wall
    return cpu, wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    variants = ["baseline", "shim", "split", "ge", "contrib", "tf_slim"]
    stale = compile_package()
    print("startup bytecode: npu_bridge and hccl compiled (compileall, as the install does; "
          "TensorFlow ships compiled): %d of their files had no up-to-date .pyc" % stale)
    for v in variants:
        run(v)  # warm the file cache
    times = {v: [] for v in variants}
    walls = {v: [] for v in variants}
    for r in range(max(args.repeats, 7)):
        k = r % len(variants)
        for v in variants[k:] + variants[:k]:
            cpu, wall = run(v)
            times[v].append(cpu)
            walls[v].append(wall)
    collects = [c for _, _, c in times["split"]]
    splits = [(t, e) for t, e, _ in times.pop("split")]
    contrib = [e for _, e in times.pop("contrib")]
    slim = [e for _, e in times.pop("tf_slim")]
    for v in ("split", "contrib", "tf_slim"):
        walls.pop(v)
    for v in ("baseline", "shim", "ge"):
        print("startup %s cpu median=%s (%s), wall median=%s (%s); %d fresh processes: %s"
              % (v, _common.fmt_seconds(_common.median(times[v])), _common.spread(times[v]),
                 _common.fmt_seconds(_common.median(walls[v])), _common.spread(walls[v]),
                 len(times[v]), CODE[v].splitlines()[0]))
    paired = [sh / ba for sh, ba in zip(times["shim"], times["baseline"])]
    b, s, g = (_common.median(times[v]) for v in ("baseline", "shim", "ge"))
    print("startup (informational) shim/baseline processes: ratio of the medians %.3f; paired "
          "%s (median %.3f); wall-clock ratio of the medians %.3f"
          % (s / b, ", ".join("%.3f" % r for r in paired), _common.median(paired),
             _common.median(walls["shim"]) / _common.median(walls["baseline"])))
    ratios = [total / (total - extra) for total, extra in splits]
    extra = _common.median([e for _, e in splits])
    print("startup split processes: importing npu_bridge.npu_init after tensorflow and "
          "tensorflow_estimator adds %s CPU (median; %s..%s) to %s; per process T/(T-E): %s"
          % (_common.fmt_seconds(extra), _common.fmt_seconds(min(e for _, e in splits)),
             _common.fmt_seconds(max(e for _, e in splits)),
             _common.fmt_seconds(_common.median([t for t, _ in splits])),
             ", ".join("%.3f" % r for r in ratios)))
    print("startup split processes: the full garbage collection TensorFlow's import leaves "
          "pending (the next code that allocates a few hundred objects pays it, npu_init or a "
          "script's first lines), run apart before the clock and left out of T: %s (median; "
          "%s..%s)" % (_common.fmt_seconds(_common.median(collects)),
                       _common.fmt_seconds(min(collects)), _common.fmt_seconds(max(collects))))
    print("startup_ge imports no tensorflow: ok")
    base = _common.median([t - e for t, e in splits])
    _common.report("startup", _common.median(ratios), _common.fmt_seconds(base),
                   _common.fmt_seconds(base + extra))
    _common.report("startup_ge", g / b, "%s tensorflow+estimator" % _common.fmt_seconds(b),
                   "%s npu_bridge.ge" % _common.fmt_seconds(g))
    print("startup contrib: after npu_init, import + first use of tensorflow.contrib.slim %s "
          "(%s), of tf_slim %s (%s); npu_init and tensorflow imported no tf_slim: ok"
          % (_common.fmt_seconds(_common.median(contrib)), _common.spread(contrib),
             _common.fmt_seconds(_common.median(slim)), _common.spread(slim)))
    _common.report("startup_contrib", _common.median(contrib) / _common.median(slim),
                   "%s import tf_slim" % _common.fmt_seconds(_common.median(slim)),
                   "%s import tensorflow.contrib.slim" % _common.fmt_seconds(_common.median(contrib)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
