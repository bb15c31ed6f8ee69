"""`npu-bridge run`'s summary and exit code as a new user meets them (issue 17): identical
configurations once, infos shown and counted, repeated diagnostics capped (the report keeps
all), NPB110 said once, --fail-on / --require-config, and one run per report at a time."""
import json
import os
import textwrap

import pytest

from npu_bridge.tools import cli, report
from npu_bridge.ge import NpuConfigError, resolve


def _rec(kind, name, config, product=None):
    try:
        return {"kind": kind, "name": name, "options": resolve(config, product=product, env={}),
                "refused": False, "runtime": ()}
    except NpuConfigError as err:
        return {"kind": kind, "name": name, "options": err.ge_options, "refused": True,
                "runtime": ()}


def _report(records):
    return report.build_run_report(
        script="/s.py", argv=["s.py"], cwd="/", product=None, strict=False,
        environment_set={}, records=records, script_exit_code=0, exit_code=0)


def test_identical_configurations_are_shown_once():
    conf = {"precision_mode": "allow_mix_precision", "iterations_per_loop": 10}
    records = [_rec("estimator", "NPUEstimator(model_dir=/m)", conf)] + [
        _rec("session", "Session#%d" % i, conf) for i in (1, 2, 3)]
    lines = report.summary_lines(_report(records))
    heads = [l for l in lines if l.startswith("[")]
    assert heads == ["[1,2,3,4] x4: estimator NPUEstimator(model_dir=/m), session Session#1, "
                     "session Session#2, session Session#3 (product: none)"]
    assert sum(l.split()[:3] == ["level", "GE", "key"] for l in lines) == 1   # one table
    other = _rec("session", "Session#4", {"precision_mode": "force_fp32"})
    lines = report.summary_lines(_report(records + [other]))
    assert [l for l in lines if l.startswith("[")][1] == "[5] session Session#4 (product: none)"


def test_infos_are_shown_and_counted_and_no_product_is_said_once():
    records = [_rec("session", "Session#%d" % i, {"enable_data_pre_proc": True,
                                                  "iterations_per_loop": i}) for i in (1, 2)]
    data = _report(records)
    lines = report.summary_lines(data)
    assert data["summary"]["infos"] >= 2
    assert lines[0].endswith(", %d info(s)" % data["summary"]["infos"])
    assert sum("info NPB105 [enable_data_pre_proc]" in l for l in lines) == 2
    assert not any("NPB110 [" in l for l in lines)
    assert lines.count("no target product: product rules skipped (NPB110; give --product)") == 1


def test_repeated_diagnostics_are_capped_on_the_console_not_in_the_report():
    config = {"unknown_key_%04d" % i: 1 for i in range(40)}
    records = [_rec("session", "Session#1", config)]
    data = _report(records)
    lines = report.summary_lines(data)
    assert sum(" NPB100 [" in l for l in lines) == report.SHOWN_PER_CODE
    assert "  ... and %d more of NPB100 (all in the report)" % (40 - report.SHOWN_PER_CODE) \
        in lines
    assert sum(d["code"] == "NPB100" for d in data["configurations"][0]["diagnostics"]) == 40


def test_the_exception_message_is_capped_too():
    config = {"unknown_key_%04d" % i: 1 for i in range(5000)}
    with pytest.raises(NpuConfigError) as info:
        resolve(config, env={})
    assert len(info.value.diagnostics) >= 5000      # all kept
    text = str(info.value)
    assert len(text.splitlines()) < 20 and len(text) < 5000
    assert "... and %d more of NPB100" % (5000 - report.SHOWN_PER_CODE) in text


def _args(**kw):
    base = dict(script="s.py", args=[], product=None, strict=False, fail_on="error",
                require_config=False, all=False)
    base.update(kw)
    return type("Args", (), base)()


class _Result:
    environment_set = {}
    script_exit_code = 0
    exception = None
    config_error = None
    notes = ()


