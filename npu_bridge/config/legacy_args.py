"""Constructor arguments of older adapter releases (`npu_bridge.ge.legacy`), for the config
classes (NPURunConfig, ProfilingConfig).

`accept(cls_name)` wraps a config class's `__init__`: an argument of an older release (a
`TypeError` in the current class) is taken out of the call, kept on the object, logged as its
`NPB108` warning, and later written into the parameter_map as the older NPUEstimator wrote
it (`render`; the arguments of the config objects an NPURunConfig holds too). The wrapped
`__init__` keeps the current signature for `inspect`.
"""
import functools
import inspect

import tensorflow as tf

from npu_bridge.ge import argtypes, config_schema, legacy

_ATTR = "_npu_legacy_args"
_CLASS = "_npu_legacy_class"
STATE = (_ATTR, _CLASS)   # what `accept` keeps on the object (set before the class's __init__)


def accept(cls_name):
    older = legacy.ARGUMENTS.get(cls_name, {})

    def wrap(init):
        params = inspect.signature(init).parameters

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            given = {name: kwargs.pop(name) for name in list(kwargs)
                     if name not in params and name in older}
            for name in kwargs:
                if name not in params:   # no release had it: Python's TypeError, with a hint
                    raise TypeError(config_schema.unexpected_keyword(cls_name, name))
            setattr(self, _ATTR, given)   # before init: NPURunConfig's own checks read them
            setattr(self, _CLASS, cls_name)
            init(self, *args, **kwargs)
            for name, value in given.items():
                tf.compat.v1.logging.warning("%s", argtypes.legacy_argument(cls_name, name, value))
        return __init__
    return wrap


def _holders(config):
    """`config` and the config objects it holds (profiling_config, ...) that took older
    arguments."""
    yield config
    for value in vars(config).values():
        if value is not config and getattr(value, _ATTR, None):
            yield value


def diagnostics(config):
    """The NPB108 warnings of the older-release arguments `config` (and the config objects it
    holds) was given, except where the key written is itself an older-release key: the
    resolver warns about that key (one warning per use)."""
    out = []
    for holder in _holders(config):
        given = getattr(holder, _ATTR, {})
        for name, value in given.items():
            writes = _written(holder, name)
            if writes is not None and writes[0] in legacy.PARAMETER_MAP_KEYS:
                continue
            out.append(argtypes.legacy_argument(getattr(holder, _CLASS), name, value))
    return out


def _given(holder, name):
    """The value of argument `name` of `holder`: an older one it took, else the current one
    (the adapter's classes keep argument ARG as `_ARG`)."""
    given = getattr(holder, _ATTR, {})
    return given[name] if name in given else getattr(holder, "_" + name, None)


def _written(holder, name):
    """`(key, field)` the older NPUEstimator wrote for argument `name`, or None."""
    old = legacy.ARGUMENTS[getattr(holder, _CLASS)][name]
    if old.writes is None or _given(holder, name) is None or any(
            _given(holder, other) in (None, False) for other in old.requires):
        return None
    return old.writes


def render(config, custom_op):
    """Write what the older NPUEstimator wrote for those arguments (value not None)."""
    for holder in _holders(config):
        for name, value in getattr(holder, _ATTR, {}).items():
            writes = _written(holder, name)
            if writes is None:
                continue
            key, field = writes
            attr = custom_op.parameter_map[key]
            if field == "s":
                attr.s = tf.compat.as_bytes(value if isinstance(value, (str, bytes)) else str(value))
            elif field == "b":
                attr.b = bool(value)
            else:   # the table only has s and b today
                raise ValueError("legacy row %r writes field %r" % (name, field))
