"""The config classes' schema (layer 2's data, TensorFlow-free): one row per class of the real
adapter's ``npu_config.py`` (its name, the prefix of its arguments in the catalog's
``runconfig_arg`` column, its signature with defaults, the arguments that take another config
class, the attributes it keeps public), and what the real `NPUEstimator` writes besides the
catalog rows. The config classes, lint, the CLI and the Session patch read it; the signatures
are the reference ``npu_options.json`` ``classes`` (tests/ge/test_config_schema.py).
"""
import functools
import numbers
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Tuple

from npu_bridge.ge import legacy
from npu_bridge.ge.text import close_names


class _Required:
    """The default of an argument that has none (DynamicInputConfig's)."""

    def __repr__(self):
        return "<required>"


REQUIRED = _Required()


@dataclass(frozen=True)
class ConfigClass:
    """One config class.

    name: the class name. prefix: its arguments' prefix in the catalog's `runconfig_arg`
    ("" for NPURunConfig, else dotted, e.g. "experimental_config.graph_memory_optimize_config").
    signature: ((argument, default), ...) in the real order (`REQUIRED`: no default).
    nested: argument -> name of the config class it takes (in the order the class checks them).
    public: the arguments stored under their own name (every other one as `_<name>`).
    base_args: arguments passed on to `tf.estimator.RunConfig` (NPURunConfig).
    own_checks: ((argument, kind, minimum), ...): the real class's own Python type checks, in
      its order ("int": an int >= minimum; "bool"; "str"); their catalog rows do not
      give the type (NPURunConfig).
    row_types: whether its arguments' types are checked against their catalog rows (the real
      GraphMemoryOptimizeConfig checks its values itself).
    """
    name: str
    prefix: str
    signature: Tuple[Tuple[str, object], ...]
    nested: Mapping[str, str] = field(default_factory=dict)
    public: frozenset = frozenset()
    base_args: Tuple[str, ...] = ()
    own_checks: Tuple[Tuple[str, str, object], ...] = ()
    row_types: bool = True

    def __post_init__(self):
        object.__setattr__(self, "nested", MappingProxyType(dict(self.nested)))
        object.__setattr__(self, "public", frozenset(self.public))

    @functools.cached_property
    def params(self):
        """The argument names, in order."""
        return tuple(arg for arg, _ in self.signature)

    @property
    def defaults(self):
        """argument -> default (`REQUIRED` where there is none)."""
        return dict(self.signature)

    @functools.cached_property
    def checks(self):
        """argument -> (kind, minimum) of `own_checks`, in order."""
        return {arg: (kind, minimum) for arg, kind, minimum in self.own_checks}

    @property
    def argument(self):
        """The argument that takes this class (the prefix's last part; "" for NPURunConfig)."""
        return self.prefix.rpartition(".")[2]

    def path(self, arg):
        """`arg`'s `runconfig_arg` in the catalog (``memory_config.static_memory_policy``)."""
        return self.prefix + "." + arg if self.prefix else arg