def test_require_config_fails_a_run_that_resolved_nothing(capsys, monkeypatch):
    from npu_bridge.ge import records as _records
    monkeypatch.setattr(_records, "records", lambda: [])
    assert cli._finish_run(_args(), "/", None, _Result()) == 0
    capsys.readouterr()
    assert cli._finish_run(_args(require_config=True), "/", None, _Result()) == 1
    err = capsys.readouterr().err
    assert "no NPU configuration resolved" in err and err.rstrip().endswith("exit code: 1")


def test_fail_on_counts_the_same_severities_as_lint(capsys, monkeypatch):
    from npu_bridge.ge import records as _records
    rec = _rec("session", "Session#1", {"enable_data_pre_proc": True})   # an info only
    monkeypatch.setattr(_records, "records", lambda: [rec])
    assert cli._finish_run(_args(), "/", None, _Result()) == 0
    assert cli._finish_run(_args(fail_on="info"), "/", None, _Result()) == 1
    warn = _rec("session", "Session#1", {"input_fusion_size": 10 ** 9})   # NPB104 clamped
    assert {d.severity for d in warn["options"].diagnostics} >= {"warning"} and not warn["refused"]
    monkeypatch.setattr(_records, "records", lambda: [warn])
    assert cli._finish_run(_args(strict=True), "/", None, _Result()) == 1
    assert cli._finish_run(_args(fail_on="warning"), "/", None, _Result()) == 1


def test_a_second_run_on_the_same_report_refuses_before_running(tmp_path, capsys):
    script = tmp_path / "s.py"
    script.write_text("raise SystemExit('must not run')\n")
    path = str(tmp_path / "r.json")
    held = report.ReportLock(path)
    try:
        code = cli.main(["run", "--report", path, str(script)])
        err = capsys.readouterr().err
        assert code == 2
        assert "is being written by another npu-bridge run (pid %d)" % os.getpid() in err
        assert not os.path.exists(path)
    finally:
        held.release()
    again = report.ReportLock(path)   # released: the next run takes it
    again.release()
    assert not os.path.exists(again.path)


# --- npu-bridge diff ----------------------------------------------------------------------

def _options_json(capsys, tmp_path, name, *sets):
    argv = ["options", "--format", "json"]
    for s in sets:
        argv += ["--set", s]
    cli.main(argv)
    path = tmp_path / name
    path.write_text(capsys.readouterr().out)
    return str(path)


def test_diff_shows_options_and_diagnostics_that_changed(capsys, tmp_path):
    a = _options_json(capsys, tmp_path, "a.json", "precision_mode=allow_fp32_to_fp16",
                      "enable_data_pre_proc=true")
    b = _options_json(capsys, tmp_path, "b.json", "precision_mode=allow_mix_precision",
                      "iterations_per_loop=10", "input_fusion_size=67108864")
    code = cli.main(["diff", a, b])
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and out[:3] == ["--- %s" % a, "+++ %s" % b, "options -> options"]
    assert any(l.startswith("  ~ ") and "allow_fp32_to_fp16 -> allow_mix_precision" in l
               for l in out)
    assert "  ~ adapter iterations_per_loop: 1 -> 10" in out
    assert any(l.startswith("  - info NPB105 [enable_data_pre_proc]") for l in out)
    at = out.index("  + warning NPB104 [input_fusion_size]: input_fusion_size=67108864 is outside "
                   "[0, 33554432] bytes; clamped to 33554432 as the real adapter does")
    assert out[at + 1] == '      fix: parameter_map["input_fusion_size"].i = 33554432'
    code = cli.main(["diff", "--format", "json", a, b])
    data = __import__("json").loads(capsys.readouterr().out)
    assert code == 1 and data["changes"][0]["diagnostics"]["gone"][0]["code"] == "NPB105"
    assert cli.main(["diff", a, a]) == 0
    assert capsys.readouterr().out == "no differences between %s and %s\n" % (a, a)


def test_diff_refuses_what_is_not_a_report(capsys, tmp_path):
    other = tmp_path / "x.json"
    other.write_text('{"a": 1}')
    assert cli.main(["diff", str(other), str(other)]) == 2
    assert "is not an npu-bridge report" in capsys.readouterr().err


