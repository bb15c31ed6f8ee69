"""ge.exec.atomicCleanPolicy (atomic_clean_policy, MemoryConfig) in GE's plan.

0 (clean together): AtomicAddrCleanPass links every atomic node to one memset node
(atomic_addr_clean_pass.cc HandleNormalGraph L213-250); the block assigner skips their atomic
outputs and workspaces (block_mem_assigner.cc IsAtomicOutputMemory L2095-2129, L2472-2475) and
AtomicMemoryAssigner lays them out after the reusable region, each 512-aligned, never reused
(atomic_memory_assigner.cc ReAssignAtomicMemory L96-146, AssignAtomicOutputMemory L711-800).
1 (clean separately): IsNeedCleanNode (L459-500) sets need_gentask_atomic instead of linking
a memset node, so the same memory stays in the reusable region and is reused; the seed page
says policy 1 lowers memory markedly when memset memory is large.
"""
import contextlib
import io
import json

from npu_bridge.ge import mem_assign
from npu_bridge.ge.ge_graph import GeGraph
from npu_bridge.tools import cli

CASE = {"nodes": [
    {"name": "A", "type": "Op", "outputs": [4096], "attrs": {"atomic_output_index": [0]}},
    {"name": "B", "type": "Op", "inputs": 1, "outputs": [4096]},
    {"name": "C", "type": "Op", "inputs": 1, "outputs": [4096], "workspace": [2048],
     "attrs": {"atomic_output_index": [0], "atomic_workspace_info": {"C": {"0": 2048}}}},
    {"name": "D", "type": "Op", "inputs": 1, "outputs": [4096]}],
    "edges": [["A", 0, "B", 0], ["B", 0, "C", 0], ["C", 0, "D", 0]], "options": {}}


def _plan(policy):
    case = dict(CASE, options={"ge.exec.atomicCleanPolicy": policy})
    return mem_assign.assign(GeGraph.from_case(case))


def test_policy_0_lays_memset_memory_out_after_the_reusable_region():
    # reusable: B, then D takes B's freed block (same size): 4096. Atomic: A 4096, C 4096,
    # C's workspace 2048, each 512-aligned, in graph order: 10240 after the reusable region.
    a = _plan("0")
    assert (a.reusable, a.atomic, a.zero_copy, a.total_hbm) == (4096, 10240, 0, 14336)
    placed = {(t.node, t.kind): (t.offset, t.region) for t in a.tensors}
    assert placed[("A", "out")] == (4096, "atomic")
    assert placed[("C", "out")] == (8192, "atomic")
    assert placed[("C", "ws")] == (12288, "atomic")
    assert a.theory_min == 4096 + 10240        # GE adds the atomic bytes (L788)


def test_policy_1_keeps_memset_memory_reusable():
    # A [0,1], B [1,2], C [2,3] + its workspace [2], D [3,-]: C takes A's freed block, D
    # B's; the workspace a block of its own: 4096 + 4096 + 2048.
    a = _plan("1")
    assert (a.reusable, a.atomic, a.total_hbm) == (10240, 0, 10240)
    assert all(t.region == "reusable" for t in a.tensors)


def test_memory_command_shows_the_policy_effect(tmp_path):
    path = tmp_path / "atomic.json"
    path.write_text(json.dumps(dict(CASE, options={"ge.exec.atomicCleanPolicy": "0"})))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["memory", "--graph", str(path), "--format", "json"]) == 0
    effect = json.loads(out.getvalue())["effects"]["atomic clean 1"]
    assert effect == {"options": {"ge.exec.atomicCleanPolicy": "1"}, "total_hbm": 10240,
                      "strategy": "binary-block", "atomic": 0}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["memory", "--graph", str(path)]) == 0
    assert "atomic clean 1:              total_hbm 10240 (-4096) atomic region 0" in \
        out.getvalue()
