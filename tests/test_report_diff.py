"""`npu-bridge diff` covers every top-level field of a run report (docs/report_schema.md):
each one is compared, or `report_diff.IGNORED` says why not; the report-level lists (graphs
not planned or partitioned, runs not captured, unattached findings, notes, rank differences)
as what appeared and what went away."""
import copy
import json
import os
import re

from npu_bridge.ge import resolve
from npu_bridge.tools import cli, report, report_diff

SCHEMA_DOC = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "report_schema.md")


def _schema_rows():
    """{top-level key: its row's meaning} of the schema's "Top level" table."""
    text = open(SCHEMA_DOC, encoding="utf-8").read()
    table = text.split("## Top level", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in table.splitlines():
        m = re.match(r"\| `(\w+)` \| [^|]+ \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    assert len(rows) > 15, table
    return rows


def _base():
    options = resolve({"input_fusion_size": 67108864})   # NPB104, with a fix
    records = [{"kind": "session", "name": "Session#1", "options": options, "refused": False,
                "runtime": ()}]
    return report.build_run_report(
        script="/w/s.py", argv=["s.py"], cwd="/w", product=None, strict=False,
        environment_set={"JOB_ID": "1"}, records=records, script_exit_code=0, exit_code=0)


def _finding(data):
    return dict(data["configurations"][0]["diagnostics"][0])


def _rank(data, **changed):
    return dict({"rank": 0, "server": "127.0.0.1", "device_id": 0, "address": "127.0.0.1:1",
                 "exit_code": 0, "ended": "exit code 0", "collectives_built": 1,
                 "output_tail": [], "report": None}, **changed)


# how each compared field is changed here, and a line the text shows for it
CHANGE = {
    "tool": (lambda r: r["tool"].update(version="9.9"), "~ tool.version: "),
    "script": (lambda r: r["script"].update(argv=["s.py", "--steps", "2"]), "~ script.argv: "),
    "product": (lambda r: r.update(product="atlas-inference"), "~ product: - -> atlas-inference"),
    "strict": (lambda r: r.update(strict=True), "~ strict: false -> true"),
    "outcome": (lambda r: r["outcome"].update(exit_code=1), "~ outcome.exit_code: 0 -> 1"),
    "precision": (lambda r: r["precision"].update(emulate=True),
                  "~ precision.emulate: false -> true"),
    "configurations": (lambda r: r["configurations"][0].update(product="atlas-inference"),
                       "  ~ product: - -> atlas-inference"),
    "unattached": (lambda r: r["unattached"].append(_finding(r)),
                   "+ unattached: warning NPB104 [input_fusion_size]: "),
    "not_planned": (lambda r: r["not_planned"].append("Session#1: ValueError: boom"),
                    "+ not_planned: Session#1: ValueError: boom"),
    "not_partitioned": (lambda r: r["not_partitioned"].append("Session#1/2: KeyError: 'x'"),
                        "+ not_partitioned: Session#1/2: KeyError: 'x'"),
    "not_captured": (lambda r: r["not_captured"].append("Session#1: partial_run: 2 run(s)"),
                     "+ not_captured: Session#1: partial_run: 2 run(s)"),
    "notes": (lambda r: r["notes"].append("job environment not set: x"),
              "+ notes: job environment not set: x"),
    "ranks": (lambda r: r.update(ranks=[_rank(r, exit_code=1)]), "~ ranks[0].exit_code: - -> 1"),
    "rank_differences": (lambda r: r.update(rank_differences=[{
        "configuration": 1, "level": "global", "option": "precision_mode",
        "values": {"0": "a", "1": "b"}}]), "+ rank_differences: global option precision_mode "
                                           "of configuration 1: rank 0='a', rank 1='b'"),
}


def _diff(capsys, tmp_path, before, after, fmt="text"):
    paths = []
    for name, data in (("a.json", before), ("b.json", after)):
        paths.append(str(tmp_path / name))
        with open(paths[-1], "w", encoding="utf-8") as fh:
            json.dump(data, fh)
    code = cli.main(["diff", "--format", fmt] + paths)
    out = capsys.readouterr().out
    return code, (json.loads(out) if fmt == "json" else out.splitlines())


def test_diff_compares_every_top_level_field_or_says_why_not(capsys, tmp_path):
    rows = _schema_rows()
    base = _base()
    assert list(base) == [k for k in rows if k not in ("ranks", "rank_differences")]
    ignored_top = {name.split(".")[0].split("[")[0] for name in report_diff.IGNORED}
    for key in rows:
        if key in report_diff.IGNORED:
            assert report_diff.IGNORED[key].strip(), key
            continue
        assert key in CHANGE, (
            "docs/report_schema.md field %r: diff neither compares it (report_diff, and a change "
            "in CHANGE here) nor says why not (report_diff.IGNORED)" % key)
        after = copy.deepcopy(base)
        CHANGE[key][0](after)
        code, lines = _diff(capsys, tmp_path, base, after)
        assert code == 1 and any(l.startswith(CHANGE[key][1]) for l in lines), (key, lines)
        code, lines = _diff(capsys, tmp_path, after, base)   # and back: went away
        assert code == 1 and len(lines) > 2, (key, lines)
    # partly compared fields (script, ranks) name the parts they leave out, parts that exist
    for name in report_diff.IGNORED:
        top, _, part = name.partition(".")
        top = top.split("[")[0]
        assert top in rows, name
        if part:
            assert "`%s`" % part in rows[top], name
    # what is ignored makes no difference
    after = copy.deepcopy(base)
    after.update(created="2000-01-01T00:00:00Z", command="other", version=1)
    after["script"].update(path="/x/s.py", cwd="/x")
    after["environment"]["set"]["JOB_ID"] = "2"
    after["summary"]["infos"] = 7
    assert _diff(capsys, tmp_path, base, after)[0] == 0
    with_ranks = dict(copy.deepcopy(base), ranks=[_rank(base)])
    after = dict(copy.deepcopy(base), ranks=[_rank(base, address="127.0.0.1:2", output_tail=["x"],
                                                   report={"a": 1})])
    assert _diff(capsys, tmp_path, with_ranks, after)[0] == 0
    assert ignored_top <= set(rows)


def test_diff_lists_what_appeared_and_what_went_away(capsys, tmp_path):
    before, after = _base(), _base()
    before["not_planned"] = ["Session#1: ValueError: boom", "Session#2: OSError: x"]
    after["not_planned"] = ["Session#2: OSError: x"]
    after["not_captured"] = ["Session#1: partial_run: 2 run(s)"]
    after["unattached"] = [dict(_finding(after), rank=1)]
    code, lines = _diff(capsys, tmp_path, before, after)
    assert code == 1
    assert lines[2:] == [
        "+ unattached: warning NPB104 [input_fusion_size] (rank 1): input_fusion_size=67108864 "
        "is outside [0, 33554432] bytes; clamped to 33554432 as the real adapter does",
        '    fix: parameter_map["input_fusion_size"].i = 33554432',
        "- not_planned: Session#1: ValueError: boom",
        "+ not_captured: Session#1: partial_run: 2 run(s)"], lines
    code, data = _diff(capsys, tmp_path, before, after, "json")
    assert code == 1 and data["lists"]["not_planned"] == {
        "new": [], "gone": ["Session#1: ValueError: boom"]}
    assert data["lists"]["not_captured"]["new"] == ["Session#1: partial_run: 2 run(s)"]
    assert set(data["lists"]) == {"not_planned", "not_captured", "unattached"}
