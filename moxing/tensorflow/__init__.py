"""`moxing.tensorflow` (`import moxing.tensorflow as mox`): `mox.file` only.

The real module is ModelArts' TensorFlow training framework; its names (`run`, `ModelSpec`,
`set_flag`, ...) raise an AttributeError that says so. Scripts that only copy data through
`mox.file` run.
"""
from moxing import _FRAMEWORK
from moxing.framework import file  # noqa: F401

__all__ = ["file"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'moxing.tensorflow' has no attribute %r: %s"
                         % (name, _FRAMEWORK))
