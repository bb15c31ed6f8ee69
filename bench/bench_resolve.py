"""Benchmark 4: `npu_bridge.ge.resolve()` on a parameter_map holding every catalog key.

(The figure keeps its name `resolve_107` from when the catalog had 107 keys.)

The map is a real protobuf `NpuOptimizer` `parameter_map` (AttrValue per key, the field each
row reads), every value valid together (bench/_configs.py), resolved without errors. Each
repeat times 10 batches of 200 calls on the thread's CPU clock and keeps the fastest
batch's mean (timeit's rule: on 2 cores shared with other work, slower batches measured
the neighbours);
the mean over all batches is printed too. A ConfigProto holding the same map and a plain
dict of Python values are timed alongside for information. (The protobuf classes are
TensorFlow's generated ones, so TensorFlow is imported by this bench; `npu_bridge.ge`
itself does not import it.)

The figure is a ratio to a baseline run in the same process (the project's rule for speed
targets): the *floor*, only reading the map (a wrapper per entry, its oneof field and value:
what any resolver of this map pays), timed in batches the same way and interleaved with
the resolutions (A B C D, D C B A, ...: the floor next to the protobuf map); the figure is the median over the repeats of each repeat's
resolution / floor. The bound, 3.30 floors, is the absolute bound the figure had until
session 15 (200 us per call) expressed in floors on the host it was set on: an Intel Xeon
whose floor session 4 recorded as 60.6 us (bench/RESULTS.md, "Session 4": the stages of
its 23:13 run), 200 / 60.6 = 3.30. The absolute microseconds are printed for information
(no bound: another host is another figure; session 14's AMD EPYC host reads the floor at
~146 us).

Prints, besides the raw figures:
    resolve_107 ratio=R (baseline=F us floor, shim=X us/call)    R = median of X_i / F_i
Usage: python bench/bench_resolve.py [--repeats N] [--calls N] [--batches N]
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

# The calling thread's CPU time: on 2 cores shared with other work, a wall-clock batch also
# counts the time the thread waited for a core, and the floor and the resolution next to it
# wait differently (session 15: per-repeat wall-clock ratios 2.35-4.88 at load 5). A thread
# that has a core to itself and does not block reads the same on both clocks (the bound's
# floor was read on the wall clock of a quiet machine).
clock = time.thread_time

# the bound (bench/run_all.py BOUNDS): the former 200 us bound / the 60.6 us floor of the
# host it was set on (RESULTS.md Session 4)
OLD_BOUND_US, XEON_FLOOR_US = 200.0, 60.6
BOUND_FLOORS = round(OLD_BOUND_US / XEON_FLOOR_US, 2)   # 3.30


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
    the mean over all batches (for information). The resolver keeps no memo of
    parameter_maps, so resolving the same map again is a full resolution each time."""
    env = dict(os.environ)
    per_batch = []
    gc.disable()
    try:
        for _ in range(batches):
            start = clock()
            for _ in range(calls):
                resolve(target, env=env)
            per_batch.append((clock() - start) / calls)
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

    # The baseline: the floor any resolver pays, reading the map (a wrapper per entry, its
    # oneof field and value), in batches as the resolutions and interleaved with them (the
    # garbage collector on, as when session 4 recorded the 60.6 us the bound comes from).
    def read_floor(calls, batches):
        per_batch = []
        for _ in range(batches):
            start = clock()
            for _ in range(calls):
                [getattr(a, a.WhichOneof("value")) for a in map(pmap.__getitem__, list(pmap))]
            per_batch.append((clock() - start) / calls)
        return min(per_batch), sum(per_batch) / len(per_batch)

    def measure(name):
        if name == "floor":
            return read_floor(args.calls, args.batches)
        return time_calls(targets[name], args.calls, args.batches)
    read_floor(200, 1)  # warm-up
    # the floor next to the bounded resolution in every repeat (A B C D, D C B A, ...)
    both = _common.interleaved(["protobuf_map", "floor", "configproto", "dict"], args.repeats,
                               measure)
    floors = [best for best, _ in both.pop("floor")]
    floor = _common.median(floors)
    # Where the time goes (informational): the per-entry stage alone (reading the map and
    # every entry's own effect, `resolver._entries`), timed the same way; the rest of a call
    # is the rules across entries, the product and GE rules and the `GeOptions`.
    from npu_bridge.ge import resolver

    def entries_stage(calls, batches):
        per_batch = []
        for _ in range(batches):
            start = clock()
            for _ in range(calls):
                resolver._entries(pmap)  # pylint: disable=protected-access
            per_batch.append((clock() - start) / calls)
        return min(per_batch)
    entries = _common.median([entries_stage(args.calls, args.batches) for _ in range(args.repeats)])
    times = {name: [best for best, _ in ts] for name, ts in both.items()}
    for name, ts in both.items():
        best, mean = [b for b, _ in ts], [m for _, m in ts]
        print("resolve_%s us_per_call median=%.1f (%s) [mean of all batches: median=%.1f (%s)]; "
              "%d repeats of %d batches of %d calls"
              % (name, _common.median(best) * 1e6, _common.spread(best), _common.median(mean) * 1e6,
                 _common.spread(mean), args.repeats, args.batches, args.calls))
    us = _common.median(times["protobuf_map"]) * 1e6
    # each repeat's resolution over the floor timed next to it (the figure: their median)
    ratios = [r / f for r, f in zip(times["protobuf_map"], floors)]
    ratio = _common.median(ratios)
    print("resolve_floor us_per_call median=%.1f (%s; only reading the %d AttrValues of the map, "
          "interleaved with the resolutions)" % (floor * 1e6, _common.spread(floors), len(pmap)))
    print("resolve_protobuf_map in floors: median of the per-repeat ratios %.3f (%.3f..%.3f; "
          "bound %.2f = %.0f us / the %.1f us floor of the host that bound was set on); "
          "absolute, for information: %.1f us/call" % (
              ratio, min(ratios), max(ratios), BOUND_FLOORS, OLD_BOUND_US, XEON_FLOOR_US, us))
    print("resolve stages (informational): reading the map %.1f us, the entries' own effects "
          "%.1f us more, the rest (cross-entry, product and GE rules, GeOptions) %.1f us; "
          "fastest batch of all repeats %.1f us/call"
          % (floor * 1e6, (entries - floor) * 1e6, us - entries * 1e6,
             min(times["protobuf_map"]) * 1e6))
    _common.report("resolve_107", ratio, "%.1f us floor" % (floor * 1e6), "%.1f us/call" % us)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
