"""Where the supported-op list is read from (the adapter's npu_ops_identifier.cc rules), and
the default list's unknown-never-unsupported rule."""
import json
import os

import pytest

from npu_bridge.ge import supported_ops as so


def write(path, table):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(table, f)


def test_old_layout_builtin_then_custom(tmp_path):
    opp = str(tmp_path / "opp")
    write(os.path.join(opp, so.OLD_BUILTIN), {"Add": {"isGray": False}, "Unique": {"isGray": True}})
    write(os.path.join(opp, so.OLD_CUSTOM), {"MyOp": {}, "Add": {"isGray": True}})
    ops = so.from_cann({"ASCEND_OPP_PATH": opp})
    assert ops.status("MyOp", False) == "supported"
    assert ops.status("Add", True) == "gray"              # the custom entry overrides
    assert ops.status("Add", False) == "supported"
    assert ops.status("Conv2D", False) == "unsupported"   # a CANN list is complete
    assert "CANN list" in ops.name and opp in ops.name


def test_new_layout_custom_path_then_vendors_in_order(tmp_path):
    opp = str(tmp_path / "opp")
    custom = str(tmp_path / "custom")
    write(os.path.join(opp, so.NEW_BUILTIN), {"Add": {}})
    write(os.path.join(custom, so.CUSTOM), {"A": {}})
    write(os.path.join(opp, "vendors", "mdc", so.CUSTOM), {"B": {}, "A": {"isGray": True}})
    with open(os.path.join(opp, "vendors", "config.ini"), "w") as f:
        f.write(" load_priority = customize , mdc \n")
    env = {"ASCEND_OPP_PATH": opp, "ASCEND_CUSTOM_OPP_PATH": custom + ":" + str(tmp_path / "no")}
    assert so.cann_files(opp, env) == [
        os.path.join(opp, so.NEW_BUILTIN), os.path.join(custom, so.CUSTOM),
        os.path.join(opp, "vendors", "customize", so.CUSTOM),
        os.path.join(opp, "vendors", "mdc", so.CUSTOM)]
    ops = so.from_cann(env)
    assert [ops.status(o, True) for o in ("Add", "A", "B", "C")] == [
        "supported", "gray", "supported", "unsupported"]


@pytest.mark.parametrize("line", ["", "load_priority", "a=b=c"])
def test_malformed_vendor_config_falls_back_to_framework_custom(tmp_path, line):
    opp = str(tmp_path)
    os.makedirs(os.path.join(opp, "built-in"))
    os.makedirs(os.path.join(opp, "vendors"))
    with open(os.path.join(opp, "vendors", "config.ini"), "w") as f:
        f.write(line)
    assert so.cann_files(opp, {})[-1] == os.path.join(opp, so.OLD_CUSTOM)


def test_no_install_gives_the_default_list_with_unknown_ops(tmp_path):
    ops = so.choose(None, {"ASCEND_OPP_PATH": str(tmp_path)})
    assert ops.name.startswith("default list")
    assert ops.status("PyFunc", False) == "unsupported"
    assert ops.status("HcomAllReduce", False) == "supported"
    assert ops.status("Conv2D", False) == "unknown"       # never "unsupported"


def test_file_given_and_bad_file(tmp_path):
    good = tmp_path / "ops.json"
    good.write_text(json.dumps({"Add": {}, "Sub": 1}))
    ops = so.choose(str(good), {})
    assert ops.status("Add", False) == "supported"
    assert ops.status("Sub", False) == "unsupported"      # not a JSON object: not declared
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="bad.json.*JSON object"):
        so.from_file(str(bad))
    with pytest.raises(ValueError, match="missing.json"):
        so.from_file(str(tmp_path / "missing.json"))
