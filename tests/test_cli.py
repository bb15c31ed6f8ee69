"""The `npu-bridge` command: every subcommand on real inputs, exit codes, output lines.

`run` goes through subprocesses (each one starts TensorFlow); the others call `main()`.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import run_cli  # noqa: E402  (tests/run_cli.py)

from npu_bridge.tools import cli

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCEPTANCE = os.path.join(REPO, "..", "shared", "acceptance")
if not os.path.isdir(ACCEPTANCE):
    ACCEPTANCE = "/work/shared/acceptance"
needs_acceptance = pytest.mark.skipif(not os.path.isdir(ACCEPTANCE),
                                      reason="../shared/acceptance not present")


def _main(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- help and usage ----------------------------------------------------------------------

@pytest.mark.parametrize("sub", [[], ["run"], ["options"], ["lint"], ["explain"]])
def test_help_on_every_subcommand(capsys, sub):
    code, out, _ = _main(capsys, *sub, "--help")
    assert code == 0
    assert out.startswith("usage: npu-bridge" + (" " + sub[0] if sub else ""))


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["lint"], ["options"],
                                  ["options", "--pbtxt", "a", "--set", "x=1"],
                                  ["lint", "--product", "atlas-9000", "x.py"],
                                  ["options", "--set", "iterations_per_loop=many"],
                                  ["lint", "/no/such/path.py"],
                                  ["run", "/no/such/script.py"]])
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = _main(capsys, *argv)
    assert code == 2, (out, err)
    assert "error" in err


def test_unknown_product_lists_known_ones(capsys):
    code, _, err = _main(capsys, "lint", "--product", "atlas-9000", ".")
    assert code == 2 and "atlas-a2-training" in err


# --- explain -----------------------------------------------------------------------------

def _fields(out):
    return dict(line.split(": ", 1) for line in out.splitlines())


@pytest.mark.parametrize("name", ["static_memory_policy",                # parameter_map key
                                  "memory_config.static_memory_policy",  # NPURunConfig argument
                                  "ge.exec.staticMemoryPolicy"])          # GE key
def test_explain_static_memory_policy_by_each_name(capsys, name):
    code, out, _ = _main(capsys, "explain", name)
    f = _fields(out)
    assert code == 0
    assert "ge.exec.staticMemoryPolicy" in f["GE keys"] and f["level"].startswith("global")
    assert f["default"] == "0" and f["values"].startswith("0, 2, 3, 4")
    # the vendor pages by title and path in the vendor's docs, not the seed file names
    assert ("vendor page 'MemoryConfig构造函数 (MemoryConfig constructor)' (hicann/tensorflow "
            "docs/zh/tfadapter_1/apiref/npu_config/memoryconfig_constructor.md)") in f["source"]
    assert ("vendor page '内存管理 (GE options: memory management)' (hicann/ge "
            "docs/zh/api/graph_engine_api/cpp/ge/options_params/memory_management.md)"
            ) in f["source"] and "seed" not in f["source"]


def test_explain_parameter_map_key_and_argument(capsys):
    code, out, _ = _main(capsys, "explain", "atomic_clean_policy")
    f = _fields(out)
    assert code == 0
    assert f["parameter_map"] == 'custom_op.parameter_map["atomic_clean_policy"].i'
    assert f["argument"] == "NPURunConfig(memory_config=MemoryConfig(atomic_clean_policy=...))"
    assert "session ge.exec.atomicCleanPolicy" in f["GE keys"] and f["values"] == "0, 1"


def test_explain_runconfig_argument_of_another_name(capsys):
    code, out, _ = _main(capsys, "explain", "enable_profiling")
    f = _fields(out)
    assert code == 0 and f["name"] == "profiling_mode"
    assert f["argument"] == "NPURunConfig(profiling_config=ProfilingConfig(enable_profiling=...))"


def test_explain_ir_option(capsys):
    code, out, _ = _main(capsys, "explain", "EXEC_DISABLE_REUSED_MEMORY")
    f = _fields(out)
    assert code == 0
    assert f["ir_option"] == "EXEC_DISABLE_REUSED_MEMORY" and "ge.exec.disableReuseMemory" in out


def test_explain_product_restricted_option(capsys):
    code, out, _ = _main(capsys, "explain", "variable_use_1g_huge_page")
    assert code == 0 and "atlas-a2-training" in _fields(out)["products"]


def test_explain_unknown_suggests(capsys):
    code, out, err = _main(capsys, "explain", "sump_mode")
    assert code == 2 and out == ""   # a usage error (issue 17 defect 11; was 1)
    assert "unknown option 'sump_mode'" in err and "dump_mode" in err


# --- options -----------------------------------------------------------------------------

def test_options_set_typed_by_catalog(capsys):
    code, out, _ = _main(capsys, "options", "--set", "static_memory_policy=1",
                         "--set", "atomic_clean_policy=1", "--set", "use_off_line=true")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "product: none"
    row = [l.split() for l in lines if " ge.exec.staticMemoryPolicy " in l][0]
    assert row == ["global", "ge.exec.staticMemoryPolicy", "1", "2",
                   "parameter_map:static_memory_policy"]
    assert any(l.split()[:3] == ["session", "ge.exec.atomicCleanPolicy", "1"] for l in lines)
    assert any(l.strip().startswith("warning NPB103 [static_memory_policy]") for l in lines)


def test_options_errors_exit_1_with_every_diagnostic(capsys):
    code, out, _ = _main(capsys, "options", "--set", "static_memory_policy=9",
                         "--set", "precision_mode.b=true", "--set", "sump_mode=all")
    assert code == 1
    assert "not resolved" in out
    for text in ("E10001 [static_memory_policy]", "NPB101 [precision_mode]",
                 "NPB100 [sump_mode]"):
        assert text in out
    assert "dump_mode" in out


def test_options_product_rule(capsys):
    code, out, _ = _main(capsys, "options", "--product", "atlas-inference", "--set",
                         "variable_use_1g_huge_page=1")
    assert code == 1 and "[variable_use_1g_huge_page]" in out


def test_options_json(capsys):
    code, out, _ = _main(capsys, "options", "--format", "json", "--set", "input_fusion_size=67108864")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "npu-bridge-options" and data["version"] == 1
    conf = data["configuration"]
    assert conf["effective"]["ge.exec.input_fusion_size"] == "33554432"
    assert any(d["code"] == "NPB104" for d in data["diagnostics"])


PBTXT = textwrap.dedent("""\
    graph_options {
      rewrite_options {
        remapping: OFF
        custom_optimizers {
          name: "NpuOptimizer"
          parameter_map { key: "use_off_line" value { b: true } }
          parameter_map { key: "precision_mode" value { s: "allow_mix_precision" } }
          parameter_map { key: "static_memory_policy" value { i: 2 } }
          parameter_map { key: "external_weight" value { b: true } }
        }
      }
    }
    """)


def test_options_pbtxt_config_proto(capsys, tmp_path):
    path = tmp_path / "config.pbtxt"
    path.write_text(PBTXT)
    code, out, _ = _main(capsys, "options", "--product", "atlas-a2-training", "--pbtxt", str(path))
    assert code == 0
    rows = {tuple(l.split()[:3]) for l in out.splitlines()}
    assert ("global", "ge.exec.staticMemoryPolicy", "2") in rows
    assert ("global", "ge.exec.precision_mode", "allow_mix_precision") in rows
    assert ("session", "ge.externalWeight", "1") in rows
    assert out.splitlines()[0] == "product: atlas-a2-training"


def test_options_pbtxt_parse_error_and_missing_file(capsys, tmp_path):
    path = tmp_path / "bad.pbtxt"
    path.write_text("intra_op_parallelism_threads: 2\ngraph_options { nonsense: 1 }\n")
    code, out, err = _main(capsys, "options", "--pbtxt", str(path))
    # an unreadable input is a usage error (docs/cli.md): exit 2, one line naming file:line:col
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "%s:2:17:" % path in err and "nonsense" in err
    code, _, err = _main(capsys, "options", "--pbtxt", str(tmp_path / "missing.pbtxt"))
    assert code == 2 and "cannot read" in err


@pytest.mark.parametrize("data", [b"\xff\xfe\x00\x01binary\x80", "graph_options {\n  x: \xe9\n".encode("latin-1"),
                                  b"\x89PNG\r\n\x1a\n\x00\x00"])
def test_options_pbtxt_binary_or_non_utf8_exits_2_with_one_line(capsys, tmp_path, data):
    path = tmp_path / "blob.pbtxt"
    path.write_bytes(data)
    code, out, err = _main(capsys, "options", "--pbtxt", str(path))
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert str(path) in err and "UTF-8" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["explain", "dump_path"],
                                  ["options", "--all", "--set", "static_memory_policy=2"]])
def test_closed_stdout_pipe_exits_quietly(argv):
    # `npu-bridge explain dump_path | head -1`: the reader goes away before the output is
    # written; like other CLI tools: no traceback, exit 141 (128 + SIGPIPE)
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.Popen([sys.executable, "-m", "npu_bridge"] + argv, cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()   # before the child has started: its first write fails with EPIPE
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_broken_pipe_in_process_returns_141(capsys, monkeypatch):
    class Closed:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert cli.main(["explain", "static_memory_policy"]) == 141


# --- lint --------------------------------------------------------------------------------

MISTAKES = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["precision_mode"].b = True
    custom_op.parameter_map["sump_mode"].s = tf.compat.as_bytes("all")
    custom_op.parameter_map["sfusion_switch_file"].s = tf.compat.as_bytes("/cfg/fusion.cfg")
    custom_op.parameter_map["op_debug_level"].s = tf.compat.as_bytes("0")
    custom_op.parameter_map["jit_compile"].b = True
    """)
