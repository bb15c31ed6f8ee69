"""The NPU config classes (layer 2): `NPURunConfig` and the classes it takes, with the real
adapter's names, signatures and defaults; they check argument types and render themselves as
an `NpuOptimizer` `parameter_map` from the catalog. Notes: docs/design.md "Module notes".
"""
import dataclasses
import enum
import json
import numbers
import os

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

# npu_bridge.ge.catalog is imported on first use (an NPURunConfig, a render): not at import.
from npu_bridge.ge.diagnostics import NpuConfigError
from npu_bridge.ge.argtypes import REAL_CONFIG as _REAL_CONFIG
from npu_bridge.ge.config_schema import BY_NAME as _SCHEMA, memory_seed_form as _memory_seed_form
from npu_bridge.ge import config_schema as _config_schema

__all__ = [
    "NPURunConfig", "ProfilingConfig", "MemoryConfig", "DumpConfig", "ExperimentalConfig",
    "GraphMemoryOptimizeConfig", "DynamicInputConfig", "NpuExecutePlacement",
    "NpuArgumentError", "render_parameter_map", "render_session_config",
]

_NPU_OPTIMIZER = "NpuOptimizer"

from npu_bridge.config import legacy_args as _legacy_args, _probe, _render  # noqa: E402
from npu_bridge.config._render import _field_value, _get_path  # noqa: E402
from npu_bridge.config._render import (  # noqa: E402,F401 (session_patch, NPUEstimator)
    remember as remember_user_set, rendered_user_set)


# Codes of the problems found here (the resolver's own codes for value rules: E10001, NPB1xx).
CLASS_CHECK_CODE = "NPB161"  # one of the real class's own Python checks (ps mode)


class NpuArgumentError(NpuConfigError, TypeError):
    """Bad constructor arguments of an NPU config class; lists every problem at once.

    An `npu_bridge.ge.NpuConfigError` (so a ValueError) and a TypeError: the real classes
    raise either for these checks (e.g. TypeError for ``mix_compile_mode``, ValueError for
    ``horovod_mode``), so scripts catching either keep working, and code catching
    `NpuConfigError` sees the config errors of a constructor call as well as of a resolution.
    ``.diagnostics``: every problem as a `Diagnostic` with a code (``NPB160`` wrong type,
    ``NPB161`` a real-class check, and the resolver's codes, e.g. ``E10001``, for values,
    including its warnings and infos); ``.problems``: the error messages; ``.owner``: what was
    called (e.g. "NPURunConfig"); ``.ge_options``: for an ``NPURunConfig`` whose arguments
    reached the resolver, what they resolve to (options, the product used) holding these
    diagnostics, else None.
    """

    def __init__(self, owner, problems, extra=()):
        self.owner = owner
        self.diagnostics = list(problems) + list(extra)   # Diagnostics (argtypes.problem)
        self.ge_options = None
        errors = [d for d in self.diagnostics if d.severity == "error"]
        self.problems = [d.message for d in errors]
        lines = ["%d invalid argument(s) to %s:" % (len(errors), owner)]
        lines += ["  - %s %s" % (d.code, d.message) for d in errors]
        Exception.__init__(self, "\n".join(lines))


# Type rules (derived from the catalog; shared with `npu-bridge lint`, which never imports
# TensorFlow): npu_bridge/ge/argtypes.py.
from npu_bridge.ge.argtypes import (  # noqa: E402
    check_class_args as _check_class_args, check_instance as _check_instance,
    check_int as _check_int, check_row_type as _check_row_type, problem as _problem,
    catalog_options as _catalog_options, rows_by_arg as _rows_by_arg, bool_int_warning,
    check_npu_arg, memory_third_problem as _memory_third_problem)


# ---------------------------------------------------------------------------------------------
# Config classes.

_USER_ARGS = _probe.USER_ARGS   # the argument names a constructor call was given
_POSITIONS = _probe.POSITIONS   # argument -> its position, for those a call gave by position


def _user_set(obj, path):
    """Did the user give every part of dotted argument `path` (e.g. ``memory_config.
    static_memory_policy``)? An object that did not record its arguments counts as given."""
    for part in path.split("."):
        if obj is None:   # the container (e.g. DumpConfig) was not given: a default written
            return False
        given = getattr(obj, _USER_ARGS, None)
        if given is not None and part not in given:
            return False
        obj = _field_value(obj, part)
    return True


def _args(local_vars):
    """A constructor's arguments (its `locals()` before anything else), argument -> value."""
    return {k: v for k, v in local_vars.items() if k not in ("self", "__class__")}


