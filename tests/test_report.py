"""The JSON report: schema, key order, atomic writing and refusal of unsafe destinations."""
import json
import os
import types

import pytest

from npu_bridge.tools import report
from npu_bridge.ge.diagnostics import Diagnostic


def _ge(**kw):
    base = dict(global_options={"ge.exec.staticMemoryPolicy": "2", "static_memory_policy": "2"},
                session_options={"ge.exec.atomicCleanPolicy": "1"}, graph_options={},
                adapter_options={"iterations_per_loop": "5"},
                effective={"ge.exec.staticMemoryPolicy": "2"},
                sources={"ge.exec.staticMemoryPolicy": 'parameter_map["static_memory_policy"].i',
                         "ge.exec.atomicCleanPolicy": "default"},
                diagnostics=[Diagnostic("NPB103", "warning", "static_memory_policy", 1,
                                        "legacy value 1 runs as 2")],
                product=None)
    base.update(kw)
    return types.SimpleNamespace(**base)


def _run_report(**kw):
    args = dict(script="/x/train.py", argv=["train.py", "--steps", "3"], cwd="/x", product=None,
                strict=False, environment_set={"RANK_SIZE": "1", "RANK_ID": "0"},
                records=[{"kind": "session", "name": "Session#1", "options": _ge()}],
                script_exit_code=0, exit_code=0)
    args.update(kw)
    return report.build_run_report(**args)


def test_top_level_keys_in_documented_order_with_version():
    data = _run_report()
    assert list(data) == ["schema", "version", "tool", "command", "created", "script", "product",
                          "strict", "environment", "outcome", "summary", "precision", "configurations",
                          "unattached", "not_planned", "not_partitioned",
                          "not_captured", "notes"]
    assert data["schema"] == "npu-bridge-report" and data["version"] == 2
    conf = data["configurations"][0]
    assert list(conf) == ["index", "kind", "name", "refused", "product", "options", "effective",
                          "sources", "diagnostics", "memory", "precision",
                          "partition"]
    assert conf["precision"] is None and data["precision"] == {"emulate": False}   # off
    assert conf["partition"] is None
    assert conf["refused"] is False and conf["memory"] is None   # no graph ran
    assert list(conf["options"]) == ["global", "session", "graph", "adapter"]
    # option keys sorted, so two runs of one script give the same text
    assert list(conf["options"]["global"]) == ["ge.exec.staticMemoryPolicy", "static_memory_policy"]
    # the version-2 keys, then what the text output prints of the message (added within 2)
    assert conf["diagnostics"] == [{"code": "NPB103", "severity": "warning",
                                    "option": "static_memory_policy", "value": 1,
                                    "message": "legacy value 1 runs as 2",
                                    "short": "legacy value 1 runs as 2", "fix": None,
                                    "provenance": None, "more": None}]
    assert data["summary"] == {"configurations": 1, "refused": 0, "errors": 0, "warnings": 1,
                               "infos": 0}


def test_uncaught_config_error_diagnostics_are_counted():
    err = types.SimpleNamespace(diagnostics=[Diagnostic("E10001", "error", "atomic_clean_policy", 3,
                                                        "bad value")])
    data = _run_report(records=[], exception=("NpuConfigError", "1 error"), config_error=err,
                       script_exit_code=1, exit_code=1)
    assert data["outcome"]["uncaught"]["diagnostics"][0]["option"] == "atomic_clean_policy"
    assert data["summary"]["errors"] == 1
    assert any("atomic_clean_policy" in line for line in report.summary_lines(data))


def _refused_ge():
    return _ge(diagnostics=[Diagnostic("E10001", "error", "static_memory_policy", 7, "bad value"),
                            Diagnostic("NPB110", "info", "product", None, "no product")])


def test_refused_configuration_caught_by_the_script_counts_as_errors():
    data = _run_report(records=[
        {"kind": "session", "name": "Session#1", "options": _ge()},
        {"kind": "session", "name": "Session#2", "options": _refused_ge(), "refused": True}])
    assert [c["refused"] for c in data["configurations"]] == [False, True]
    assert data["summary"] == {"configurations": 2, "refused": 1, "errors": 1, "warnings": 1,
                               "infos": 1}
    text = "\n".join(report.summary_lines(data))
    assert "[2] session Session#2 (product: none) REFUSED" in text
    assert "error E10001 [static_memory_policy]: bad value" in text


def test_escaped_refused_configuration_is_counted_once():
    partial = _refused_ge()
    err = types.SimpleNamespace(diagnostics=partial.diagnostics, ge_options=partial)
    data = _run_report(records=[{"kind": "estimator", "name": "NPUEstimator(model_dir=m)",
                                 "options": partial, "refused": True}],
                       exception=("NpuConfigError", "1 error"), config_error=err,
                       script_exit_code=1, exit_code=1)
    assert data["outcome"]["uncaught"]["configuration"] == 1
    assert len(data["outcome"]["uncaught"]["diagnostics"]) == 2
    assert data["summary"]["errors"] == 1
    text = "\n".join(report.summary_lines(data))
    assert text.count("error E10001") == 1 and "refused configuration [1]" in text