CLEAN = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["use_off_line"].b = True
    custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
    custom_op.parameter_map["iterations_per_loop"].i = FLAGS.iterations_per_loop
    run_config = NPURunConfig(iterations_per_loop=10, precision_mode="allow_fp32_to_fp16",
                              memory_config=MemoryConfig(static_memory_policy=2))
    """)


def test_lint_census_mistakes_flake8_format(capsys, tmp_path):
    (tmp_path / "train.py").write_text(MISTAKES)
    code, out, _ = _main(capsys, "lint", str(tmp_path))
    assert code == 1
    path = str(tmp_path / "train.py")
    lines = out.splitlines()
    heads = [l.split(": ", 2)[:2] for l in lines if not l.startswith(" ")]
    assert heads == [[path + ":6:1", "NPB101 error"], [path + ":7:1", "NPB100 error"],
                     [path + ":8:1", "NPB100 error"], [path + ":9:1", "NPB101 error"],
                     [path + ":10:1", "NPB102 error"]]
    # issue 28: one short line per finding, then the spelling to write (rustc's help:)
    assert lines[2:4] == [
        path + ":7:1: NPB100 error: parameter_map key 'sump_mode' is unknown: the real adapter "
        "ignores it; did you mean 'dump_mode' or 'dump_debug_mode'?",
        '    fix: parameter_map["dump_mode"].s = b"all"']
    assert '    fix: parameter_map["fusion_switch_file"].s = b"/cfg/fusion.cfg"' in lines
    assert '    fix: parameter_map["op_debug_level"].i = 0' in lines
    assert all(len(l.split(": ", 2)[2]) <= 120 for l in lines if not l.startswith(" "))
    assert "source" not in out and "npu_attrs.cc" not in out   # provenance: --show-source
    code, shown, _ = _main(capsys, "lint", "--show-source", str(tmp_path))
    shown = shown.splitlines()
    at = shown.index(lines[2])
    assert shown[at + 1] == lines[3] and shown[at + 2] == (
        "    source: hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917 "
        "NpuAttrs::SetNpuOptimizerAttr (the parameter_map keys it reads); catalog: docs/options.md")


def test_lint_clean_file_exit_0(capsys, tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    code, out, err = _main(capsys, "lint", "--product", "atlas-a2-training", str(tmp_path))
    assert (code, out) == (0, "")


def test_lint_json_and_syntax_error(capsys, tmp_path):
    (tmp_path / "a.py").write_text(MISTAKES)
    (tmp_path / "py2.py").write_text('print "x"\n')
    code, out, _ = _main(capsys, "lint", "--format", "json", "--jobs", "1", str(tmp_path))
    data = json.loads(out)
    assert code == 1 and data["files"] == 2
    assert [f["code"] for f in data["findings"]][-1] == "NBL001"
    first = data["findings"][0]
    assert first == {"path": str(tmp_path / "a.py"), "line": 6, "col": 1,
                     "code": "NPB101", "severity": "error", "option": "precision_mode",
                     "message": first["message"], "short": first["short"],
                     "fix": 'parameter_map["precision_mode"].s = ...',
                     "provenance": first["provenance"], "more": None}
    # the full message keeps the provenance the text line leaves to --show-source
    assert first["message"].startswith("precision_mode is read from AttrValue field s")
    assert "npu_attrs.cc:1917" in first["message"] and "npu_attrs.cc:1917" in first["provenance"]
    assert "npu_attrs" not in first["short"]



def test_lint_pointer_to_explain_is_more_not_fix(capsys, tmp_path):
    """A shortened line without a fix points to `npu-bridge explain`: in the JSON as `more`
    (`fix` stays null: nothing to write), in the text as a `more:` line, never as `fix:`."""
    key = "a_very_long_option_name_" * 7
    (tmp_path / "a.py").write_text(MISTAKES.split("custom_op.parameter_map")[0]
                                   + 'custom_op.parameter_map["%s"].s = b"1"\n' % key)
    code, out, _ = _main(capsys, "lint", "--format", "json", "--jobs", "1", str(tmp_path))
    [finding] = json.loads(out)["findings"]
    assert (code, finding["code"], finding["fix"]) == (1, "NPB100", None)
    assert finding["more"] == "see npu-bridge explain NPB100; the full message: --format json"
    assert list(finding)[-2:] == ["provenance", "more"]
    code, out, _ = _main(capsys, "lint", "--jobs", "1", str(tmp_path))
    assert out.splitlines()[1:] == [
        "    more: see npu-bridge explain NPB100; the full message: --format json"]

# --- run (subprocesses: each starts TensorFlow) -----------------------------------------

def _run(argv, cwd):
    return run_cli.run(argv, cwd, timeout=600)


@needs_acceptance
def test_run_acceptance_session_script_report(tmp_path):
    script = os.path.join(ACCEPTANCE, "session_parameter_map.py")
    proc = _run(["--product", "atlas-a2-training", "--report", "out/r.json", script],
                str(tmp_path))
    # the report folder must exist: nothing but the report is created
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    (tmp_path / "out").mkdir()
    proc = _run(["--product", "atlas-a2-training", "--report", "out/r.json", script],
                str(tmp_path))
    # the script reads a one-shot iterator with iterations_per_loop=5: the real adapter aborts
    # there (NPB172, an error: om_partition_subgraphs_pass.cc:2440-2443), so the run exits 1
    # though the script itself ends well on the CPU
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1].startswith("ok loss=")
    data = json.loads((tmp_path / "out" / "r.json").read_text())
    assert os.listdir(tmp_path / "out") == ["r.json"]
    assert data["version"] == 2 and data["outcome"]["exit_code"] == 1
    assert data["outcome"]["script_exit_code"] == 0
    assert data["environment"]["set"]["RANK_SIZE"] == "1"
    assert data["summary"]["configurations"] >= 1 and data["summary"]["errors"] == 1
    assert [d["code"] for c in data["configurations"] for d in c["diagnostics"]
            if d["severity"] == "error"] == ["NPB172"]
    conf = data["configurations"][0]
    assert conf["kind"] == "session" and conf["product"] == "atlas-a2-training"
    g, s = conf["options"]["global"], conf["options"]["session"]
    assert g["ge.exec.precision_mode"] == "allow_mix_precision"
    assert g["ge.exec.staticMemoryPolicy"] == "0"
    assert s["ge.exec.atomicCleanPolicy"] == "1"
    assert s["input_fusion_size"] == "25600"
    assert s["graph_memory_max_size"] == str(26 * 1024 ** 3)
    assert conf["options"]["adapter"]["iterations_per_loop"] == "5"
    assert "npu-bridge run: %d configuration(s), 1 error(s)" % data["summary"][
        "configurations"] in proc.stderr
    assert "global   ge.exec.staticMemoryPolicy" in proc.stderr


OWN_SCRIPT = textwrap.dedent("""\
    import os, sys
    import tensorflow as tf
    from npu_bridge.npu_init import *
    print("argv=%s name=%s cwd=%s path0=%s rank_size=%s" % (
        sys.argv[1:], __name__, os.getcwd(), sys.path[0], os.environ.get("RANK_SIZE")))
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["static_memory_policy"].i = int(sys.argv[1])
    with tf.Session(config=config) as sess:
        sess.run(tf.constant(1))
    sys.exit(int(sys.argv[2]))
    """)


def test_run_own_script_strict_warning_argv_and_exit_code(tmp_path):
    script = tmp_path / "scripts" / "train.py"
    script.parent.mkdir()
    script.write_text(OWN_SCRIPT)
    # policy 1: a warning; --strict makes it exit 1; script exit code 0
    proc = _run(["--strict", "--report", "r.json", str(script), "1", "0"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[0] == "argv=['1', '0'] name=__main__ cwd=%s path0=%s rank_size=1" % (
        tmp_path, script.parent)
    data = json.loads((tmp_path / "r.json").read_text())
    conf = data["configurations"][0]
    assert conf["options"]["global"]["ge.exec.staticMemoryPolicy"] == "1"
    assert conf["effective"]["ge.exec.staticMemoryPolicy"] == "2"
    assert data["summary"]["warnings"] >= 1 and data["strict"] is True
    assert "warning NPB103 [static_memory_policy]" in proc.stderr
    # the script's own non-zero exit code is kept
    proc = _run(["--no-report", str(script), "0", "3"], str(tmp_path))
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert sorted(os.listdir(tmp_path)) == ["r.json", "scripts"]


def test_run_uncaught_config_error(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(OWN_SCRIPT)
    proc = _run([str(script), "7", "0"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    data = json.loads((tmp_path / "npu_bridge_report.json").read_text())
    unc = data["outcome"]["uncaught"]
    assert unc["type"] == "NpuConfigError"
    assert [d["option"] for d in unc["diagnostics"] if d["severity"] == "error"] == [
        "static_memory_policy"]
    assert data["summary"]["errors"] == 1 and data["outcome"]["script_exit_code"] == 1
    assert "uncaught NpuConfigError" in proc.stderr
    # the escaped error is the refused session's: recorded once, counted once
    assert [c["refused"] for c in data["configurations"]] == [True]
    assert unc["configuration"] == 1


CATCHING_SCRIPT = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    from npu_bridge.ge import NpuConfigError
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["static_memory_policy"].i = 7
    try:
        tf.Session(config=config)
    except NpuConfigError:
        pass
    try:
        NPUEstimator(model_fn=lambda features, labels, mode: None, model_dir="m",
                     config=NPURunConfig(memory_config=MemoryConfig(atomic_clean_policy=3)))
    except NpuConfigError:
        pass
    print("caught both")
    """)