def _positions(obj):
    """Argument -> position of the arguments `obj`'s constructor call gave by position."""
    return getattr(obj, _POSITIONS, None) or {}


def _checked(owner, values, problems=(), positions=None):
    """`problems` (the class's own checks), then the type problems of `values` against their
    catalog rows and of the config-class arguments (class `owner`'s schema row); `positions`:
    `_positions` of the call."""
    cls = _SCHEMA[owner]
    problems = list(problems)
    positions = positions or {}
    if cls.row_types:
        _check_class_args(owner, {a: v for a, v in values.items() if a not in cls.nested},
                          problems, positions)
    for arg, name in cls.nested.items():
        _check_instance(arg, values[arg], _CLASSES[name], problems, position=positions.get(arg))
    return problems


def _refused(name, error):
    """Record `error` (an `NpuArgumentError`) as a refused configuration named `name`, as
    `_validate` records a refused `NPURunConfig`: `npu-bridge run` counts every configuration
    the checks refuse, whether the script catches the error or not, the rule `lint` applies
    to the same call (docs/cli.md `run`). One that never reached the resolver is recorded
    with the forced product (`--product`), the target of every resolution. Returns `error`."""
    from npu_bridge.ge import records as _records, products as _products
    if error.ge_options is None and getattr(error, "product", None) is None:
        error.product = _products.lookup(_products.current_forced_product())
    _records.record_refused("estimator", name, error)
    return error


def _call_text(owner, values, given):
    """`MemoryConfig(static_memory_policy='2')`: the call with the arguments it was given."""
    def short(value):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return "%s(%s)" % (owner, ", ".join("%s=%s" % (a, short(v)) for a, v in values.items()
                                        if a in given))


def _store(obj, owner, values, problems):
    """Raise one `NpuArgumentError` with `problems` (recorded as a refused configuration:
    `_refused`), or store `values` as the real class does: its public attributes (schema)
    under their name, the others as `_<name>`.

    A refused call is still resolved with its other arguments (`_probe.resolve_nested`), so
    the error and `npu-bridge run` carry their findings and the product too, as `lint`
    reports them for the same call."""
    if not problems:
        _probe.store(obj, owner, values)
        return
    given = getattr(obj, _USER_ARGS, None)
    given = frozenset(values if given is None else given)
    refused = {d.option for d in problems}
    extra, resolved = _probe.resolve_nested(owner, values, given - refused, refused)
    error = NpuArgumentError(owner, problems, extra)
    if resolved is not None:
        error.ge_options = dataclasses.replace(resolved, diagnostics=list(error.diagnostics))
    raise _refused(_call_text(owner, values, given), error)


class ProfilingConfig:
    """Profiling settings for `NPURunConfig(profiling_config=...)`.

    Args:
      enable_profiling: bool; written to parameter_map["profiling_mode"].b.
      profiling_options: str (a JSON object string) or None; written to
        parameter_map["profiling_options"].s only when profiling is enabled ("" when None).
    Raises:
      NpuArgumentError: wrong argument types (all listed).
    Release r1.1.1's arguments ``enable_options``, ``fp_point``, ``bp_point`` are accepted with
    warning NPB108 (`npu_bridge.ge.legacy`).
    Source: hicann/tensorflow npu_config.py, docs .../npu_config/profilingconfig_constructor.md.
    """

    @_legacy_args.accept("ProfilingConfig")   # arguments of release r1.1.1: NPB108 warning
    @_probe.records_user_args
    def __init__(self, enable_profiling=False, profiling_options=None):
        values = _args(locals())
        _store(self, "ProfilingConfig", values,
               _checked("ProfilingConfig", values, positions=_positions(self)))


