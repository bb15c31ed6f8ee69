"""NPU resource control of the Ascend adapter (``npu_plugin``): ``npu_resource_init`` checked
against the catalog and recorded, no device. Notes: docs/design.md "Module notes".
"""
import functools
import inspect
import os

import tensorflow as tf

from npu_bridge.ge import plugin_args as _plugin_args
from npu_bridge.ge.initialization import GE_INITIALIZATION   # the process's GE (sessions too)
from npu_bridge.ge.plugin_args import OWNER as _OWNER
from npu_bridge.hooks.state import ADAPTER as _ADAPTER   # the process's values (hooks.state)



def _python_call_errors(function):
    """`function` whose bad call (a keyword it does not take, too many positional arguments)
    raises Python's TypeError with the hint lint's NBL012 gives (`config_schema.keyword_hint`:
    "; did you mean 'precision_mode'?"), as the config classes' do. Same signature."""
    from npu_bridge.ge import config_schema
    signature = inspect.signature(function)
    params = tuple(signature.parameters)

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            unknown = [k for k in kwargs if k not in signature.parameters]
            if unknown:
                raise TypeError(config_schema.unexpected_keyword(
                    function.__name__, unknown[0], params)) from None
            if len(args) > len(params):
                raise TypeError(config_schema.too_many_positional(
                    function.__name__, len(args), params)) from None
            raise
        return function(*args, **kwargs)
    return call


@_python_call_errors
def npu_resource_init(graph_run_mode=1, op_debug_level=0, enable_profiling=False, profiling_options=None,
                      precision_mode=None, enable_scope_fusion_passes=None, enable_exception_dump=2,
                      aoe_mode=None, work_path=None, op_compiler_cache_mode=None, op_compiler_cache_dir=None,
                      debug_dir=None, hcom_multi_mode=False, distribute_config=None, aoe_config_file=None,
                      precision_mode_v2=None, export_compile_stat=1, aicore_num=None, oo_constant_folding=True,
                      input_batch_cpy=False, oo_level="O3", optimization_switch=None):
    """Check the arguments and build the GEInitialize options (returned as a dict of str).

    Every argument is checked by its catalog row (the value rules of ``parameter_map``),
    as are the product rules for the target product (``forced_product`` /
    ``$NPU_BRIDGE_PRODUCT``). As in the real function: ``profiling_options`` is sent only
    with ``enable_profiling`` and then required; ``work_path`` (default ``./``, sent as its
    real path) and ``distribute_config`` only with ``aoe_mode``; None arguments are not sent,
    except ``aoe_config_file`` (sent as ``"None"``).

    Raises:
      TypeError: Python's, for an argument it does not have (with a "did you mean", as lint's
        NBL012) or too many positional arguments.
      npu_bridge.estimator.npu.npu_config.NpuArgumentError (an ``NpuConfigError``, so a
        ValueError, and a TypeError, as the real checks raise either): every problem at
        once in ``.diagnostics`` (``NPB160`` an argument of the wrong type, ``E10001`` a bad
        value with the allowed values, ``NPB143`` profiling without ``profiling_options``,
        and any other error of the resolution). Nothing is kept, and the call is recorded
        as refused.
    """
    return _resource_init(dict(locals()))


