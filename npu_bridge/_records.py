"""Process-wide record of every configuration resolved while a script runs.

The Session patch and NPUEstimator append here; `npu-bridge run` reads it to write the report.
No TensorFlow import: records hold `npu_bridge.ge.GeOptions` objects and plain strings.
"""
import threading

_lock = threading.Lock()
_records = []


def record(kind, name, ge_options):
    """Append one resolved configuration.

    Args:
      kind: "session" (a tf.compat.v1.Session/InteractiveSession), "estimator" (an
        NPUEstimator) or "options" (a direct call).
      name: a short human label, e.g. "Session#2" or "NPUEstimator(model_dir=/tmp/x)".
      ge_options: the `npu_bridge.ge.GeOptions` the resolver returned.
    """
    with _lock:
        _records.append({"kind": kind, "name": name, "options": ge_options})


def records():
    """A copy of the records so far, in order."""
    with _lock:
        return list(_records)


def clear():
    with _lock:
        del _records[:]
