"""What the real NPUEstimator writes for an `NPURunConfig` (its ``__load_graph_optimizers``
in ``npu_estimator.py``): the NpuOptimizer ``parameter_map`` and the session ``ConfigProto``.

Driven by the catalog rows' ``runconfig_arg``, ``field`` and ``estimator_*`` columns; there is
no hand-written list of keys here. The public entry points are
`npu_config.render_parameter_map` and `npu_config.render_session_config` (which check their
argument); `rendered_user_set` is how the Session patch tells the resolver which keys of a
ConfigProto rendered here the user set.
"""
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.core.protobuf import rewriter_config_pb2

from npu_bridge.ge.argtypes import (estimator_writes as _estimator_writes,
    write_field as _write_field)
from npu_bridge.config import legacy_args as _legacy_args
from npu_bridge.ge.config_schema import ESTIMATOR_GRAPPLER_OPTIMIZERS

_NPU_OPTIMIZER = "NpuOptimizer"

def _field_value(obj, name):
    """An argument's stored value: the real classes keep most as `_name`, a few as `name`."""
    private = "_" + name
    if private in vars(obj):
        return vars(obj)[private]
    return getattr(obj, name, None)


def _get_path(run_config, path):
    """Follow a dotted `runconfig_arg`; returns (container_present, value)."""
    obj = run_config
    parts = path.split(".")
    for part in parts[:-1]:
        obj = _field_value(obj, part)
        if obj is None:
            return False, None
    return True, _field_value(obj, parts[-1])


def _write(attr_value, row, value):
    field = _write_field(value, row) or row.field
    if field == "s":
        if not isinstance(value, (str, bytes)):
            value = str(value)
        attr_value.s = tf.compat.as_bytes(value)
    elif field == "b":
        attr_value.b = bool(value)
    elif field == "i":
        attr_value.i = int(value)
    elif field == "f":
        attr_value.f = float(value)
    else:
        raise ValueError("catalog row %r has an AttrValue field %r the estimator cannot write"
                         % (row.key, field))


def fill_parameter_map(run_config, custom_op):
    """`npu_config.render_parameter_map` once `run_config` is known to be an NPURunConfig."""
    if not custom_op.name:
        custom_op.name = _NPU_OPTIMIZER
    for row, value in _estimator_writes(lambda path: _get_path(run_config, path)):
        _write(custom_op.parameter_map[row.key], row, value)
    _legacy_args.render(run_config, custom_op)   # what older estimators wrote (NPB108 args)
    return custom_op


def session_config(run_config, session_defaults, fill):
    """`npu_config.render_session_config`; `fill(run_config, custom_op)` renders the map."""
    config = tf.compat.v1.ConfigProto()
    if run_config.session_config is not None:
        config.CopyFrom(run_config.session_config)
    rewrite = config.graph_options.rewrite_options
    rewrite.optimizers.extend(ESTIMATOR_GRAPPLER_OPTIMIZERS)
    custom_op = rewrite.custom_optimizers.add()
    custom_op.name = _NPU_OPTIMIZER
    fill(run_config, custom_op)
    from npu_bridge.ge import UserSet
    remember(config, UserSet("NPURunConfig", run_config._npu_user_keys()))
    if session_defaults:
        config.allow_soft_placement = True
        config.log_device_placement = False
        rewrite.remapping = rewriter_config_pb2.RewriterConfig.OFF
        config.graph_options.optimizer_options.global_jit_level = \
            config_pb2.OptimizerOptions.OFF
    return config


# Rendered ConfigProtos -> UserSet. By identity first: two NPURunConfigs can render
# byte-identical maps with different user keys (an argument given at its default, or left
# unset). `_BY_ID` holds the config itself, so its id stays its own while it is an entry,
# and the NpuOptimizer bytes it had (an edited config is the user's own). By content for a
# copy (TF's Estimator deep-copies its RunConfig): the keys every same-content render says
# the user set, so a collision drops the user-only notices rather than inventing them.
_BY_ID = {}       # id(config) -> (config, NpuOptimizer bytes, UserSet)
_RENDERED = {}    # NpuOptimizer bytes -> UserSet (intersection over the renders)
_LIMIT = 256


def _npu_bytes(config):
    customs = [o for o in config.graph_options.rewrite_options.custom_optimizers
               if o.name == _NPU_OPTIMIZER] if config is not None else []
    return customs[-1].SerializeToString(deterministic=True) if customs else None


def remember(config, user_set):
    """Record `user_set` as the `UserSet` of `config` (a ConfigProto rendered for an
    NPURunConfig, or an estimator's own copy of one) for `rendered_user_set`."""
    blob = _npu_bytes(config)
    if blob is None:
        return
    for table in (_BY_ID, _RENDERED):
        if len(table) >= _LIMIT:
            table.clear()
    _BY_ID[id(config)] = (config, blob, user_set)
    seen = _RENDERED.get(blob)
    if seen is not None and seen != user_set:
        from npu_bridge.ge import UserSet
        user_set = UserSet(user_set.owner, seen.keys & user_set.keys)
    _RENDERED[blob] = user_set


def identity_user_set(config):
    """The `UserSet` remembered for this very object (no check of its content), else None:
    cheap enough for the Session patch's per-session cache key."""
    entry = _BY_ID.get(id(config))
    return entry[2] if entry is not None and entry[0] is config else None


def rendered_user_set(config):
    """The `npu_bridge.ge.UserSet` of a `ConfigProto` whose last NpuOptimizer is one
    `render_session_config` wrote (the sessions of an NPUEstimator: the keys the user set
    through the NPURunConfig, the others its defaults), for `resolve(config, user_set=...)`;
    None for any other config (a hand-written map, or one edited since: every key is the
    user's)."""
    blob = _npu_bytes(config)
    if blob is None:
        return None
    entry = _BY_ID.get(id(config))
    if entry is not None and entry[0] is config and entry[1] == blob:
        return entry[2]
    return _RENDERED.get(blob)