class MemoryConfig:
    """Memory settings for `NPURunConfig(memory_config=...)`.

    Args:
      atomic_clean_policy: int, 0 or 1 (checked by the resolver); always written.
      static_memory_policy: int, 0/1/2/3/4 (checked by the resolver) or None.
      memory_optimization_policy: str or None.
      variable_use_1g_huge_page: int, 0/1/2 (checked by the resolver) or None.
    A bool where an int is meant (``static_memory_policy=True``) is refused.

    Positional order (a decision; both call styles work where unambiguous): the signature is
    the real class's, ``(atomic_clean_policy=0, static_memory_policy=0,
    memory_optimization_policy=None, variable_use_1g_huge_page=0)`` (reference
    npu_options.json), while the vendor page the seed ``memoryconfig_constructor_zh.txt``
    copies documents ``(atomic_clean_policy=0, static_memory_policy=0,
    variable_use_1g_huge_page=0)``. ``memory_optimization_policy`` only takes a string, so a
    third positional argument that is an int 0, 1 or 2, with ``variable_use_1g_huge_page``
    left at its default, is read as ``variable_use_1g_huge_page`` (the seed's prototype); a
    string there is ``memory_optimization_policy`` (the real class). Any other int third, or
    an int third together with a non-default ``variable_use_1g_huge_page``, is refused as
    ambiguous, with a hint about that position. By keyword, ``memory_optimization_policy``
    is the real signature's (a str; an int is refused, NPB160, never read as the seed's).
    Value and product rules: seed memoryconfig_constructor_zh.txt, applied by
    ``npu_bridge.ge.resolve``.
    Raises:
      NpuArgumentError: wrong argument types (all listed).
    """

    @_probe.records_user_args
    def __init__(self, atomic_clean_policy=0, static_memory_policy=0,
                 memory_optimization_policy=None, variable_use_1g_huge_page=0):
        positions = _positions(self)
        third = positions.get("memory_optimization_policy")
        if third is not None and _memory_seed_form(memory_optimization_policy,
                                                   variable_use_1g_huge_page):
            # the seed's three-argument form: MemoryConfig(a, s, variable_use_1g_huge_page);
            # a keyword memory_optimization_policy is the real signature's, whatever its value
            memory_optimization_policy, variable_use_1g_huge_page = \
                None, memory_optimization_policy
            third = None
        values = _args(locals())
        del values["positions"], values["third"]
        problems = _memory_third_problem(_checked("MemoryConfig", values, positions=positions),
                                         memory_optimization_policy, third)
        _store(self, "MemoryConfig", values, problems)


class DumpConfig:
    """Dump settings for `NPURunConfig(dump_config=...)`.

    Args (all written to the parameter_map key of the same name, `.b` or `.s`):
      enable_dump: bool; dump_path: str or None; dump_step: str ("0|5|10-20") or None;
      dump_mode: str ("input"/"output"/"all"); enable_dump_debug: bool;
      dump_debug_mode: str; dump_data: str ("tensor"/"stats"); dump_layer: str or None.
    As in the real estimator, ``dump_debug_mode`` is only written when ``dump_mode`` is set.
    Raises:
      NpuArgumentError: wrong argument types (all listed).
    Source: hicann/tensorflow npu_config.py; docs .../npu_config/dumpconfig_constructor.md.
    """

    @_probe.records_user_args
    def __init__(self, enable_dump=False, dump_path=None, dump_step=None, dump_mode="output",
                 enable_dump_debug=False, dump_debug_mode="all", dump_data="tensor",
                 dump_layer=None):
        values = _args(locals())   # dump_data and dump_layer public, as in the real class
        _store(self, "DumpConfig", values,
               _checked("DumpConfig", values, positions=_positions(self)))


class GraphMemoryOptimizeConfig:
    """Graph memory optimisation for `ExperimentalConfig(graph_memory_optimize_config=...)`.

    Args:
      recompute: "auto", "manual" or None (not written by the real estimator).
      graph_slice: "auto", "manual" or None; written to parameter_map["graph_slice"].s.
    Raises:
      NpuArgumentError: a value outside {"auto", "manual", None} (the real class raises
        ValueError for it) or a wrong type; all listed.
    Source: hicann/tensorflow npu_config.py (_check_graph_mem_optimize_config).
    """

    @_probe.records_user_args
    def __init__(self, recompute=None, graph_slice=None):
        values = _args(locals())
        problems = []
        for arg, value in values.items():
            if value is not None and value not in ("auto", "manual"):
                problems.append(_problem(arg, value, code="E10001", shown=repr(value),
                                         reason="not a mode", allowed="'auto', 'manual' or None",
                                         where=_REAL_CONFIG))
        _store(self, "GraphMemoryOptimizeConfig", values,
               _checked("GraphMemoryOptimizeConfig", values, problems, _positions(self)))


