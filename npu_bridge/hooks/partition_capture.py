"""The partition of a run's graph: what the adapter's pass receives for one Session.run (the
subgraph the fetches need, each fed tensor an `_Arg`, each fetched tensor a `_Retval`), as a
`npu_bridge.ge.partition_graph.PGraph`, partitioned by `npu_bridge.ge.partition` under the
session's pass options. Rules: docs/partition.md.
"""
import os
import threading

from npu_bridge.ge import partition as _partition
from npu_bridge.ge import partition_graph as _pg
from npu_bridge.ge import supported_ops as _supported
from npu_bridge.hooks import state as _state

ENV_SUPPORTED_OPS = "NPU_BRIDGE_SUPPORTED_OPS"   # set by `--supported-ops FILE`
_ATTRS = ("_without_npu_compile", "_op_max_size", "_graph_dynamic_input",
          "_graph_dynamic_graph_execute_mode", "_NoNeedOptimize")


class _Counter:
    """The adapter numbers the graphs it partitions in a process from 1 (graph_run_num,
    om_partition_subgraphs_pass.cc:2178, :2357); the list is chosen once per environment."""

    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0
        self.lists = {}

    def next(self):
        with self.lock:
            self.count += 1
            return self.count

    def supported(self, environ):
        key = tuple(environ.get(k) for k in (ENV_SUPPORTED_OPS, "ASCEND_OPP_PATH",
                                             "ASCEND_CUSTOM_OPP_PATH"))
        with self.lock:
            if key not in self.lists:
                self.lists[key] = _supported.choose(key[0], environ)
            return self.lists[key]


COUNTER = _Counter()


def _shape(t):
    shape = t.shape
    return None if shape.rank is None else tuple(shape.as_list())


def _attrs(node_def):
    """The attributes the pass reads, from a NodeDef."""
    out = {}
    attr = node_def.attr
    for key in _ATTRS:
        if key in attr:
            v = attr[key]
            kind = v.WhichOneof("value")
            out[key] = v.s.decode() if kind == "s" else (v.b if kind == "b" else True)
    if "frame_name" in attr:
        out["frame_name"] = attr["frame_name"].s.decode()
    if "op_names" in attr:
        out["op_names"] = tuple(s.decode() for s in attr["op_names"].list.s)
    funcs = []
    for v in attr.values():
        if v.HasField("func"):
            funcs.append(v.func.name)
        elif v.HasField("list") and v.list.func:
            funcs.extend(f.name for f in v.list.func)
    if funcs:
        out["funcs"] = tuple(funcs)
    return out


def _functions(library):
    out = {}
    for f in library.function:
        out[f.signature.name] = tuple((n.op, _attrs(n).get("funcs", ())) for n in f.node_def)
    return out


def run_tensors(graph, fetches, feed_dict):
    """What a run of `fetches` with `feed_dict` on `graph` reads, as `Session.run` reads it
    (TensorFlow's own fetch handler): ({id(tensor): fed tensor}, fetched tensors, target
    ops). Raises what `Session.run` would raise for a fetch that is not in the graph."""
    # pylint: disable=protected-access
    import tensorflow as tf
    from tensorflow.python.client import session as _session_lib
    feeds = {}    # id(tensor) -> fed tensor
    for key in (feed_dict or {}):
        try:
            el = graph.as_graph_element(key) if isinstance(key, str) else key
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(el, tf.Tensor):
            feeds[id(el)] = el
    handler = _session_lib._FetchHandler(graph, fetches, {})
    return (feeds, [t for t in handler.fetches() if isinstance(t, tf.Tensor)],
            list(handler.targets()))


EMULATION_SCOPE = "npu_precision/"   # precision_emulation's own ops (name scope)


def _emulation_op(op):
    return op.name.startswith(EMULATION_SCOPE)


def _script_inputs():
    """op -> its input tensors as the script built them: under `--precision emulate` each
    Cast round trip the emulation inserted is replaced by the tensor it rounds (the adapter
    partitions the script's graph; the emulation is ours, docs/precision.md)."""
    from npu_bridge.ge import records as _records
    if not _records.RUN.precision:
        return lambda op: op.inputs
    return lambda op: _state.script_inputs(op.inputs)


