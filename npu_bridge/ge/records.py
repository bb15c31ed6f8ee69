"""Process-wide record of every configuration resolved while a script runs (no TensorFlow):
the Session patch and NPUEstimator append, `npu-bridge run` reads. Notes: docs/design.md
"Module notes".
"""
import os as _os
import threading

_lock = threading.Lock()
_records = []

capture = [False]     # capture the GE graphs of runs (npu_bridge.hooks.graph_capture.enable)
# emulate the NPU's precision (npu_bridge.hooks.precision_emulation): `npu-bridge run
# --precision emulate`, or NPU_BRIDGE_PRECISION=emulate for a plain python run
precision = [_os.environ.get("NPU_BRIDGE_PRECISION", "").strip().lower() == "emulate"]
RUNTIME_LIMIT = 16    # run-time diagnostics kept per configuration
_LINK_ATTR = "_npu_bridge_record"


def record(kind, name, ge_options, refused=False, ignored=None):
    """Append one resolved configuration; returns the record (a dict, see the module doc).

    Args:
      kind: "session" (a tf.compat.v1.Session/InteractiveSession), "estimator" (an
        NPUEstimator) or "options" (a direct call).
      name: a short human label, e.g. "Session#2" or "NPUEstimator(model_dir=/tmp/x)".
      ge_options: the `npu_bridge.ge.GeOptions` the resolver returned; for a refused
        configuration, the one its `NpuConfigError` carries (`.ge_options`, its diagnostics
        hold the errors).
      refused: True when the resolver refused the configuration (the session or estimator
        was not created and `NpuConfigError` was raised, whether or not the script caught it).
      ignored: `(owner, GE keys)`: the global options of `ge_options` GE ignores, being
        initialized by `owner` ("Session#1"; NPB126), or None.
    """
    rec = {"kind": kind, "name": name, "options": ge_options, "refused": bool(refused),
           "runtime": (), "_seen": set()}
    if ignored is not None:
        rec["ignored_globals"] = ignored
    with _lock:
        _records.append(rec)
    return rec


def record_refused(kind, name, error):
    """Record a configuration the resolver refused: `error` is the `NpuConfigError`; returns
    the record, which `error` is linked to (`record_of(error)`).

    Its partial `GeOptions` (`error.ge_options`: the options it would have resolved to and the
    product the resolver used) is recorded; when it has none, a `GeOptions` holding the
    error's diagnostics and its `product` attribute, if any. When the partial one holds fewer
    diagnostics than the error (a constructor's own checks on top of the resolver's), a copy
    with all of the error's diagnostics is recorded."""
    from npu_bridge.ge import GeOptions
    diagnostics = list(getattr(error, "diagnostics", ()))
    ge_options = getattr(error, "ge_options", None)
    if ge_options is None:
        ge_options = GeOptions(diagnostics=diagnostics, product=getattr(error, "product", None))
    elif list(getattr(ge_options, "diagnostics", ())) != diagnostics:
        import dataclasses
        try:
            ge_options = dataclasses.replace(ge_options, diagnostics=diagnostics)
        except TypeError:   # not a GeOptions dataclass: keep what it says about the product
            ge_options = GeOptions(diagnostics=diagnostics,
                                   product=getattr(ge_options, "product", None))
    rec = record(kind, name, ge_options, refused=True)
    link(error, rec)
    return rec


def add_runtime_diagnostic(rec, cause, diagnostic):
    """Attach `diagnostic` (an error raised while the script ran) to the record `rec`, once
    per `cause` (a hashable, e.g. the pair of graphs that executed at once) and at most
    `RUNTIME_LIMIT` in all. Returns True if it was added."""
    if rec is None:
        return False
    with _lock:
        seen = rec.setdefault("_seen", set())
        if cause in seen or len(rec.get("runtime", ())) >= RUNTIME_LIMIT:
            return False
        seen.add(cause)
        rec["runtime"] = tuple(rec.get("runtime", ())) + (diagnostic,)
        return True


def link(error, rec):
    """Mark `error` (an exception) as coming from the record `rec`."""
    try:
        setattr(error, _LINK_ATTR, rec)
    except (AttributeError, TypeError):
        pass


def record_of(error):
    """The record `error` was linked to (`link`), or None."""
    return getattr(error, _LINK_ATTR, None)


def records():
    """A copy of the list of records so far, in order (the records themselves, not copies)."""
    with _lock:
        return list(_records)


def clear():
    with _lock:
        del _records[:]
