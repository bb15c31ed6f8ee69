"""Iteration loops the Session patch runs, and the NPB125 check of their count against the
session's configuration (TensorFlow loaded only when a check needs it). The registry itself
is `npu_bridge.hooks.state.LOOPS`.

Facts behind NPB125 (hicann/tensorflow): the docs (apiref/session_config/performance_tuning.md,
apiref/npu_util/set_iteration_per_loop.md) say parameter_map["iterations_per_loop"] must
equal the value given to set_iteration_per_loop. The adapter does not compare them: GeOp
(tf_adapter/kernels/geop_npu.cc) reads the parameter_map value only as a switch (above 1: a
graph holding IterationOp is marked for the device loop, SetNeedIteration), and GE then loops
as many steps as the variable npu_runconfig/iterations_per_loop holds. Hence: value 1 (set or
unset) and N > 1 is an error (the NPU would run one step per sess.run, 1/N of the training);
value above 1 and another N is a warning (the real stack tolerates it). A session without NPU
configuration has no record: a warning is logged once.
"""
from npu_bridge.hooks import state as _state

LOOP_CHECK_CODE = "NPB125"
_LOOP_CHECK_SOURCE = ("source: reference option_values.json (iterations_per_loop notes: in "
                      "sess.run mode it must equal the value given to set_iteration_per_loop); "
                      "vendor docs apiref/session_config/performance_tuning.md and "
                      "apiref/npu_util/set_iteration_per_loop.md; hicann/tensorflow "
                      "tf_adapter/kernels/geop_npu.cc (SetNeedIteration only when the value "
                      "is above 1)")


def register_loop_op(op, iterations_per_loop):
    """Mark `op` (a tf.Operation) as a loop op: each Session.run that fetches it advances
    `iterations_per_loop` steps (an int >= 1, checked by the caller). N == 1 removes the mark.
    Returns `op`."""
    with _state.lock:
        loops = _state.LOOPS.setdefault(op.graph, {})
        if iterations_per_loop == 1:
            loops.pop(op, None)
        else:
            loops[op] = iterations_per_loop
    return op


def loop_iterations(op):
    """N if `op` is a registered loop op, else 1."""
    loops = _state.LOOPS.get(op.graph)
    return loops.get(op, 1) if loops else 1


def loop_ops_of(graph):
    """The {op: N} loop registry of `graph`, or None when it has none (a cheap test)."""
    return _state.LOOPS.get(graph) or None


def any_loops():
    """True once any graph has a registered loop op (the run hot path's first test)."""
    return bool(_state.LOOPS)


def log_diagnostic(diag):
    """Log one diagnostic through tf.compat.v1.logging at its severity (the Session patch's
    and the loops' run-time checks)."""
    import tensorflow as tf
    log = {"error": tf.compat.v1.logging.error, "warning": tf.compat.v1.logging.warning}.get(
        diag.severity, tf.compat.v1.logging.info)
    log("npu_bridge %s %s (%s=%s): %s", diag.severity, diag.code, diag.option, diag.value,
        diag.message)


def log_once(key, diag):
    """`log_diagnostic(diag)` unless `key` was logged before in this process."""
    with _state.lock:
        if key in _state.LOGGED:
            return
        _state.LOGGED.add(key)
    log_diagnostic(diag)


def tf_session_of(sess):
    """The tf.compat.v1 Session `sess` is or wraps (a MonitoredSession and its wrappers hold
    one), or None when there is none to find. Never raises."""
    from tensorflow.python.client import session as session_lib
    for _ in range(8):
        if sess is None:
            return None
        if isinstance(sess, session_lib.BaseSession):
            return sess
        try:
            inner = getattr(sess, "_tf_sess", None)
            sess = inner() if callable(inner) else getattr(sess, "_sess", None)
        except Exception:  # pylint: disable=broad-except  (a closed or foreign object)
            return None
    return None


def check_loop_count(sess, iterations_per_loop, call):
    """Compare `iterations_per_loop` (given to `call`, a text such as
    "util.set_iteration_per_loop(sess, train_op, 10)") with the parameter_map value of the
    session `sess` runs on; see the module doc for the severities. A finding is recorded
    with the session's configuration (`npu_bridge.ge.records`, once per cause) and logged once.

    Raises:
      NpuConfigError: the NPU would not loop (parameter_map value 1, N > 1).
    """
    from npu_bridge.ge.diagnostics import make
    tf_sess = tf_session_of(sess)
    if tf_sess is None:
        return                    # not a session: nothing known to compare with
    known = _state.of(tf_sess)
    ge_options = known.ge_options if known is not None else None
    if ge_options is None:
        if iterations_per_loop > 1:
            diag = make(LOOP_CHECK_CODE, "iterations_per_loop", iterations_per_loop,
                        "%s on a session without NPU configuration (no NpuOptimizer custom "
                        "optimizer, or created before npu_bridge patched tf.Session): the real "
                        "adapter then uses iterations_per_loop=1 and no device loop, so each "
                        "sess.run would run one step; here it runs %d. Not recorded: the "
                        "session has no configuration to record it with; %s"
                        % (call, iterations_per_loop, _LOOP_CHECK_SOURCE), severity="warning")
            log_once(("unconfigured", iterations_per_loop), diag)
        return
    try:
        configured = int(ge_options.adapter_options.get("iterations_per_loop", "1"))
    except (AttributeError, TypeError, ValueError):
        return
    if configured == iterations_per_loop:
        return
    rec = known.record
    name = rec.name if rec is not None else type(tf_sess).__name__
    source = str(getattr(ge_options, "sources", {}).get("iterations_per_loop", ""))
    if source and source != "adapter default":   # parameter_map:, argument:, NPURunConfig default:
        shown = "parameter_map iterations_per_loop=%d" % configured
    else:
        shown = "parameter_map iterations_per_loop unset (adapter default %d)" % configured
    fix = 'set custom_op.parameter_map["iterations_per_loop"].i = %d' % iterations_per_loop
    if configured <= 1:
        severity = "error"
        effect = ("on the NPU the adapter switches the device loop on only when that value is "
                  "above 1, so each sess.run would run one step, not %d as here; %s"
                  % (iterations_per_loop, fix))
    elif iterations_per_loop == 1:
        severity = "warning"
        effect = ("the docs require the two to be equal; train_op is returned unchanged (no "
                  "IterationOp), so the NPU runs one step per sess.run, as here; set the "
                  "parameter_map value to 1 or give the call %d" % configured)
    else:
        severity = "warning"
        effect = ("the docs require the two to be equal; the NPU still loops %d steps per "
                  "sess.run, as here (the adapter uses the parameter_map value only to switch "
                  "the device loop on; GE loops the value this call loads); %s"
                  % (iterations_per_loop, fix))
    diag = make(LOOP_CHECK_CODE, "iterations_per_loop", iterations_per_loop,
                "%s on %s, whose configuration has %s: %s; %s"
                % (call, name, shown, effect, _LOOP_CHECK_SOURCE), severity=severity)
    from npu_bridge.ge import records as _records
    cause = (LOOP_CHECK_CODE, iterations_per_loop, configured)
    if rec is not None:
        if _records.add_runtime_diagnostic(rec, cause, diag):
            log_once((id(rec),) + cause, diag)
    else:
        log_once((id(ge_options),) + cause, diag)
    if severity == "error":
        from npu_bridge.ge import NpuConfigError
        error = NpuConfigError([diag])
        if rec is not None:
            _records.link(error, rec)
        raise error
