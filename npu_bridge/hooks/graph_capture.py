"""The GE graphs of a run, captured on the first run of each (session, fetch set, feed set)
and planned with `npu_bridge.ge.memory_plan`. Notes: docs/design.md "Module notes".
"""
import os

import numpy as np
import tensorflow as tf

from npu_bridge.ge import records as _records
from npu_bridge.hooks import state as _state
from npu_bridge.hooks.session_guard import graph_key   # one GE graph per (session, fetches, feeds)
from npu_bridge.ge import memory_plan as mp
from npu_bridge.ge import npu_failures as _failures
from npu_bridge.ge import graph_roles as _roles
from npu_bridge.hooks import partition_capture as _partition_capture

GRAPHS_PER_SESSION = 64     # bounded: a script building a new fetch set per step stays cheap

_CAPTURE = _state.CAPTURE   # what was seen and is waiting (npu_bridge.hooks.state.Capture)
_lock = _CAPTURE.lock

_TYPE_MAP = {
    "Placeholder": "Data", "PlaceholderV2": "Data",
    "IteratorGetNext": "GetNext", "IteratorGetNextSync": "GetNext", "GetNext": "GetNext",
    "IteratorGetNextAsOptional": "GetNext",
    "Enter": "Enter", "RefEnter": "Enter",
    "NextIteration": "NextIteration", "RefNextIteration": "NextIteration",
    "Const": "Const", "HostConst": "Const",
    "VariableV2": "VariableV2", "Variable": "VariableV2", "VarHandleOp": "VarHandleOp",
    "TemporaryVariable": "VariableV2",
}
# outputs of unknown shape in TensorFlow that hold nothing (reserve_space_3 of the fused batch
# norm: empty outside cuDNN; GE's BatchNorm has no such output): planned as 0 bytes
_EMPTY_OUTPUTS = {"FusedBatchNormV3": (5,)}
# ops of the host input pipeline (besides anything producing a variant: datasets)
_HOST_TYPES = frozenset(("MakeIterator", "IteratorV2", "Iterator", "OneShotIterator",
                         "AnonymousIteratorV2", "AnonymousIteratorV3", "IteratorToStringHandle",
                         "IteratorFromStringHandleV2", "DeleteIterator", "MultiDeviceIterator"))


def enable(on=True):
    """Capture the graphs of every NPU session's runs from now on (off: `enable(False)`)."""
    _records.RUN.capture = bool(on)


class Captured:
    """One captured GE graph: `graph` (a `memory_plan.Graph`), `tf_types` (TF op type ->
    count in the subgraph, host ops included), `placeholders` (name -> shape list or None)
    of the Data inputs, `getnext` (names of GetNext nodes of unknown shape), `fetch_names`,
    `ops` (the tf.Operation objects of the subgraph; held only during capture), `role` (what
    it does: `graph_roles.ROLES`)."""

    role = "other"

    def __init__(self, graph, tf_types, fetch_names, dynamic_sources):
        self.graph = graph
        self.tf_types = tf_types
        self.fetch_names = fetch_names
        self.dynamic_sources = dynamic_sources


def _shape(tensor):
    shape = tensor.shape
    if shape.rank is None:
        return None
    return tuple(shape.as_list())


def _dtype(tensor):
    return tensor.dtype.base_dtype.name


