"""Chains of nested blocks, so the level-2 walk can pass a run of them at once (no
TensorFlow; not GE's: a speed-up that keeps GE's result exactly).

GE's AddLifeReuseBlock (memory_block.cc L486-572, hicann/ge ffdcbc9) walks a block down the
tree of blocks nested at level 2, up to kMaxDepthNum (100) deep. Nested blocks of one size
form long chains (each block's only child is the next), and a block that crosses none of a
chain's blocks walks the chain to its end, trying each one. A `Chain` keeps, for such a
path, what decides those visits, so `jump` finds in O(tenants log n) the first block of the
chain where anything can happen; the walk goes on from its parent.

A chain member `Y` (a block with exactly one child, `Y.children[0].up is Y`) is passed
unchanged by a walking block `B` (the walk descends into it, no block changes) when:
- `Y` is plain: reusable, tenants, not continuous or zero-copy, no block-type attributes,
  one stream (same_stream, no other-stream life end), `B`'s memory type and stream;
- no tenant of `B` crosses a tenant of `Y` (CrossLifeTime, mb L107-127): then either
  CanBlockLifeReuse holds or CanIntervalLifeReuse (mb L211-272) moves nothing and passes;
- the walk's room pruning (`mem_block.walk_need`) does not stop there.
A skipped member's own fit test (child_offset + size <= AlignSize + 512, tried when the
walk comes back up) must fail too: members with room for `B` are never skipped.
Times are op ids; sizes bytes.
"""
import bisect

MAX_DEPTH = 100                   # kMaxDepthNum (memory_block.h)
MIN_SKIP = 3                      # a jump over fewer members costs more than the visits


class Chain:
    """The members Y_0..Y_{m-1} of a path of single-child blocks (the child of Y_{m-1},
    the bottom, is not a member), and what `jump` reads: the union of the members' tenant
    lives as disjoint runs (`lbs`, `ends`, each run's smallest member index in `lab`), the
    indexes of members that are not plain, the members with fit room (index, bytes).
    `dead` once a member gains a second child (its room and the path change)."""
    __slots__ = ("members", "lbs", "ends", "lab", "nonplain", "rooms", "stream", "mtype",
                 "dead", "ok")

    def __init__(self, members, ok=True):
        self.members = []
        self.lbs, self.ends, self.lab = [], [], []
        self.nonplain, self.rooms = [], []
        head = members[0] if members else None
        self.stream = head.stream if head is not None else None
        self.mtype = head.memory_type if head is not None else None
        self.dead = False
        self.ok = ok
        spans = []
        for k, y in enumerate(members):
            self._member(y, k)
            for t in y.tenants:
                lo, hi = (t.lb, t.end) if t.lb <= t.end else (t.end, t.lb)
                spans.append((lo, hi, k))
        spans.sort()
        lbs, ends, lab = self.lbs, self.ends, self.lab
        for lo, hi, k in spans:
            if ends and lo <= ends[-1]:           # overlaps the last run: one run
                if hi > ends[-1]:
                    ends[-1] = hi
                if k < lab[-1]:
                    lab[-1] = k
            else:
                lbs.append(lo)
                ends.append(hi)
                lab.append(k)

    def _member(self, y, k):
        self.members.append(y)
        if self.ok:
            y.chain, y.ci = self, k
        tt = y.tenants
        if (not y.reuse_mem or not tt or y.continuous or y.is_zero_copy or y._attrs
                or not y.same_stream or tt[-1].diff_life or y.memory_type != self.mtype
                or y.stream != self.stream):
            self.nonplain.append(k)
        room = y.align_size() - y.child_offset
        if room > 0:
            self.rooms.append((k, room))

    def extend(self, y):
        """The bottom `y` got its first child: it is the next member."""
        k = len(self.members)
        self._member(y, k)
        lbs, ends, lab = self.lbs, self.ends, self.lab
        for t in y.tenants:
            lo, hi = (t.lb, t.end) if t.lb <= t.end else (t.end, t.lb)
            q = bisect.bisect_left(ends, lo)       # the first run ending at or after lo
            r = bisect.bisect_right(lbs, hi, q)    # runs from q starting by hi overlap
            if q == r:
                lbs.insert(q, lo)
                ends.insert(q, hi)
                lab.insert(q, k)
            else:
                lo, hi = min(lo, lbs[q]), max(hi, ends[r - 1])
                low = min(lab[q:r])
                lbs[q:r], ends[q:r], lab[q:r] = [lo], [hi], [low]