class ExperimentalConfig:
    """Experimental settings for `NPURunConfig(experimental_config=...)`.

    Args: logical_device_cluster_deploy_mode (str, default "LB"), logical_device_id,
      model_deploy_mode, model_deploy_devicelist, graph_compiler_cache_dir,
      graph_parallel_option_path, resource_config_path, accelerate_train_mode (str or None),
      enable_graph_parallel (bool or None), graph_memory_optimize_config
      (`GraphMemoryOptimizeConfig` or None).
    Raises:
      NpuArgumentError: wrong argument types (all listed).
    Source: hicann/tensorflow npu_config.py; docs .../npu_config/experimentalconfig_constructor.md.
    """

    @_probe.records_user_args
    def __init__(self, logical_device_cluster_deploy_mode="LB", logical_device_id=None,
                 model_deploy_mode=None, model_deploy_devicelist=None,
                 graph_memory_optimize_config=None, enable_graph_parallel=None,
                 graph_parallel_option_path=None, graph_compiler_cache_dir=None,
                 resource_config_path=None, accelerate_train_mode=None):
        values = _args(locals())
        _store(self, "ExperimentalConfig", values,
               _checked("ExperimentalConfig", values, positions=_positions(self)))


class NpuExecutePlacement(enum.Enum):
    """Where an op runs on the NPU (the real module's enum, same members and values)."""
    ALL = "all"
    CUBE = "cube"
    VECTOR = "vector"
    TAISHAN = "taishan"
    DVPP = "dvpp"
    HOST = "host"


class DynamicInputConfig:
    """Dynamic dimension ("gear") settings for `NPURunConfig(dynamic_input_config=...)`.

    Args (all required, as in the real class):
      input_shape: str, e.g. "data:-1,224,224,3"; dynamic_dims: str, e.g. "1;2;4";
      dynamic_node_type: int (0 dataset, 1 placeholder); compile_hybrid_mode: int (0/1).
    The real estimator writes the four keys only when all four are not None.
    Raises:
      NpuArgumentError: wrong argument types (all listed).
    Source: hicann/tensorflow npu_config.py and npu_estimator.py.
    """

    @_probe.records_user_args
    def __init__(self, input_shape, dynamic_dims, dynamic_node_type, compile_hybrid_mode):
        values = _args(locals())
        _store(self, "DynamicInputConfig", values,
               _checked("DynamicInputConfig", values, positions=_positions(self)))


# The config classes by name (the schema's `nested` names them).
_CLASSES = {cls.__name__: cls for cls in (ProfilingConfig, MemoryConfig, DumpConfig,
                                          GraphMemoryOptimizeConfig, ExperimentalConfig,
                                          DynamicInputConfig)}


# ---------------------------------------------------------------------------------------------
# NPURunConfig.

_RUN = _SCHEMA["NPURunConfig"]
_BASE_ARGS = _RUN.base_args   # arguments handled by tf.estimator.RunConfig itself
# Arguments that take a config-class object.
_CLASS_ARGS = {arg: _CLASSES[name] for arg, name in _RUN.nested.items()}


def _ps_strategy_classes():
    classes = []
    for api in (tf.compat.v1, tf.compat.v2):
        cls = getattr(getattr(getattr(api, "distribute", None), "experimental", None),
                      "ParameterServerStrategy", None)
        if cls is not None:
            classes.append(cls)
    return tuple(classes)


def _tf_config_cluster():
    tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    return tf.train.ClusterSpec(tf_config.get("cluster", {}))


def _check_npu_args(args, problems, values=None, positions=None):
    """Every check the constructor makes on the NPU arguments (not the RunConfig ones).

    Type problems (NPB160) go to `problems`; value problems (E10001, NPB141, the real class's
    ps-mode check NPB161) to `values` when given, else to `problems` too. Each a Diagnostic.
    `positions`: `_positions` of the call."""
    values = problems if values is None else values
    positions = positions or {}
    ok = {}
    for arg in _RUN.checks:   # the real class's own type checks, in its order (schema)
        value = args[arg]
        ok[arg] = check_npu_arg(arg, value, problems, values, positions.get(arg))
        if arg == "mix_compile_mode" and ok[arg] and value and ok["iterations_per_loop"] \
                and args["iterations_per_loop"] != 1:
            values.append(_problem("mix_compile_mode", True, code="NPB141", shown="true",
                                   needs="iterations_per_loop", allowed=1,
                                   got=repr(args["iterations_per_loop"]), where=_REAL_CONFIG))
        elif arg == "graph_run_mode" and ok[arg] and value > 1:
            values.append(_problem("graph_run_mode", value, code="E10001", shown=repr(value),
                                   reason="above 1", allowed="0, 1", where=_REAL_CONFIG))
    mix = args["mix_compile_mode"]
    for arg, cls in _CLASS_ARGS.items():
        _check_instance(arg, args[arg], cls, problems, position=positions.get(arg))
    for arg, value in args.items():
        row = _rows_by_arg().get(arg)
        if row is not None and arg not in _RUN.checks:
            _check_row_type("NPURunConfig", arg, value, row, problems, positions.get(arg))
    # Parameter-server mode needs both a TF_CONFIG cluster and a ParameterServerStrategy.
    cluster = _tf_config_cluster()
    is_ps = isinstance(args["distribute"], _ps_strategy_classes())
    if bool(cluster.as_dict()) != is_ps:
        values.append(_problem("distribute", args["distribute"], code=CLASS_CHECK_CODE,
                               subject="distribute=%r" % (args["distribute"],),
                               rule="\"cluster\" (TF_CONFIG) and a ParameterServerStrategy "
                               "distribute must be set together in ps mode"))
    elif cluster.as_dict() and mix is False:
        values.append(_problem("mix_compile_mode", False, code=CLASS_CHECK_CODE,
                               subject="mix_compile_mode=False",
                               rule="must be True when a TF_CONFIG \"cluster\" is set"))


