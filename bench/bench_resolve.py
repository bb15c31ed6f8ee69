"""Benchmark 4: `npu_bridge.ge.resolve()` on a parameter_map holding every catalog key.

(The figure keeps its name `resolve_107` from when the catalog had 107 keys.)

The map is a real protobuf `NpuOptimizer` `parameter_map` (AttrValue per key, the field each
row reads), every value valid together (bench/_configs.py), resolved without errors. Each
repeat times 10 batches of 200 calls and keeps the fastest batch's mean (timeit's rule: on
2 cores shared with other work, slower batches measured the time spent waiting for a core);
the figure is the median of the repeats. The mean over all batches is printed too. A
ConfigProto holding the same map and a plain dict of Python values are timed alongside
for information. (The protobuf classes are TensorFlow's generated ones, so TensorFlow is
imported by this bench; `npu_bridge.ge` itself does not import it.)

Prints, besides the raw figures:
    resolve_107 ratio=R (baseline=200 us bound, shim=X us/call)    R = X / 200
Usage: python bench/bench_resolve.py [--repeats N] [--calls N]
"""
import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402
import _configs  # noqa: E402

from npu_bridge.ge import catalog, resolve  # noqa: E402

BOUND_US = 200.0


def protobuf_map(values):
    """A protobuf parameter_map (ConfigProto's NpuOptimizer) holding `values`."""
    from tensorflow.core.protobuf import config_pb2  # the generated proto only
    config = config_pb2.ConfigProto()
    custom = config.graph_options.rewrite_options.custom_optimizers.add()
    custom.name = "NpuOptimizer"
    _configs.fill(custom.parameter_map, values)
    return config, custom.parameter_map


def time_calls(target, calls, batches):
    """(best, mean) seconds per call: `batches` batches of `calls` calls; `best` is the mean
    of the fastest batch (timeit's rule: slower batches measured the neighbours), `mean`
    the mean over all batches (wall clock, for information). The resolver keeps no memo of
    parameter_maps, so resolving the same map again is a full resolution each time."""
    env = dict(os.environ)
    per_batch = []
    gc.disable()
    try:
        for _ in range(batches):
            start = _common.clock()
            for _ in range(calls):
                resolve(target, env=env)
            per_batch.append((_common.clock() - start) / calls)
    finally:
        gc.enable()
    return min(per_batch), sum(per_batch) / len(per_batch)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--calls", type=int, default=200, help="calls per batch")
    parser.add_argument("--batches", type=int, default=10, help="batches per repeat")
    args = parser.parse_args(argv)
    values = _configs.valid_values()
    n_keys = len(catalog.PARAMETER_MAP_KEYS)
    if len(values) != n_keys:
        raise SystemExit("could not build a valid %d-key parameter_map (%d keys)" % (n_keys, len(values)))
    config, pmap = protobuf_map(values)
    result = resolve(pmap)  # raises NpuConfigError if the configuration were invalid
    assert len(pmap) == n_keys
    print("resolve: %d keys, %d diagnostics (%s), %d GE keys"
          % (n_keys, len(result.diagnostics), ", ".join(sorted({d.severity for d in result.diagnostics})),
             len(result.effective)))
    targets = {"protobuf_map": pmap, "configproto": config, "dict": dict(values)}
    for target in targets.values():
        time_calls(target, 200, 1)  # warm-up
    both = _common.interleaved(list(targets), args.repeats,
                               lambda name: time_calls(targets[name], args.calls, args.batches))
    # The floor any resolver pays: reading the map (a wrapper per entry, its oneof field and
    # value), timed the same way; printed to read the figure on another machine (no bound).
    def read_floor(calls, batches):
        per_batch = []
        for _ in range(batches):
            start = _common.clock()
            for _ in range(calls):
                [getattr(a, a.WhichOneof("value")) for a in map(pmap.__getitem__, list(pmap))]
            per_batch.append((_common.clock() - start) / calls)
        return min(per_batch)
    floor = _common.median([read_floor(args.calls, args.batches) for _ in range(args.repeats)])
    # Where the time goes (informational): the per-entry stage alone (reading the map and
    # every entry's own effect, `resolver._entries`), timed the same way; the rest of a call
    # is the rules across entries, the product and GE rules and the `GeOptions`.
    from npu_bridge.ge import resolver

    def entries_stage(calls, batches):
        per_batch = []
        for _ in range(batches):
            start = _common.clock()
            for _ in range(calls):
                resolver._entries(pmap)  # pylint: disable=protected-access
            per_batch.append((_common.clock() - start) / calls)
        return min(per_batch)
    entries = _common.median([entries_stage(args.calls, args.batches) for _ in range(args.repeats)])
    times = {name: [cpu for cpu, _ in ts] for name, ts in both.items()}
    for name, ts in both.items():
        best, mean = [b for b, _ in ts], [m for _, m in ts]
        print("resolve_%s us_per_call median=%.1f (%s) [mean of all batches: median=%.1f (%s)]; "
              "%d repeats of %d batches of %d calls"
              % (name, _common.median(best) * 1e6, _common.spread(best), _common.median(mean) * 1e6,
                 _common.spread(mean), args.repeats, args.batches, args.calls))
    us = _common.median(times["protobuf_map"]) * 1e6
    print("resolve_floor us_per_call median=%.1f (only reading the %d AttrValues of the map); "
          "resolve_protobuf_map = %.1f floors" % (floor * 1e6, len(pmap), us / (floor * 1e6)))
    print("resolve stages (informational): reading the map %.1f us, the entries' own effects "
          "%.1f us more, the rest (cross-entry, product and GE rules, GeOptions) %.1f us; "
          "fastest batch of all repeats %.1f us/call"
          % (floor * 1e6, (entries - floor) * 1e6, us - entries * 1e6,
             min(times["protobuf_map"]) * 1e6))
    _common.report("resolve_107", us / BOUND_US, "%d us bound" % BOUND_US, "%.1f us/call" % us)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