def test_run_counts_refused_configurations_the_script_caught(tmp_path):
    script = tmp_path / "catching.py"
    script.write_text(CATCHING_SCRIPT)
    proc = _run([str(script)], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout == "caught both\n"
    data = json.loads((tmp_path / "npu_bridge_report.json").read_text())
    assert data["outcome"] == {"exit_code": 1, "script_exit_code": 0, "signal": None,
                               "uncaught": None}
    assert [(c["kind"], c["refused"]) for c in data["configurations"]] == [
        ("session", True), ("estimator", True)]
    assert data["summary"]["refused"] == 2 and data["summary"]["errors"] == 2
    assert [d["option"] for c in data["configurations"] for d in c["diagnostics"]
            if d["severity"] == "error"] == ["static_memory_policy", "atomic_clean_policy"]
    assert "2 configuration(s), 2 error(s)" in proc.stderr and "REFUSED" in proc.stderr
    assert not (tmp_path / "m").exists()   # the refused estimator left nothing behind


@needs_acceptance
def test_run_bad_configs_acceptance_reports_its_deliberate_errors(tmp_path):
    proc = _run([os.path.join(ACCEPTANCE, "bad_configs.py")], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == "ok 10 cases"
    data = json.loads((tmp_path / "npu_bridge_report.json").read_text())
    refused = [c for c in data["configurations"] if c["refused"]]
    assert [c["kind"] for c in refused] == ["session", "estimator"]
    assert data["summary"]["errors"] >= 2 and data["outcome"]["script_exit_code"] == 0


SOC_SCRIPT = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    config = tf.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    op.parameter_map["soc_config"].s = b"Ascend310P3"
    with tf.Session(config=config) as sess:
        print(sess.run(tf.constant(1)))
    """)


def test_run_product_flag_beats_the_scripts_soc_config(tmp_path):
    script = tmp_path / "soc.py"
    script.write_text(SOC_SCRIPT)
    proc = _run(["--product", "atlas-a2-training", str(script)], str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "npu_bridge_report.json").read_text())
    assert [c["product"] for c in data["configurations"]] == ["atlas-a2-training"]
    # without the flag the script's soc_config decides
    proc = _run(["--no-report", str(script)], str(tmp_path))
    assert proc.returncode == 0 and "(product: atlas-inference)" in proc.stderr, proc.stderr[-3000:]


def test_options_and_lint_product_flag_beats_soc_config(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("NPU_BRIDGE_PRODUCT", "atlas-inference")
    code, out, _ = _main(capsys, "options", "--product", "atlas-a2-training",
                         "--set", "soc_config=Ascend310P3", "--set", "variable_use_1g_huge_page=1")
    assert out.splitlines()[0] == "product: atlas-a2-training"
    assert "NPB112" not in out
    code, out, _ = _main(capsys, "options", "--set", "soc_config=Ascend310P3",
                         "--set", "variable_use_1g_huge_page=1")
    assert code == 1 and "variable_use_1g_huge_page" in out
    src = tmp_path / "t.py"
    src.write_text('custom_op.parameter_map["soc_config"].s = b"Ascend310P3"\n'
                   'custom_op.parameter_map["variable_use_1g_huge_page"].i = 1\n')
    code, out, _ = _main(capsys, "lint", "--product", "atlas-a2-training", str(src))
    assert "variable_use_1g_huge_page" not in out
    code, out, _ = _main(capsys, "lint", str(src))
    assert code == 1 and "variable_use_1g_huge_page" in out


def test_options_product_flag_still_refuses_an_unknown_soc_config(capsys, monkeypatch):
    monkeypatch.delenv("NPU_BRIDGE_PRODUCT", raising=False)
    code, out, _ = _main(capsys, "options", "--product", "atlas-inference",
                         "--set", "soc_config=Ascend910B9")
    assert code == 1, out
    assert "error NPB111 [soc_config]" in out and "'Ascend910B9' (from soc_config)" in out
    assert "known: Ascend950" in out   # the SoC names (cut to the line; all in the JSON)
    assert '      fix: parameter_map["soc_config"].s = b"Ascend910B"' in out
    code, out, _ = _main(capsys, "options", "--format", "json", "--product", "atlas-inference",
                         "--set", "soc_config=Ascend910B9")
    assert "Ascend910B1/B2" in json.loads(out)["diagnostics"][0]["message"]
    # a known SoC of another product: warning NPB115 naming both, the flag wins, exit 0
    code, out, _ = _main(capsys, "options", "--product", "atlas-inference",
                         "--set", "soc_config=Ascend910B1")
    assert code == 0 and out.splitlines()[0] == "product: atlas-inference"
    assert "warning NPB115" in out and "atlas-a2-training" in out and "wins" in out


def test_lint_product_flag_still_reports_an_unknown_soc_config(capsys, tmp_path):
    src = tmp_path / "f.py"
    src.write_text('custom_op.parameter_map["soc_config"].s = b"Ascend999"\n')
    code, out, _ = _main(capsys, "lint", "--product", "atlas-training", str(src))
    assert code == 1 and "NPB111 error" in out and "'Ascend999' (from soc_config)" in out


def test_run_refuses_symlink_report_before_running(tmp_path, capsys):
    target = tmp_path / "target.txt"
    target.write_text("keep")
    (tmp_path / "r.json").symlink_to(target)
    script = tmp_path / "s.py"
    script.write_text("open(%r, 'w').write('ran')\n" % str(tmp_path / "ran"))
    code, _, err = _main(capsys, "run", "--report", str(tmp_path / "r.json"), str(script))
    assert code == 2 and "symbolic link" in err
    assert target.read_text() == "keep" and not (tmp_path / "ran").exists()


# --- run: run-time refusals (NPB123), refused NPURunConfig, argv -----------------------------

CONCURRENT_SCRIPT = textwrap.dedent("""\
    import sys, threading
    import numpy as np
    import tensorflow as tf
    from npu_bridge.npu_init import *
    from npu_bridge.ge import NpuConfigError
    print("argv=%s" % sys.argv)
    mode = sys.argv[1]
    started, done = threading.Event(), threading.Event()

    def block(x):
        started.set()
        done.wait(60)
        return x

    def cfg():
        config = tf.ConfigProto()
        op = config.graph_options.rewrite_options.custom_optimizers.add()
        op.name = "NpuOptimizer"
        op.parameter_map["static_memory_policy"].i = 2
        return config

    ga, gb = tf.Graph(), tf.Graph()
    with ga.as_default():
        slow = tf.py_func(block, [tf.constant(np.float32(1.0))], tf.float32)
    with gb.as_default():
        fast = tf.constant(2.0) * 3.0
    sa, sb = tf.Session(graph=ga, config=cfg()), tf.Session(graph=gb, config=cfg())
    first = threading.Thread(target=sa.run, args=(slow,))
    first.start()
    started.wait(60)

    def second():
        if mode == "catch":
            for _ in range(20):          # a script retrying: recorded once
                try:
                    sb.run(fast)
                except NpuConfigError:
                    pass
        else:
            sb.run(fast)

    try:
        if mode == "thread":             # the thread dies with the error; the script goes on
            t = threading.Thread(target=second)
            t.start()
            t.join()
        else:
            second()
    finally:
        done.set()
        first.join()
    print("done", mode)
    """)


@pytest.mark.parametrize("mode", ["catch", "thread", "main"])
def test_run_fails_on_concurrency_refusal_caught_or_not(tmp_path, mode):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "conc.py").write_text(CONCURRENT_SCRIPT)
    proc = _run(["--report", "r.json", "sub/conc.py", mode], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    # sys.argv as typed, as `python sub/conc.py MODE` gives it
    assert proc.stdout.splitlines()[0] == "argv=['sub/conc.py', '%s']" % mode
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["script"]["argv"] == ["sub/conc.py", mode]
    first, second = data["configurations"]
    assert [d["code"] for d in first["diagnostics"] if d["severity"] == "error"] == []
    assert [d["code"] for d in second["diagnostics"] if d["severity"] == "error"] == ["NPB123"]
    assert data["summary"]["errors"] == 1 and data["summary"]["refused"] == 0
    assert "1 error(s)" in proc.stderr and "error NPB123 [static_memory_policy]" in proc.stderr
    unc = data["outcome"]["uncaught"]
    if mode == "main":
        assert data["outcome"]["script_exit_code"] == 1
        assert unc["type"] == "NpuConfigError" and unc["configuration"] == 2
    else:
        assert data["outcome"]["script_exit_code"] == 0 and unc is None
        assert proc.stdout.splitlines()[-1] == "done %s" % mode


REFUSED_RUNCONFIG = textwrap.dedent("""\
    import tensorflow as tf
    from npu_bridge.npu_init import *
    cfg = NPURunConfig(model_dir="m", memory_config=MemoryConfig(static_memory_policy=2),
                       graph_max_parallel_model_num=2, precision_mode="allow_mix_precison")
    """)


def test_run_refused_runconfig_is_counted_once_with_its_product(tmp_path):
    (tmp_path / "est_bad.py").write_text(REFUSED_RUNCONFIG)
    proc = _run(["--product", "atlas-a2-inference", "--report", "r.json", "est_bad.py"],
                str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    data = json.loads((tmp_path / "r.json").read_text())
    (conf,) = data["configurations"]
    assert conf["refused"] is True and conf["product"] == "atlas-a2-inference"
    errors = [d["code"] for d in conf["diagnostics"] if d["severity"] == "error"]
    assert sorted(errors) == ["E10001", "NPB114", "NPB120"]
    unc = data["outcome"]["uncaught"]
    assert unc["type"] == "NpuArgumentError" and unc["configuration"] == 1
    from npu_bridge.tools import report
    counts = report.count_severities(conf["diagnostics"])
    assert {k: data["summary"][k] for k in counts} == counts      # each counted once
    assert "(product: atlas-a2-inference) REFUSED" in proc.stderr
    assert "3 error(s)" in proc.stderr



# --- run: a script ending with os._exit; forked children; directories and zip files ---------

OS_EXIT_REFUSED = textwrap.dedent("""\
    import os
    from npu_bridge.npu_init import *
    try:
        NPURunConfig(precision_mode="bogus")
    except Exception:
        print("caught")
    os._exit(0)
    """)


def test_run_script_ending_with_os_exit_still_reports_and_fails(tmp_path):
    (tmp_path / "s.py").write_text(OS_EXIT_REFUSED)
    proc = _run(["--report", "r.json", "s.py"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stdout == "caught\n"
    assert proc.stderr.count("npu-bridge run: 1 configuration(s)") == 1
    assert "REFUSED" in proc.stderr and "exit code: 1" in proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"] == {"exit_code": 1, "script_exit_code": 0, "signal": None,
                               "uncaught": None}
    (conf,) = data["configurations"]
    assert conf["refused"] is True
    assert [d["option"] for d in conf["diagnostics"] if d["severity"] == "error"] == [
        "precision_mode"]
    assert sorted(os.listdir(tmp_path)) == ["r.json", "s.py"]


def test_run_os_exit_code_of_a_clean_script_is_kept(tmp_path):
    (tmp_path / "s.py").write_text("import os, threading\n"
                                   "threading.Thread(target=threading.Event().wait, "
                                   "daemon=False).start()   # a stuck thread\n"
                                   "print('bye')\nos._exit(3)\n")
    proc = _run(["--report", "r.json", "s.py"], str(tmp_path))
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert proc.stdout == "bye\n" and "exit code: 3" in proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"] == {"exit_code": 3, "script_exit_code": 3, "signal": None,
                               "uncaught": None}


FORKING_SCRIPT = textwrap.dedent("""\
    import multiprocessing, os, sys
    from npu_bridge.npu_init import *

    def work():
        print("worker", flush=True)

    children = {}
    pid = os.fork()
    if pid == 0:
        os._exit(5)                      # a child ending with os._exit
    children[pid] = 5
    pid = os.fork()
    if pid == 0:
        sys.exit(4)                      # a child ending with SystemExit
    children[pid] = 4
    for pid, want in children.items():
        print("child", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), want, flush=True)
    proc = multiprocessing.get_context("fork").Process(target=work)
    proc.start()
    proc.join()
    print("process", proc.exitcode, flush=True)
    try:
        NPURunConfig(precision_mode="bogus")
    except Exception:
        pass
    os._exit(0)
    """)


def test_run_forked_children_never_report(tmp_path):
    (tmp_path / "s.py").write_text(FORKING_SCRIPT)
    proc = _run(["--report", "r.json", "s.py"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert sorted(proc.stdout.splitlines()) == ["child 4 4", "child 5 5", "process 0", "worker"]
    assert proc.stderr.count("npu-bridge run:") == 1       # one summary: the parent's
    assert proc.stderr.count("report: ") == 1
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["outcome"]["exit_code"] == 1 and data["summary"]["refused"] == 1
    assert sorted(os.listdir(tmp_path)) == ["r.json", "s.py"]


MAIN_PROBE = ("import json, sys\n"
              "print(json.dumps([sys.argv, sys.path[0], __file__, __name__, __package__, "
              "__spec__.name, type(__loader__).__name__]))\n")


@pytest.mark.parametrize("kind", ["dir", "dir/", "zip", "zip-no-suffix"])
def test_run_directory_or_zip_with_main_as_python_does(tmp_path, kind):
    import zipfile
    app = tmp_path / "app"
    app.mkdir()
    (app / "__main__.py").write_text(MAIN_PROBE)
    target = {"dir": "app", "dir/": "app/", "zip": "app.pyz", "zip-no-suffix": "appz"}[kind]
    if kind.startswith("zip"):
        with zipfile.ZipFile(tmp_path / target, "w") as zf:
            zf.write(app / "__main__.py", "__main__.py")
    py = subprocess.run([sys.executable, target, "a", "b"], cwd=tmp_path, capture_output=True,
                        text=True, timeout=60)
    assert py.returncode == 0, py.stderr
    proc = _run(["--no-report", target, "a", "b"], str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout) == json.loads(py.stdout)
    assert json.loads(proc.stdout)[0] == [target, "a", "b"]


def test_run_directory_without_main_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = _main(capsys, "run", "--no-report", str(tmp_path / "empty"))
    assert code == 2 and "__main__" in err and str(tmp_path / "empty") in err


# --- options: the product the resolver used; usage errors --------------------------------

def test_options_refused_configuration_shows_the_product_used(capsys, monkeypatch):
    monkeypatch.delenv("NPU_BRIDGE_PRODUCT", raising=False)
    code, out, _ = _main(capsys, "options", "--set", "soc_config=Ascend310P3",
                         "--set", "variable_use_1g_huge_page=1")
    assert code == 1 and out.splitlines()[0] == "product: atlas-inference"
    code, out, _ = _main(capsys, "options", "--format", "json", "--set", "soc_config=Ascend310P3",
                         "--set", "variable_use_1g_huge_page=1")
    assert code == 1 and json.loads(out)["product"] == "atlas-inference"
    monkeypatch.setenv("NPU_BRIDGE_PRODUCT", "atlas-a2-inference")
    code, out, _ = _main(capsys, "options", "--set", "variable_use_1g_huge_page=1")
    assert code == 1 and out.splitlines()[0] == "product: atlas-a2-inference"
    code, out, _ = _main(capsys, "options", "--format", "json",
                         "--set", "variable_use_1g_huge_page=1")
    assert code == 1 and json.loads(out)["product"] == "atlas-a2-inference"
    # a resolved configuration: the product of the resolution too (not only --product)
    code, out, _ = _main(capsys, "options", "--format", "json", "--set", "static_memory_policy=0")
    assert code == 0 and json.loads(out)["product"] == "atlas-a2-inference"


def test_options_repeated_key_is_a_usage_error(capsys):
    code, out, err = _main(capsys, "options", "--set", "static_memory_policy=1",
                           "--set", "atomic_clean_policy=1", "--set", "static_memory_policy=2")
    assert code == 2 and out == ""
    assert "static_memory_policy" in err and "more than once" in err
    code, _, err = _main(capsys, "options", "--set", "precision_mode=x",
                         "--set", "precision_mode.b=true")
    assert code == 2 and "precision_mode" in err


def test_explain_empty_name_is_a_usage_error(capsys):
    code, out, err = _main(capsys, "explain", "")
    assert code == 2 and out == "" and "error" in err
    code, out, err = _main(capsys, "explain", "  ")
    assert code == 2


@pytest.mark.parametrize("argv,named", [
    (["memory", "--top", "-3"], "--top"),            # was: the last 3 tensors cut off
    (["memory", "--workspace", "-5000"], "--workspace"),   # was: planned with -5000 bytes
    (["partition", "--top", "-1"], "--top"),         # was: "in ... 1 more"
    (["run", "--ranks", "2", "--collective-timeout", "-1"], "--collective-timeout"),
    (["run", "--ranks", "2", "--collective-timeout", "0"], "--collective-timeout"),  # was: 120
    (["run", "--ranks", "2", "--collective-timeout", "nan"], "--collective-timeout"),
    (["run", "--hosts", "127.0.0.2"], "--hosts"),    # was: ignored without --ranks
    (["run", "--collective-timeout", "30"], "--collective-timeout"),   # likewise
])
def test_a_number_out_of_range_or_a_rank_flag_without_ranks_is_a_usage_error(tmp_path, argv,
                                                                              named):
    """Found in a tryout: these ran the script with a meaning nobody asked for. Each is now a
    usage error (exit 2) naming the flag, before the script runs, leaving nothing behind."""
    (tmp_path / "s.py").write_text("open('ran', 'w').close()\n")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "npu_bridge"] + argv + ["s.py"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["s.py"]   # not run, no report, no lock


def test_options_pbtxt_prints_no_tensorflow_banner(tmp_path):
    path = tmp_path / "config.pbtxt"
    path.write_text(PBTXT)
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "options", "--pbtxt", str(path)],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


@pytest.mark.parametrize("code,severity", [("NPB126", "warning"), ("e10001", "error")])
def test_explain_a_diagnostic_code(capsys, code, severity):
    from npu_bridge.ge.diagnostics import CODES
    status, out, _ = _main(capsys, "explain", code)
    f = _fields(out)
    assert status == 0 and f["code"] == code.upper() and f["severity"] == severity
    assert f["what"] == CODES[code.upper()][1] and f["source"] == CODES[code.upper()][2]


def test_explain_a_lint_code(capsys):
    from npu_bridge.tools.lint import LINT_CODES
    status, out, _ = _main(capsys, "explain", "NBL011")
    assert status == 0 and _fields(out)["what"] == LINT_CODES["NBL011"]


def test_explain_an_argument_taking_a_config_class(capsys):
    status, out, _ = _main(capsys, "explain", "memory_config")
    f = _fields(out)
    assert status == 0 and f["takes"] == "MemoryConfig(...)"
    assert f["argument"] == "NPURunConfig(memory_config=MemoryConfig(...))"
    assert f["options"] == ("atomic_clean_policy, memory_optimization_policy, "
                            "static_memory_policy, variable_use_1g_huge_page")


def test_lint_reads_a_script_from_stdin_as_flake8_does(capsys, monkeypatch, tmp_path):
    """`npu-bridge lint -` (editors pipe the buffer; flake8 and ruff take `-`): was "no such
    file or folder: -". The findings are those of the same text in a file, under the name
    `stdin` or `--stdin-display-name`; beside other paths it counts as one more file."""
    import io
    src = (b'custom_op.parameter_map["precision_mode"].s = b"allow_mix_precison"\n'
           b'custom_op.parameter_map["static_memory_policy"].i = 1  # noqa: NPB103\n')
    (tmp_path / "t.py").write_bytes(src)
    code, out, err = _main(capsys, "lint", str(tmp_path / "t.py"))
    expected = out.replace(str(tmp_path / "t.py"), "stdin")
    for argv, name in ((["-"], "stdin"), (["--stdin-display-name", "src/train.py", "-"],
                                          "src/train.py")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(src)))
        code, out, err = _main(capsys, "lint", *argv)
        assert code == 1 and out == expected.replace("stdin", name), (out, err)
        assert out.startswith(name + ":1:1: E10001 error:") and "in 1 file" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(src)))
    code, out, err = _main(capsys, "lint", "--format", "json", "-", str(tmp_path / "t.py"))
    data = json.loads(out)
    assert code == 1 and data["files"] == 2
    assert sorted({f["path"] for f in data["findings"]}) == sorted(["stdin", str(tmp_path / "t.py")])
    code, _, err = _main(capsys, "lint", "-", "-")
    assert code == 2 and "'-' (stdin) given twice" in err


@pytest.mark.parametrize("typed", ["MemoryConfig", "memoryconfig"])
def test_explain_a_config_class_by_its_own_name(capsys, typed):
    """`run` and `lint` print `NPB114 [MemoryConfig]`: the name in brackets is explained (it
    was "unknown option 'MemoryConfig'; did you mean memory_config"), with the class's
    product table, the one NPB114 checks."""
    status, out, _ = _main(capsys, "explain", typed)
    f = _fields(out)
    assert status == 0 and f["name"] == "MemoryConfig" and f["takes"] == "MemoryConfig(...)"
    assert f["argument"] == "NPURunConfig(memory_config=MemoryConfig(...))"
    assert "static_memory_policy" in f["options"]
    assert f["products"].startswith("atlas-a3-training, atlas-a3-inference, atlas-a2-training, "
                                    "atlas-training (NPB114 elsewhere; source: vendor page")
    status, out, _ = _main(capsys, "explain", "dump_config")   # a class without a table
    assert status == 0 and _fields(out)["products"] == "all"


@pytest.mark.parametrize("raw,says", [("abc", "expected a decimal integer"),
                                      ("0x2", "expected a decimal integer"),
                                      ("99999999999999999999", "outside the int64 range")])
def test_set_int_values_are_decimal_int64(capsys, raw, says):
    code, _, err = _main(capsys, "options", "--set", "iterations_per_loop=" + raw)
    assert code == 2 and says in err and "invalid literal" not in err


# --- tester nitpicks: wording, case-insensitive suggestions, strict bools -----------------

def test_options_with_nothing_set_does_not_speak_of_a_script(capsys, tmp_path):
    path = tmp_path / "empty.pbtxt"
    path.write_text('graph_options { rewrite_options { custom_optimizers '
                    '{ name: "NpuOptimizer" } } }\n')
    code, out, _ = _main(capsys, "options", "--pbtxt", str(path))
    assert code == 0 and "script" not in out
    assert "  (no options set in %s)" % path in out.splitlines()
    # with --all the defaults are the rows: no such line
    code, out, _ = _main(capsys, "options", "--all", "--pbtxt", str(path))
    assert code == 0 and "(no options set" not in out


@pytest.mark.parametrize("typed,first", [
    ("Static_Memory_Polcy", "static_memory_policy"),           # a typo in another case
    ("GE.EXEC.STATICMEMORYPOLIC", "ge.exec.staticMemoryPolicy"),   # GE key
    ("exec_disable_reused_memor", "EXEC_DISABLE_REUSED_MEMORY"),   # ir_option
    ("ENABLE_PROFILNG", "enable_profiling"),                   # NPURunConfig argument
    ("Memory_Confg", "memory_config"),                         # argument taking a class
    ("npb1266", "NPB126"),                                     # diagnostic code
    ("nbl11", "NBL011"),                                       # lint code
])
def test_explain_suggestions_ignore_case(capsys, typed, first):
    # an unknown name is a usage error (issue 17 defect 11; was exit 1)
    code, out, err = _main(capsys, "explain", typed)
    assert code == 2 and out == ""
    assert "did you mean %s" % first in err, err


@pytest.mark.parametrize("typed,name", [
    ("STATIC_MEMORY_POLICY", "static_memory_policy"),          # parameter_map key
    ("ge.exec.staticmemorypolicy", "ge.exec.staticMemoryPolicy"),   # GE key
    ("GE.EXEC.STATICMEMORYPOLICY", "ge.exec.staticMemoryPolicy"),
    ("exec_disable_reused_memory", "ge.exec.disableReuseMemory"),   # ir_option (its GE key)
    ("ENABLE_PROFILING", "profiling_mode"),                    # NPURunConfig argument
    ("MEMORY_CONFIG.STATIC_MEMORY_POLICY", "static_memory_policy"),
])
def test_explain_takes_a_known_name_in_another_case(capsys, typed, name):
    # issue 17 defect 11: `explain PRECISION_MODE` failed although it suggested precision_mode
    code, out, _ = _main(capsys, "explain", typed)
    assert code == 0 and out.splitlines()[0] == "name: %s" % name


def test_explain_a_code_or_class_argument_in_another_case(capsys):
    code, out, _ = _main(capsys, "explain", "Memory_Config")
    assert code == 0 and "takes: MemoryConfig(...)" in out
    code, out, _ = _main(capsys, "explain", "npb126")
    assert code == 0 and out.splitlines()[0] == "code: NPB126"


@pytest.mark.parametrize("raw", ["yes", "no", "on", "off", "Y", "yse", "2", "", "truee"])
def test_set_bool_accepts_only_the_documented_spellings(capsys, raw):
    code, out, err = _main(capsys, "options", "--set", "enable_dump=" + raw)
    assert code == 2 and out == "", out
    # names the option, the value and the accepted spellings
    assert "enable_dump" in err and repr(raw) in err
    assert "true, false, 1 or 0" in err, err
    code, _, err = _main(capsys, "options", "--set", "precision_mode.b=" + raw)
    assert code == 2 and "precision_mode" in err and "true, false, 1 or 0" in err


@pytest.mark.parametrize("raw,sent", [("true", "1"), ("True", "1"), ("FALSE", "0"),
                                      ("1", "1"), ("0", "0"), (" false ", "0")])
def test_set_bool_documented_spellings_in_any_case(capsys, raw, sent):
    code, out, _ = _main(capsys, "options", "--format", "json", "--set", "use_off_line=" + raw)
    assert code == 0, out
    assert json.loads(out)["configuration"]["options"]["adapter"]["use_off_line"] == sent


def test_options_prints_short_lines_with_fix_and_source_on_demand(capsys):
    """issue 28: `options` prints each finding in one short line, its fix under it, and
    where the rule comes from only with --show-source."""
    argv = ("options", "--set", "input_fusion_size=67108864", "--set", "static_memory_polcy=2")
    code, out, _ = _main(capsys, *argv)
    lines = out.splitlines()
    at = lines.index("  warning NPB104 [input_fusion_size]: input_fusion_size=67108864 is "
                     "outside [0, 33554432] bytes; clamped to 33554432 as the real adapter does")
    assert lines[at + 1] == '      fix: parameter_map["input_fusion_size"].i = 33554432'
    assert '      fix: parameter_map["static_memory_policy"].i = 2' in lines
    assert "source" not in out and "seed" not in out
    code, shown, _ = _main(capsys, *argv, "--show-source")
    shown = shown.splitlines()
    assert shown[shown.index(lines[at]) + 2] == (
        "      source: vendor page '内存管理 (GE options: memory management)' (hicann/ge "
        "docs/zh/api/graph_engine_api/cpp/ge/options_params/memory_management.md); vendor page "
        "'Memory Management' (hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/"
        "memory_management.md)")


def test_explain_a_code_gives_its_fix_and_provenance(capsys):
    code, out, _ = _main(capsys, "explain", "npb140")
    f = _fields(out)
    assert code == 0 and f["code"] == "NPB140"
    # each spelling on its own line, labelled (a finding shows only the one the user wrote)
    assert f["fix (parameter_map)"] == 'parameter_map["<fix_key>"].s = b"<fit>" (<fit>)'
    assert f["fix (config-class argument)"] == "NPURunConfig(<fix_key>=<fit>)"
    assert "hicann/ge base/graph/manager/graph_var_manager.h:48" in f["source"]
    assert "reference" not in f["source"] and "seed" not in f["source"]
    f = _fields(_main(capsys, "explain", "NPB101")[1])
    assert f["source"].startswith("hicann/tensorflow tf_adapter/util/npu_attrs.cc:1917")
