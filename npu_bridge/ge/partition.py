"""What the NPU compiles and what stays on the host: the TF adapter's partition of one graph
into GeOps (no TensorFlow). Input: a `partition_graph.PGraph`, the adapter's pass options
(`PassOptions`), a supported-op list (`supported_ops.SupportedOps`). Output: a `Partition`:
the GeOps with their ops, the host ops each with the rule that kept it there, the tensors
crossing between host and device per GeOp execution (count and bytes), the adapter's
errors and warnings as diagnostics, and the graph as the pass rewrites it (edge strings in
the format of the adapter's own tests). Every rule names its line of
hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc (commit 82957b9) in
`RULES`; docs/partition.md explains them.
"""
import heapq
from types import MappingProxyType
from collections.abc import Mapping
from typing import Any, NamedTuple, Optional, Tuple

from npu_bridge.ge import diagnostics as _diag
from npu_bridge.ge.partition_graph import (PGraph, base, construct,
                                           frames, fuse_accumulate_n, is_ref, route_save_v2,
                                           split_unary_ops)

PASS = "hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc"

# rule -> (what it means, where the adapter decides it)
RULES = MappingProxyType({
    "not_supported": ("op type not in the supported-op list (npu_supported_ops.json)",
                      PASS + ":263-282 IsWhiteListSupport; tf_adapter/util/npu_ops_identifier.cc:200-209"),
    "gray": ("op marked isGray in the supported-op list, under mix_compile_mode",
             "tf_adapter/util/npu_ops_identifier.cc:210-212"),
    "dataset": ("dataset op (type ending in Dataset or DatasetV2): the host input pipeline",
                PASS + ":270-271"),
    "const": ("Const that feeds no compiled op", PASS + ":271, :813-827 AddRelationalConst"),
    "boundary": ("feed or fetch of the run (_Arg / _Retval)", PASS + ":271-272"),
    "string_join": ("StringJoin is never compiled", PASS + ":272"),
    "without_npu_compile": ("_without_npu_compile attribute (npu_scope.without_npu_compile_scope)",
                            PASS + ":348-352; tf_adapter/util/util.cc:121-126"),
    "function": ("a function it calls holds an op that is not compiled", PASS + ":303-346, :635-637"),
    "resource": ("under mix_compile_mode, a DT_RESOURCE input not from a VarHandleOp (or a "
                 "resource output of another op): lookup tables, iterators", PASS + ":367-388"),
    "variable_host": ("variable under variable_location=Host",
                      "tf_adapter/util/util.cc:139-144; " + PASS + ":683-684"),
    "iterator": ("iterator op the enable_data_pre_proc rule does not sink (no Iterator -> "
                 "IteratorGetNext pair)", PASS + ":641-663"),
    "hostcall": ("graph with an OutfeedDequeueOp: a host-call graph runs on the host",
                 PASS + ":611-620"),
    "dataset_init": ("dataset initialization graph (MakeIterator with its Iterator): handed to "
                     "dp_tf_to_ge_conversion_pass, not compiled here", PASS + ":626-630"),
    "frame": ("in a while-loop frame that holds a host op, under mix_compile_mode",
              PASS + ":692-718"),
    "ref_edge": ("Ref edge to or from a host op", PASS + ":737-743, :772-778"),
    "typed_edge": ("DT_STRING / DT_RESOURCE / DT_VARIANT edge to or from a host op (DT_STRING "
                   "only when iterations_per_loop > 1)", PASS + ":744-763, :779-799"),
    "in_out_pair": ("left out by in_out_pair / in_out_pair_flag", PASS + ":531-590"),
    "not_merged": ("full offload keeps one GeOp: this cluster could not merge into the largest",
                   PASS + ":932-980, :1348-1354"),
    "isolated": ("lone NoOp / Identity when every cluster has one node", PASS + ":1331-1347"),
    "skipped": ("the pass leaves this graph alone", PASS + ":2325-2379"),
    "failed": ("the pass fails on this graph (see the error)", PASS),
})

