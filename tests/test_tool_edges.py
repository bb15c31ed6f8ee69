"""The tool's own edges (issue 29): summaries that say what happened. lint names the product
it checked a script for and where that came from; diff covers products and memory budgets;
`memory --plot` checks its path before the script runs; refused configurations read the same
in `run` and `lint`. In-process where the command allows it (no TensorFlow start-up)."""
import json
import textwrap

import pytest

from npu_bridge.tools import cli

SOC_SCRIPT = textwrap.dedent("""\
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["soc_config"].s = b"Ascend310P3"
    custom_op.parameter_map["aoe_mode"].s = b"1"
    """)
PLAIN_SCRIPT = textwrap.dedent("""\
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].s = b"allow_mix_precision"
    """)


def _main(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def scripts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NPU_BRIDGE_PRODUCT", raising=False)
    (tmp_path / "soc.py").write_text(SOC_SCRIPT)
    (tmp_path / "plain.py").write_text(PLAIN_SCRIPT)
    return tmp_path


# --- 2. lint names the product it applied and where it came from ------------------------

def test_lint_names_the_product_soc_config_gave(capsys, scripts):
    code, out, err = _main(capsys, "lint", "soc.py")
    assert "NPB112 warning: aoe_mode=1 is not supported on atlas-inference" in out
    summary = err.splitlines()[-1]
    assert "no target product" not in summary and "NPB110" not in summary
    assert summary.endswith("; product atlas-inference (soc_config=Ascend310P3: 1 file)")
    _, out, _ = _main(capsys, "lint", "--format", "json", "soc.py")
    data = json.loads(out)
    assert data["product"] == "atlas-inference"
    assert data["products"] == [{"product": "atlas-inference", "from": "soc_config=Ascend310P3",
                                 "files": 1}]
    _, out, _ = _main(capsys, "lint", "--format", "sarif", "soc.py")
    props = json.loads(out)["runs"][0]["properties"]
    assert props["product"] == "atlas-inference" and props["products"] == data["products"]


def test_lint_says_which_files_had_no_target(capsys, scripts, monkeypatch):
    _, out, err = _main(capsys, "lint", "--format", "json", "soc.py", "plain.py")
    data = json.loads(out)
    assert data["product"] is None   # two different answers: none is "the" product
    assert data["products"] == [
        {"product": "atlas-inference", "from": "soc_config=Ascend310P3", "files": 1},
        {"product": None, "from": None, "files": 1}]
    assert err.splitlines()[-1].endswith(
        "; product atlas-inference (soc_config=Ascend310P3: 1 file); no target product in 1 "
        "file: product rules skipped there (NPB110; give --product)")
    _, _, err = _main(capsys, "lint", "plain.py")
    assert err.splitlines()[-1].endswith(
        "; no target product: product rules skipped (NPB110; give --product)")
    monkeypatch.setenv("NPU_BRIDGE_PRODUCT", "atlas-a2-training")
    _, out, err = _main(capsys, "lint", "--format", "json", "plain.py")
    assert json.loads(out)["products"] == [
        {"product": "atlas-a2-training", "from": "$NPU_BRIDGE_PRODUCT=atlas-a2-training",
         "files": 1}]
    assert "NPB110" not in err
    # --product beats soc_config for every file; the command line names it
    _, out, err = _main(capsys, "lint", "--format", "json", "--product", "atlas-a2-training",
                        "soc.py", "plain.py")
    data = json.loads(out)
    assert data["product"] == "atlas-a2-training"
    assert data["products"] == [{"product": "atlas-a2-training", "from": "--product", "files": 2}]
