"""`npu-bridge run --precision emulate` (or NPU_BRIDGE_PRECISION=emulate): each NPU session's
graph computes with the precision the NPU would use. Rules: `npu_bridge.ge.precision`;
design and limits: docs/precision.md.

How: a graph rewrite of our own, done before a session's run sends new ops to TensorFlow
(the Session patch calls `wrap_run`). A float32 tensor that the NPU would hold in float16
(bfloat16) gets a round trip `Cast(Cast(x, low), float32)`: the value is exactly what the
low type stores, overflow included; the op itself computes in float32, as the NPU's cube
unit accumulates float16 products in float32. Saturation mode clips to +-max before the
cast. Beside each round trip, `Max(Abs(x))` of the float32 value is fetched with the run:
it says which op overflowed first, at which step, and drives the emulated float status that
`NPULossScaleOptimizer` reads in saturation mode. TensorFlow's own grappler pass
(`auto_mixed_precision_cpu`) is not used: it cannot saturate, cannot skip the ops under
`keep_dtype_scope`, cannot model cube_fp16in_fp32out, and says nothing of what overflowed
(docs/precision.md).
"""
import contextlib
import os
import threading

import tensorflow as tf
from tensorflow.python.client import session as _session_lib

from npu_bridge.ge import precision as _precision
from npu_bridge.ge import records as _records
from npu_bridge.hooks import state as _state

ENV = "NPU_BRIDGE_PRECISION"          # "emulate" or "off" (default)
VALUES = ("off", "emulate")
# What the loss-scale code notes per graph (`note`, `noted`): kept beside the graph, never in
# its collections, which Saver.save / export_meta_graph would write into the script's
# checkpoints (and warn about, for an object that is not a tensor or op).
STATUS_COLLECTION = "npu_bridge_precision_status"   # NPULossScaleOptimizer's checks
SCALE_COLLECTION = "npu_bridge_precision_loss_scale"  # loss scale after each step
LOSS_COLLECTION = "npu_bridge_precision_loss"         # the losses the optimizers scaled
# |x| at or beyond this does not fit the low type (the round-to-nearest boundary)
OVERFLOW_AT = {"float16": 65520.0, "bfloat16": 3.3961775e38}
_LOW = {"float16": tf.float16, "bfloat16": tf.bfloat16}
_F32 = tf.float32
HISTORY_LIMIT = 200        # loss-scale changes kept per graph
_lock = threading.RLock()