CLASSES = (
    ConfigClass(
        "NPURunConfig", "",
        (("iterations_per_loop", 1), ("profiling_config", None), ("model_dir", None),
         ("tf_random_seed", None), ("save_summary_steps", 0), ("save_checkpoints_steps", None),
         ("save_checkpoints_secs", None), ("session_config", None), ("keep_checkpoint_max", 5),
         ("keep_checkpoint_every_n_hours", 10000), ("log_step_count_steps", 100),
         ("distribute", None), ("enable_data_pre_proc", True), ("precision_mode", None),
         ("enable_reduce_precision", False), ("variable_format_optimize", None),
         ("mix_compile_mode", False), ("hcom_parallel", True), ("graph_memory_max_size", None),
         ("variable_memory_max_size", None), ("dump_config", None),
         ("stream_max_parallel_num", None), ("is_tailing_optimization", False),
         ("horovod_mode", False), ("graph_run_mode", 1), ("op_debug_level", None),
         ("enable_scope_fusion_passes", None), ("enable_exception_dump", 2),
         ("op_select_implmode", None), ("optypelist_for_implmode", None),
         ("dynamic_input_config", None), ("aoe_mode", None), ("work_path", None),
         ("buffer_optimize", "l2_optimize"), ("enable_small_channel", 0),
         ("fusion_switch_file", None), ("enable_compress_weight", False),
         ("compress_weight_conf", None), ("op_compiler_cache_mode", None),
         ("op_compiler_cache_dir", None), ("debug_dir", None), ("hcom_multi_mode", False),
         ("dynamic_input", None), ("dynamic_graph_execute_mode", "dynamic_execute"),
         ("dynamic_inputs_shape_range", None), ("train_distribute", None),
         ("eval_distribute", None), ("local_rank_id", None), ("local_device_list", None),
         ("session_device_id", None), ("distribute_config", None), ("modify_mixlist", None),
         ("op_precision_mode", None), ("device_type", "default_device_type"),
         ("soc_config", None), ("hccl_timeout", None), ("op_wait_timeout", None),
         ("op_execute_timeout", None), ("HCCL_algorithm", None), ("customize_dtypes", None),
         ("op_debug_config", None), ("memory_config", None), ("experimental_config", None),
         ("topo_sorting_mode", None), ("aoe_config_file", None), ("insert_op_file", None),
         ("stream_sync_timeout", -1), ("event_sync_timeout", -1), ("external_weight", False),
         ("deterministic", 0), ("frozen_variable", False), ("variable_placement", "Device"),
         ("jit_compile", "auto"), ("precision_mode_v2", None), ("ac_parallel_enable", None),
         ("quant_dumpable", None), ("input_fusion_size", 131072), ("compile_dynamic_mode", None),
         ("graph_max_parallel_model_num", 1), ("export_compile_stat", 1), ("aicore_num", None),
         ("oo_constant_folding", True), ("input_batch_cpy", False),
         ("shape_generalization_mode", "STRICT"), ("all_tensor_not_empty", False),
         ("auto_multistream_parallel_mode", None), ("oo_level", "O3"),
         ("optimization_switch", None)),
        nested={"profiling_config": "ProfilingConfig", "dump_config": "DumpConfig",
                "memory_config": "MemoryConfig", "experimental_config": "ExperimentalConfig",
                "dynamic_input_config": "DynamicInputConfig"},
        public=("mix_compile_mode", "enable_data_pre_proc", "is_tailing_optimization",
                "variable_format_optimize", "horovod_mode", "graph_run_mode", "op_debug_level",
                "enable_scope_fusion_passes", "enable_exception_dump", "topo_sorting_mode",
                "aoe_config_file", "insert_op_file", "stream_sync_timeout",
                "event_sync_timeout"),
        base_args=("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                   "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
                   "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
                   "eval_distribute"),
        # util.check_positive_integer / check_nonnegative_integer, isinstance (real class)
        own_checks=(("iterations_per_loop", "int", 1), ("mix_compile_mode", "bool", None),
                    ("jit_compile", "str", None), ("horovod_mode", "bool", None),
                    ("graph_run_mode", "int", 0), ("enable_exception_dump", "int", 0)),
    ),
    ConfigClass(
        "MemoryConfig", "memory_config",
        (("atomic_clean_policy", 0), ("static_memory_policy", 0),
         ("memory_optimization_policy", None), ("variable_use_1g_huge_page", 0)),
    ),
    ConfigClass(
        "DumpConfig", "dump_config",
        (("enable_dump", False), ("dump_path", None), ("dump_step", None),
         ("dump_mode", "output"), ("enable_dump_debug", False), ("dump_debug_mode", "all"),
         ("dump_data", "tensor"), ("dump_layer", None)),
        public=("dump_data", "dump_layer"),
    ),
    ConfigClass(
        "ProfilingConfig", "profiling_config",
        (("enable_profiling", False), ("profiling_options", None)),
    ),
    ConfigClass(
        "ExperimentalConfig", "experimental_config",
        (("logical_device_cluster_deploy_mode", "LB"), ("logical_device_id", None),
         ("model_deploy_mode", None), ("model_deploy_devicelist", None),
         ("graph_memory_optimize_config", None), ("enable_graph_parallel", None),
         ("graph_parallel_option_path", None), ("graph_compiler_cache_dir", None),
         ("resource_config_path", None), ("accelerate_train_mode", None)),
        nested={"graph_memory_optimize_config": "GraphMemoryOptimizeConfig"},
    ),
    ConfigClass(
        "GraphMemoryOptimizeConfig", "experimental_config.graph_memory_optimize_config",
        (("recompute", None), ("graph_slice", None)),
        row_types=False,
    ),
    ConfigClass(
        "DynamicInputConfig", "dynamic_input_config",
        (("input_shape", REQUIRED), ("dynamic_dims", REQUIRED), ("dynamic_node_type", REQUIRED),
         ("compile_hybrid_mode", REQUIRED)),
    ),
)

BY_NAME = MappingProxyType({c.name: c for c in CLASSES})


def owner(path):
    """`(class, argument)` of a dotted `runconfig_arg`: the class with the longest prefix of
    `path` (NPURunConfig when none), e.g. ``memory_config.static_memory_policy`` ->
    (MemoryConfig's row, "static_memory_policy")."""
    best = CLASSES[0]
    for cls in CLASSES:
        if cls.prefix and path.startswith(cls.prefix + ".") and len(cls.prefix) > len(best.prefix):
            best = cls
    return best, path[len(best.prefix) + 1:] if best.prefix else path


def callee(name):
    """How Python's TypeError names a call of `name`: ``MemoryConfig.__init__`` for a config
    class, else `name` itself (a function: npu_resource_init)."""
    return name + ".__init__" if name in BY_NAME else name