def test_write_is_atomic_and_leaves_only_the_report(tmp_path):
    dest = tmp_path / "r.json"
    dest.write_text("old")
    os.chmod(dest, 0o640)
    data = _run_report()
    report.write_report(str(dest), data)
    assert json.loads(dest.read_text()) == data
    assert os.listdir(tmp_path) == ["r.json"]          # no temporary file left
    assert os.stat(dest).st_mode & 0o777 == 0o640       # an existing file keeps its mode


def test_refuses_symlink_destination_and_leaves_target_alone(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "r.json"
    link.symlink_to(target)
    with pytest.raises(report.ReportPathError, match="symbolic link"):
        report.write_report(str(link), _run_report())
    assert target.read_text() == "keep me" and os.path.islink(link)
    assert sorted(os.listdir(tmp_path)) == ["precious.txt", "r.json"]


def test_refuses_directory_and_missing_parent(tmp_path):
    with pytest.raises(report.ReportPathError, match="directory"):
        report.write_report(str(tmp_path), _run_report())
    with pytest.raises(report.ReportPathError, match="does not exist"):
        report.write_report(str(tmp_path / "no" / "r.json"), _run_report())
    assert os.listdir(tmp_path) == []


def test_failed_write_removes_temporary_file(tmp_path, monkeypatch):
    def boom(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(report.os, "replace", boom)
    with pytest.raises(OSError):
        report.write_report(str(tmp_path / "r.json"), _run_report())
    assert os.listdir(tmp_path) == []


def test_summary_hides_defaults_but_shows_set_keys_and_diagnostics():
    lines = report.summary_lines(_run_report())
    text = "\n".join(lines)
    assert 'global  ge.exec.staticMemoryPolicy  2' in text
    assert "ge.exec.atomicCleanPolicy" not in text          # source "default"
    assert "warning NPB103 [static_memory_policy]: legacy value 1 runs as 2" in text
    assert "environment set: RANK_ID=0 RANK_SIZE=1" in text


def _npb123():
    return Diagnostic("NPB123", "error", "static_memory_policy", "2",
                      "static_memory_policy=2 does not support graphs that execute concurrently")


def test_runtime_errors_are_counted_with_their_configuration():
    rec = {"kind": "session", "name": "Session#1", "options": _ge(), "runtime": (_npb123(),)}
    data = _run_report(records=[rec])
    conf = data["configurations"][0]
    assert [d["code"] for d in conf["diagnostics"]] == ["NPB103", "NPB123"]
    assert conf["refused"] is False
    assert data["summary"]["errors"] == 1 and data["summary"]["warnings"] == 1
    assert "error NPB123 [static_memory_policy]" in "\n".join(report.summary_lines(data))


def test_escaped_runtime_error_is_counted_once_with_its_configuration():
    from npu_bridge.ge import records as _records
    diag = _npb123()
    rec = {"kind": "session", "name": "Session#2", "options": _ge(), "runtime": (diag,)}
    err = types.SimpleNamespace(diagnostics=[diag], ge_options=None)
    _records.link(err, rec)
    data = _run_report(records=[{"kind": "session", "name": "Session#1", "options": _ge()}, rec],
                       exception=("NpuConfigError", "1 error"), config_error=err,
                       script_exit_code=1, exit_code=1)
    assert data["outcome"]["uncaught"]["configuration"] == 2
    assert data["summary"]["errors"] == 1


def test_escaped_refusal_without_partial_options_is_counted_once():
    # NpuArgumentError of a constructor: the record is linked to the error itself
    from npu_bridge.ge import records as _records
    from npu_bridge.ge import NpuConfigError
    err = NpuConfigError([Diagnostic("NPB160", "error", "x", 1, "bad type"),
                          Diagnostic("NPB110", "info", "product", None, "no product")])
    _records.clear()
    try:
        _records.record_refused("estimator", "NPURunConfig(model_dir=m)", err)
        records = _records.records()
    finally:
        _records.clear()
    data = _run_report(records=records, exception=("NpuArgumentError", "1 error"),
                       config_error=err, script_exit_code=1, exit_code=1)
    assert data["outcome"]["uncaught"]["configuration"] == 1
    assert data["summary"]["errors"] == 1 and data["summary"]["infos"] == 1


def test_refused_record_keeps_the_product_of_the_resolution():
    from npu_bridge.ge import records as _records
    from npu_bridge.ge import GeOptions, NpuConfigError
    diags = [Diagnostic("NPB112", "error", "variable_use_1g_huge_page", 1,
                        "not supported on atlas-inference")]
    err = NpuConfigError(diags, GeOptions(diagnostics=list(diags), product="atlas-inference"))
    rec = _records.record_refused("options", "x", err)
    try:
        data = _run_report(records=[rec])
    finally:
        _records.clear()
    assert data["configurations"][0]["product"] == "atlas-inference"
    assert "(product: atlas-inference) REFUSED" in "\n".join(report.summary_lines(data))