# --- real runs (issue 17 defects 3 and 4: an NPUEstimator script) --------------------------

ESTIMATOR_SCRIPT = '''
import numpy as np
from npu_bridge.npu_init import *
tf.compat.v1.disable_eager_execution()
X = np.random.RandomState(0).rand(64, 4).astype(np.float32)
y = (X.sum(axis=1) > 2).astype(np.int32)

def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features, 2)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return NPUEstimatorSpec(mode=mode, predictions={"c": tf.argmax(logits, axis=1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)

def input_fn():
    return tf.compat.v1.data.Dataset.from_tensor_slices((X, y)).repeat().batch(16, drop_remainder=True)

config = NPURunConfig(model_dir="model", iterations_per_loop=2, precision_mode="allow_mix_precision",
                      enable_data_pre_proc=True,
                      memory_config=MemoryConfig(atomic_clean_policy=0, static_memory_policy=2))
est = NPUEstimator(model_fn=model_fn, config=config)
est.train(input_fn, max_steps=4)
est.evaluate(input_fn, steps=2)
list(est.predict(lambda: tf.compat.v1.data.Dataset.from_tensor_slices(X[:4]).batch(4)))
'''


def _summary_of(proc):
    err = proc.stderr.splitlines()
    start = [i for i, l in enumerate(err) if l.startswith("npu-bridge run: ")]
    assert start, proc.stderr[-3000:]
    return err[start[-1]:]


