"""`profiler.Profiler`, the adapter's scoped profiler (`with profiler.Profiler(level="L1"):
sess.run(...)`), on the CPU: the real class's checks, no profile data.

Rules, as the real adapter applies them: the arguments are keyword-only strings, else
`ValueError` at construction (hicann/tensorflow tf_adapter/python/npu_bridge/profiler/
profiler.py:24-29); when the block starts, `level` must be L0, L1 or L2, `aic_metrics` empty
with L0 and one of the AI Core metrics (or empty: PipeUtilization) with L1/L2, and profilers
do not nest, else `RuntimeError` (tf_adapter/util/profiler.cc:20-28 the tables, :36
GetLevel, :57 GetAicMetrics, :95 Enable). Messages are built from `npu_bridge.ge.codes`
rows (NPB160, E10001). Nothing is collected on the CPU: the first profiler that starts says
so once (a `UserWarning`), and `output_path` gets no file.
"""
import threading
import warnings

from npu_bridge.ge.diagnostics import make
from npu_bridge.hooks import state as _state
from npu_bridge.ge.text import close_names

_PY = "hicann/tensorflow tf_adapter/python/npu_bridge/profiler/profiler.py:24-29 Profiler.__init__"
_CC = "hicann/tensorflow tf_adapter/util/profiler.cc"
LEVELS = ("L0", "L1", "L2")                                   # profiler.cc:28
AIC_METRICS = ("PipeUtilization", "ArithmeticUtilization", "Memory", "MemoryL0",
               "ResourceConflictRatio", "MemoryUB", "L2Cache")   # profiler.cc:20-27
NOT_COLLECTED = ("npu_bridge: profiler.Profiler collects no profile data on the CPU (the NPU's "
                 "profiler records device tasks); its arguments were checked as the adapter "
                 "checks them, and output_path gets no file")

_active = threading.Lock()     # held while a profiler's block runs: they do not nest
_NOT_COLLECTED_KEY = ("profiler.Profiler", "no profile data")   # in state.LOGGED once said


def _invalid(argument, value, reason, allowed, where):
    return RuntimeError(make("E10001", "Profiler(%s=...)" % argument, value, reason=reason,
                             allowed=allowed, where=where, shown=repr(value)).message)


class Profiler:
    """`with profiler.Profiler(level="L0", aic_metrics="", output_path=""):` profiles the
    block on the NPU; here the block runs with nothing collected (module notes).

    Raises:
      ValueError: an argument that is not a str (at construction).
      RuntimeError: when the block starts: an unknown level or metric, a metric with level
        L0, or another profiler's block still running.
    """

    def __init__(self, *, level: str = "L0", aic_metrics: str = "", output_path: str = ""):
        for name, value in (("level", level), ("aic_metrics", aic_metrics),
                            ("output_path", output_path)):
            if not isinstance(value, str):
                raise ValueError(make(
                    "NPB160", "Profiler(%s=...)" % name, value,
                    subject="Profiler(%s=%r)" % (name, value), expected="a str",
                    got=type(value).__name__, detail="", where=_PY).message)
        self._level, self._aic_metrics, self._output_path = level, aic_metrics, output_path
        self._started = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()

    def _check(self):
        level, metrics = self._level, self._aic_metrics
        if level not in LEVELS:
            close = close_names(level, LEVELS, n=1)
            return _invalid("level", level, "did you mean %r?" % close[0] if close
                            else "not a profiler level", ", ".join(LEVELS),
                            "%s:28, :36 Profiler::GetLevel" % _CC)
        if level == "L0" and metrics:
            return _invalid("aic_metrics", metrics, "level L0 collects no AI Core metrics: "
                            "use level L1 or L2", "'' with level L0", "%s:64 "
                            "Profiler::GetAicMetrics" % _CC)
        if metrics and metrics not in AIC_METRICS:
            close = close_names(metrics, AIC_METRICS, n=1)
            return _invalid("aic_metrics", metrics, "did you mean %r?" % close[0] if close
                            else "not an AI Core metric", ", ".join(AIC_METRICS) +
                            " ('' with L1/L2: PipeUtilization)",
                            "%s:20-27, :57 Profiler::GetAicMetrics" % _CC)
        return None

    def start(self):
        """Check the arguments and begin the block (module notes for the rules)."""
        error = self._check()
        if error is not None:
            raise error
        if not _active.acquire(blocking=False):
            raise RuntimeError("profiler.Profiler blocks cannot be nested: another one is "
                               "running (source: %s:95 Profiler::Enable)" % _CC)
        self._started = True
        with _state.lock:   # said once per process (the hooks' once-logged keys)
            first = _NOT_COLLECTED_KEY not in _state.LOGGED
            _state.LOGGED.add(_NOT_COLLECTED_KEY)
        if first:
            warnings.warn(NOT_COLLECTED, UserWarning, stacklevel=3)

    def stop(self):
        """End the block (a profiler that did not start ends nothing)."""
        if self._started:
            self._started = False
            _active.release()