def mode_from_env(environ=None):
    """The mode `ENV` asks for: "off" or "emulate". Raises ValueError naming the variable and
    the allowed values for anything else."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower() or "off"
    if value not in VALUES:
        raise ValueError("%s=%r: allowed values are %s (docs/precision.md)"
                         % (ENV, value, ", ".join(VALUES)))
    return value


def enabled():
    """True when the emulation is on (`enable()`, `npu-bridge run --precision emulate`, or
    `ENV`=emulate when npu_bridge was imported): `records.RUN.precision`."""
    return _records.RUN.precision


def enable(on=True):
    """Switch the emulation on or off for the graphs and sessions made from now on."""
    _records.RUN.precision = bool(on)


def _record_of(session):
    known = _state.of(session)
    return None if known is None else known.record


class StatusCheck:
    """What `NPULossScaleOptimizer` built under emulation: `hook` (an Identity whose input
    the rewrite replaces with the mode's overflow check), `grads` (the gradients),
    `check` (enable_overflow_check), `status` (its overflow_status_reduce_all tensor)."""

    def __init__(self, hook, grads, check, status):
        self.hook, self.grads, self.check, self.status = hook, grads, check, status
        self.wired = False


def note(kind, item, graph=None):
    """Keep `item` (a tensor, or a `StatusCheck`) under `kind` (one of the *_COLLECTION names)
    for `graph` (default: the item's own graph, else the default graph), outside the graph's
    collections (`state.PRECISION_NOTES`)."""
    if graph is None:
        graph = getattr(item, "graph", None) or tf.compat.v1.get_default_graph()
    with _lock:
        _state.PRECISION_NOTES.setdefault(graph, {}).setdefault(kind, []).append(item)


def noted(graph, kind):
    """The items `note` kept under `kind` for `graph`, in the order noted (a new list)."""
    with _lock:
        return list(_state.PRECISION_NOTES.get(graph, {}).get(kind, ()))


def note_status_check(hook, grads, check, status):
    """Called by `NPULossScaleOptimizer.apply_gradients` when the emulation is on."""
    note(STATUS_COLLECTION, StatusCheck(hook, list(grads), check, status), status.graph)


class _Rounded:
    """The round trip of one float32 tensor: `tensor` (the rounded value), `peak` (max |x| of
    the float32 value), the op that made the value, the id of the last cast op, and whether
    that op computes low (`producer_low`: every consumer reads the rounded value) or only
    one low consumer reads it (an input rounding)."""
    __slots__ = ("tensor", "peak", "op_name", "op_type", "cast_id", "producer_low", "source")

    def __init__(self, tensor, peak, op_name, op_type, cast_id, producer_low, source):
        self.tensor, self.peak, self.op_name, self.op_type, self.cast_id = (
            tensor, peak, op_name, op_type, cast_id)
        self.producer_low = producer_low
        self.source = source   # the float32 tensor it rounds


class _GraphState:
    """The rewrite of one tf.Graph under one plan: ops processed so far (`watermark`), the
    rounded version of each tensor, the ops made low by type, and what could not be done."""

    def __init__(self, plan):
        self.plan = plan
        self.watermark = 0
        self.graph_version = None
        self.rounded = {}       # id(tensor) -> _Rounded
        self.low_out = set()    # ids of tensors that hold low-precision values
        self.own = set()        # ids of the ops the rewrite made
        self.low_ops = {}       # op id -> (op type, "low" | "cube_in", op name)
        self.keep_dtype = set() # ids of candidate ops kept by keep_dtype_scope
        self.skipped = []       # "op: reason" of ops left in float32 (bounded)
        self.version = 0
        self.order = []         # _Rounded in creation order
        self.fetch_plans = {}


def _keep_dtype(op):
    try:
        return op.get_attr("_keep_dtype") == 1
    except ValueError:
        return False


def _float32(t):
    return t.dtype is _F32   # DTypes are interned; ref dtypes are other objects


def _made_ops(ends, source):
    """ids of the ops between `source` (excluded) and `ends`: what one rounding made."""
    # pylint: disable=protected-access
    seen, stack = set(), list(ends)
    while stack:
        op = stack.pop()
        if op is source or op._id_value in seen:
            continue
        seen.add(op._id_value)
        stack.extend(t.op for t in op.inputs)
    return seen


def _is_low(st, t):
    """Does `t` hold a low-precision value (a rounded tensor, a low op's output, or what a
    transparent op passed on)?"""
    if id(t) in st.low_out:
        return True
    r = st.rounded.get(id(t))
    return r is not None and r.producer_low


def _round(st, t, graph, producer_low=False):
    """The rounded version of float32 tensor `t` (made once)."""
    r = st.rounded.get(id(t))
    if r is not None:
        r.producer_low = r.producer_low or producer_low
        return r
    plan = st.plan
    low = _LOW[plan.low]
    limit = _precision.TYPE_MAX[plan.low]
    ctx = t.op._get_control_flow_context()   # pylint: disable=protected-access
    if ctx is not None:
        ctx.Enter()
    try:
        with tf.name_scope("npu_precision/"):
            x = t
            if plan.sat_mode == _precision.SATURATION:
                x = tf.clip_by_value(x, -limit, limit)
            out = tf.cast(tf.cast(x, low), _F32)
            peak = tf.reduce_max(tf.abs(t))
        st.own.update(_made_ops((out.op, peak.op), t.op))
    finally:
        if ctx is not None:
            ctx.Exit()
    r = _Rounded(out, peak, t.op.name, t.op.type, out.op._id_value,   # pylint: disable=protected-access
                 producer_low, t)
    st.rounded[id(t)] = r
    st.rounded[id(out)] = r
    st.low_out.add(id(out))
    st.order.append(r)
    return r


@contextlib.contextmanager
def _editable(graph):
    """`graph` as the default graph, open for new ops even when a MonitoredSession
    finalized it (finalized again after)."""
    # pylint: disable=protected-access
    finalized = graph.finalized
    if finalized:
        graph._unsafe_unfinalize()
    try:
        with graph.as_default(), graph.control_dependencies(None):
            yield
    finally:
        if finalized:
            graph.finalize()


def _rewrite(graph, st):
    """Process the ops made since the last call. Returns the number of inputs changed."""
    # pylint: disable=protected-access
    ops = graph.get_operations()
    new = ops[st.watermark:]
    if not new:
        return 0
    plan = st.plan
    changed = 0
    try:
        with _editable(graph):
            for op in new:
                oid = op._id_value
                if oid in st.own:
                    continue
                kind = plan.kind(op.type)
                if kind == "keep":
                    continue
                inputs = op.inputs
                floats = [i for i, t in enumerate(inputs) if _float32(t)]
                if kind == "transparent":
                    if floats and floats[0] == 0 and _is_low(st, inputs[0]):
                        st.low_out.update(id(o) for o in op.outputs if _float32(o))
                    continue
                if kind == "gray" and not any(_is_low(st, inputs[i]) for i in floats):
                    continue
                outs = [o for o in op.outputs if _float32(o)]
                if not floats and not outs:
                    continue
                if _keep_dtype(op):
                    st.keep_dtype.add(oid)
                    continue
                try:
                    updates = [(i, _round(st, inputs[i], graph).tensor) for i in floats
                               if id(inputs[i]) not in st.low_out]
                    if kind != "cube_in":
                        for o in outs:
                            _round(st, o, graph, producer_low=True)
                    for i, r in updates:
                        op._update_input(i, r)
                        changed += 1
                except Exception as err:   # pylint: disable=broad-except  (left in float32)
                    if len(st.skipped) < 16:
                        st.skipped.append("%s (%s): %s" % (op.name, op.type, err))
                    continue
                st.low_ops[oid] = (op.type, "cube_in" if kind == "cube_in" else "low", op.name)
            # consumers of a low op's output read its rounded version
            for op in new:
                if op._id_value in st.own:
                    continue
                for i, t in enumerate(op.inputs):
                    r = st.rounded.get(id(t))
                    if r is not None and r.producer_low and r.tensor is not t:
                        op._update_input(i, r.tensor)
                        changed += 1
            _wire_status_checks(graph, st)
    finally:
        st.watermark = len(graph.get_operations())
        st.version += 1
        st.fetch_plans.clear()
    return changed


def _ancestors(roots):
    """ids of the ops `roots` (ops or tensors) depend on, themselves included."""
    # pylint: disable=protected-access
    seen = set()
    stack = [r.op if isinstance(r, tf.Tensor) else r for r in roots]
    while stack:
        op = stack.pop()
        oid = op._id_value
        if oid in seen:
            continue
        seen.add(oid)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def _wire_status_checks(graph, st):
    """Give each NPULossScaleOptimizer check of the graph the overflow test of the mode:
    INF/NaN mode every gradient finite (the real optimizer then runs TF's LossScaleOptimizer
    check, whatever enable_overflow_check says: hicann/tensorflow npu_loss_scale_optimizer.py
    line 50); saturation mode the float status, i.e. no rounded tensor feeding the gradients
    went beyond the low type, and every gradient finite (enable_overflow_check=False: no check,
    line 89)."""
    for check in noted(graph, STATUS_COLLECTION):
        if check.wired:
            continue
        check.wired = True
        grads = [g.values if isinstance(g, tf.IndexedSlices) else g for g in check.grads
                 if g is not None]
        saturation = st.plan.sat_mode == _precision.SATURATION
        if saturation and not check.check:
            continue
        with tf.name_scope("npu_precision/status/"):
            finite = [tf.reduce_all(tf.math.is_finite(g)) for g in grads]
            if saturation:
                feeding = _ancestors(grads)
                limit = OVERFLOW_AT.get(st.plan.low)
                peaks = [r.peak for r in st.order if r.cast_id in feeding]
                if peaks and limit:
                    finite.append(tf.reduce_all(tf.stack(peaks) < limit))
            value = tf.reduce_all(tf.stack(finite)) if finite else tf.constant(True)
        check.hook._update_input(0, value)   # pylint: disable=protected-access


class _FetchPlan:
    """The extra fetches of one fetch set: the peaks of its rounded tensors (in creation
    order), its optimizers' statuses, loss scales and losses; which fetches are scalars."""

    def __init__(self, st, graph, fetch_tensors, targets):
        # a fetched output of a low op is fetched as its round trip: the value the NPU
        # returns, its overflow counted like any other (no later op needs to read it)
        self.substitute = {}
        for t in fetch_tensors:
            r = st.rounded.get(id(t))
            if r is not None and r.producer_low and r.tensor is not t:
                self.substitute[id(t)] = r.tensor
        reach = _ancestors([self.substitute.get(id(t), t) for t in fetch_tensors]
                           + list(targets))
        self.rounded = [r for r in st.order if r.cast_id in reach]
        self.checks = [c for c in noted(graph, STATUS_COLLECTION)
                       if c.status.op._id_value in reach]   # pylint: disable=protected-access
        self.statuses = [c.status for c in self.checks]
        self.scales = [t for t in noted(graph, SCALE_COLLECTION)
                       if t.op._id_value in reach]   # pylint: disable=protected-access
        self.losses = [t for t in noted(graph, LOSS_COLLECTION)
                       if t.op._id_value in reach]   # pylint: disable=protected-access
        self.ops_low, self.ops_cube_in = {}, {}
        for oid in reach.intersection(st.low_ops):
            op_type, kind, _ = st.low_ops[oid]
            table = self.ops_cube_in if kind == "cube_in" else self.ops_low
            table[op_type] = table.get(op_type, 0) + 1
        self.keep_dtype = len(reach.intersection(st.keep_dtype))
        self.scalar_fetches = [t for t in fetch_tensors
                               if t.dtype.is_floating and t.shape.rank == 0]
        # the ops a loss depends on (the forward pass: a loss scale cannot change them);
        # None when no loss is known
        loss_like = self.losses + self.scalar_fetches
        self.forward = _ancestors(loss_like) if loss_like else None
        if not self.checks:
            self.scaling = None
        elif st.plan.sat_mode == _precision.SATURATION and not all(c.check for c in self.checks):
            self.scaling = "no_check"   # npu_loss_scale_optimizer.py line 76: nothing read
        else:
            self.scaling = "checks"
        peaks = [r.peak for r in self.rounded]
        with _editable(graph):
            self.extra = (tf.stack(peaks) if peaks else None, self.statuses, self.scales,
                          self.losses)
        self.entries = {}   # graph_key of the run it counts under -> report entry


def _graph_state(graph, plan):
    with _lock:
        per = _state.EMULATION.setdefault(graph, {})
        st = per.get(plan)
        if st is None:
            if per:   # the graph was rewritten under another plan: not twice
                return None
            st = per[plan] = _GraphState(plan)
        return st


def _print_exit_line():
    """At exit of a plain `python` run: what was emulated, one line on stderr. Every
    npu-bridge command that runs a script (run, memory, partition) has graph capture on
    and prints its own summary: nothing then."""
    import sys
    if _records.RUN.capture or not _records.RUN.precision:
        return
    line = _precision.exit_line(_records.records())
    if line:
        try:
            print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):   # stderr closed by the script
            pass


def plan_of(session):
    """The `PrecisionPlan` of an NPU session (cached on the record), or None."""
    rec = _record_of(session)
    if rec is None:
        return None
    info = rec.precision
    if info is None:
        # what npu_plugin.set_device_sat_mode set (npu_plugin.device_sat_mode), or None
        plan = _precision.plan_for(rec.options, _state.ADAPTER.sat_mode)
        info = rec.precision = {"plan": plan, "graphs": [], "notes": [], "name": rec.name}
        import atexit
        atexit.unregister(_print_exit_line)   # registered once, whatever the sessions
        atexit.register(_print_exit_line)
        _tf_amp_notes(session)
        for d in plan.diagnostics:
            _records.add_runtime_diagnostic(rec, (d.code, d.message), d)
    return info["plan"]


def wrap_run(session, original, graph_of=None):
    """`original` (the stock `BaseSession.run`) with the emulation for `session`'s graph, or
    `original` itself when nothing is emulated for it. `graph_of`: the (fetches, feed_dict)
    of the `Session.run` call whose captured graph the steps count under (an iteration
    loop's extra runs of its loop op are steps of that graph); None: the run's own."""
    plan = plan_of(session)
    if plan is None or plan.not_emulated is not None or plan.low is None:
        return original
    st = _graph_state(session.graph, plan)
    if st is None:
        _note(session, "graph already rewritten under another configuration's mode: this "
                       "session runs it as it is")
        return original

    def run(sess, fetches, feed_dict=None, options=None, run_metadata=None):
        return _run(st, sess, original, fetches, feed_dict, options, run_metadata, graph_of)
    return run


_AMP_FIELDS = ("auto_mixed_precision", "auto_mixed_precision_cpu", "auto_mixed_precision_mkl",
               "auto_mixed_precision_onednn_bfloat16")


def _tf_amp_notes(session):
    """Say when TensorFlow's own AMP pass is on for this session or its list variables clash."""
    config = getattr(session, "_config", None)
    rewrite = config.graph_options.rewrite_options if config is not None else None
    on = rewrite is not None and any(
        getattr(rewrite, f, 0) == 1 for f in _AMP_FIELDS if hasattr(rewrite, f))   # ON
    for text in _precision.tf_amp_notes(os.environ, on):
        _note(session, text)


def _note(session, text):
    rec = _record_of(session)
    notes = rec.precision["notes"] if rec is not None and rec.precision else None
    if notes is not None and text not in notes and len(notes) < 8:
        notes.append(text)


def _run(st, sess, original, fetches, feed_dict, options, run_metadata, graph_of=None):
    graph = sess.graph
    # pylint: disable=protected-access
    if graph.version != st.graph_version:   # ops were added since the last rewrite
        with _lock:
            _rewrite(graph, st)
            st.graph_version = graph.version
    from npu_bridge.hooks.session_guard import fed_values, graph_key
    try:
        gkey = graph_key(graph, fetches, feed_dict, sess)
        key = (gkey, st.version)
        fp = st.fetch_plans.get(key)
        if fp is None:
            handler = _session_lib._FetchHandler(graph, fetches, fed_values(graph, feed_dict))
            fetch_tensors = [t for t in handler.fetches() if isinstance(t, tf.Tensor)]
            with _lock:   # its ops are the emulation's own: never rewritten
                fp = _FetchPlan(st, graph, fetch_tensors, handler.targets())
                fp.graph_key = gkey
                if st.graph_version is not None:
                    st.watermark = len(graph.get_operations())
                    st.graph_version = graph.version
            if len(st.fetch_plans) > 64:
                st.fetch_plans.clear()
            st.fetch_plans[key] = fp
    except Exception:   # pylint: disable=broad-except  (a bad fetch: Session.run says why)
        return original(sess, fetches, feed_dict, options, run_metadata)
    if fp.extra[0] is None and not fp.statuses and not fp.ops_cube_in:
        return original(sess, fetches, feed_dict, options, run_metadata)
    asked = _substitute(fetches, fp.substitute, graph) if fp.substitute else fetches
    result, extra = original(sess, (asked, fp.extra), feed_dict, options, run_metadata)
    name_key = gkey
    if graph_of is not None and graph_of[0] is not fetches:
        try:
            name_key = graph_key(graph, graph_of[0], graph_of[1], sess)
        except Exception:   # pylint: disable=broad-except  (counted under the run's own)
            pass
    _record_step(st, sess, fp, result, extra, fetches, name_key)
    return result


def _substitute(fetches, table, graph, depth=0):
    """`fetches` with each tensor of `table` (id -> tensor; given as the tensor or its name)
    replaced by its value in `table`, in the structures `Session.run` takes (lists, tuples,
    namedtuples, dicts); any other structure is left as it is (its overflow is still
    counted: `_FetchPlan`). The same object when nothing changes."""
    if isinstance(fetches, tf.Tensor):
        return table.get(id(fetches), fetches)
    if isinstance(fetches, str):
        try:
            t = graph.as_graph_element(fetches, allow_tensor=True, allow_operation=True)
        except (TypeError, ValueError, KeyError):
            return fetches
        return table.get(id(t), fetches)
    if depth > 8:
        return fetches
    named = isinstance(fetches, tuple) and hasattr(fetches, "_fields")
    if type(fetches) in (list, tuple) or named:
        items = [_substitute(f, table, graph, depth + 1) for f in fetches]
        if all(a is b for a, b in zip(items, fetches)):
            return fetches
        return type(fetches)._make(items) if named else type(fetches)(items)
    if type(fetches) is dict:
        items = {k: _substitute(v, table, graph, depth + 1) for k, v in fetches.items()}
        return fetches if all(items[k] is v for k, v in fetches.items()) else items
    return fetches


def _record_step(st, sess, fp, result, extra, fetches, name_key):
    import numpy as np
    rec = _record_of(sess)
    entry = fp.entries.get(name_key)
    if entry is None:
        entry = fp.entries[name_key] = _find_entry(rec, st, fp, name_key)
    entry["steps"] += 1
    step = entry["steps"]
    peaks, statuses, scales, losses = extra
    limit = OVERFLOW_AT[st.plan.low]
    first = None
    if peaks is not None and len(peaks):
        # precision-caused: finite in float32, beyond the low type
        over = np.flatnonzero((peaks >= limit) & np.isfinite(peaks))
        if over.size:
            entry["overflow_steps"] += 1
            first = fp.rounded[over[0]]
            if entry["first_overflow"] is None:
                entry["first_overflow"] = {"step": step, "op": first.op_name,
                                           "type": first.op_type,
                                           "max_abs": float(peaks[over[0]])}
    skipped = False
    for ok in statuses:
        if not bool(np.all(ok)):
            entry["skipped_updates"] += 1
            skipped = True
    if first is not None and not skipped and entry["_applied"] is None:
        # the first overflow whose step changed the variables: a later non-finite loss
        # (inf written into a weight) is traced back to it
        entry["_applied"] = (step, first, float(peaks[over[0]]))
    for s in scales:
        value = float(s)
        hist = entry["loss_scale"]
        if (not hist or hist[-1][1] != value) and len(hist) < HISTORY_LIMIT:
            hist.append([step, value])
    checked = [float(v) for v in losses]
    checked += [float(v) for v in _scalars(result, fetches, fp) if np.size(v) == 1]
    culprit = entry["_applied"] or ((step, first, float(peaks[over[0]])) if first is not None
                                    else None)   # the earliest overflow that reached a variable
    if culprit and any(not np.isfinite(v) for v in checked) and not entry["nonfinite_loss"]:
        at, op, peak = culprit
        entry["nonfinite_loss"] = {"step": step, "op": op.op_name, "type": op.op_type}
        _diagnose(rec, "NPB180", st, fp, entry, step, op, peak,
                  when="" if at == step else " at step %d (its update applied)" % at,
                  sat_mode=st.plan.sat_mode.replace("inf_nan", "INF/NaN"))
    elif first is not None and st.plan.sat_mode == _precision.SATURATION:
        outcome = _precision.saturation_outcome(fp.scaling, skipped, _feeds_loss(fp, first))
        if outcome:
            _diagnose(rec, "NPB182", st, fp, entry, step, first, float(peaks[over[0]]),
                      outcome=outcome[0], outcome_short=outcome[1],
                      limit=_precision.TYPE_MAX[st.plan.low])


def _feeds_loss(fp, rounded):
    """True when the op of `rounded` is in the forward pass of the step's loss, None when no
    loss is known."""
    if fp.forward is None:
        return None
    return rounded.source.op._id_value in fp.forward   # pylint: disable=protected-access


def _diagnose(rec, code, st, fp, entry, step, rounded, peak, **fields):
    """Attach warning `code` (NPB180 / NPB182: once per graph) about the overflow of
    `rounded`'s op, its fixes chosen by where the op is and what checks the step."""
    if ((code, entry["graph"]) in rec.seen):
        return
    from npu_bridge.ge import diagnostics as _diagnostics
    fixes, fix_more = _precision.overflow_fixes(st.plan, rounded.op_name, rounded.op_type,
                                                _feeds_loss(fp, rounded), fp.scaling)
    d = _diagnostics.make(
        code, "precision_mode", st.plan.mode, graph=entry["graph"], step=step, low=st.plan.low,
        op=rounded.op_name, op_type=rounded.op_type, max_abs=peak, fixes=fixes,
        fix_more=fix_more, **fields)
    _records.add_runtime_diagnostic(rec, (code, entry["graph"]), d)


def _scalars(result, fetches, fp, depth=0):
    """Values of the run's scalar floating fetches (nested lists, tuples and dicts)."""
    if not fp.scalar_fetches or depth > 6:
        return []
    if isinstance(fetches, tf.Tensor):
        return [result] if any(fetches is t for t in fp.scalar_fetches) else []
    if isinstance(fetches, dict):
        return [v for k, f in fetches.items() for v in _scalars(result[k], f, fp, depth + 1)]
    if isinstance(fetches, (list, tuple)) and isinstance(result, (list, tuple)):
        return [v for f, r in zip(fetches, result) for v in _scalars(r, f, fp, depth + 1)]
    return []


def _find_entry(rec, st, fp, name_key):
    """The report entry this run counts under: the graph the capture named for `name_key` (a
    `session_guard.graph_key`: `Session#1/3`, as the memory and partition lines name it);
    without a captured name (a plain `python` run: no capture) one entry per distinct set of
    rounded ops, named `<session> fetch set N`."""
    info = rec.precision
    from npu_bridge.hooks import graph_capture as _graph_capture
    name = _graph_capture.captured_name(rec, name_key)
    sig = tuple(r.cast_id for r in fp.rounded)
    low, cube = dict(fp.ops_low), dict(fp.ops_cube_in)
    for e in info["graphs"]:
        if name is not None and e["graph"] == name:
            # another fetch set run as this graph (a loop op's runs): the ops of both
            for mine, theirs in ((e["ops_low"], low), (e["ops_cube_in"], cube)):
                for k, v in theirs.items():
                    mine[k] = max(mine.get(k, 0), v)
            e["rounded_tensors"] = max(e["rounded_tensors"], len(fp.rounded))
            e["keep_dtype_ops"] = max(e["keep_dtype_ops"], fp.keep_dtype)
            return e
        if name is None and e["_unnamed"] and e["_sig"] == sig:
            return e
    entry = {"graph": name or "%s fetch set %d" % (
                 info["name"], 1 + sum(1 for e in info["graphs"] if e["_unnamed"])),
             "_sig": sig, "_unnamed": name is None,
             "rounded_tensors": len(fp.rounded), "ops_low": low, "ops_cube_in": cube,
             "keep_dtype_ops": fp.keep_dtype, "skipped": list(st.skipped),
             "steps": 0, "overflow_steps": 0, "skipped_updates": 0, "loss_scale": [],
             "first_overflow": None, "nonfinite_loss": None, "_applied": None}
    info["graphs"].append(entry)
    return entry


def low_ops_of(graph):
    """{op name: "low" | "cube_in"}: the ops of `graph` the emulation made compute in the
    low type so far (for tests and tools; empty when none)."""
    out = {}
    for st in _state.EMULATION.get(graph, {}).values():
        out.update({name: kind for _, kind, name in st.low_ops.values()})
    return out
