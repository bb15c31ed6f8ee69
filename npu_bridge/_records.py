"""Process-wide record of every configuration resolved while a script runs.

The Session patch and NPUEstimator append here; `npu-bridge run` reads it to write the report.
No TensorFlow import: records hold `npu_bridge.ge.GeOptions` objects and plain strings.
"""
import threading

_lock = threading.Lock()
_records = []


def record(kind, name, ge_options, refused=False):
    """Append one resolved configuration.

    Args:
      kind: "session" (a tf.compat.v1.Session/InteractiveSession), "estimator" (an
        NPUEstimator) or "options" (a direct call).
      name: a short human label, e.g. "Session#2" or "NPUEstimator(model_dir=/tmp/x)".
      ge_options: the `npu_bridge.ge.GeOptions` the resolver returned; for a refused
        configuration, the one its `NpuConfigError` carries (`.ge_options`, its diagnostics
        hold the errors).
      refused: True when the resolver refused the configuration (the session or estimator
        was not created and `NpuConfigError` was raised, whether or not the script caught it).
    """
    with _lock:
        _records.append({"kind": kind, "name": name, "options": ge_options,
                         "refused": bool(refused)})


def record_refused(kind, name, error):
    """Record a configuration the resolver refused: `error` is the `NpuConfigError`.

    Its partial `GeOptions` (`error.ge_options`) is recorded; when it has none, a `GeOptions`
    holding only the error's diagnostics."""
    ge_options = getattr(error, "ge_options", None)
    if ge_options is None:
        from npu_bridge.ge import GeOptions
        ge_options = GeOptions(diagnostics=list(getattr(error, "diagnostics", ())))
    record(kind, name, ge_options, refused=True)


def records():
    """A copy of the records so far, in order."""
    with _lock:
        return list(_records)


def clear():
    with _lock:
        del _records[:]
