"""The tool's own edges (issue 29): summaries that say what happened. lint names the product
it checked a script for and where that came from; diff covers products and memory budgets;
`memory --plot` checks its path before the script runs; refused configurations read the same
in `run` and `lint`. In-process where the command allows it (no TensorFlow start-up)."""
import json
import textwrap

import pytest

from test_cli_ci import _main   # (exit code, stdout, stderr) of cli.main(argv)

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


# --- 3. diff covers the product, the memory budgets and verdicts ------------------------

SMALL_GRAPH = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
    x = tf.compat.v1.placeholder(tf.float32, [64, 256])
    w = tf.compat.v1.get_variable("w", [256, 256])
    with tf.Session(config=config) as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        sess.run(tf.matmul(x, w), {x: np.zeros([64, 256])})
    """)


def test_diff_across_products_shows_the_product_and_the_memory_budgets(capsys, tmp_path):
    import run_cli
    (tmp_path / "s.py").write_text(SMALL_GRAPH)
    for name, product in (("a.json", "atlas-a2-training"), ("b.json", "atlas-inference")):
        proc = run_cli.run(["--report", name, "--product", product, "s.py"], str(tmp_path),
                           timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
    a, b = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    code, out, _ = _main(capsys, "diff", a, b)
    lines = out.splitlines()
    assert code == 1, out
    assert "~ product: atlas-a2-training -> atlas-inference" in lines   # the report's
    assert "  ~ product: atlas-a2-training -> atlas-inference" in lines  # the configuration's
    budget = [l for l in lines if l.startswith("  ~ memory.graph_budget: ")]
    assert budget == ["  ~ memory.graph_budget: 55834574848 (52.0 GiB) -> 19500000000 (18.2 GiB)"]
    code, out, _ = _main(capsys, "diff", "--format", "json", a, b)
    data = json.loads(out)
    assert data["report"]["product"] == ["atlas-a2-training", "atlas-inference"]
    fields = data["changes"][0]["fields"]
    assert fields["memory.graph_budget"] == [55834574848, 19500000000]
    assert fields["memory.var_budget"] == [10737418240, 3750000000]
    # two runs of one configuration differ only in created and JOB_ID: no differences
    again = json.loads(open(a).read())
    again["created"] = "2000-01-01T00:00:00Z"
    again["environment"]["set"]["JOB_ID"] = "npu-bridge-1"
    (tmp_path / "c.json").write_text(json.dumps(again))
    assert _main(capsys, "diff", a, str(tmp_path / "c.json"))[0] == 0
    # a verdict that flips is a difference
    again["configurations"][0]["memory"]["verdict"]["fits"] = False
    (tmp_path / "d.json").write_text(json.dumps(again))
    code, out, _ = _main(capsys, "diff", a, str(tmp_path / "d.json"))
    assert code == 1 and "  ~ memory.verdict.fits: true -> false" in out.splitlines()


# --- 4. memory --plot checks its path before the script runs ----------------------------

@pytest.mark.parametrize("plot, why, named", [
    ("missing/dir/x.png", "--plot folder %s does not exist", "missing"),
    ("adir.png", "--plot destination %s is a directory", "adir.png"),
    ("link.png", "--plot destination %s is a symbolic link: refusing to replace it",
     "link.png")])
def test_memory_plot_path_is_checked_before_the_script(capsys, scripts, plot, why, named):
    (scripts / "adir.png").mkdir()
    (scripts / "link.png").symlink_to(scripts / "elsewhere.png")
    (scripts / "s.py").write_text("open('ran', 'w').close()\n")
    code, out, err = _main(capsys, "memory", "--plot", plot, "s.py")
    assert code == 2 and out == ""
    assert err == "npu-bridge memory: error: %s\n" % why % (scripts / named), err
    assert not (scripts / "ran").exists()   # the script never started


# --- 5 and 6. refused configurations: shown with what was refused, one rule in run and lint

REFUSED_SCRIPT = textwrap.dedent("""\
    from npu_bridge.npu_init import *
    try:
        NPURunConfig(iterations_per_loop=0, precision_mode="mix_precision")
    except Exception as e:
        print("caught", type(e).__name__)
    try:
        MemoryConfig(static_memory_policy="2")
    except Exception as e:
        print("caught", type(e).__name__)
    """)


def test_refused_configurations_show_what_was_refused_and_fail_run_as_lint(capsys, tmp_path):
    import run_cli
    (tmp_path / "s.py").write_text(REFUSED_SCRIPT)
    proc = run_cli.run(["--report", "r.json", "s.py"], str(tmp_path), timeout=300)
    assert proc.stdout == "caught NpuArgumentError\ncaught NpuArgumentError\n"
    err = proc.stderr
    assert "(no options set by the script)" not in err
    rows = [l.split() for l in err.splitlines() if l.startswith("  refused ")]
    assert rows == [
        ["refused", "precision_mode", "'mix_precision'", "not", "sent", "(E10001)", "set", "by",
         "the", "script"],
        ["refused", "iterations_per_loop", "0", "not", "sent", "(E10001)", "set", "by", "the",
         "script"],
        ["refused", "static_memory_policy", "'2'", "not", "sent", "(NPB160)", "set", "by", "the",
         "script"]]
    assert "[2] estimator MemoryConfig(static_memory_policy='2') (product: none) REFUSED" in err
    data = json.loads((tmp_path / "r.json").read_text())
    assert [(c["name"], c["refused"], [d["code"] for d in c["diagnostics"] if
                                       d["severity"] == "error"])
            for c in data["configurations"]] == [
        ("NPURunConfig(model_dir=None)", True, ["E10001", "E10001"]),
        ("MemoryConfig(static_memory_policy='2')", True, ["NPB160"])]
    # run and lint: the same errors, the same exit code
    assert proc.returncode == 1 and data["summary"]["errors"] == 3
    code, out, _ = _main(capsys, "lint", "--fail-on", "error", str(tmp_path / "s.py"))
    assert code == 1
    assert sorted(l.split(": ")[1].split()[0] for l in out.splitlines() if l[:1] != " ") == [
        "E10001", "E10001", "NPB160"]


# --- 9. smaller ones -----------------------------------------------------------------------

def test_a_normalised_value_shows_on_its_plain_name_too():
    from npu_bridge.ge import resolve
    from npu_bridge.tools import report
    ge = resolve({"static_memory_policy": 1}, product="atlas-a2-training")
    assert ge.effective["ge.exec.staticMemoryPolicy"] == "2"
    assert ge.effective["static_memory_policy"] == "2"   # was "1": the row's effective blank
    rows = {l.split()[1]: l.split() for l in report.configuration_lines(
        report.configuration_dict(ge)) if l.startswith("  global ")}
    assert rows["static_memory_policy"][2:4] == ["1", "2"]
    assert rows["ge.exec.staticMemoryPolicy"][2:4] == ["1", "2"]


def test_hidden_graphs_are_not_said_to_fit_an_unknown_budget():
    from npu_bridge.ge import memory_report
    graph = {"dynamic": False, "feature_map": 10, "variables": 1, "summary": "graph g%d"}
    def conf(budget, fits):
        graphs = [dict(graph, name="g%d" % i, summary="graph g%d" % i,
                       verdict={"fits": fits, "message": "", "reason": ""}) for i in (1, 2)]
        graphs[0]["feature_map"] = 20   # the largest: shown
        return {"name": "Session#1", "memory": {
            "graphs": graphs, "graph_budget": budget, "policy": 0, "feature_map": 30,
            "variables": 1, "policy_alternatives": {"0": 30, "2": 20}}}
    unknown = memory_report.memory_lines(conf(None, None))[-1]
    assert "none over the budget" not in unknown
    assert "1 static, not checked: no budget (no target product, no graph_memory_max_size)" \
        in unknown
    assert "1 static, none over the budget" in memory_report.memory_lines(conf(100, True))[-1]
    # a product without a memory figure is not "no target product" (try-out)
    known = conf(None, None)
    known["memory"]["product"] = "atlas-200i-500-a2"
    line = memory_report.memory_lines(known)[-1]
    assert "1 static, not checked: memory of atlas-200i-500-a2 unknown (NPB145), no " \
        "graph_memory_max_size" in line, line


def test_the_plot_budget_line_says_how_it_follows_from_the_budget_in_the_text():
    from npu_bridge.ge import memory_plan as mp
    from npu_bridge.tools import memory_cli
    own = mp.MemoryOptions(graph_budget=2 ** 30, graph_budget_source="graph_memory_max_size")
    variables = 19 * 2 ** 20 - 100 * 2 ** 10   # 18.9 MiB
    assert memory_cli.budget_label(own, variables) == (
        "feature-map budget 1005.1 MiB = 1.0 GiB (graph_memory_max_size) - 18.9 MiB variables")
    product = mp.MemoryOptions.from_ge({}, product="atlas-a2-training")
    assert memory_cli.budget_label(product, 0) == (
        "feature-map budget 52.0 GiB = 52.0 GiB (26/32 of atlas-a2-training) - 0 B variables")


def test_the_keras_helpers_doc_example_runs_as_documented(tmp_path):
    import os
    import run_cli
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    doc = open(os.path.join(root, "docs", "keras.md"), encoding="utf-8").read()
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    expected = doc.split("```python\n", 1)[1].split("```\n", 2)[2].split("```", 1)[0]
    (tmp_path / "keras_fit.py").write_text(code)
    proc = run_cli.run(["--no-report", "--product", "atlas-a2-training", "keras_fit.py"],
                       str(tmp_path), timeout=300)
    assert proc.returncode == 0 and proc.stdout == "trained\n", proc.stderr[-3000:]
    lines, at = proc.stderr.splitlines(), 0
    for line in expected.splitlines():
        if line.strip() in ("", "..."):
            continue
        assert line in lines[at:], (line, proc.stderr[-3000:])
        at = lines.index(line, at) + 1
    # the optimizer the script compiled with is the wrapper that averages over the ranks
    from npu_bridge.npu_init import npu_keras_optimizer
    from npu_bridge.estimator.npu.npu_optimizer import KerasDistributeOptimizer
    import tensorflow as tf
    inner = tf.keras.optimizers.legacy.Adam(0.01)
    wrapped = npu_keras_optimizer(inner)
    assert isinstance(wrapped, KerasDistributeOptimizer) and wrapped._optimizer is inner
