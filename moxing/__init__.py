"""A local stand-in for Huawei ModelArts' `moxing` (`import moxing as mox`).

`mox.file` serves `obs://` and `s3://` URLs from a local folder (`MOXING_LOCAL_ROOT`, default
`~/.cache/npu_bridge/moxing`) and local paths as they are; see `moxing.framework.file` and
docs/moxing.md. MoXing's training framework (`mox.run`, `mox.ModelSpec`, ...) is not provided.
"""
from moxing.framework import file  # noqa: F401  (mox.file, as in the real package)

__all__ = ["file"]

_FRAMEWORK = ("MoXing's training framework (moxing.tensorflow: mox.run, mox.ModelSpec, "
              "mox.set_flag, mox.get_optimizer_fn, mox.ModeKeys, ...) is not provided by this "
              "local moxing; only mox.file is (docs/moxing.md)")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'moxing' has no attribute %r: %s" % (name, _FRAMEWORK))
