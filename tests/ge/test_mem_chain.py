"""mem_chain: the level-2 walk passes a chain of nested blocks at once, with GE's result.

The chain summary is a speed-up only: a walk that jumps must end exactly as the walk that
tries every member (AddLifeReuseBlock, memory_block.cc L486-572). Checked here on hand-made
chains (where the jump lands) and on generated graphs (whole plans with and without jumps,
the jumps counted so the comparison is not empty).
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))

import _memplan_corpus as corpus  # noqa: E402
import gen_memgraph  # noqa: E402
from npu_bridge.ge import mem_block as mb  # noqa: E402
from npu_bridge.ge import mem_chain as mc  # noqa: E402
from npu_bridge.ge import memory_graph  # noqa: E402
from npu_bridge.ge import memory_plan as mp  # noqa: E402

SIZE = 4096


def _block(lives, size=SIZE, name="b"):
    b = mb.Block(size)
    for k, (begin, end) in enumerate(lives):
        t = mb.Tenant("%s_%d" % (name, k), begin, "out", 0, begin=begin)
        t.end = end
        b.add_tenant(t, size, size)
    return b


def _nest(parent, child):
    parent.children.append(child)
    parent.child_offset += child.align_size()
    child.child_block = True
    mb._nested(parent, child)


def _chain(n, size=SIZE):
    """n blocks, block k living [100k + 10, 100k + 20], each nested in the one before."""
    blocks = [_block([(100 * k + 10, 100 * k + 20)], size, "m%d" % k) for k in range(n)]
    for a, b in zip(blocks, blocks[1:]):
        _nest(a, b)
    return blocks


def test_jump_lands_before_the_first_member_crossed():
    blocks = _chain(12)
    # lives inside member 7's [710, 720]: members 1-6 are passed, 7 must be tried
    walker = _block([(30, 40), (715, 716)], name="w")
    to = mc.jump(blocks[0], 1, mc.spans(walker), SIZE - mb.MEM_ALIGN, 0, 0, 0)
    assert to == (blocks[6], 7)
    # crossing nothing: to the last member, whose child (the bottom) is tried as usual
    walker = _block([(30, 40), (1500, 1600)], name="w")
    to = mc.jump(blocks[0], 1, mc.spans(walker), SIZE - mb.MEM_ALIGN, 0, 0, 0)
    assert to == (blocks[10], 11)
    # crossing member 2: too few members to pass
    walker = _block([(210, 230)], name="w")
    assert mc.jump(blocks[0], 1, mc.spans(walker), SIZE - mb.MEM_ALIGN, 0, 0, 0) is None


def test_jump_stops_at_the_depth_limit_at_room_and_at_other_streams():
    blocks = _chain(12)
    walker = _block([(30, 40)], name="w")
    fit = SIZE - mb.MEM_ALIGN
    # the walk is at depth 95: the member at depth 100 is tried (not passed)
    assert mc.jump(blocks[0], 95, mc.spans(walker), fit, 0, 0, 0) == (blocks[4], 99)
    # a member with room for the block (its child is smaller) is never passed over
    wide = _block([(100 * 12 + 10, 100 * 12 + 20)], 4 * SIZE, "wide")
    small = _block([(100 * 13 + 10, 100 * 13 + 20)], SIZE, "small")
    _nest(blocks[-1], wide)
    _nest(wide, small)
    _nest(small, _block([(100 * 14 + 10, 100 * 14 + 20)], SIZE, "tail"))
    ch = mc.chain_of(blocks[0])
    assert ch.members[-1] is small and ch.rooms == [(12, 3 * SIZE)]
    assert mc.jump(blocks[0], 1, mc.spans(walker), fit, 0, 0, 0) == (wide, 13)
    # another stream or memory type: no jump
    assert mc.jump(blocks[0], 1, mc.spans(walker), fit, 0, 1, 0) is None
    assert mc.jump(blocks[0], 1, mc.spans(walker), fit, 0, 0, 2) is None


def test_chain_is_extended_by_a_new_bottom_and_dropped_by_a_second_child():
    blocks = _chain(6)
    ch = mc.chain_of(blocks[2])
    assert ch.members == blocks[:5] and blocks[2].ci == 2
    # the bottom's first child makes it the next member
    extra = _block([(515, 530), (600, 610)], name="x")
    _nest(blocks[-1], extra)
    assert ch.members == blocks and not ch.dead
    assert (ch.lbs[-1], ch.ends[-1], ch.lab[-1]) == (510, 520, 5)
    # lives of two members overlapping (allowed by an alias): one run, the smaller index
    _nest(extra, _block([(9000, 9001)], name="y"))
    assert ch.members == blocks + [extra]
    assert (ch.lbs[-2:], ch.ends[-2:], ch.lab[-2:]) == ([510, 600], [530, 610], [5, 6])
    # a second child: the path changes, the chain is built anew from its head
    _nest(blocks[3], _block([(9000, 9001)], name="side"))
    assert ch.dead
    again = mc.chain_of(blocks[1])
    assert again is not ch and again.members == blocks[:3]
    assert mc.chain_of(blocks[4]).members == blocks[4:] + [extra]


def _graphs():
    yield "generated/1500/4", memory_graph.to_ge_graph(
        memory_graph.fold_constants(gen_memgraph.generated_graph(1500, 4)),
        mp.MemoryOptions(train=True), mp.Assumptions()), None
    yield "train/1500/6", gen_memgraph.training_graph(1500, 6), None
    yield "medium/2001", *corpus.random_graph(2001, 260)


@pytest.mark.parametrize("name,graph,env", list(_graphs()), ids=lambda x: x
                         if isinstance(x, str) else "")
def test_plans_with_and_without_jumps_are_the_same(monkeypatch, name, graph, env):
    jumps = []
    real = mc.jump

    def counted(*args):
        to = real(*args)
        jumps.append(to is not None)
        return to
    monkeypatch.setattr(mc, "jump", counted)
    fast = corpus.record(graph, env)
    monkeypatch.setattr(mc, "MIN_SKIP", 10 ** 6)     # every member tried one by one
    slow = corpus.record(graph, env)
    assert fast == slow
    if not name.startswith("medium"):
        assert sum(jumps) > 10, "no chain was passed: the comparison shows nothing"
