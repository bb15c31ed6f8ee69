"""`npu-bridge run` / `npu-bridge partition` on training scripts with host ops
(tests/partition_scripts/): the partition and the diagnostics the adapter's pass implies for
each (docs/partition.md), as the JSON report and the summary give them."""
import json
import os

import pytest

import _pool
from tests.run_cli import REPO, run as run_cli

SCRIPTS = os.path.join(REPO, "tests", "partition_scripts")
# a complete supported-op list for p1 --string: the model's op types, not the two string ops
MODEL_OPS = ("Const VariableV2 Identity Assign RandomUniform Sub Mul AddV2 Add NoOp MatMul Relu "
             "ReluGrad Mean Square Fill Reshape Tile RealDiv Neg ApplyGradientDescent Shape Sum "
             "Cast Prod Maximum FloorDiv BroadcastGradientArgs Placeholder").split()


def report(tmp_path, script, *args, opts=()):
    path = tmp_path / "report.json"
    proc = run_cli(list(opts) + ["--report", str(path), os.path.join(SCRIPTS, script)] + list(args),
                   cwd=str(tmp_path), timeout=300)
    assert proc.stdout.strip().splitlines()[-1].startswith("ok"), proc.stdout + proc.stderr
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    (conf,) = data["configurations"]
    return conf, proc


def _string_with_ops_file(tmp_path):
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps({op: {"isGray": False} for op in MODEL_OPS}))
    return report(tmp_path, "p1_pyfunc_train.py", "--string", opts=("--supported-ops", str(ops))), ops


# Every `npu-bridge run` the tests read (a TensorFlow start each): started two at a time by the
# `runs` fixture; p2's plain run is read by two tests and run once.
_JOBS = {
    "p1": lambda tmp: report(tmp, "p1_pyfunc_train.py"),
    "p1_mix": lambda tmp: report(tmp, "p1_pyfunc_train.py", "--mix"),
    "p1_string": _string_with_ops_file,
    "p2": lambda tmp: report(tmp, "p2_without_compile.py"),
    "p2_emulate": lambda tmp: report(tmp, "p2_without_compile.py",
                                     opts=("--product", "atlas-training", "--precision", "emulate")),
    "p3": lambda tmp: report(tmp, "p3_mix_lookup.py"),
    "p4": lambda tmp: report(tmp, "p4_loop_host_op.py"),
    "p8": lambda tmp: report(tmp, "p8_graph_names.py"),
    "p8_memory": lambda tmp: _memory_cli(tmp, os.path.join(SCRIPTS, "p8_graph_names.py")),
}
for _it, _dp in (("oneshot", "dp"), ("oneshot", "nodp"), ("init", "nodp")):
    _JOBS["p7_%s_%s" % (_it, _dp)] = (
        lambda tmp, _it=_it, _dp=_dp: report(tmp, "p7_loop_iterators.py", _it, _dp))
_NEEDS = {
    "test_py_func_in_the_model_full_offload": ("p1",),
    "test_py_func_in_the_model_mix_compile": ("p1_mix",),
    "test_string_op_decided_by_a_supported_ops_file": ("p1_string",),
    "test_without_npu_compile_scope_under_mix_compile": ("p2",),
    "test_lookup_table_under_mix_compile": ("p3",),
    "test_iterations_per_loop_10_with_a_host_op_in_the_loop": ("p4",),
    "test_each_graph_one_name_and_one_count_in_run_memory_and_partition": ("p8", "p8_memory"),
    "test_precision_emulation_ops_are_not_the_scripts": ("p2", "p2_emulate"),
}


def _needs(item):
    if item.originalname == "test_one_cause_beside_the_loop_is_one_finding":
        return ("p7_%s_%s" % (item.callspec.params["iterator"], item.callspec.params["dp"]),)
    return _NEEDS.get(item.originalname, ())


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    yield from _pool.prestart(request, tmp_path_factory, _JOBS, _needs)