def _resource_init(args):
    from npu_bridge.ge import records as _records
    from npu_bridge.estimator.npu.npu_config import NpuArgumentError
    from npu_bridge.ge import GeOptions, NpuConfigError, resolve
    from npu_bridge.ge.scopes import SCOPES

    spec = _plugin_args.spec()   # the arguments' catalog rows, shared with npu-bridge lint
    rows, defaults = spec.rows, spec.defaults
    problems, pmap = [], {}
    for arg, row in rows.items():
        value = args[arg]
        needs = spec.requires.get(arg)
        if needs is not None:   # the real plugin reads it only with that option on
            needed = args[needs]
            if needed is None or needed is False:
                continue
            if value is None:
                value = row.estimator_default
        if value is None:
            continue
        problem = _plugin_args.type_problem(arg, value, row)
        if problem is not None:
            problems.append(problem)
            continue
        pmap[row.key] = value
    if pmap.get("profiling_mode") is True and "profiling_options" not in pmap:
        problems.append(_plugin_args.profiling_without_options())
    if "work_path" in pmap:   # the real util.check_path sends the directory's real path
        pmap["work_path"] = os.path.realpath(pmap["work_path"])

    # what the user chose: the arguments not left at their defaults (the plugin sends those
    # itself; the resolver reports deprecations and notes only for the user's)
    user_set = (_OWNER, frozenset(row.key for arg, row in rows.items()
                                  if row.key in pmap and args[arg] != defaults[arg]))
    try:
        resolved = resolve(pmap, user_set=user_set)
        diags = list(resolved.diagnostics)
    except NpuConfigError as err:
        resolved, diags = None, list(err.diagnostics)
    if problems or resolved is None:
        error = NpuArgumentError(_OWNER, problems, diags)
        error.ge_options = GeOptions(diagnostics=list(error.diagnostics),
                                     product=None if resolved is None else resolved.product)
        _records.record_refused("options", "npu_plugin." + _OWNER, error)
        raise error

    init, sources = {}, {}
    for arg, row in rows.items():
        key = spec.sent_key[arg]
        if row.key in pmap:
            init[key] = resolved.global_options[row.ge_key]
        elif args[arg] is None and arg in spec.sent_when_none:
            init[key] = spec.sent_when_none[arg]
        else:
            continue
        sources[key] = "%s:%s" % (_OWNER, arg)
        if arg in spec.unread:
            diags.append(_plugin_args.unread_key(arg, init[key]))
    # What GE applies: the keys it reads, as sent (no rule of these rows normalises a value).
    effective = {k: v for k, v in init.items() if k in SCOPES}
    ge_options = GeOptions(global_options=dict(init), effective=effective, diagnostics=diags,
                           product=resolved.product, sources=sources)
    # PluginInit initializes GE for the process ("global": kept until npu_resource_shutdown);
    # when an open NPU session already did, the real GePlugin::Init ignores these options.
    ge_init, first = GE_INITIALIZATION.join(ge_options, "npu_plugin." + _OWNER, plugin=True)
    ignored_keys = ()
    if not first:
        ignored, ignored_keys = GE_INITIALIZATION.ignored_globals(ge_options, ge_init)
        if ignored is not None:
            diags.append(ignored)
    _records.record("options", "npu_plugin." + _OWNER, ge_options,
                    ignored=(ge_init.owner, ignored_keys) if ignored_keys else None)
    _ADAPTER.init_options = dict(init)
    return init


def last_init_options():
    """The options of the last ``npu_resource_init`` call (dict) or None. Not in the real API."""
    return None if _ADAPTER.init_options is None else dict(_ADAPTER.init_options)


def npu_resource_shutdown():
    """No NPU to release; GE counts as finalized (PluginFinalize): the next NPU session, or
    npu_resource_init, initializes it again with its own global options."""
    GE_INITIALIZATION.reset()


def npu_close():
    """No NPU to close: a no-op."""


def _device_memory(name):
    raise NotImplementedError("npu_plugin.%s manages NPU device or RDMA memory; a CPU run has none" % name)


def init_rdma_pool(mem_size):
    """Raises ValueError for a non-int size, then NotImplementedError (device memory)."""
    if not isinstance(mem_size, int):
        raise ValueError("{} should be int".format(mem_size))
    _device_memory("init_rdma_pool")


def rdma_remote_register(remote_var_list):
    """Raises NotImplementedError (RDMA)."""
    _device_memory("rdma_remote_register")


def rdma_remote_init(remote_var_list, mem_size):
    """Raises NotImplementedError (RDMA)."""
    _device_memory("rdma_remote_init")


def get_var_addr_and_size(var_name):
    """Raises NotImplementedError (device addresses)."""
    _device_memory("get_var_addr_and_size")


def malloc_shared_memory(var_name, shape, data_type):
    """Raises NotImplementedError (device shared memory)."""
    _device_memory("malloc_shared_memory")


def get_rdma_cache(data_type, shape, name="rdma_w"):
    """A zero-initialised variable ``name`` of ``shape``/``data_type`` tagged for host memory."""
    from npu_bridge.estimator.npu import npu_scope
    with npu_scope.npu_mem_type_scope():
        return tf.compat.v1.get_variable(name=name, shape=shape, dtype=data_type,
                                         initializer=tf.compat.v1.zeros_initializer())


def set_device_sat_mode(mode):
    """Record the overflow mode: 0 saturation, 1 INF/NaN. Raises ValueError otherwise."""
    if mode not in (0, 1) or isinstance(mode, bool):
        raise ValueError("device sat mode must be 0 (saturation) or 1 (INF/NaN), got %r" % (mode,))
    _ADAPTER.sat_mode = mode


def is_inf_nan_enabled():
    """True when ``set_device_sat_mode(1)`` was called (INF/NaN mode)."""
    return _ADAPTER.sat_mode == 1


def device_sat_mode():
    """What ``set_device_sat_mode`` set: 0, 1, or None when it was not called (the product's
    default applies; read by ``--precision emulate``). Not in the real API."""
    return _ADAPTER.sat_mode