# Why an Iterator -> IteratorGetNext pair stays on the host with enable_data_pre_proc off,
# and the option that sinks it (a host op's `detail`)
DP_OFF_DETAIL = (
    "enable_data_pre_proc off: with custom_op.parameter_map[\"enable_data_pre_proc\"].b = True "
    "(default False: tf_adapter/util/npu_attrs.cc:897, :920-921) or "
    "NPURunConfig(enable_data_pre_proc=True) (its default: "
    "tf_adapter/python/npu_bridge/estimator/npu/npu_config.py:47) the pass makes the "
    "Iterator/IteratorV2 -> IteratorGetNext pair GeOp candidates whatever the supported-op "
    "list says (om_partition_subgraphs_pass.cc:641-663) and fuses them into AdpGetNext "
    "(:2284-2300): GetNext runs on the device")

_DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1,
                "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
                "bool": 1, "complex64": 8, "complex128": 16, "qint8": 1, "quint8": 1,
                "qint32": 4}
_TYPED = frozenset(("string", "resource", "variant"))
_ITERATORS = frozenset(("Iterator", "IteratorV2"))
_VARIABLES = frozenset(("Variable", "VariableV2", "TemporaryVariable", "VarHandleOp"))


def tensor_bytes(shape, dtype):
    """Bytes of one tensor of `shape` and `dtype`; None when the shape or the size is unknown
    (strings, resources, variants)."""
    size = _DTYPE_BYTES.get(base(dtype))
    if shape is None or size is None:
        return None
    for d in shape:
        if d is None or d < 0:
            return None
        size *= d
    return size


class PassOptions(NamedTuple):
    """The pass options the partition reads (NpuAttrs::GetPassOptions): parameter_map names."""
    mix_compile_mode: bool = False
    iterations_per_loop: int = 1
    enable_dp: bool = False
    job: str = "localhost"
    in_out_pair: str = ""
    in_out_pair_flag: str = "1"
    variable_location: str = "Device"
    dynamic_input: str = "0"
    dynamic_graph_execute_mode: str = "dynamic_execute"
    use_off_line: bool = True

    @classmethod
    def from_adapter(cls, opts: Mapping[str, str]):
        """From the adapter's string options (`GeOptions.adapter_options`, or the vectors'
        `enable_dp` spelling of enable_data_pre_proc)."""
        get = opts.get
        try:
            ipl = int(get("iterations_per_loop", "1") or 1)
        except ValueError:
            ipl = 1
        return cls(str(get("mix_compile_mode", "0")) == "1", ipl,
                   str(get("enable_dp", get("enable_data_pre_proc", "0"))) == "1",
                   get("job", "localhost") or "localhost", get("in_out_pair", "") or "",
                   str(get("in_out_pair_flag", "1")), get("variable_location", "Device") or "Device",
                   str(get("dynamic_input", "0")),
                   get("dynamic_graph_execute_mode", "dynamic_execute") or "dynamic_execute",
                   str(get("use_off_line", "1")) == "1")


class Transfer(NamedTuple):
    """A tensor crossing between host and device once per GeOp execution."""
    src: str
    slot: int
    dst: str
    dtype: str
    shape: Any
    bytes: Optional[int]


class GeOp(NamedTuple):
    """One GeOp: `ops` ((name, type), ...) in graph order; `inputs` / `outputs` its
    host-to-device and device-to-host tensors; `largest` the biggest tensors its ops make
    ((name:slot, shape, dtype, bytes), at most 3)."""
    name: str
    ops: Tuple[Tuple[str, str], ...]
    inputs: Tuple[Transfer, ...]
    outputs: Tuple[Transfer, ...]
    largest: Tuple[Tuple[str, Any, str, int], ...]


class HostOp(NamedTuple):
    """An op left on the host: `rule` a `RULES` key; `detail` the node or edge that decided."""
    name: str
    op: str
    rule: str
    detail: str = ""