def _validate(owner, npu_args, record_as=None, origin=None, given=None, run_state=None,
              positions=None):
    """Raise one `NpuArgumentError` with every problem of these NPU arguments, or return.

    Argument types first (NPB160); when they are all fine, the `parameter_map` the real
    NPUEstimator would write is rendered and resolved (`npu_bridge.ge.resolve`: the same
    rules and codes as `NPUEstimator`, `npu-bridge options` and `lint`), so every value
    problem is reported at once, with the class's own value checks the resolver does not
    repeat. `origin`: the NPURunConfig being made or replaced, whose older-release arguments
    the probe takes; `given`: the argument names the user gave (default: `origin`'s). The
    resolver is told the probe's `UserSet`, as for an accepted config (sources, NPB105).
    `run_state`: the `tf.estimator.RunConfig` state the config will have, `(arguments as it
    keeps them, session_config)`: the probe resolves with it as the accepted config does
    (the "run_config" rules, NPB172; the user's own NpuOptimizer), so a refused config
    reports every diagnostic an accepted one would, not only the refusing ones. `positions`:
    the arguments the call gave by position (`_positions`)."""
    problems, values = [], []
    _check_npu_args(npu_args, problems, values, positions)
    # Arguments of a wrong type stay at their defaults in the probe (never sent, not given):
    # the others are resolved all the same, one bad argument hides no other finding.
    refused = {d.option for d in problems}
    given = given if given is not None else getattr(origin, _USER_ARGS, frozenset())
    extra, resolved, probe = _probe.resolve_probe(
        NPURunConfig, _probe.without("NPURunConfig", npu_args, refused), given - refused,
        origin=origin, run_state=run_state, positions=positions)
    extra = _probe.without_consequences(extra, "NPURunConfig", refused)
    reported = {d.option for d in extra if d.severity == "error"}
    values = [d for d in values if d.option not in reported]
    extra = list(extra) + probe._npu_arg_warnings()
    if problems or values or any(d.severity == "error" for d in extra):
        error = NpuArgumentError(owner, problems + values, extra)
        if resolved is not None:
            # what it would have resolved to (options, the product the resolver used), with
            # every diagnostic of the error: the record and report show that product
            error.ge_options = dataclasses.replace(resolved, diagnostics=list(error.diagnostics))
        if record_as is not None:
            # Recorded as refused (the estimator it was made for never gets it), so
            # `npu-bridge run` counts it even when the script catches the error.
            from npu_bridge.ge import records as _records
            _records.record_refused("estimator", record_as, error)
        raise error


