"""Property-based tests of the config classes' keyword arguments (layer 2).

Contract: `Cls(**kwargs)` with any values for its own arguments either builds the object or
raises `NpuArgumentError` (a TypeError and ValueError) whose every problem names the argument;
an `NPURunConfig` that builds resolves to a `GeOptions` or raises `NpuConfigError` (never
anything else), deterministically, and a valid one round-trips through the report's JSON.
Profiles: tests/conftest.py.
"""
import inspect
import json

import pytest
from hypothesis import example, given, strategies as st

from npu_bridge.tools import report
from npu_bridge.estimator.npu import npu_config as nc
from npu_bridge.ge import GeOptions, NpuConfigError, resolve

pytestmark = pytest.mark.fuzz

CLASSES = (nc.ProfilingConfig, nc.MemoryConfig, nc.DumpConfig, nc.GraphMemoryOptimizeConfig,
           nc.ExperimentalConfig, nc.DynamicInputConfig)
_BASE = set(nc._BASE_ARGS)  # RunConfig's own arguments: tf.estimator's checks, not fuzzed here


def _params(cls):
    return [p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]]


class _Odd:
    def __repr__(self):
        return "<odd>"


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 10), st.integers(-2 ** 70, 2 ** 70), st.floats(),
    st.text(max_size=20), st.binary(max_size=20), st.sampled_from(
        ["", "auto", "manual", "0", "1", "2", "-1", "True", "allow_fp32_to_fp16", "\x00", "\udcff",
         "a" * 5000, "LB", "Ascend910B1", "{}", "fast|step|0.9", "data:-1,224,224,3", "1;2;4"]),
    st.sampled_from([b"\xff\xfe", 2 ** 63, -2 ** 63 - 1, float("nan"), float("inf")]),
    st.lists(st.integers(), max_size=2), st.just(_Odd()))


def _default(p):
    return p.default if p.default is not inspect.Parameter.empty else None


@st.composite
def class_kwargs(draw, cls):
    out = {}
    for p in _params(cls):
        required = p.default is inspect.Parameter.empty
        if required or draw(st.integers(0, 3)) == 0:
            out[p.name] = draw(st.one_of(st.just(_default(p)), scalars))
    return out


@st.composite
def config_objects(draw, cls):
    kwargs = draw(class_kwargs(cls))
    try:
        return cls(**kwargs)
    except nc.NpuArgumentError:
        return draw(st.one_of(st.none(), scalars))


def _run_kwargs():
    objects = {"profiling_config": nc.ProfilingConfig, "dump_config": nc.DumpConfig,
               "memory_config": nc.MemoryConfig, "experimental_config": nc.ExperimentalConfig,
               "dynamic_input_config": nc.DynamicInputConfig}
    names = [p for p in _params(nc.NPURunConfig) if p.name not in _BASE]

    @st.composite
    def strat(draw):
        out = {}
        for p in draw(st.lists(st.sampled_from(names), max_size=8, unique_by=lambda p: p.name)):
            if p.name in objects:
                out[p.name] = draw(st.one_of(config_objects(objects[p.name]), scalars))
            else:
                out[p.name] = draw(st.one_of(st.just(_default(p)), scalars))
        return out
    return strat()


def _build(cls, kwargs):
    try:
        return "ok", cls(**kwargs)
    except nc.NpuArgumentError as err:
        return "error", err


def _check_problems(err, kwargs):
    assert isinstance(err, TypeError) and isinstance(err, ValueError)
    assert err.problems
    from npu_bridge.ge import catalog
    for d in err.diagnostics:   # every error names an argument given (or what it sets)
        if d.severity != "error" or d.message.startswith("("):  # MemoryConfig positional hint
            continue
        row = catalog.find(d.option)
        path = (row.runconfig_arg or "").split(".") if row is not None else [""]
        # NPURunConfig's argument (memory_config) or a config class's own (static_memory_policy)
        assert d.code and (d.option in kwargs or path[0] in kwargs or path[-1] in kwargs
                           or d.option in ("distribute", "mix_compile_mode",
                                           "iterations_per_loop")), (d, kwargs)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_config_class_kwargs(cls, data):
    kwargs = data.draw(class_kwargs(cls))
    kind, out = _build(cls, kwargs)
    kind2, out2 = _build(cls, kwargs)
    assert kind == kind2
    if kind == "error":
        _check_problems(out, kwargs)
        assert out.problems == out2.problems
    else:
        assert vars(out).keys() == vars(out2).keys()


def _resolve(cfg):
    try:
        return "ok", resolve(cfg, env={})
    except NpuConfigError as err:
        return "error", err


@given(_run_kwargs())
@example({"graph_memory_max_size": 2 ** 70})   # str(int) beyond int64: an error, not a crash
@example({"input_fusion_size": 2 ** 63})        # AttrValue.i overflow (ValueError in protobuf)
@example({"graph_max_parallel_model_num": -2 ** 63 - 1})
@example({"hccl_timeout": True})                # a bool is an int, written to .i
@example({"precision_mode": "\udcff"})          # lone surrogate: not encodable as UTF-8
@example({"jit_compile": "\udcff"})
@example({"iterations_per_loop": 2 ** 63})       # checked >= 1 only, then overflowed AttrValue.i
@example({"enable_exception_dump": 2 ** 64})
def test_npu_run_config_kwargs_then_resolve(kwargs):
    kind, cfg = _build(nc.NPURunConfig, kwargs)
    if kind == "error":
        _check_problems(cfg, kwargs)
        return
    kind, ge = _resolve(cfg)
    kind2, ge2 = _resolve(cfg)
    assert kind == kind2
    if kind == "error":
        for d in ge.diagnostics:
            if d.severity == "error":
                assert d.option and (d.option in d.message or repr(d.option) in d.message), d
        assert [str(d) for d in ge.diagnostics] == [str(d) for d in ge2.diagnostics]
        return
    assert ge.to_json() == ge2.to_json()
    conf = report.configuration_dict(ge)
    assert json.loads(json.dumps(conf, allow_nan=False)) == conf
    assert report.configuration_dict(GeOptions.from_json(ge.to_json())) == conf
    # rendering twice gives the same session config; the caller's objects are not changed
    a = nc.render_session_config(cfg).SerializeToString(deterministic=True)
    b = nc.render_session_config(cfg).SerializeToString(deterministic=True)
    assert a == b


@pytest.mark.parametrize("kwargs,arg", [
    ({"input_fusion_size": 2 ** 63}, "input_fusion_size"),
    ({"iterations_per_loop": 2 ** 63}, "iterations_per_loop"),
    ({"enable_exception_dump": 2 ** 64}, "enable_exception_dump"),
    ({"precision_mode": "\udcff"}, "precision_mode"),
    ({"jit_compile": "\udcff"}, "jit_compile"),
])
def test_regression_unwritable_values_refused_at_construction(kwargs, arg):
    with pytest.raises(nc.NpuArgumentError) as err:
        nc.NPURunConfig(**kwargs)
    assert err.value.problems[0].startswith(arg + "=") or err.value.diagnostics[0].option == arg


def test_regression_memory_config_int64():
    with pytest.raises(nc.NpuArgumentError, match="static_memory_policy"):
        nc.MemoryConfig(static_memory_policy=2 ** 63)
