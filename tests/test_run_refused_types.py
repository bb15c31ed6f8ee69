"""A wrong-typed argument of any NPU config class refuses the call, yet `npu-bridge run`
reports every other finding of that call and the forced product (`--product`), as `lint`
does for the same line (fresh-user try-out: NPURunConfig(op_debug_level="0") and
MemoryConfig(static_memory_policy='2') showed only NPB160 and `product: none`).

The cases come from the catalog: per config class, a row of its arguments given a value of a
type its AttrValue field cannot take, plus, when the class has one, another row with allowed
values given a value outside them."""
import json
import os
import sys

import pytest

from npu_bridge.ge import catalog
from npu_bridge.ge.config_schema import CLASSES
from npu_bridge.tools import lint

sys.path.insert(0, os.path.dirname(__file__))
import run_cli  # noqa: E402  (tests/run_cli.py)

PRODUCT = "atlas-training"
_WRONG = {"i": "'1'", "s": "7", "b": "'yes'"}   # a value of another type per AttrValue field


def _rows(cls):
    """The catalog rows of `cls`'s own arguments, in catalog order: (argument, row)."""
    found = []
    for row in catalog.OPTIONS:
        for arg in cls.params:
            if row.runconfig_arg == cls.path(arg) and row.field in _WRONG:
                found.append((arg, row))
    return found


def _cases():
    """(class name, argument given the wrong type, call source) per config class."""
    cases = []
    for cls in CLASSES:
        rows = _rows(cls)
        if not rows:
            continue
        bad_arg, bad_row = rows[-1]
        args = {bad_arg: _WRONG[bad_row.field]}
        for arg, row in rows:
            if arg != bad_arg and row.allowed and row.field in ("s", "i"):
                args[arg] = "'not_allowed'" if row.field == "s" else "97"
                break
        for arg, default in cls.signature:   # required arguments (DynamicInputConfig)
            if repr(default) == "<required>" and arg not in args:
                args[arg] = "1" if dict(_rows(cls)).get(arg, bad_row).field == "i" else "'x'"
        call = "%s(%s)" % (cls.name, ", ".join("%s=%s" % kv for kv in args.items()))
        cases.append((cls.name, bad_arg, call))
    return cases


def test_a_wrong_typed_argument_hides_no_other_finding_nor_the_product(tmp_path):
    cases = _cases()
    assert {"NPURunConfig", "MemoryConfig", "DumpConfig", "ProfilingConfig"} <= {
        name for name, _, _ in cases}
    lines = ["from npu_bridge.estimator.npu.npu_config import *"]
    for _, _, call in cases:
        lines.append("try:\n    %s\nexcept Exception:\n    pass" % call)
    source = "\n".join(lines) + "\n"
    (tmp_path / "s.py").write_text(source)
    proc = run_cli.run(["--report", "r.json", "--product", PRODUCT, "s.py"], str(tmp_path),
                       timeout=300)
    data = json.loads((tmp_path / "r.json").read_text())
    configs = data["configurations"]
    assert len(configs) == len(cases), proc.stdout + proc.stderr
    by_line = {}
    for f in lint.lint_source(source, "s.py", product=PRODUCT, infos=True):
        by_line.setdefault(f.line, set()).add((f.code, f.option))
    several = 0
    for i, ((name, bad_arg, call), config) in enumerate(zip(cases, configs)):
        line = 3 + 4 * i   # the call's line in the script
        run_found = {(d["code"], d["option"]) for d in config["diagnostics"]}
        assert config["refused"] and config["name"].startswith(name), (call, config["name"])
        assert config["product"] == PRODUCT, call
        assert any(option == bad_arg for _, option in run_found), (call, run_found)
        assert run_found == by_line[line], (call, run_found, by_line[line])
        several += len(run_found) > 1
        head = "[%d] estimator %s (product: %s) REFUSED" % (i + 1, config["name"], PRODUCT)
        assert head in proc.stderr, (head, proc.stderr)
    assert several >= 4   # the other findings are there, not only the type error's