def capture(graph, fetches, feed_dict=None, name="graph"):
    """The GE graph of running `fetches` with `feed_dict` on `graph`: a `Captured`.

    Fetches and feeds are read the way `Session.run` reads them (TensorFlow's own fetch
    handler), so any fetch structure a session accepts works here. Raises what
    `Session.run` would raise for a fetch that is not in the graph."""
    # pylint: disable=protected-access
    # Tensors and ops are keyed by id(): a graph keeps one Tensor object per output and one
    # Operation per node for its lifetime (Graph._get_tensor_by_tf_output), and ids are
    # cheaper than Tensor.ref(). Each op's type, name, inputs and control inputs are read
    # from TensorFlow once (each read crosses into C++).
    feeds, fetch_tensors, targets = _partition_capture.run_tensors(graph, fetches, feed_dict)
    fed = feeds
    # walk back from the fetches, stopping at fed tensors: depth-first, post-order, so each
    # op comes after its inputs (creation order is not topological under tf.cond); an edge
    # into an op still being visited is a loop's back edge (NextIteration -> Merge): skipped
    done = {}
    ins = {}      # op id -> its input tensors
    ctl = {}      # op id -> its control inputs
    typ = {}      # op id -> op type
    active = set()
    order = []
    roots = [t.op for t in fetch_tensors] + targets
    for r in roots:
        if r._id_value in done:
            continue
        stack = [(r, False)]
        while stack:
            op, expanded = stack.pop()
            oid = op._id_value
            if expanded:
                active.discard(oid)
                if oid not in done:
                    done[oid] = op
                    order.append(op)
                continue
            if oid in done or oid in active:
                continue
            active.add(oid)
            stack.append((op, True))
            ins[oid] = op_inputs = op.inputs
            if _records.RUN.precision:   # the graph as the script built it, not its round trips
                ins[oid] = op_inputs = _state.script_inputs(op_inputs)
            ctl[oid] = controls = op.control_inputs
            typ[oid] = op.type
            preds = [t.op for t in op_inputs if id(t) not in fed]
            preds.extend(controls)
            for p in reversed(preds):
                pid = p._id_value
                if pid not in done and pid not in active:
                    stack.append((p, False))
    ops = _creation_order(order, fed, ins, ctl, typ)
    tf_types = {}
    for op in ops:
        kind = typ[op._id_value]
        tf_types[kind] = tf_types.get(kind, 0) + 1
    # host ops: the input pipeline, and ops feeding only host ops
    variant = set()   # ids of ops with a variant output (datasets, iterators' handles)
    host = set()
    consumers = {}
    for op in ops:
        oid = op._id_value
        for t in ins[oid]:
            consumers.setdefault(t.op._id_value, []).append(oid)
        for c in ctl[oid]:
            consumers.setdefault(c._id_value, []).append(oid)
        if any(t.dtype is _VARIANT for t in op.outputs):
            variant.add(oid)
    fetched = {t.op._id_value for t in fetch_tensors} | {o._id_value for o in targets}
    for op in reversed(ops):
        oid = op._id_value
        if typ[oid] in _HOST_TYPES or oid in variant:
            host.add(oid)
        elif oid not in fetched and consumers.get(oid) and all(c in host for c in consumers[oid]):
            host.add(oid)
    nodes = []
    data_names = []
    # fed tensors the subgraph reads: the graph's Data inputs, in feed order
    consumed = {id(i) for op in ops for i in ins[op._id_value]} | {id(f) for f in fetch_tensors}
    used_feeds = [t for t in feeds.values() if id(t) in consumed]
    data_of = {}
    for t in used_feeds:
        dname = t.op.name if t.op.type.startswith("Placeholder") and t.value_index == 0 else t.name
        data_of[id(t)] = dname
        nodes.append(mp.Node(dname, "Data", ((_shape(t), _dtype(t)),)))
        data_names.append(dname)
    dynamic_sources = []
    names_of = {op._id_value: op.name for op in ops}
    for op in ops:
        oid = op._id_value
        if oid in host:
            continue
        op_type = typ[oid]
        if op_type.startswith("Placeholder") and all(id(t) in fed for t in op.outputs):
            continue   # fed placeholder: its Data node is above
        kind = _TYPE_MAP.get(op_type, op_type)
        outputs = []
        alias = []
        any_alias = False
        for t in op.outputs:
            if op_type == "VarHandleOp":
                shape = tf.TensorShape(op.get_attr("shape"))
                outputs.append((tuple(shape.as_list()) if shape.rank is not None else None,
                                op.get_attr("dtype").name))
                alias.append(None)
                continue
            if op_type in _EMPTY_OUTPUTS and t.value_index in _EMPTY_OUTPUTS[op_type]:
                outputs.append(((0,), _dtype(t)))
                alias.append(None)
                continue
            outputs.append((_shape(t), _dtype(t)))
            if t.dtype._is_ref_dtype and kind not in mp.VARIABLE_OPS and ins[oid]:
                alias.append(0)
                any_alias = True
            else:
                alias.append(None)
        inputs = []
        for t in ins[oid]:
            src = data_of.get(id(t))
            inputs.append((src, 0) if src is not None else (names_of[t.op._id_value], t.value_index))
        if kind == "GetNext" and any(s is None or None in s for s, _ in outputs):
            dynamic_sources.append(names_of[oid])
        var_name = op.get_attr("shared_name").decode() if op_type == "VarHandleOp" else None
        # control inputs order GE's sort (a gradient tuple's Identity waits for its group)
        control = tuple(names_of[c._id_value] for c in ctl[oid] if c._id_value not in host)
        nodes.append(mp.Node(names_of[oid], kind, tuple(outputs), tuple(
            i for i in inputs if i[0] is not None), tuple(alias) if any_alias else None,
            var_name=var_name or None, control=control))
    # inputs produced by host ops are not in the GE graph, and a loop's back edge reads a
    # later node: drop those references (an alias over a dropped input becomes its own)
    names = set()
    kept = []
    for n in nodes:
        if all(i[0] in names for i in n.inputs) and all(c in names for c in n.control):
            kept.append(n)
        else:
            ins_kept = tuple(i for i in n.inputs if i[0] in names)
            kept.append(mp.Node(n.name, n.op, n.outputs, ins_kept,
                                n.alias if len(ins_kept) == len(n.inputs) else None, n.var_name,
                                tuple(c for c in n.control if c in names)))
        names.add(n.name)
    nodes = kept
    outputs = []
    for t in fetch_tensors:
        src = data_of.get(id(t))
        outputs.append((src, 0) if src is not None else (t.op.name, t.value_index))
    outputs = tuple(o for o in outputs if o[0] in names)
    g = mp.Graph(name, tuple(nodes), tuple(data_names), outputs)
    cap = Captured(g, tf_types, [t.name for t in fetch_tensors] + [o.name for o in targets],
                   dynamic_sources)
    cap.facts = _facts(graph, ops, host, ins, typ, names_of, variant)
    cap.role = _roles.role(cap.facts.training, tf_types,
                           [t.op.type for t in fetch_tensors] + [o.type for o in targets],
                           len(data_names))
    return cap