def solo_life(block):
    """(begin, end, stream, memory type) of a block whose level-2 pairing with a plain
    parent whose tenants it crosses changes nothing (one tenant, not an alias, begin <=
    end, one stream, not continuous or zero-copy: CanBlockLifeReuse fails, and
    CanIntervalLifeReuse refuses a lone crossing tenant), else False. Cached on the block
    until its tenants or life end change (`Block._solo`)."""
    tt = block.tenants
    out = False
    if len(tt) == 1 and block.same_stream and not block.continuous and not block.is_zero_copy:
        t = tt[0]
        if not t.ref_input and not t.diff_life and t.lb <= t.end:
            out = (t.lb, t.end, block.stream, block.memory_type)
    block._solo = out
    return out


def _link(y):
    """The child `y` passes the walk to when it is a chain member, else None."""
    kids = y.children
    if len(kids) == 1 and kids[0].up is y:
        return kids[0]
    return None


def chain_of(x):
    """The live chain `x` (a block with one child) is a member of, built when missing."""
    ch = x.chain
    if ch is not None and not ch.dead:
        return ch
    head = x
    while True:
        p = head.up
        if p is None or _link(p) is not head:
            break
        head = p
    members = []
    y = head
    while True:
        c = _link(y)
        if c is None:
            break
        members.append(y)
        y = c
    if x not in members:          # x's child is not its own (a zero-copy nesting)
        ch = Chain([], ok=False)
        x.chain = ch
        return ch
    return Chain(members)


def nested(parent, child):
    """After `child` is nested into `parent` (`child.up` set): the chain `parent` was a
    member of is dead (a second child); a bottom that got its first child extends its
    chain."""
    ch = parent.chain
    if ch is not None:
        ch.dead = True
        parent.chain = None
        return
    if len(parent.children) != 1 or child.up is not parent:
        return
    up = parent.up
    if up is None:
        return
    ch = up.chain
    if ch is not None and not ch.dead and ch.ok and ch.members[-1] is up \
            and _link(up) is parent:
        ch.extend(parent)


def spans(block):
    """The block's tenant lives as sorted disjoint runs [(lo, hi)] (inclusive op ids)."""
    out = []
    for t in sorted((t.lb, t.end) if t.lb <= t.end else (t.end, t.lb) for t in block.tenants):
        if out and t[0] <= out[-1][1]:
            if t[1] > out[-1][1]:
                out[-1] = (out[-1][0], t[1])
        else:
            out.append(t)
    return out


def jump(x, d, b_spans, fit_need, need, stream, mtype):
    """Where a walk at chain member `x` (walk depth `d` < kMaxDepthNum) of a block with
    runs `b_spans` (`spans`) may go on: (Y, its walk depth) for the member Y whose child
    is the first block the walk must try itself, or None (no members to pass). The caller
    has checked the block is not continuous or zero-copy and lives on one stream.
    fit_need: the fit room (bytes) the block needs, its size less the 512-byte padding;
    need: the walk's room pruning (0 or None for none); stream, mtype: the block's."""
    ch = chain_of(x)
    if not ch.ok or ch.stream != stream or ch.mtype != mtype:
        return None
    s = x.ci
    # the members from s + 1 on the walk tries; stop at the bottom, at depth 100 (tried,
    # not descended), at a member not plain, one past a member with room
    u = len(ch.members)
    lim = s + MAX_DEPTH - d
    if lim < u:
        u = lim
    nonplain = ch.nonplain
    if nonplain:
        q = bisect.bisect_right(nonplain, s)
        if q < len(nonplain) and nonplain[q] < u:
            u = nonplain[q]
    for k, room in ch.rooms:
        if k > s and room >= fit_need:
            if k + 1 < u:
                u = k + 1
            break
    if u < s + MIN_SKIP:
        return None
    lbs, ends, lab = ch.lbs, ch.ends, ch.lab
    n = len(ends)
    if n:
        left, right = bisect.bisect_left, bisect.bisect_right
        first, last = lbs[0], ends[-1]
        for lo, hi in b_spans:
            if hi < first:
                continue
            if lo > last:
                break
            q = left(ends, lo)
            if q < n and lbs[q] <= hi:
                r = right(lbs, hi, q)
                k = min(lab[q:r]) if r - q > 1 else lab[q]
                if k < u:
                    if k <= s + 1:
                        return None     # crossed at once (or above: not this walk's path)
                    u = k
    if u < s + MIN_SKIP:
        return None
    y = ch.members[u - 1]
    if need and y.room < need:
        return None               # the room pruning stops the walk on the way
    return y, d + (u - 1 - s)