class NPURunConfig(tf.estimator.RunConfig):
    """`tf.estimator.RunConfig` with the NPU settings of the real Ascend adapter.

    All 88 arguments of the real class, in its order and with its defaults (reference
    ``npu_options.json``). RunConfig arguments go to `tf.estimator.RunConfig`; the others
    are stored under the real attribute names. Differences from the base class, as in the
    real one: ``save_summary_steps`` defaults to 0; with neither ``save_checkpoints_steps``
    nor ``save_checkpoints_secs`` given, checkpoints are saved every 100 steps.

    ``iterations_per_loop`` (int >= 1, steps per `Session.run`) is a property backed by
    ``_iterations_per_loop``.

    Raises:
      NpuArgumentError (a TypeError and ValueError): every wrong argument type, and the
        real class's own Python checks (iterations_per_loop >= 1, iterations_per_loop == 1
        with mix_compile_mode, graph_run_mode in {0, 1}, horovod_mode a bool,
        ps mode needing both a TF_CONFIG cluster and a ParameterServerStrategy), all listed.
      ValueError: from `tf.estimator.RunConfig` (e.g. both save_checkpoints_steps and
        save_checkpoints_secs given).
    Value rules of the NPU options are not checked here: `npu_bridge.ge.resolve(config)`.
    """

    @_legacy_args.accept("NPURunConfig")   # arguments of older releases: NPB108 warning
    @_probe.records_user_args
    def __init__(self,
                 iterations_per_loop=1,
                 profiling_config=None,
                 model_dir=None,
                 tf_random_seed=None,
                 save_summary_steps=0,
                 save_checkpoints_steps=None,
                 save_checkpoints_secs=None,
                 session_config=None,
                 keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100,
                 distribute=None,
                 enable_data_pre_proc=True,
                 precision_mode=None,
                 enable_reduce_precision=False,
                 variable_format_optimize=None,
                 mix_compile_mode=False,
                 hcom_parallel=True,
                 graph_memory_max_size=None,
                 variable_memory_max_size=None,
                 dump_config=None,
                 stream_max_parallel_num=None,
                 is_tailing_optimization=False,
                 horovod_mode=False,
                 graph_run_mode=1,
                 op_debug_level=None,
                 enable_scope_fusion_passes=None,
                 enable_exception_dump=2,
                 op_select_implmode=None,
                 optypelist_for_implmode=None,
                 dynamic_input_config=None,
                 aoe_mode=None,
                 work_path=None,
                 buffer_optimize="l2_optimize",
                 enable_small_channel=0,
                 fusion_switch_file=None,
                 enable_compress_weight=False,
                 compress_weight_conf=None,
                 op_compiler_cache_mode=None,
                 op_compiler_cache_dir=None,
                 debug_dir=None,
                 hcom_multi_mode=False,
                 dynamic_input=None,
                 dynamic_graph_execute_mode="dynamic_execute",
                 dynamic_inputs_shape_range=None,
                 train_distribute=None,
                 eval_distribute=None,
                 local_rank_id=None,
                 local_device_list=None,
                 session_device_id=None,
                 distribute_config=None,
                 modify_mixlist=None,
                 op_precision_mode=None,
                 device_type="default_device_type",
                 soc_config=None,
                 hccl_timeout=None,
                 op_wait_timeout=None,
                 op_execute_timeout=None,
                 HCCL_algorithm=None,
                 customize_dtypes=None,
                 op_debug_config=None,
                 memory_config=None,
                 experimental_config=None,
                 topo_sorting_mode=None,
                 aoe_config_file=None,
                 insert_op_file=None,
                 stream_sync_timeout=-1,
                 event_sync_timeout=-1,
                 external_weight=False,
                 deterministic=0,
                 frozen_variable=False,
                 variable_placement="Device",
                 jit_compile="auto",
                 precision_mode_v2=None,
                 ac_parallel_enable=None,
                 quant_dumpable=None,
                 input_fusion_size=131072,
                 compile_dynamic_mode=None,
                 graph_max_parallel_model_num=1,
                 export_compile_stat=1,
                 aicore_num=None,
                 oo_constant_folding=True,
                 input_batch_cpy=False,
                 shape_generalization_mode="STRICT",
                 all_tensor_not_empty=False,
                 auto_multistream_parallel_mode=None,
                 oo_level="O3",
                 optimization_switch=None):
        args = dict(locals())
        del args["self"]
        args.pop("__class__", None)
        npu_args = {k: v for k, v in args.items() if k not in _BASE_ARGS}
        kept = _config_schema.run_config_arguments(args)   # its default cadence included
        _validate("NPURunConfig", npu_args, record_as="NPURunConfig(model_dir=%s)" % (model_dir,),
                  origin=self, run_state=(kept, session_config), positions=_positions(self))
        self._assign_npu_args(npu_args)
        save_checkpoints_steps = kept["save_checkpoints_steps"]
        super().__init__(
            model_dir=model_dir,
            tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs,
            session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps,
            train_distribute=train_distribute,
            eval_distribute=eval_distribute)

    def _assign_npu_args(self, npu_args):
        for arg, value in npu_args.items():
            setattr(self, arg if arg in _RUN.public else "_" + arg, value)

    def _npu_args(self):
        """The current NPU argument values (not the RunConfig ones), by argument name."""
        return {n: _field_value(self, n) for n in _NPU_ARG_NAMES}

    @property
    def iterations_per_loop(self):
        """Training steps run on the device per `Session.run` (int >= 1)."""
        return self._iterations_per_loop

    @iterations_per_loop.setter
    def iterations_per_loop(self, value):
        problems = []
        _check_int("iterations_per_loop", value, problems, 1)
        if problems:
            raise _refused("NPURunConfig.iterations_per_loop = %r" % (value,),
                           NpuArgumentError("NPURunConfig.iterations_per_loop", problems))
        self._iterations_per_loop = value

    def replace(self, **kwargs):
        """A copy with some properties replaced.

        RunConfig properties are replaced by `tf.estimator.RunConfig.replace` (its allowed
        list and checks); NPU arguments (e.g. ``iterations_per_loop``, ``memory_config``) are
        replaced too and re-checked like in the constructor. Every other field is kept.

        Raises:
          NpuArgumentError: bad NPU values; ValueError: from `RunConfig.replace`.
        """
        npu_kwargs = {k: v for k, v in kwargs.items() if k in self._npu_args()}
        base_kwargs = {k: v for k, v in kwargs.items() if k not in npu_kwargs}
        # its arguments given by keyword; the original call's positions stay for the others
        positions = {k: p for k, p in _positions(self).items() if k not in kwargs}
        if npu_kwargs:
            merged = self._npu_args()
            merged.update(npu_kwargs)
            kept = self._npu_run_arguments() or {}
            kept.update((k, v) for k, v in base_kwargs.items() if k in kept)
            _validate("NPURunConfig.replace", merged, origin=self,
                      given=getattr(self, _USER_ARGS, frozenset()) | frozenset(kwargs),
                      run_state=(kept, base_kwargs.get("session_config", getattr(
                          self, "_session_config", None))), positions=positions)
        new = super().replace(**base_kwargs)
        new._assign_npu_args(npu_kwargs)
        setattr(new, _USER_ARGS, getattr(self, _USER_ARGS, frozenset()) | frozenset(kwargs))
        setattr(new, _POSITIONS, positions)
        return new

    def _npu_user_keys(self):
        """The parameter_map keys of `_npu_resolve_input` that the user set: those written
        from an argument the user gave (nested config classes: the argument of the class
        too), the keys of the older-release arguments given, and every key of the
        NpuOptimizer(s) of the user's ``session_config``. The other keys are defaults the
        estimator writes itself (the resolver reports deprecations only for user keys).

        Returns: frozenset of str.
        """
        custom_op = rewriter_config_pb2.RewriterConfig.CustomGraphOptimizer()
        render_parameter_map(self, custom_op)
        defaulted = set()
        for row in _catalog_options():
            if row.key and row.key in custom_op.parameter_map and (
                    row.runconfig_arg is None or row.estimator_value is not None
                    or not _user_set(self, row.runconfig_arg)):
                defaulted.add(row.key)
        legacy = rewriter_config_pb2.RewriterConfig.CustomGraphOptimizer()
        _legacy_args.render(self, legacy)
        keys = set(custom_op.parameter_map) - (defaulted - set(legacy.parameter_map))
        session_config = getattr(self, "_session_config", None)
        if session_config is not None:
            for opt in session_config.graph_options.rewrite_options.custom_optimizers:
                if opt.name == _NPU_OPTIMIZER:
                    keys.update(opt.parameter_map)
        return frozenset(keys)

    def _npu_arg_warnings(self):
        """NPB162 warnings of the arguments given (nested config classes included), in
        catalog order: a bool argument given an int other than 0 and 1, which the real
        NPUEstimator writes to `.b` as True (`argtypes.bool_int_warning`, the rule lint
        applies to literals too). NPUEstimator adds them to its resolved diagnostics."""
        found = []
        for arg, row in _rows_by_arg().items():
            present, value = _get_path(self, arg)
            if present:
                holder, _, name = arg.rpartition(".")
                owner = _get_path(self, holder)[1] if holder else self
                diag = bool_int_warning(name, value, row, _positions(owner).get(name))
                if diag is not None:
                    found.append(diag)
        return found + _legacy_args.diagnostics(self)   # NPB108: arguments of older releases

    def _npu_used_classes(self):
        used = set()
        for arg, cls in _CLASS_ARGS.items():
            if _field_value(self, arg) is not None:
                used.add(cls.__name__)
        experimental = self._experimental_config
        if experimental is not None and experimental._graph_memory_optimize_config is not None:
            used.add(GraphMemoryOptimizeConfig.__name__)
        return frozenset(used)

    def _npu_resolve_input(self):
        """``(parameter_map, used_classes, arguments)`` for `npu_bridge.ge.resolve`
        (docs/INTERFACES.md).

        parameter_map: dict key -> `AttrValue`, what the real NPUEstimator writes for this
        config (`render_parameter_map`); when ``session_config`` already carries
        NpuOptimizer(s), a tuple of their parameter_maps followed by that dict (the order of
        `render_session_config`, merged by the resolver as the adapter reads them);
        used_classes: frozenset of the config-class names given (e.g. {"MemoryConfig"}),
        which drive the class-level product rules; arguments: `_npu_run_arguments()`.
        """
        custom_op = rewriter_config_pb2.RewriterConfig.CustomGraphOptimizer()
        render_parameter_map(self, custom_op)
        parameter_map = {}
        for key in custom_op.parameter_map:
            value = type(custom_op.parameter_map[key])()
            value.CopyFrom(custom_op.parameter_map[key])
            parameter_map[key] = value
        # The estimator appends its NpuOptimizer after those of the user's session_config
        # (render_session_config) and the adapter reads them all in order: then a tuple of
        # the parameter_maps in that order, which the resolver merges (NPB106 on changes).
        session_config = getattr(self, "_session_config", None)
        arguments = self._npu_run_arguments()
        if session_config is not None:
            user = tuple(o.parameter_map for o in
                         session_config.graph_options.rewrite_options.custom_optimizers
                         if o.name == _NPU_OPTIMIZER)
            if user:
                return user + (parameter_map,), self._npu_used_classes(), arguments
        return parameter_map, self._npu_used_classes(), arguments

    def _npu_run_arguments(self):
        """The `tf.estimator.RunConfig` arguments as this config keeps them (name -> value,
        `config_schema.run_config_arguments`), which the resolver's "run_config" rules read
        (NPB172). The argument check's probe has no RunConfig state: the arguments the config
        being checked will keep (`_validate`'s `run_state`), else None."""
        if "_save_checkpoints_steps" not in vars(self):
            return vars(self).get("_npu_probe_run_arguments")
        return {arg: getattr(self, arg) for arg in _BASE_ARGS}