def test_an_estimator_and_its_sessions_are_one_entry(tmp_path):
    from tests.run_cli import run
    (tmp_path / "est.py").write_text(ESTIMATOR_SCRIPT)
    proc = run(["est.py"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = _summary_of(proc)
    heads = [l for l in lines if l.startswith("[")]
    # the estimator and its train, evaluate and predict sessions resolve alike: one entry,
    # although each session captured graphs of its own (their memory lines are per session)
    assert heads == ["[1,2,3,4] x4: estimator NPUEstimator(model_dir=model), session Session#1, "
                     "session Session#2, session Session#3 (product: none)"], heads
    assert sum(l.split()[:3] == ["level", "GE", "key"] for l in lines) == 1
    for n in (1, 2, 3):
        assert any(l.startswith("  memory: ") and "Session#%d" % n in l for l in lines), lines
    # of the graphs each session captured, the largest static one and any that does not fit;
    # the others counted (--all lists them)
    data = json.loads((tmp_path / "npu_bridge_report.json").read_text())
    graphs = sum(len(c["memory"]["graphs"]) for c in data["configurations"] if c["memory"])
    shown = sum(l.startswith("  memory: graph ") for l in lines)
    hidden = sum(int(l.split()[1]) for l in lines if l.endswith("--all lists them")
                 and l.startswith("  memory: "))
    assert 0 < shown < graphs and shown + hidden == graphs
    # deprecations and notes only for what the user set: enable_data_pre_proc, not the
    # input_fusion_size NPURunConfig writes itself (defects 3 and 4)
    assert [l.split("]")[0] for l in lines if " NPB1" in l] == ["  info NPB105 [enable_data_pre_proc"]


def test_diff_folds_a_configuration_present_in_one_report_only(capsys, tmp_path):
    # issue 25 item 5: all ~140 options of such a configuration were printed, one per line
    a = _options_json(capsys, tmp_path, "a.json", "precision_mode=allow_mix_precision",
                      "iterations_per_loop=10")
    conf = json.load(open(a))["configuration"]
    reports = []
    for n in (1, 2):   # run reports of one and of two sessions with these options
        confs = [dict(conf, index=i, kind="session", name="Session#%d" % i) for i in range(1, n + 1)]
        reports.append(tmp_path / ("run%d.json" % n))
        reports[-1].write_text(json.dumps({"schema": "npu-bridge-report", "configurations": confs}))
    one, two = (str(p) for p in reports)
    total = sum(len(conf["options"][lvl]) for lvl in conf["options"])
    code = cli.main(["diff", two, one])
    out = capsys.readouterr().out.splitlines()
    head = "[2] session Session#2 -> (none)"
    assert code == 1 and head in out, out
    body = out[out.index(head) + 1:]
    assert len(body) < 8, out
    assert "  - adapter iterations_per_loop = 10" in body
    assert any("precision_mode = allow_mix_precision" in l for l in body)
    assert "  - (and %d default option(s) of it: --format json lists them)" % (total - 3) \
        in body, body
    code = cli.main(["diff", "--format", "json", two, one])   # the JSON keeps every option
    full = json.loads(capsys.readouterr().out)["changes"][0]["options"]
    assert sum(len(d["removed"]) for d in full.values()) == total


def test_one_short_line_per_finding_with_its_fix_and_source_on_demand():
    """issue 28: NPB140 in GiB with the size that fits; the provenance only with
    --show-source; the same lines from the report read back from JSON (a --ranks job's
    merged report is printed from the ranks' JSON)."""
    conf = {"graph_memory_max_size": str(26 * 2 ** 30), "variable_memory_max_size": str(10 * 2 ** 30)}
    data = _report([_rec("session", "Session#1", conf, product="atlas-training")])
    lines = report.summary_lines(data)
    at = lines.index("  error NPB140 [graph_memory_max_size]: 26.0 GiB + 10.0 GiB = 36.0 GiB "
                     "exceed the 32.0 GiB of an atlas-training device")
    # a session's parameter_map: its spelling only (tests/ge/test_fix_spelling.py)
    assert lines[at + 1] == ('      fix: parameter_map["graph_memory_max_size"].s = '
                             'b"23622320128" (22.0 GiB)')
    assert not any("source:" in l or "confidence" in l for l in lines)
    shown = report.summary_lines(data, show_source=True)
    at = shown.index(lines[at])
    assert shown[at + 2].startswith("      source: figure confidence high: no platform config")
    assert "graph_var_manager.h" in shown[at + 2]
    back = json.loads(report.dumps(data))
    assert report.summary_lines(back, show_source=True) == shown
    # the JSON keeps the exact bytes and every field it had
    (d,) = [d for d in back["configurations"][0]["diagnostics"] if d["code"] == "NPB140"]
    assert "38654705664" in d["message"] and "34359738368" in d["message"]
    assert list(d)[:5] == ["code", "severity", "option", "value", "message"]


# --- notes: what the runner could not do, in the summary of run and memory ----------------

NOTE_SCRIPT = '''
import sys
from npu_bridge.tools import cli, runner
real = runner.prepare

def prepare(*args, **kwargs):   # a runner that could not do two things, one said twice
    env_set, notes = real(*args, **kwargs)
    return env_set, notes + ["job environment not set: No module named 'jobenv'",
                             "TF 1.x API mode not enabled: " + "a long reason " * 20,
                             "job environment not set: No module named 'jobenv'"]

runner.prepare = prepare
sys.exit(cli.main(sys.argv[1:]))
'''


@pytest.mark.parametrize("command", ["run", "memory"])
def test_the_summary_says_the_notes_once_each_and_short(tmp_path, command):
    import subprocess
    import sys
    (tmp_path / "main.py").write_text(NOTE_SCRIPT)
    (tmp_path / "s.py").write_text("print('hello')\n")
    argv = [sys.executable, "main.py", command] + (["--report", "r.json"] if command == "run"
                                                   else []) + ["s.py"]
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(
        __file__))), TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = (proc.stderr if command == "run" else proc.stdout).splitlines()
    notes = [l for l in lines if l.startswith("note: ")]
    assert notes[0] == "note: job environment not set: No module named 'jobenv'", lines
    assert len(notes) == 2 and notes[1].startswith("note: TF 1.x API mode not enabled: a long "
                                                   "reason") and notes[1].endswith("..."), notes
    assert len(notes[1]) <= len("note: ") + 120
    if command == "run":   # the report keeps them whole, each as the runner said it
        data = json.loads((tmp_path / "r.json").read_text())
        assert len(data["notes"]) == 3 and len(data["notes"][1]) > 200