def describe(graph, fetches, feed_dict=None, name="graph"):
    """The `PGraph` the adapter's pass receives for running `fetches` with `feed_dict` on
    `graph` (a tf.Graph): the ops the fetches need (stopping at fed tensors) in creation
    order, then one `_Arg` per fed tensor read and one `_Retval` per fetched tensor; the ops
    `--precision emulate` adds (its `npu_precision/` scope, its round trips) left out.
    Raises what Session.run raises for a fetch not in the graph."""
    # pylint: disable=protected-access
    fed, fetch_tensors, targets = run_tensors(graph, fetches, feed_dict)
    inputs_of = _script_inputs()
    seen, stack = {}, [t.op for t in fetch_tensors if id(t) not in fed] + targets
    while stack:
        op = stack.pop()
        if op._id_value in seen or _emulation_op(op):
            continue
        seen[op._id_value] = op
        stack.extend(t.op for t in inputs_of(op) if id(t) not in fed)
        stack.extend(op.control_inputs)
    ops = [seen[k] for k in sorted(seen)]
    wanted = {op.name for op in ops}
    graph_def = graph.as_graph_def()
    defs = {n.name: n for n in graph_def.node if n.name in wanted}
    arg_of = {}
    args = []
    for t in fed.values():
        arg = "_arg_%s_%d" % (t.op.name, t.value_index)
        arg_of[id(t)] = arg
        args.append(_pg.PNode(arg, "_Arg", outputs=((_shape(t), t.dtype.base_dtype.name),)))
    used_args = set()
    nodes = []
    for op in ops:
        types = op._input_types
        inputs = []
        for i, t in enumerate(inputs_of(op)):
            if _emulation_op(t.op):   # an emulated status check wired into the script's op
                continue
            if id(t) in fed:
                used_args.add(arg_of[id(t)])
                inputs.append((arg_of[id(t)], 0, types[i].name))
            else:
                inputs.append((t.op.name, t.value_index, types[i].name))
        nodes.append(_pg.PNode(op.name, op.type, tuple(inputs),
                               tuple(c.name for c in op.control_inputs),
                               tuple((_shape(t), t.dtype.name) for t in op.outputs),
                               _attrs(defs[op.name]) if op.name in defs else {}))
    rets, done = [], set()
    for t in fetch_tensors:
        key = (t.op.name, t.value_index)
        if key in done:
            continue
        done.add(key)
        src = arg_of.get(id(t))
        if src:
            used_args.add(src)
        rets.append(_pg.PNode("_retval_%s_%d" % key, "_Retval",
                              ((src or t.op.name, 0 if src else t.value_index,
                                t.dtype.base_dtype.name),)))
    nodes += [a for a in args if a.name in used_args] + rets
    return _pg.PGraph(name, tuple(nodes), _functions(graph_def.library))


def partition_run(graph, fetches, feed_dict, options, name="graph", environ=os.environ):
    """The `Partition` of one run under the session's `GeOptions` `options`."""
    pgraph = describe(graph, fetches, feed_dict, name)
    opts = _partition.PassOptions.from_adapter(options.adapter_options)
    return _partition.partition(pgraph, opts, COUNTER.supported(environ), COUNTER.next())


PARTITIONS_PER_SESSION = 64   # as graph_capture.GRAPHS_PER_SESSION


def note(rec, graph, fetches, feed_dict, name):
    """Partition a run's graph the first time it runs (called by graph_capture once per
    executor, `name` being unique in the record: `graph_capture.executor_key`): the
    `Partition` goes to the session's record (`rec.partitions`), its diagnostics to the
    record's runtime diagnostics. Never fails the run: a graph it cannot read is noted in
    `state.CAPTURE.unpartitioned` (GE memory is then planned for the whole graph). Returns the
    `Partition`, or None."""
    from npu_bridge.ge import records as _records
    parts = rec.partitions
    if len(parts) >= PARTITIONS_PER_SESSION:
        return None
    try:
        part = partition_run(graph, fetches, feed_dict, rec.options, name)
    except Exception as err:   # pylint: disable=broad-except  (the user's run comes first)
        if len(_state.CAPTURE.unpartitioned) < 16:
            _state.CAPTURE.unpartitioned.append("%s: %s: %s" % (name, type(err).__name__, err))
        return None
    parts.append(part)
    for d in part.diagnostics:
        cause = (d.code,) if d.code == "NPB198" else (d.code, part.graph)
        _records.add_runtime_diagnostic(rec, cause, d)
    return part


def geop_captures(cap, part):
    """What GE plans of captured graph `cap` (a `graph_capture.Captured`): one copy per GeOp
    of `part` holding that GeOp's graph (`partition_report.geop_graphs`; the graph's facts on
    the first only), a copy with no nodes when nothing is compiled (no GE memory; its
    findings still count), `[cap]` when the partition failed (None)."""
    import copy
    from npu_bridge.ge import npu_failures as _failures, partition_report
    if part is None:
        return [cap]
    out = []
    graphs = partition_report.geop_graphs(cap.graph, part)
    if not graphs:
        graphs = [cap.graph.__class__(cap.graph.name, ())]
    for i, g in enumerate(graphs):
        c = copy.copy(cap)
        c.graph = g
        if i:
            c.facts = _failures.GraphFacts()
        out.append(c)
    return out