_NPU_ARG_NAMES = tuple(n for n in _RUN.params if n not in _BASE_ARGS)


# ---------------------------------------------------------------------------------------------
# Rendering: what the real NPUEstimator writes (npu_bridge/config/_render.py).

def render_parameter_map(run_config, custom_op):
    """Fill `custom_op` (a `RewriterConfig.CustomGraphOptimizer`) like the real NPUEstimator.

    Same keys, `AttrValue` fields and values as ``NPUEstimator.__load_graph_optimizers``
    (hicann/tensorflow npu_estimator.py) writes for `run_config`, including the keys it always
    writes (``use_off_line``, ``min_group_size``, ``enable_data_pre_proc``, ``hcom_parallel``,
    ``job``/``task_index`` from TF_CONFIG, ...). Driven by the catalog rows
    (``runconfig_arg``, ``field``, ``estimator_write``/``_value``/``_default``/``_requires``).
    Sets the optimizer's name to "NpuOptimizer" when it has none. `run_config` is not changed.

    Args:
      run_config: an `NPURunConfig`.
      custom_op: the `CustomGraphOptimizer` to fill (existing keys are overwritten).
    Returns:
      `custom_op`.
    Raises:
      TypeError: `run_config` is not an `NPURunConfig`.
    """
    if not isinstance(run_config, NPURunConfig):
        raise TypeError("render_parameter_map: run_config must be an NPURunConfig, got %s"
                        % type(run_config).__name__)
    return _render.fill_parameter_map(run_config, custom_op)


def render_session_config(run_config, session_defaults=True):
    """The `ConfigProto` the real NPUEstimator makes of ``run_config.session_config``.

    A copy of the user's ``session_config`` (a new ``ConfigProto`` when None; the user's
    object is never modified), with the estimator's grappler list appended to
    ``rewrite_options.optimizers`` ("pruning", ..., "layout", "GradFusionOptimizer") and a
    new ``NpuOptimizer`` custom optimizer filled by `render_parameter_map` (like the real
    one, added even when the user's config already has one).

    With ``session_defaults`` (default), also what the real adapter's patched
    ``tf.Session.__init__`` (``set_npu_default_config``) does to every session created from
    it: ``allow_soft_placement`` True, ``log_device_placement`` False, ``remapping`` OFF and
    XLA ``global_jit_level`` OFF. (``memory_optimization`` is turned OFF by that patch only
    when it has to add the NpuOptimizer itself, never for an estimator config.)

    Returns:
      a new `tf.compat.v1.ConfigProto`.
    """
    return _render.session_config(run_config, session_defaults, render_parameter_map)