class Partition(NamedTuple):
    graph: str
    geops: Tuple[GeOp, ...]
    host_ops: Tuple[HostOp, ...]
    diagnostics: Tuple[_diag.Diagnostic, ...]
    unknown_ops: Tuple[str, ...]     # op types the supported-op list could not decide
    ops_list: str                    # which supported-op list was used
    edges: str                       # the rewritten graph, as the adapter's tests print it
    functions: Mapping[str, str]     # GeOp name -> its function graph, same format
    options: PassOptions

    def to_dict(self):
        """JSON form (the report's `partition` of a graph)."""
        def tr(t):
            return {"src": "%s:%d" % (t.src, t.slot), "dst": t.dst, "dtype": t.dtype,
                    "shape": list(t.shape) if t.shape is not None else None, "bytes": t.bytes}
        return {
            "graph": self.graph, "ops_list": self.ops_list,
            "geops": [{"name": g.name, "ops": len(g.ops),
                       "op_types": _count(op for _, op in g.ops),
                       "largest": [{"tensor": n, "shape": list(s) if s else s, "dtype": d,
                                    "bytes": b} for n, s, d, b in g.largest],
                       "inputs": [tr(t) for t in g.inputs], "outputs": [tr(t) for t in g.outputs]}
                      for g in self.geops],
            "host_ops": [{"name": h.name, "op": h.op, "rule": h.rule, "detail": h.detail,
                          "source": RULES[h.rule][1]} for h in self.host_ops],
            "transfers_per_step": self.transfers(),
            "unknown_ops": list(self.unknown_ops),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }

    def transfers(self):
        """Host<->device tensors per step: {"count", "bytes", "unknown_bytes"} each way (a
        tensor of unknown size counts in `unknown_bytes`, never as 0)."""
        out = {}
        for way, attr in (("to_device", "inputs"), ("to_host", "outputs")):
            ts = [t for g in self.geops for t in getattr(g, attr)]
            out[way] = {"count": len(ts), "bytes": sum(t.bytes for t in ts if t.bytes is not None),
                        "unknown_bytes": sum(1 for t in ts if t.bytes is None)}
        return out


class _Lazy(Mapping):
    """name -> value, each made by its function on first read (the GeOps' function graphs:
    only tests and debugging read them)."""

    def __init__(self, makers):
        self._makers, self._done = dict(makers), {}

    def __getitem__(self, key):
        if key not in self._done:
            self._done[key] = self._makers[key]()
        return self._done[key]

    def __iter__(self):
        return iter(self._makers)

    def __len__(self):
        return len(self._makers)


def _count(items):
    out = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