def train_graph(conf):
    """The partition of the training step (the graph that applies gradients)."""
    (part,) = [p for p in conf["partition"] if any(
        t.startswith("Apply") for g in p["geops"] for t in g["op_types"])
        or any(h["op"].startswith("Apply") for h in p["host_ops"])]
    return part


def host(part, rule=None):
    return {h["name"] for h in part["host_ops"] if h["rule"] != "boundary"
            and (rule is None or h["rule"] == rule)}


def test_py_func_in_the_model_full_offload(runs):
    conf, proc = runs["p1"]
    part = train_graph(conf)
    assert host(part, "not_supported") == {"clip"}
    assert host(part, "not_merged") == {"w1", "w1/read", "MatMul", "hidden"}
    assert len(part["geops"]) == 1
    assert part["transfers_per_step"]["to_device"] == {"count": 2, "bytes": 8 * 16 * 4 + 8 * 4,
                                                       "unknown_bytes": 0}
    assert "default list" in part["ops_list"] and "MatMul" in part["unknown_ops"]
    codes = [d["code"] for d in conf["diagnostics"]]
    assert codes.count("NPB197") == 1
    assert "partition %s: 1 GeOp(s)" % part["graph"] in proc.stderr


def test_py_func_in_the_model_mix_compile(runs):
    conf, _ = runs["p1_mix"]
    part = train_graph(conf)
    assert host(part) == {"clip"} and len(part["geops"]) == 2
    assert not any(d["code"] == "NPB197" for d in conf["diagnostics"])


def test_string_op_decided_by_a_supported_ops_file(runs):
    (conf, _), ops = runs["p1_string"]
    part = train_graph(conf)
    assert host(part, "not_supported") == {"as_text", "from_text"}
    assert part["unknown_ops"] == [] and part["ops_list"] == "file " + str(ops)
    assert "w1" in host(part, "not_merged")


def test_without_npu_compile_scope_under_mix_compile(runs):
    conf, _ = runs["p2"]
    part = train_graph(conf)
    assert {h["name"]: h["rule"] for h in part["host_ops"] if h["rule"] != "boundary"} == {
        "host_relu": "without_npu_compile"}
    assert len(part["geops"]) == 2
    ins = [t["src"] for g in part["geops"] for t in g["inputs"]]
    assert "host_relu:0" in ins


def test_lookup_table_under_mix_compile(runs):
    conf, _ = runs["p3"]
    part = train_graph(conf)
    assert host(part, "resource") == {"hash_table", "hash_table_Lookup/LookupTableFindV2"}
    assert len(part["geops"]) == 1
    assert any("ApplyAdam" in g["op_types"] for g in part["geops"])


def test_iterations_per_loop_10_with_a_host_op_in_the_loop(runs):
    conf, _ = runs["p4"]
    part = train_graph(conf)
    assert host(part, "not_supported") == {"host_tanh"}
    assert {"IteratorV2", "IteratorGetNext"} <= host(part, "not_merged")
    codes = {d["code"] for d in conf["diagnostics"]}
    assert {"NPB197", "NPB198", "NPB174"} <= codes
    init = [p for p in conf["partition"] if p is not part]
    assert init and {h["rule"] for h in init[0]["host_ops"]} == {"dataset_init"}


