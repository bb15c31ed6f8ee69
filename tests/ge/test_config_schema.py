"""The config classes' schema (npu_bridge.ge.config_schema): equal to the reference
npu_options.json `classes` (the one table the project keeps in sync with the reference), and
what the live classes are built from."""
import ast
import inspect
import json
import os
import subprocess
import sys

import pytest

from npu_bridge.ge import catalog, config_schema
from npu_bridge.ge.config_schema import BY_NAME, CLASSES, REQUIRED

from _reference import REFERENCE  # noqa: E402  (tests/_reference.py)
_OPTIONS_JSON = os.path.join(REFERENCE, "npu_options.json")


@pytest.mark.skipif(not os.path.exists(_OPTIONS_JSON), reason="reference npu_options.json absent")
def test_signatures_equal_the_reference():
    with open(_OPTIONS_JSON) as f:
        reference = json.load(f)["classes"]
    assert set(BY_NAME) == set(reference)
    for name, params in reference.items():
        want = [(p["name"], REQUIRED if p["default"] == "<required>"
                 else ast.literal_eval(p["default"])) for p in params]
        got = list(BY_NAME[name].signature)
        assert [a for a, _ in got] == [a for a, _ in want], name
        for (arg, default), (_, ref) in zip(got, want):
            assert default is ref if ref is REQUIRED or ref is None else (
                type(default) is type(ref) and default == ref), (name, arg)


def test_rows_are_consistent():
    for cls in CLASSES:
        params = set(cls.params)
        assert len(params) == len(cls.signature), cls.name
        assert set(cls.nested) <= params and cls.public <= params, cls.name
        assert set(cls.base_args) <= params, cls.name
        assert {arg for arg, _, _ in cls.own_checks} <= params, cls.name
        for arg, inner in cls.nested.items():   # a nested class's prefix is where it is taken
            assert BY_NAME[inner].prefix == cls.path(arg), (cls.name, arg)
    assert [c.name for c in CLASSES if not c.prefix] == ["NPURunConfig"]
    assert BY_NAME["MemoryConfig"].path("static_memory_policy") == \
        "memory_config.static_memory_policy"
    assert BY_NAME["GraphMemoryOptimizeConfig"].argument == "graph_memory_optimize_config"


def test_every_catalog_argument_is_an_argument_of_its_class():
    for row in catalog.OPTIONS:
        if row.runconfig_arg:
            cls, arg = config_schema.owner(row.runconfig_arg)
            assert arg in cls.params, (row.name, row.runconfig_arg)
    assert config_schema.owner("experimental_config.graph_memory_optimize_config.recompute") \
        == (BY_NAME["GraphMemoryOptimizeConfig"], "recompute")
    assert config_schema.owner("precision_mode") == (BY_NAME["NPURunConfig"], "precision_mode")


@pytest.mark.parametrize("third,huge,seed", [
    (1, 0, True), (0, 0, True), (2, 0, True), (3, 0, False), (True, 0, False),
    ("x", 0, False), (None, 0, False), (1, 1, False), (1, False, False)])
def test_memory_seed_form(third, huge, seed):
    assert config_schema.memory_seed_form(third, huge) is seed


def test_live_classes_are_the_schema():
    """The classes spell their signatures out (help(), Python's own TypeError): the schema's."""
    pytest.importorskip("tensorflow")
    from npu_bridge.estimator.npu import npu_config
    for cls in CLASSES:
        params = list(inspect.signature(getattr(npu_config, cls.name).__init__).parameters
                      .values())[1:]
        assert [(p.name, REQUIRED if p.default is p.empty else p.default) for p in params] \
            == list(cls.signature), cls.name
        assert all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params), cls.name


def test_no_tensorflow():
    code = ("import sys, npu_bridge.ge.config_schema; "
            "assert 'tensorflow' not in sys.modules, 'tensorflow imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name,arg,hint", [
    ("MemoryConfig", "input_fusion_size", "; it is an argument of NPURunConfig(input_fusion_size=...)"),
    ("MemoryConfig", "static_memroy_policy", "; did you mean 'static_memory_policy'?"),
    ("NPURunConfig", "autotune_tune_mode", "; did you mean 'auto_tune_mode'?"),   # older release
    ("DumpConfig", "zz_unknown", ""),
])
def test_keyword_hint(name, arg, hint):
    assert config_schema.keyword_hint(name, arg) == hint
    assert config_schema.unexpected_keyword(name, arg) == \
        "%s.__init__() got an unexpected keyword argument %r%s" % (name, arg, hint)


def test_too_many_positional():
    assert config_schema.too_many_positional("MemoryConfig", 5) == \
        "MemoryConfig.__init__() takes from 1 to 5 positional arguments but 6 were given"
    assert config_schema.too_many_positional("DynamicInputConfig", 5) == \
        "DynamicInputConfig.__init__() takes 5 positional arguments but 6 were given"
    assert config_schema.too_many_positional("f", 3, ("a", "b"), note=" (x)") == \
        "f() takes from 0 to 2 positional arguments but 3 were given (x)"


def test_lint_and_the_classes_take_the_hint_from_the_schema():
    """One copy of the hint: lint's NBL012 is the schema's message (and so the classes')."""
    from npu_bridge.tools import lint
    findings = lint.lint_source("from npu_bridge.npu_init import *\n"
                                "m = MemoryConfig(static_memory_policy=2, input_fusion_size=5)\n",
                                "t.py")
    assert [f.message for f in findings] == [config_schema.unexpected_keyword(
        "MemoryConfig", "input_fusion_size", note=" (TypeError at run time)")]