class _Run:
    """One run of the pass over one graph: the mutable state of its steps."""

    def __init__(self, graph, options, ops, graph_num):
        self.graph, self.opt, self.ops, self.graph_num = graph, options, ops, graph_num
        self.work = construct(graph)
        self.funcs = graph.functions
        self.why = {}            # host node -> (rule, detail)
        self.unknown = set()
        self.diags = []
        self.part = {}           # node -> GeOp name
        self.label = {}          # internal name of a copy -> the name the adapter gives it

    # --- support tests ---------------------------------------------------------------------
    def whitelist(self, op, mix, support_const=False):
        """IsWhiteListSupport (:263-282): None when supported, else the rule."""
        if op.endswith("Dataset") or op.endswith("DatasetV2"):
            return "dataset"
        if op == "Const" and not support_const:
            return "const"
        if op in ("_Arg", "_Retval"):
            return "boundary"
        if op == "StringJoin":
            return "string_join"
        status = self.ops.status(op, mix)
        if status == "unknown":
            self.unknown.add(op)
            return None
        return {"supported": None, "gray": "gray"}.get(status, "not_supported")

    def supporting_node(self, op, attrs, mix, support_const=False):
        """IsNpuSupportingNode (:348-360): None or the rule."""
        if attrs.get("_without_npu_compile"):
            return "without_npu_compile"
        rule = self.whitelist(op, mix, support_const)
        if rule is None or (op in self.funcs and self.supporting_func(op, mix)):
            return None
        return rule

    def supporting_func(self, name, mix):
        """IsNpuSupportingFunc (:303-334): every op of the function (and of the functions it
        calls) is a Const or compiled; a function not in the library is not."""
        stack, seen = [name], {name}
        while stack:
            fname = stack.pop()
            if fname not in self.funcs:
                return False
            for op, calls in self.funcs[fname]:
                if op != "Const" and self.supporting_node(op, {}, mix) is not None:
                    return False
                for c in calls:
                    if c not in seen:
                        seen.add(c)
                        stack.append(c)
        return True

    def node_funcs_ok(self, n):
        return all(self.supporting_func(f, self.opt.mix_compile_mode)
                   for f in self.work.attrs[n].get("funcs", ()))

    def node_rule(self, n, mix, support_const=False):
        return self.supporting_node(self.work.op[n], self.work.attrs[n], mix, support_const)

    def unsupported_resource(self, n):
        """IsUnSupportedResource (:367-388), mix_compile_mode only."""
        w = self.work
        if not self.opt.mix_compile_mode:
            return False
        for e in sorted((e for e in w.in_edges(n) if not e.control), key=lambda e: e.dst_slot):
            if base(e.dtype) == "resource":
                return w.op[e.src] != "VarHandleOp"
        for _, dtype in w.outputs[n]:
            if base(dtype) == "resource":
                return w.op[n] != "VarHandleOp"
        return False

    def put_out(self, n, rule, detail=""):
        self.why.setdefault(n, (rule, detail))

    # --- FindNpuSupportCandidates (:592-807) ----------------------------------------------
    def find_candidates(self):
        w, opt = self.work, self.opt
        mix = opt.mix_compile_mode
        cand = set()
        nodes = w.nodes()
        types = [w.op[n] for n in nodes]
        if "OutfeedDequeueOp" in types:
            for n in nodes:
                self.put_out(n, "hostcall")
            return cand
        if any("MakeIterator" in t for t in types) and any(t in _ITERATORS for t in types):
            for n in nodes:
                self.put_out(n, "dataset_init")
            return cand
        out = []
        for n in nodes:
            op = w.op[n]
            if not self.node_funcs_ok(n):
                self.put_out(n, "function")
                continue
            if opt.enable_dp and op in ("Iterator", "IteratorV2", "IteratorGetNext", "AdpGetNext"):
                if op == "AdpGetNext" or self.getnext_pair(n):
                    cand.add(n)
                else:
                    self.put_out(n, "iterator")
                continue
            if op == "Const" and any(e.control and self.node_rule(e.src, mix) is None
                                     for e in w.in_edges(n)):
                cand.add(n)
                continue
            rule = self.node_rule(n, mix)
            if rule is None and self.unsupported_resource(n):
                rule = "resource"
            if rule is None and opt.variable_location == "Host" and op in _VARIABLES:
                rule = "variable_host"
            if rule is None:
                cand.add(n)
            else:
                self.put_out(n, rule, DP_OFF_DETAIL if not opt.enable_dp
                             and self.getnext_pair(n) else "")
                out.append(n)
        if mix:
            self.frames_out(cand, out)
        self.propagate(cand, out)
        return cand

    def getnext_pair(self, n):
        """Is `n` an IteratorGetNext reading an Iterator/IteratorV2, or such an iterator
        feeding an IteratorGetNext (what enable_data_pre_proc sinks: :641-663)?"""
        w = self.work
        op = w.op[n]
        if op == "IteratorGetNext":
            return any(w.op[e.src] in _ITERATORS for e in w.in_edges(n))
        return op in _ITERATORS and any(w.op[e.dst] == "IteratorGetNext"
                                        for e in w.out_edges(n))

    def frames_out(self, cand, out):
        """:692-718: a loop frame holding a host op stays whole on the host (and the frames
        around it)."""
        info = frames(self.work)
        bad = {}
        for n in out:
            for f in info[n][1]:
                bad.setdefault(f, n)
        for n in sorted(cand, key=self.work.ids.__getitem__):
            fname = info[n][0]
            if fname and fname in bad:
                cand.discard(n)
                out.append(n)
                self.put_out(n, "frame", "frame %s holds host op %s" % (fname, bad[fname]))

    def propagate(self, cand, out):
        """:720-802: Ref edges, and string / resource / variant edges, pull ops off the
        device next to a host op, transitively."""
        w, opt = self.work, self.opt
        ipl1 = opt.iterations_per_loop == 1
        ids = w.ids
        heap = [ids[n] for n in out]
        heapq.heapify(heap)
        by_id = {i: n for n, i in ids.items()}
        pending = set(out)

        def remove(n, rule, detail):
            if n in cand:
                cand.discard(n)
                self.put_out(n, rule, detail)
                if n not in pending:
                    pending.add(n)
                    heapq.heappush(heap, ids[n])
                return True
            return False

        while heap:
            node = by_id[heapq.heappop(heap)]
            if node not in pending:
                continue
            pending.discard(node)
            if opt.mix_compile_mode and w.op[node] == "Where" and self.initialized_graph(node):
                cand.add(node)
                self.why.pop(node, None)
            for e in w.out_edges(node):
                if e.control:
                    continue
                dst, dtype = e.dst, e.dtype
                if is_ref(dtype) and dst in cand:
                    remove(dst, "ref_edge", "Ref input from host op %s" % node)
                    continue
                if base(dtype) in _TYPED:
                    if ("_op_max_size" in w.attrs[dst] or w.op[dst] == "Assert"
                            or w.op[node] == "Const" or (ipl1 and base(dtype) == "string")):
                        continue
                    remove(dst, "typed_edge", "%s input from host op %s" % (base(dtype), node))
            for e in w.in_edges(node):
                if e.control:
                    continue
                src, dtype = e.src, e.dtype
                if is_ref(dtype) and src in cand:
                    remove(src, "ref_edge", "Ref output to host op %s" % node)
                    continue
                if base(dtype) in _TYPED:
                    if "_op_max_size" in w.attrs[node]:
                        continue
                    if (opt.enable_dp and base(dtype) == "string"
                            and w.op[src] in ("IteratorGetNext", "GetNext")):
                        continue
                    if ipl1 and base(dtype) == "string":
                        continue
                    remove(src, "typed_edge", "%s output to host op %s" % (base(dtype), node))

    def initialized_graph(self, n):
        """InferShapeUtil::IsInitializedGraph (tf_adapter/util/infershape_util.cc:94-130):
        Where <- [Reshape <-] LogicalNot <- Pack <- VarIsInitializedOp/IsVariableInitialized."""
        w = self.work

        def first_input(x):
            es = [e for e in w.in_edges(x) if not e.control and e.dst_slot == 0]
            return es[0].src if es else None
        x = first_input(n)
        if x is not None and w.op[x] == "Reshape":
            x = first_input(x)
        if x is None or w.op[x] != "LogicalNot":
            return False
        x = first_input(x)
        if x is None or w.op[x] != "Pack":
            return False
        x = first_input(x)
        return x is not None and w.op[x] in ("VarIsInitializedOp", "IsVariableInitialized")

    def relational_consts(self, cand):
        """AddRelationalConst (:813-827): a Const feeding a compiled op goes with it."""
        w = self.work
        for n in w.nodes():
            if w.op[n] == "Const" and any(e.dst in cand for e in w.out_edges(n)):
                cand.add(n)
                self.why.pop(n, None)

    def in_out_pair(self):
        """FindCandidatesByInOutPair (:466-590); None after an error diagnostic."""
        w, opt = self.work, self.opt
        groups = _parse_in_out_pair(opt.in_out_pair)
        if not groups:
            self.diags.append(_diag.make(
                "NPB192", "in_out_pair", opt.in_out_pair,
                subject="in_out_pair %r is invalid" % (opt.in_out_pair,),
                adapter="in_out_pair: ... is invalid.", lines="535-537",
                fix="; write it as [[['head', ...], ['tail', ...]], ...]"))
            return None
        saved = set()
        for heads, tails in groups:
            if any(t not in w.ids for t in tails):
                continue
            for head in heads:
                if head in w.ids:
                    saved |= _nodes_on_paths(w, head, set(tails))
        cand = set()
        if opt.in_out_pair_flag == "1":
            for n in sorted(saved, key=w.ids.__getitem__):
                if self.node_rule(n, True, True) is not None:
                    self.diags.append(_diag.make(
                        "NPB192", "in_out_pair", opt.in_out_pair,
                        subject="%s (%s) lies on an in_out_pair path but is not a supported NPU "
                        "op" % (n, w.op[n]), adapter="... is not supported npu node.",
                        lines="571-574", fix=""))
                    return None
                cand.add(n)
        else:
            for n in w.nodes():
                if n in saved:
                    self.put_out(n, "in_out_pair", "on an in_out_pair path (flag 0)")
                    continue
                rule = self.node_rule(n, True, True)
                if rule is None:
                    cand.add(n)
                else:
                    self.put_out(n, rule)
        for n in w.nodes():
            if n not in cand:
                self.put_out(n, "in_out_pair", "not on an in_out_pair path (flag 1)")
        return cand