def test_partition_command_prints_rules_and_sources(tmp_path):
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "partition",
                           os.path.join(SCRIPTS, "p2_without_compile.py")], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "host_relu (Relu): without_npu_compile [hicann/tensorflow" in out
    assert "supported-op list: default list" in out
    bad = subprocess.run([sys.executable, "-m", "npu_bridge", "partition", "--supported-ops",
                          str(tmp_path / "none.json"), os.path.join(SCRIPTS, "p2_without_compile.py")],
                         cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "none.json" in bad.stderr


@pytest.mark.parametrize("iterator,dp,code", [("oneshot", "dp", "NPB172"),
                                               ("oneshot", "nodp", "NPB172"),
                                               ("init", "nodp", "NPB172")])
def test_one_cause_beside_the_loop_is_one_finding(runs, iterator, dp, code):
    # a OneShotIterator with iterations_per_loop != 1 aborts the real adapter
    # (om_partition_subgraphs_pass.cc:2440-2443): NPB172 names that cause and its fix; its
    # IteratorGetNext beside the loop's GeOp is not NPB198 too (both fired for it)
    conf, _ = runs["p7_%s_%s" % (iterator, dp)]
    codes = [d["code"] for d in conf["diagnostics"] if d["code"] in ("NPB172", "NPB198")]
    assert codes == [code]


def _memory_cli(tmp_path, script):
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run([sys.executable, "-m", "npu_bridge", "memory", script],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_each_graph_one_name_and_one_count_in_run_memory_and_partition(runs):
    # TensorFlow builds one executor per set of fetch, feed and target names (the order and
    # the spelling of a fetch aside), the adapter's pass makes new GeOps for each
    # (GeOp<n>_k, n bumped per pass run: om_partition_subgraphs_pass.cc:2357) and each GeOp
    # kernel adds a GE graph of its own (geop_npu.cc:845-860, :1126-1151)
    conf, proc = runs["p8"]
    parts = [p["graph"] for p in conf["partition"]]
    # initializer, dataset initializer, step read, training with 2 fetch sets
    assert parts == ["Session#1/%d" % i for i in range(1, 6)], parts
    (init,) = [p for p in conf["partition"] if not p["geops"]]
    assert init["graph"] == "Session#1/2"
    assert {h["rule"] for h in init["host_ops"]} == {"dataset_init"}
    graphs = [g["name"] for g in conf["memory"]["graphs"]]
    assert graphs == [p for p in parts if p != "Session#1/2"]
    roles = [g["role"] for g in conf["memory"]["graphs"]]
    assert roles.count("training step") == 2
    # the run summary and the memory command show and fold the same graphs
    run_folded = [l for l in proc.stderr.splitlines() if "more graph" in l and "memory:" in l]
    mem_out = runs["p8_memory"]
    mem_folded = [l for l in mem_out.splitlines() if "more graph" in l]
    assert len(run_folded) == 1 and len(mem_folded) == 1, (proc.stderr, mem_out)
    assert run_folded[0].split("more graphs")[0].split()[-1] == \
        mem_folded[0].split("more graphs")[0].split()[-1]
    assert run_folded[0].split(": ")[2] == mem_folded[0].split(": ")[1]
    shown_run = {l.split("graph ")[1].split(" ")[0] for l in proc.stderr.splitlines()
                 if l.startswith("  memory: graph ")}
    shown_mem = {l.split("graph ")[1].split(" ")[0] for l in mem_out.splitlines()
                 if l.startswith("  graph ")}
    assert shown_run == shown_mem == {"Session#1/4", "Session#1/5"}


def test_precision_emulation_ops_are_not_the_scripts(runs):
    # `--precision emulate` adds Cast round trips and max|x| ops of its own
    # (npu_bridge/hooks/precision_emulation.py): the adapter never sees them
    plain = train_graph(runs["p2"][0])
    conf, _ = runs["p2_emulate"]
    emulated = train_graph(conf)
    rounded = sum(g.get("rounded_tensors") or 0 for g in conf["precision"]["graphs"])
    assert rounded > 0, conf["precision"]   # the emulation did round tensors here
    assert [(g["ops"], g["op_types"]) for g in emulated["geops"]] == \
        [(g["ops"], g["op_types"]) for g in plain["geops"]]
    assert host(emulated) == host(plain)
    names = [t["src"] for g in emulated["geops"] for t in g["inputs"] + g["outputs"]]
    assert not [n for n in names if n.startswith("npu_precision/")]
