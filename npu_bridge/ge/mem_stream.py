"""GE's multi-stream memory rules (no TensorFlow): each node's stream for memory reuse, the
stream dependency edges, and the life times they give.

A paraphrase of hicann/ge ffdcbc9, compiler/graph/build/memory/ ("bma" =
block_mem_assigner.cc, "bms" = block_mem_stream.cc, "mrs" = mem_reuse_strategy.cc):
- the stream a node's memory belongs to (MemReuseUtils::GetStreamId, mrs L36-50): the node's
  stream, or the sub-stream HybridMemAssigner's preparation gives it: a graph input of no
  stream takes its consumers' one stream (bma SetRealStreamIdForDataNode L417-442), and a
  single-consumer detour through other streams that comes straight back takes the stream it
  left (MemReuseStrategy::OptimizeDiffStream mrs L303-321, GetDiffStreamNodes L242-284);
- the stream dependency edges (bma GetDiffStreamEdgeLife L369-404, InsertStreamInEdge L251-298,
  AddInStreamEdge L322-362, bms EraseIntersectedEdge L257-272, HandleInStreamRedundantDependence
  L88-114, bma InsertStreamOutEdge L224-237): `in_edges[dst stream][src stream]` is GE's
  std::set of (node id, peer node id) ordered and made unique by node id;
- life times across streams: GetDiffStreamMinLifeTime (bms L40-75), GetDiffStreamMaxLifeTime
  (bms L116-143), GetNodeMaxLifeBySymbol (bms L145-194).
Times are op ids (positions in GE's topological order).
"""
import bisect

INVALID_STREAM = -1                 # kInvalidStreamId
MAX_LIFE = 0xffffffff               # kMaxLifeTime
MIN_LIFE = 1                        # kMinLifeTime
GE_LOCAL_ENGINE = "DNN_VM_GE_LOCAL_OP_STORE"     # kEngineNameGeLocal
ATOMIC_CLEAN_TYPES = frozenset(("AtomicAddrClean", "MemSet"))   # NodeUtils::IsLikeAtomicClean
MERGE_TYPES = frozenset(("StreamMerge", "Merge"))               # MemReuseUtils::IsMergeNode


class EdgeSet:
    """std::set<EdgeLife, CompareEdgeLife>: (node_id, peer_node_id) pairs, sorted and unique
    by node_id."""
    __slots__ = ("ids", "peer")

    def __init__(self):
        self.ids, self.peer = [], {}

    def __len__(self):
        return len(self.ids)

    def insert(self, node_id, peer_id):
        """Insert unless an edge with this node id is there (std::set::insert)."""
        if node_id in self.peer:
            return False
        bisect.insort(self.ids, node_id)
        self.peer[node_id] = peer_id
        return True

    def erase(self, node_id):
        if node_id in self.peer:
            del self.peer[node_id]
            self.ids.remove(node_id)

    def lower_bound(self, node_id):
        """Index of the first edge whose node id is >= node_id (len(self) if none)."""
        return bisect.bisect_left(self.ids, node_id)

    def at(self, k):
        nid = self.ids[k]
        return nid, self.peer[nid]

    def items(self):
        return [(n, self.peer[n]) for n in self.ids]