def _parse_in_out_pair(text):
    """ParseInOutPair (:470-529): [[[heads], [tails]], ...] -> [(heads, tails)], quotes and
    blanks ignored; groups without both lists dropped."""
    depth, word, names, pair, pairs = 0, "", [], [], []
    for c in text:
        if c == "[":
            depth += 1
        elif c in "],":
            if depth == 1 and pair:
                pairs.append(pair)
                pair = []
            elif depth == 2 and names:
                pair.append(names)
                names = []
            elif depth == 3 and word:
                names.append(word)
                word = ""
            if c == "]":
                depth -= 1
        elif c not in " \t'":
            word += c
    return [(p[0], p[1]) for p in pairs if len(p) >= 2]


def _nodes_on_paths(w, head, tails):
    """The nodes on some path from `head` to one of `tails` (FindNodesInPaths :396-464)."""
    fwd, stack = {head}, [head]
    while stack:
        for e in w.out_edges(stack.pop()):
            if e.dst not in fwd:
                fwd.add(e.dst)
                stack.append(e.dst)
    bwd, stack = set(t for t in tails if t in fwd), [t for t in tails if t in fwd]
    while stack:
        for e in w.in_edges(stack.pop()):
            if e.src in fwd and e.src not in bwd:
                bwd.add(e.src)
                stack.append(e.src)
    return bwd