def _creation_order(ops, fed, ins, ctl, typ):
    """`ops` in a topological order that follows creation order where it can (Kahn's
    algorithm, the smallest op id first: TensorFlow's order of building, which GE's default
    topological sort keeps close to); a loop's back edge (NextIteration -> Merge) is not an
    edge. Falls back to `ops` (a valid post-order) if a cycle remains."""
    # pylint: disable=protected-access
    import heapq
    ids = {op._id_value: op for op in ops}
    indeg = dict.fromkeys(ids, 0)
    succ = {k: [] for k in ids}
    for oid in ids:
        preds = {p for p in (t.op._id_value for t in ins[oid] if id(t) not in fed)
                 if typ.get(p) not in _BACK_EDGE_TYPES}
        preds.update(c._id_value for c in ctl[oid])
        for p in preds:
            if p in ids:
                indeg[oid] += 1
                succ[p].append(oid)
    heap = [k for k, d in indeg.items() if d == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        k = heapq.heappop(heap)
        out.append(ids[k])
        for n in succ[k]:
            indeg[n] -= 1
            if indeg[n] == 0:
                heapq.heappush(heap, n)
    return out if len(out) == len(ops) else ops


_BACK_EDGE_TYPES = frozenset(("NextIteration", "RefNextIteration"))


def _iterator_type(op, depth=0):
    """The op type of the iterator a GetNext reads (through string-handle ops)."""
    if not op.inputs or depth > 4:
        return ""
    src = op.inputs[0].op
    if src.type in ("IteratorFromStringHandle", "IteratorFromStringHandleV2"):
        return _iterator_type(src, depth + 1)
    return src.type


def _zeros_init(init_op):
    """Does variable initializer `init_op` (Assign / AssignVariableOp) write zeros (a Const of
    zeros, a Fill of 0, ZerosLike)? Zeros are what a host-side initialization leaves anyway
    (NPB174: only the other initializers are lost)."""
    if len(init_op.inputs) < 2:
        return False
    value = init_op.inputs[1]
    while value.op.type == "Identity" and value.op.inputs:
        value = value.op.inputs[0]
    kind = value.op.type
    if kind == "ZerosLike":
        return True
    if kind == "Fill":
        value = value.op.inputs[1]
        while value.op.type == "Identity" and value.op.inputs:
            value = value.op.inputs[0]
    if value.op.type != "Const":
        return False
    # the Const's own value: not tf.get_static_value, which marks the tensor unfeedable
    # (Graph.prevent_feeding) and so breaks Variable.load of that variable later
    proto = value.op.get_attr("value")
    if not proto.tensor_content and proto.dtype in _SPLAT_FIELDS:
        # a splat or short list (how zeros and ones are stored): the values as written, without
        # make_ndarray expanding them to the whole shape (an empty list is zeros)
        return not any(getattr(proto, _SPLAT_FIELDS[proto.dtype]))
    dtype = tf.as_dtype(proto.dtype)
    if not (dtype.is_floating or dtype.is_integer or dtype.is_complex or dtype.is_bool):
        return False   # strings, resources: not a value that can be zeros
    # by the TensorFlow dtype: bfloat16's numpy kind is "V", not "f"
    return not np.any(tf.make_ndarray(proto))


# TensorProto value field of the dtypes whose values compare to 0 as stored (not half/bfloat16,
# stored as bit patterns, where -0.0 is not 0)
_SPLAT_FIELDS = {tf.float32.as_datatype_enum: "float_val", tf.float64.as_datatype_enum: "double_val",
                 tf.int32.as_datatype_enum: "int_val", tf.int64.as_datatype_enum: "int64_val",
                 tf.bool.as_datatype_enum: "bool_val"}


def _facts(graph, ops, host, ins, typ, names_of, variant):
    """`npu_failures.GraphFacts` of the subgraph `ops` (`host`: ids of its host ops; `ins`,
    `typ`, `names_of`: op id -> inputs, type, name; `variant`: ids of ops with a variant
    output), as `capture` read them."""
    # pylint: disable=protected-access
    f = _failures.GraphFacts()
    init_ids = set()
    for key in (tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, tf.compat.v1.GraphKeys.LOCAL_VARIABLES):
        for v in graph.get_collection(key):
            init = getattr(v, "initializer", None)
            if init is not None:
                init_ids.add(init._id_value)
    for op in ops:
        oid = op._id_value
        kind = typ[oid]
        if oid not in host:
            if kind in _failures.V1_CONTROL:
                f.v1_control.append((names_of[oid], kind))
                if kind in ("Merge", "RefMerge"):
                    f.merges += 1
            elif kind in _failures.DATA_DEPENDENT and any(
                    mp.tensor_bytes(_shape(t), "int8") is None for t in op.outputs):
                f.data_dependent.append((names_of[oid], kind))
            elif kind.startswith(("Apply", "ResourceApply", "ResourceSparseApply",
                                  "SparseApply")):
                f.training = True
        if kind in ("IteratorGetNext", "IteratorGetNextSync"):
            f.getnext.append((names_of[oid], _iterator_type(op), any(
                mp.tensor_bytes(_shape(t), "int8") is None for t in op.outputs)))
        elif kind == "MakeIterator":
            f.iterator_inits.append(names_of[oid])
        if oid in init_ids and not _zeros_init(op):
            f.var_inits += 1
        if oid in variant:
            for t in ins[oid]:
                if "Table" in t.op.type and t.dtype == tf.resource:
                    f.tables_in_pipeline.append(t.op.name)
    return f


def _options_of(rec):
    if rec.memory_options is None:
        rec.memory_options = mp.MemoryOptions.from_ge(rec.options, env=os.environ)
    return rec.memory_options


def note_run(session, fetches, feed_dict):
    """Called by the Session patch before each run while capture is on: capture and plan the
    graph of this (session, fetches, feeds) the first time it runs. Never fails the run: a
    graph this module cannot read is left unplanned (and named in `state.CAPTURE.unplanned`)."""
    known = _state.of(session)
    rec = known.record if known is not None else None
    if rec is None:
        return
    # keyed by the record (kept for the whole run), not the session's id, which a later
    # session can reuse
    fast = _fast_key(rec, fetches, feed_dict)
    if fast is not None and fast in _CAPTURE.fast_seen:
        return
    key = (id(rec), graph_key(session.graph, fetches, feed_dict, session))
    if key in _CAPTURE.seen:
        if fast is not None:
            if len(_CAPTURE.fast_seen) > _FAST_LIMIT:
                _CAPTURE.fast_seen.clear()
            _CAPTURE.fast_seen.add(fast)
        return
    try:
        _note_new(rec, key, session, fetches, feed_dict)
    except Exception as err:   # pylint: disable=broad-except  (the user's run comes first)
        _CAPTURE.seen[key] = None
        if len(_CAPTURE.unplanned) < 16:
            _CAPTURE.unplanned.append("%s: %s: %s" % (rec.name, type(err).__name__, err))


_ELEMENT_TYPES = frozenset(t for t in (tf.Operation, tf.Tensor,
                                        getattr(__import__("tensorflow.python.framework.ops",
                                                           fromlist=["ops"]), "SymbolicTensor",
                                                None)) if t is not None)
_VARIANT = tf.variant   # DTypes are interned: compared by identity
_FAST_LIMIT = 4096


def _fast_key(rec, fetches, feed_dict):
    """A cheap key for a run whose fetches (one, or a flat list/tuple) and feed keys are graph
    tensors and ops (alive with their graph, so their ids are stable): the ids in order.
    None for anything else (graph_key then decides)."""
    if type(fetches) in _ELEMENT_TYPES:
        items = (id(fetches),)
    elif type(fetches) in (list, tuple) and all(type(x) in _ELEMENT_TYPES for x in fetches):
        items = tuple(map(id, fetches))
    else:
        return None
    if feed_dict:
        if not all(type(k) in _ELEMENT_TYPES for k in feed_dict):
            return None
        return (id(rec), items, tuple(map(id, feed_dict)))
    return (id(rec), items, None)




class _Waiting:
    """What `_CAPTURE.seen` holds for a run captured but not yet partitioned (`_finish`)."""
    __slots__ = ("captured",)

    def __init__(self, captured):
        self.captured = captured


def executor_key(graph, fetches, feed_dict):
    """What TensorFlow's DirectSession builds one executor for (GetOrCreateExecutors: the
    sorted names of the fed tensors, of the fetched tensors and of the targets), so what the
    adapter's pass partitions once, making GeOps that GE compiles as graphs of their own
    (a GeOp kernel adds one GE graph: geop_npu.cc:845-860, :1126-1151): the order of the
    fetches and how a fetch is spelt (a tensor, its name) make no new graph."""
    feeds, fetch_tensors, targets = _partition_capture.run_tensors(graph, fetches, feed_dict)
    return (frozenset(t.name for t in feeds.values()),
            frozenset(t.name for t in fetch_tensors), frozenset(op.name for op in targets))


def _note_new(rec, key, session, fetches, feed_dict):
    with _lock:
        if key in _CAPTURE.seen:
            return
        _CAPTURE.seen[key] = None
    try:
        run_key = executor_key(session.graph, fetches, feed_dict)
    except Exception:   # not ours to judge: Session.run reports a bad fetch itself
        return
    with _lock:
        keys = rec.executors.get(run_key)
        if keys is not None:   # the same executor, reached by another spelling
            keys.append(key)
            _CAPTURE.seen[key] = _CAPTURE.seen.get(keys[0])
            return
        if len(rec.executors) >= GRAPHS_PER_SESSION:
            # counted once per graph (`seen` keeps the key: later runs cost nothing)
            _count_uncaptured(rec, "fetch sets beyond the first %d graphs" % GRAPHS_PER_SESSION,
                              "graph(s)")
            return
        # one number per graph the adapter partitions (in run order), whether GE gets
        # anything of it or not (a dataset initializer stays on the host)
        name = "%s/%d" % (rec.name, len(rec.executors) + 1)
        rec.executors[run_key] = [key]
    try:
        cap = capture(session.graph, fetches, feed_dict, name=name)
    except Exception:   # not ours to judge: Session.run reports a bad fetch itself
        return
    # The run pays the capture only: the partition into GeOps (a second walk of the graph,
    # reading its attributes) and what follows are done by `_finish`, in capture order,
    # before anything reads them (the records, `count_step`, `captured_name`). The subgraph a
    # run reads does not change after the run (a TensorFlow graph only grows); the fed
    # values are not kept, only the feed keys.
    with _lock:
        _CAPTURE.seen[key] = _Waiting(cap)
        _CAPTURE.deferred.append((rec, run_key, cap, session.graph, fetches,
                                  dict.fromkeys(feed_dict) if feed_dict else None))


_finish_lock = _CAPTURE.finish_lock


def _finish():
    """The deferred part of `_note_new` for every run captured so far, in capture order, as
    it would have been done in the run: GE plans what it compiles (each GeOp,
    docs/partition.md), the partition's findings. The graph keeps the name it got when it
    ran (`_note_new`); every spelling of its executor gets its first GE graph."""
    with _finish_lock:
        while True:
            with _lock:
                if not _CAPTURE.deferred:
                    return
                rec, run_key, cap, graph, fetches, feeds = _CAPTURE.deferred.pop(0)
                keys = rec.executors[run_key]
            name = cap.graph.name
            part = _partition_capture.note(rec, graph, fetches, feeds, name)
            first = None
            for geop in _partition_capture.geop_captures(cap, part):
                entry = _plan_new(rec, geop)
                first = first or entry
            with _lock:
                for key in keys:
                    _CAPTURE.seen[key] = first


def _plan_new(rec, cap):
    """Plan one GE graph of a run (`cap`: a GeOp's graph) and record its findings."""
    if not any(n.outputs for n in cap.graph.nodes):
        # host only (an iterator initializer): no GE memory, but its mistakes still count
        for d in _failures.graph_findings(cap.graph.name, cap.facts, None, rec.options,
                                          _options_of(rec), os.environ):
            cause = (d.code,) if d.code in _failures.PER_SESSION else (d.code, cap.graph.name)
            _records.add_runtime_diagnostic(rec, cause, d)
        return
    # one GE graph per GeOp of each executor (`executor_key`), even when two executors'
    # GeOps hold the same ops: the adapter compiles each; planned later (`_settle`: before
    # the records are read), so a run pays the capture only. Returns the entry (None: host
    # only).
    sig = (frozenset(n.name for n in cap.graph.nodes), cap.graph.inputs, cap.graph.outputs)
    entry = _records.GraphEntry(cap, None, sig, make=lambda e: _plan_entry(rec, e))
    with _lock:
        rec.graphs.append(entry)
        _CAPTURE.pending.append((rec, entry))
    return entry




def _plan_entry(rec, entry):
    """The plan of a captured graph (None: this walk could not order it) and its findings."""
    cap = entry.captured
    try:
        plan = mp.plan_graph(cap.graph, _options_of(rec))
    except ValueError:   # a graph this walk could not order: no plan rather than a failed run
        return None
    for d in _failures.graph_findings(cap.graph.name, cap.facts, plan, rec.options,
                                      _options_of(rec), os.environ):
        # a configuration's finding (NPB172) once per session, a graph's once per graph
        cause = (d.code,) if d.code in _failures.PER_SESSION else (d.code, cap.graph.name)
        _records.add_runtime_diagnostic(rec, cause, d)
    return plan


def _settle():
    """Plan the graphs captured since the last call, drop those that could not be planned,
    and make the session findings (NPB178) of the records that have several graphs."""
    _finish()
    with _lock:
        todo, _CAPTURE.pending = _CAPTURE.pending, []
    touched = {}
    for rec, entry in todo:
        try:
            plan = entry.plan
        except Exception as err:   # pylint: disable=broad-except  (the report comes first)
            plan = None
            if len(_CAPTURE.unplanned) < 16:
                _CAPTURE.unplanned.append("%s: %s: %s" % (rec.name, type(err).__name__, err))
        if plan is None:
            with _lock:
                if entry in rec.graphs:
                    rec.graphs.remove(entry)
        touched[id(rec)] = rec
    for rec in touched.values():
        if len(rec.graphs) > 1:
            from npu_bridge.ge import memory_report
            for d in _failures.session_findings(rec.name, memory_report.session_plan(rec)):
                _records.add_runtime_diagnostic(rec, (d.code,), d)


_records.on_settle(_settle)


def note_uncaptured(session, what):
    """Count a run of `session` (an NPU session) that ran without being captured (`what`:
    "partial_run", ...), for `uncaptured_lines`. Nothing for a session without a record."""
    known = _state.of(session)
    if known is not None and known.record is not None:
        with _lock:
            _count_uncaptured(known.record, what, "run(s)")


def _count_uncaptured(rec, what, unit):
    key = (id(rec), what, unit)   # the record is held in the value: the id stays its own
    if key in _CAPTURE.uncaptured:
        _CAPTURE.uncaptured[key][1] += 1
    elif len(_CAPTURE.uncaptured) < 64:
        _CAPTURE.uncaptured[key] = [rec, 1]


def uncaptured():
    """What ran on this run's NPU sessions but is in no plan, one entry per session and kind:
    `Session#1: partial_run: 3 run(s)` (`npu-bridge run` and `memory` print them,
    `tools.report.capture_failures`)."""
    current = {id(r) for r in _records.records()}   # this run's (`records.clear()` before)
    with _lock:
        counts = [(rec.name, what, n, unit) for (rid, what, unit), (rec, n)
                  in _CAPTURE.uncaptured.items() if rid in current]
    return ["%s: %s: %d %s" % c for c in sorted(counts)]


def uncaptured_lines():
    """`uncaptured()` as text lines: `not captured: Session#1: partial_run: 3 run(s) ran, in
    no plan (docs/memory.md)`."""
    return ["not captured: %s ran, in no plan (docs/memory.md)" % c for c in uncaptured()]


def captured_name(rec, key):
    """The name (`Session#1/2`) of the graph captured for record `rec` and `key` (a
    `session_guard.graph_key`), or None (not captured, or the same subgraph as another)."""
    entry = _CAPTURE.seen.get((id(rec), key))
    if isinstance(entry, _Waiting):
        _finish()
        entry = _CAPTURE.seen.get((id(rec), key))
    return None if entry is None else entry.captured.graph.name


def count_step(session, fetches, feed_dict):
    """Under `RUN.steps` (`npu-bridge memory --steps N`), after `note_run`: count a run of a
    captured training graph (optimizer Apply ops), raising `records.StepsDone` instead of
    letting the N+1-th run compute (its graph is already captured and planned)."""
    known = _state.of(session)
    rec = known.record if known is not None else None
    if rec is None:
        return
    key = (id(rec), graph_key(session.graph, fetches, feed_dict, session))
    entry = _CAPTURE.seen.get(key)
    if isinstance(entry, _Waiting):
        _finish()
        entry = _CAPTURE.seen.get(key)
    if entry is None or not entry.captured.facts.training:
        return
    run = _records.RUN
    with run.lock:
        if run.steps_run >= run.steps:
            raise _records.StepsDone(entry.captured.graph.name, run.steps)
        run.steps_run += 1


def not_computed(session, fetches, feed_dict):
    """What `Session.run` returns for a run that `npu-bridge memory --steps 0` captures and
    does not compute (docs/memory.md): zeros of each fetched tensor's dtype and static shape,
    a dimension of unknown size 0 (so `report_uninitialized_variables` reports none), b""
    for a string, a scalar as a numpy scalar (as `Session.run` gives it), a fed tensor its
    feed, None for an op; in the structure of `fetches`.
    Raises what `Session.run` raises for fetches it cannot take."""
    from tensorflow.python.client import session as _session_lib
    from npu_bridge.hooks.session_guard import fed_values
    fed = fed_values(session.graph, feed_dict)
    handler = _session_lib._FetchHandler(session.graph, fetches, fed)   # pylint: disable=protected-access
    values = []
    for t in handler.fetches():
        shape = tuple(d or 0 for d in t.shape.as_list()) if t.shape.rank is not None else ()
        if t.dtype == tf.string:
            value = np.full(shape, b"", dtype=object)
        else:
            value = np.zeros(shape, dtype=t.dtype.as_numpy_dtype)
        values.append(value[()] if not shape else value)   # a scalar as Session.run gives it
    return handler.build_results(session, values)


def note_loss_scale_manager(name):
    """Called when a loss-scale manager is created: NPB176 on the configuration resolved last
    (or the next one) when control dependencies are active in the default graph."""
    graph = tf.compat.v1.get_default_graph()
    # pylint: disable=protected-access
    deps = [c.name for ctl in getattr(graph, "_control_dependencies_stack", ())
            for c in getattr(ctl, "_control_inputs_val", ())
            if hasattr(c, "name")]
    if not deps:
        return
    d = _failures.loss_scale_finding(name, deps)
    # before any configuration: kept in the run's context for the next one (`RUN.pending`)
    _records.add_to_last((d.code, name, tuple(deps)), d)


def reset():
    """Forget what was captured (tests)."""
    with _lock:
        _CAPTURE.seen.clear()
        _CAPTURE.fast_seen.clear()
        _CAPTURE.pending = []
        _CAPTURE.deferred = []
        _CAPTURE.uncaptured.clear()