class Streams:
    """The streams and stream edges of one planned graph, built from a `Prepared`
    (block_assigner) in GE's order. `single` is True when every node's memory is on one
    stream: the rules below then reduce to the one-stream ones."""

    def __init__(self, prep):
        self.p = prep
        self.stream = {n.name: n.stream for n in prep.graph.nodes}
        self.in_edges, self.out_edges = {}, {}
        self.single = len(set(self.stream.values())) <= 1
        if self.single:
            return
        self._succ = {n.name: [] for n in prep.graph.nodes}
        self._ctrl = {}
        for src, dst in prep.graph.control:
            self._ctrl.setdefault(src, []).append(dst)
        self._n_in = {n.name: 0 for n in prep.graph.nodes}
        for src, _, dst, _ in prep.graph.edges:
            self._succ[src].append(dst)
            self._n_in[dst] += 1
        for nm in prep.order:                 # PreparationForAssign (bma L503-510)
            self._data_stream(nm)
            self._optimize_diff_stream(nm)
        self.single = len(set(self.stream.values())) <= 1
        excluded = self._merge_streams()
        for nm in prep.order:                 # GetOutAndWorkSpaceMem (bma L512-573)
            self._edge_life(nm, excluded)
        for srcs in self.in_edges.values():
            for edges in srcs.values():
                _drop_redundant(edges)
        for dst, srcs in self.in_edges.items():
            for src, edges in srcs.items():
                out = self.out_edges.setdefault(src, {}).setdefault(dst, EdgeSet())
                for node_id, peer_id in edges.items():
                    out.insert(peer_id, node_id)

    # ------------------------------------------------------------ streams
    def ge_local(self, nm):
        return self.p.by[nm].engine == GE_LOCAL_ENGINE

    def _data_stream(self, nm):
        """SetRealStreamIdForDataNode (bma L417-442)."""
        from npu_bridge.ge.ge_graph import DATA_TYPES
        node = self.p.by[nm]
        if node.type not in DATA_TYPES or self.stream[nm] != INVALID_STREAM:
            return
        peers = {self.stream[d] for d, _ in self.p.out_peers.get((nm, 0), ())}
        if len(peers) == 1:
            self.stream[nm] = peers.pop()

    def _diff_stream_nodes(self, nm, stream):
        """GetDiffStreamNodes (mrs L242-284): (ok, back to the same stream, detour, tail id)."""
        stack, detour = [nm], []
        while stack:
            t = stack.pop()
            outs = self._succ[t]
            if len(outs) == 1 and (t == nm or self._n_in[t] == 1):
                out = outs[0]
                if stream == INVALID_STREAM or self.p.by[out].type in MERGE_TYPES:
                    return False, False, detour, 0
                s = self.stream[out]
                if s == INVALID_STREAM:
                    return False, False, detour, 0
                if s != stream:
                    stack.append(out)
                    detour.append(out)
                else:
                    return True, True, detour, self.p.id[out]
        return True, False, detour, 0

    def _optimize_diff_stream(self, nm):
        """MemReuseStrategy::OptimizeDiffStream (mrs L303-321): a detour of k nodes through
        other streams that comes back right after them (tail id = own id + k + 1) runs on the
        node's stream for memory reuse."""
        stream = self.stream[nm]
        ok, back, detour, tail = self._diff_stream_nodes(nm, stream)
        if ok and back and detour and tail - self.p.id[nm] - 1 == len(detour):
            for d in detour:
                self.stream[d] = stream

    def diff_stream_prior(self, nm):
        """GetDiffStreamPrior (mrs L286-301): a detour of more than one node that comes back."""
        ok, back, detour, _ = self._diff_stream_nodes(nm, self.stream[nm])
        return ok and back and len(detour) > 1

    def _merge_streams(self):
        """GetStreamMergeAndOutStreams (bms L321-339)."""
        out = set()
        for n in self.p.graph.nodes:
            if n.type in MERGE_TYPES:
                out.add(self.stream[n.name])
                for d in self._succ[n.name] + self._ctrl.get(n.name, []):
                    out.add(self.stream[d])
        return out

    def same_out(self):
        """InitDiffStreamSameOutTable (bma L1079-1109): the producers feeding one Merge /
        StreamMerge from several streams share memory: a set of (node, output) pairs."""
        p, out = self.p, set()
        for n in p.graph.nodes:
            if n.type not in MERGE_TYPES:
                continue
            srcs = [p.in_src[(n.name, i)] for i in range(p.n_in[n.name])
                    if (n.name, i) in p.in_src]
            if len({self.stream[s] for s, _ in srcs}) > 1:
                out.update(srcs)
        return out

    # ------------------------------------------------------------ edges
    def _edge_life(self, nm, excluded):
        """GetDiffStreamEdgeLife (bma L369-404): every data or control successor on another
        stream gives an in-edge (successor id <- node id)."""
        node = self.p.by[nm]
        if node.type in ATOMIC_CLEAN_TYPES or self.ge_local(nm):
            return
        peers = []
        for i in range(len(node.outputs)):
            peers.extend(d for d, _ in self.p.out_peers.get((nm, i), ()))
        peers.extend(self._ctrl.get(nm, ()))
        s = self.stream[nm]
        for d in peers:
            ds = self.stream[d]
            if s == ds or s in excluded or ds in excluded:
                continue
            self._insert_in(self.p.id[d], self.p.id[nm], s, ds)
            self._add_in_stream_edge(d, nm)

    def _edges(self, table, a, b):
        return table.setdefault(a, {}).setdefault(b, EdgeSet())

    def _insert_in(self, node_id, peer_id, src, dst):
        """InsertStreamInEdge (bma L251-298): keep the edge of a node with the later peer."""
        edges = self._edges(self.in_edges, dst, src)
        old = edges.peer.get(node_id)
        if old is None:
            edges.insert(node_id, peer_id)
        elif old < peer_id:
            edges.erase(node_id)
            edges.insert(node_id, peer_id)

    def _add_in_stream_edge(self, nm, in_nm):
        """AddInStreamEdge (bma L322-362): what reaches in_nm's stream from a third stream
        reaches nm's stream too."""
        stream, node_id = self.stream[nm], self.p.id[nm]
        in_stream, in_id = self.stream[in_nm], self.p.id[in_nm]
        for third, in_edges in list(self.in_edges.setdefault(in_stream, {}).items()):
            if not len(in_edges) or stream == third:
                continue
            k = in_edges.lower_bound(in_id)
            if k == len(in_edges) or in_edges.ids[k] > in_id:
                if k == 0:
                    continue
                k -= 1
            new_peer = in_edges.at(k)[1]
            edges = self._edges(self.in_edges, stream, third)
            j = edges.lower_bound(node_id)
            if j != len(edges):
                old_node, old_peer = edges.at(j)
                # EraseIntersectedEdge (bms L257-272): keep the shorter of two crossing edges
                if (old_node > node_id and old_peer < new_peer) or (
                        old_node < node_id and old_peer > new_peer):
                    edges.erase(old_node)
            self._insert_in(node_id, new_peer, third, stream)

    # ------------------------------------------------------------ life times
    def min_life(self, nm, src_stream):
        """GetDiffStreamMinLifeTime (bms L40-75): the id node `nm` counts from when seen from
        `src_stream`: its own id on that stream, else the peer of the last in-edge from
        src_stream at or before it, else kMinLifeTime."""
        node_id = self.p.id[nm]
        dst = self.stream[nm]
        if dst == src_stream:
            return node_id
        edges = self.in_edges.get(dst, {}).get(src_stream)
        if edges is not None:
            k = edges.lower_bound(node_id)
            if k != len(edges):
                if edges.ids[k] > node_id and k != 0:
                    k -= 1
                if edges.ids[k] <= node_id:
                    return edges.at(k)[1]
        return MIN_LIFE

    def diff_max_life(self, nm, stream):
        """GetDiffStreamMaxLifeTime (bms L116-143): when `stream` may take the memory back
        after node nm of another stream reads it: the node after nm's next out-edge to it."""
        if self.stream[nm] == stream:
            return self.p.id[nm]
        edges = self.out_edges.get(self.stream[nm], {}).get(stream)
        if edges is None:
            return MAX_LIFE
        k = edges.lower_bound(self.p.id[nm])
        if k == len(edges):
            return MAX_LIFE
        return edges.at(k)[1]

    def max_life(self, nm, out, by_symbol=0, streams=None, stream=INVALID_STREAM):
        """GetNodeMaxLifeBySymbol (bms L145-194) for output `out` of `nm`: returns (the life
        end, the updated `by_symbol`). GE looks the symbol up by this output's own name, so an
        output that joined another's symbol (a ref output) reads only its own id. `streams`
        (a set) collects the consumers' streams (not GE-local ones)."""
        n_stream = stream if stream != INVALID_STREAM else self.stream[nm]
        life = self.p.id[nm]
        anchors = self.p.anchors.get("%s_out_%d" % (nm, out), ())
        for kind, anm, _ in anchors:
            if kind != "in":
                continue
            s = self.stream[anm]
            if streams is not None and not self.ge_local(anm):
                streams.add(s)
            aid = self.p.id[anm]
            if aid > by_symbol:
                by_symbol = aid
                life = max(by_symbol, life)
            if n_stream != s:
                life = max(by_symbol, self.diff_max_life(anm, n_stream), life)
        return life, by_symbol

    def depend_life_begin(self, block, stream):
        """MemoryBlock::GetDependLifeBegin (mb L590-631): the id on `stream` that the block's
        first tenant depends on (the peer of the last in-edge from `stream` at or before its
        begin), 0 when there is none."""
        edges = self.in_edges.get(block.stream, {}).get(stream)
        if edges is None or not len(edges):
            return 0
        first = block.life_begin()
        k = edges.lower_bound(first)
        if k == len(edges) or edges.ids[k] > first:
            if k == 0:
                return 0
            k -= 1
        return edges.at(k)[1]


def _drop_redundant(edges):
    """HandleDependentStreamRedundantInfo (bms L88-108): an edge that neither ends later nor
    starts later than the one kept before it is dropped."""
    if len(edges) <= 1:
        return
    in_id = out_id = 0
    for node_id, peer_id in edges.items():
        if node_id >= in_id and peer_id <= out_id:
            edges.erase(node_id)
            continue
        in_id, out_id = node_id, peer_id