def partition(graph: PGraph, options: PassOptions, ops, graph_num: int = 1) -> Partition:
    """The adapter's partition of `graph` (OMPartitionSubgraphsPass::ProcessGraph,
    :2317-2523) under `options` with the supported-op list `ops` (`status(op, mix)` ->
    "supported" | "gray" | "unsupported" | "unknown"; an unknown op is taken as compiled and
    listed in `unknown_ops`). `graph_num` numbers the GeOps (`GeOp<graph_num>_<k>`: the
    adapter counts the graphs it partitions in a process, from 1). Raises ValueError for a
    graph that is not a graph (an input naming no node, a cycle outside a while loop)."""
    from npu_bridge.ge import partition_clusters as pc
    run = _Run(graph, options, ops, graph_num)
    try:
        return _partition(run, pc)
    except pc.Failed:
        return _result(run, {}, [], {})


def _partition(run, pc):
    w, opt = run.work, run.opt
    nodes = w.nodes()
    reason = None
    if any("_NoNeedOptimize" in w.attrs[n] for n in nodes):
        reason = "a node carries _NoNeedOptimize (:2325-2331)"
    elif opt.job in ("ps", "default"):
        reason = "job is %s (:2345-2349)" % opt.job
    elif not opt.use_off_line:
        reason = "use_off_line is off: online process (:2371-2379)"
    if reason:
        for n in nodes:
            run.put_out(n, "skipped", reason)
        return _result(run, {}, _plain_edges(w), {})
    include_getnext = False
    for n in nodes:                    # rewrites before partitioning (:2400-2431)
        op = w.op.get(n)
        if op == "IteratorGetNext":
            include_getnext = True
            if not opt.enable_dp and any(base(d) == "string" for _, d in w.outputs[n]):
                run.diags.append(_diag.make("NPB190", "enable_data_pre_proc", False, node=n))
        elif op == "_UnaryOpsComposition":
            split_unary_ops(w, n)
        elif op == "DestroyTemporaryVariable" and "AccumulateNV2" in n:
            fuse_accumulate_n(w, n)
    del include_getnext   # only feeds graph options GE reads, not the partition
    dyn, mode = None, None
    for n in w.nodes():
        # a OneShotIterator with iterations_per_loop != 1 makes the adapter abort (:2440-2443):
        # graph_capture reports that cause already (NPB172), so it is not a second finding
        a = w.attrs[n]
        if "_graph_dynamic_input" in a:   # GetGraphConfig (:2245-2265)
            dyn = "1" if a["_graph_dynamic_input"] else "0"
            if a["_graph_dynamic_input"]:
                mode = a.get("_graph_dynamic_graph_execute_mode", "")
    if dyn is None:
        dyn, mode = opt.dynamic_input, opt.dynamic_graph_execute_mode
    lazy = dyn == "1" and mode == "lazy_recompile"
    if lazy and opt.iterations_per_loop > 1:
        run.fail("NPB195", "iterations_per_loop", opt.iterations_per_loop)
    mix = opt.mix_compile_mode
    if mix:
        route_save_v2(w)
    cand = set()
    if opt.in_out_pair:
        if not mix:
            run.fail("NPB191", "in_out_pair", opt.in_out_pair)
        cand = run.in_out_pair()
        if cand is None:
            raise pc.Failed()
    if not cand:
        run.why.clear()
        cand = run.find_candidates()
        run.relational_consts(cand)
    count = pc.mark(run, cand, lazy)
    if count < 1:
        run.part.clear()
        return _result(run, {}, _plain_edges(w), {})
    if mix:
        if opt.variable_location != "Host":
            pc.copy_vars(run)
        pc.copy_consts(run)
    geops, edges, functions = pc.split(run)
    return _result(run, geops, edges, functions)


