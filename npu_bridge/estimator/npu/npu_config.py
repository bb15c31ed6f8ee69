"""The real adapter's `npu_bridge.estimator.npu.npu_config`: the config layer's
`npu_bridge.config.npu_config` under its real name.

This file makes that module itself the module of this name (one module object), so the star
import (its `__all__`), every name, and a name a script sets or replaces are what they were.
"""
import sys as _sys

from npu_bridge.config import npu_config as _impl

_sys.modules[__name__] = _impl