def keyword_hint(name, arg, params=None):
    """The hint after Python's "unexpected keyword argument" for argument `arg` of `name`
    (a config class, or a function with `params`): "; did you mean 'x'?" (its arguments and
    its older releases' ones, `text.close_names`), else "; it is an argument of
    MemoryConfig(arg=...)" (the other config classes that have it), else "". The hint of the
    classes' TypeError and of lint's NBL012."""
    own = BY_NAME[name].params if params is None else params
    close = close_names(arg, list(own) + list(legacy.ARGUMENTS.get(name, ())),
                                n=2, cutoff=0.75)
    if close:
        return "; did you mean %s?" % " or ".join(repr(c) for c in close)
    folded = arg.casefold()
    owners = ["%s(%s=...)" % (cls.name, other) for cls in CLASSES if cls.name != name
              for other in cls.params if other.casefold() == folded] if name in BY_NAME else ()
    return "; it is an argument of %s" % " and ".join(owners) if owners else ""


def keyword_fix(name, arg, params=None):
    """What to write for keyword `arg` that `name` does not take, as `keyword_hint` finds it:
    "NPURunConfig(precision_mode=...)" (the closest argument; " or x=..." the next),
    "DumpConfig(enable_dump=...)" (the config class that has it), else "". Lint's NBL012
    fix line."""
    hint = keyword_hint(name, arg, params)
    if hint.startswith("; did you mean "):
        own = BY_NAME[name].params if params is None else params
        close = close_names(arg, list(own) + list(legacy.ARGUMENTS.get(name, ())),
                            n=2, cutoff=0.75)
        return "%s(%s=...)%s" % (name, close[0], "".join(" (or %s=...)" % c for c in close[1:]))
    return hint[len("; it is an argument of "):] if hint else ""


def unexpected_keyword(name, arg, params=None, note=""):
    """Python's TypeError message for keyword `arg` that `name` does not take, then `note`
    and `keyword_hint`."""
    return "%s() got an unexpected keyword argument %r%s%s" % (
        callee(name), arg, note, keyword_hint(name, arg, params))


def too_many_positional(name, given, params=None, note=""):
    """Python's TypeError message for `given` positional arguments (self not counted) to
    `name` (a config class: self counted as Python does, required arguments from its
    signature; else a function whose `params` all have defaults), then `note`."""
    if name in BY_NAME:
        signature = BY_NAME[name].signature
        low = 1 + sum(default is REQUIRED for _, default in signature)
        high, given = 1 + len(signature), given + 1
    else:
        low, high = 0, len(params)
    takes = "%d positional argument%s" % (high, "" if high == 1 else "s") if low == high \
        else "from %d to %d positional arguments" % (low, high)
    return "%s() takes %s but %d %s given%s" % (callee(name), takes, given,
                                                "was" if given == 1 else "were", note)


def memory_seed_form(third, huge_page):
    """Whether `MemoryConfig`'s third argument `third` (memory_optimization_policy, a str in
    the real signature) is the seed's ``MemoryConfig(a, s, variable_use_1g_huge_page)`` form:
    an int 0, 1 or 2 (not a bool), with `huge_page` (variable_use_1g_huge_page) left at 0
    (seed memoryconfig_constructor_zh.txt). Read so by the class and by lint, for a third
    argument given by position only (`memory_optimization_policy=...` is the real one's)."""
    return isinstance(third, numbers.Integral) and not isinstance(third, bool) \
        and third in (0, 1, 2) and huge_page == 0 and not isinstance(huge_page, bool)


# Grappler optimizers the real NPUEstimator appends to rewrite_options.optimizers (written by
# npu_config, recognised and removed for TensorFlow's CPU session by the Session patch).
ESTIMATOR_GRAPPLER_OPTIMIZERS = ("pruning", "function", "constfold", "shape", "arithmetic",
                                  "loop", "dependency", "layout", "GradFusionOptimizer")


def run_config_arguments(given):
    """The `tf.estimator.RunConfig` arguments (`base_args`) an NPURunConfig keeps, from the
    arguments given (name -> value; a missing one takes its default): `save_checkpoints_steps`
    is 100 when it and `save_checkpoints_secs` are both None, the real class's default cadence
    (hicann/tensorflow tf_adapter/python/npu_bridge/estimator/npu/npu_config.py:327-330,
    `_get_save_checkpoints_steps`). The class keeps them so, and the resolver's "run_config"
    rules (NPB172) read them, at run time and in lint."""
    run = BY_NAME["NPURunConfig"]
    out = {arg: given.get(arg, run.defaults[arg]) for arg in run.base_args}
    if out["save_checkpoints_steps"] is None and out["save_checkpoints_secs"] is None:
        out["save_checkpoints_steps"] = 100
    return out