def _plain_edges(w):
    return [(e.src, e.slot, e.dst, e.dst_slot) for e in w.live_edges()]


def _fail(self, code, option, value, **fields):
    from npu_bridge.ge import partition_clusters as pc
    diag = _diag.make(code, option, value, **fields)
    self.diags.append(diag)
    for n in self.work.nodes():
        self.put_out(n, "failed", diag.message.split(":")[0])
    self.part.clear()
    raise pc.Failed()


_Run.fail = _fail


def _result(run, geops, edges, functions):
    from npu_bridge.ge.partition_clusters import edge_string
    w, label = run.work, run.label
    lab = lambda n: label.get(n, n)   # noqa: E731
    out = []
    for name in sorted(geops, key=lambda s: int(s.rsplit("_", 1)[1])):
        g = geops[name]
        ins = tuple(Transfer(lab(s), slot, name, base(w.output_type(s, slot)),
                             w.output_shape(s, slot),
                             tensor_bytes(w.output_shape(s, slot), w.output_type(s, slot)))
                    for s, slot, _, _ in g["arg_list"])
        outs = tuple(Transfer(lab(s), slot, lab(d), base(w.output_type(s, slot)),
                              w.output_shape(s, slot),
                              tensor_bytes(w.output_shape(s, slot), w.output_type(s, slot)))
                     for s, slot, d in g["res_list"])
        sizes = []
        for m in g["members"]:
            for slot, (shape, dtype) in enumerate(w.outputs[m]):
                b = tensor_bytes(shape, dtype)
                if b:
                    sizes.append(("%s:%d" % (lab(m), slot), shape, base(dtype), b))
        sizes.sort(key=lambda x: -x[3])
        out.append(GeOp(name, tuple((lab(m), w.op[m]) for m in g["members"]), ins, outs,
                        tuple(sizes[:3])))
    host = tuple(HostOp(n, w.op[n], *run.why.get(n, ("not_supported", "")))
                 for n in w.nodes() if n not in run.part and n not in label)
    part = Partition(run.graph.name, tuple(out), host, tuple(run.diags),
                     tuple(sorted(run.unknown)), getattr(run.ops, "name", str(run.ops)),
                     edge_string(edges), _Lazy(functions), run.opt)
    return part._replace(diagnostics=part.diagnostics + tuple(_findings(part)))


_GETNEXT_TYPES = ("IteratorGetNext", "Iterator", "IteratorV2")


def _findings(part):
    """The warnings the partition implies: supported ops left on the host by full offload
    (NPB197), host ops inside a loop sunk with iterations_per_loop > 1 (NPB198)."""
    out = []
    dropped = [h for h in part.host_ops if h.rule == "not_merged"]
    if dropped and part.geops:
        out.append(_diag.make(
            "NPB197", "mix_compile_mode", False, count=len(dropped), graph=part.graph,
            ops=", ".join(h.name for h in dropped[:5]), geop=part.geops[0].name))
    ipl = part.options.iterations_per_loop
    # the device loops a GeOp holding the loop op named IterationOp (geop_npu.cc:1545-1548,
    # SetNeedIteration :1148-1150; the graph option :1248-1250)
    loops = [g for g in part.geops if any(n == "IterationOp" for n, _ in g.ops)]
    # a OneShotIterator with iterations_per_loop != 1 aborts the adapter (:2440-2443): that
    # cause is graph_capture's NPB172, so its IteratorGetNext beside the loop is not NPB198 too
    one_shot = any(h.op == "OneShotIterator" for h in part.host_ops)
    # without enable_data_pre_proc the GetNext stays on the host: graph_capture's NPB172
    # (enable_data_pre_proc off) names that cause, so the GetNext is not NPB198 too
    unsunk = () if part.options.enable_dp else _GETNEXT_TYPES
    if ipl > 1 and loops and not one_shot:
        hosts = {h.name for h in part.host_ops if h.rule not in ("boundary", "const", "dataset")
                 and h.op not in unsunk}
        near = sorted({t.dst for g in loops for t in g.outputs if t.dst in hosts}
                      | {t.src for g in loops for t in g.inputs if t.src in hosts})
        if near:
            out.append(_diag.make("NPB198", "iterations_per_loop", ipl, graph=part.graph,
                                  geop=loops[0].name, hosts=", ".join(near[:5])))
    return out