def test_the_try_out_script_shows_every_finding_with_its_product(tmp_path):
    # the try-out's NPURunConfig: one str where an int is meant, five other mistakes
    source = (
        "from npu_bridge.npu_init import *\n"
        "try:\n"
        "    NPURunConfig(iterations_per_loop=10, save_summary_steps=15, "
        "precision_mode='mix_precision', op_debug_level='0', "
        "memory_config=MemoryConfig(atomic_clean_policy=3, static_memory_policy=1), "
        "graph_memory_max_size=40 * 1024 ** 3, variable_memory_max_size=30 * 1024 ** 3)\n"
        "except Exception:\n"
        "    pass\n")
    (tmp_path / "s.py").write_text(source)
    proc = run_cli.run(["--report", "r.json", "--product", PRODUCT, "s.py"], str(tmp_path),
                       timeout=300)
    (config,) = json.loads((tmp_path / "r.json").read_text())["configurations"]
    found = sorted((d["code"], d["option"]) for d in config["diagnostics"])
    assert config["product"] == PRODUCT and config["refused"]
    assert found == sorted((f.code, f.option) for f in lint.lint_source(
        source, "s.py", product=PRODUCT, infos=True)), proc.stderr
    assert {"NPB160", "E10001", "NPB103", "NPB140", "NPB172", "NPB105"} <= {c for c, _ in found}
    assert "(product: %s) REFUSED" % PRODUCT in proc.stderr


@pytest.mark.parametrize("name,bad_arg,call", _cases(), ids=[c[0] for c in _cases()])
def test_each_class_refusal_carries_the_other_findings_and_the_forced_product(
        name, bad_arg, call):
    # in-process, per class: the error, its record and lint agree on the findings
    from npu_bridge.estimator.npu import npu_config
    from npu_bridge.ge import records
    from npu_bridge.ge.products import forced_product
    with forced_product(PRODUCT):
        with pytest.raises(npu_config.NpuArgumentError) as info:
            eval(call, vars(npu_config))
    rec = records.record_of(info.value)
    found = {(d.code, d.option) for d in info.value.diagnostics}
    assert rec["refused"] and rec["options"].product == PRODUCT
    assert {(d.code, d.option) for d in rec["options"].diagnostics} == found
    assert any(option == bad_arg for _, option in found)
    source = "from npu_bridge.estimator.npu.npu_config import *\n%s\n" % call
    assert found == {(f.code, f.option) for f in lint.lint_source(
        source, "s.py", product=PRODUCT, infos=True)}


def test_a_refused_setter_carries_the_forced_product():
    from npu_bridge.estimator.npu import npu_config
    from npu_bridge.ge import records
    from npu_bridge.ge.products import forced_product
    config = npu_config.NPURunConfig()
    with forced_product("Ascend910B1"):   # a SoC name: recorded as its product id
        with pytest.raises(npu_config.NpuArgumentError) as info:
            config.iterations_per_loop = "10"
    rec = records.record_of(info.value)
    assert rec["refused"] and rec["options"].product == "atlas-a2-training"
    assert [(d.code, d.option) for d in rec["options"].diagnostics] == [
        ("NPB160", "iterations_per_loop")]


@pytest.mark.parametrize("call,refused", [
    ("DumpConfig(enable_dump=True, dump_path=3)", "dump_path"),
    ('DynamicInputConfig("data:-1,3", "1;2", "0", 0)', "dynamic_node_type"),
    ('NPURunConfig(precision_mode=3, modify_mixlist="ops.json")', "precision_mode"),
])
def test_a_rule_that_only_follows_from_a_refused_argument_is_not_reported(call, refused):
    # the probe leaves a refused argument out; a rule needing it ("enable_dump needs dump_path
    # set", NPB143) then fired though the user gave it (CI of session 10: test_lint's NPB160
    # constructor case for DynamicInputConfig). Its NPB160 is what to fix; lint agrees.
    from npu_bridge.estimator.npu import npu_config
    with pytest.raises(npu_config.NpuArgumentError) as info:
        eval(call, vars(npu_config))
    found = {(d.code, d.option) for d in info.value.diagnostics}
    assert ("NPB160", refused) in found
    assert not [d for d in info.value.diagnostics if d.code != "NPB160" and refused in d.message]
    source = "from npu_bridge.estimator.npu.npu_config import *\n%s\n" % call
    assert {c for c, _ in found} - {"NPB110"} == {f.code for f in lint.lint_source(source, "s.py")}
