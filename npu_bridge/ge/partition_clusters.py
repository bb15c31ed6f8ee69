"""Clusters and GeOps of the partition (no TensorFlow): how the adapter's pass grows clusters
from the candidates, merges them (full offload against mix_compile_mode), copies variables
and constants between GeOps, and cuts the graph into GeOps with their inputs and outputs.
Lines cited are of hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc
(commit 82957b9); `npu_bridge.ge.partition` drives it.
"""
from npu_bridge.ge.partition_graph import (CONTROL, NEXT_ITERATION, Cycles, PGraph, base,
                                           construct, is_ref, node)


class Failed(Exception):
    """The adapter fails the graph here; the diagnostic is already recorded."""


def mark(run, cand, lazy):
    """MarkForPartition from the candidates on (:1074-1365): sets `run.part` (node -> GeOp
    name) and returns the number of GeOps. `lazy`: dynamic input in lazy_recompile mode."""
    w, opt = run.work, run.opt
    ids = w.ids
    nodes = w.nodes()
    live = w.live_edges()
    try:
        cyc = Cycles([ids[n] for n in nodes], [(ids[e.src], ids[e.dst]) for e in live
                                              if w.op[e.src] not in NEXT_ITERATION])
    except ValueError:
        run.fail("NPB193", run.graph.name, "a cycle",
                 subject="graph %s has a cycle outside a while loop" % run.graph.name,
                 adapter="Input graph has a cycle", lines="1097-1118")
    parent = {}      # union-find over cluster indices: merged index -> the survivor
    size = dict.fromkeys((ids[n] for n in nodes), 1)

    def find(i):
        root = i
        while root in parent:
            root = parent[root]
        while i in parent and parent[i] != root:
            parent[i], i = root, parent[i]
        return root
    changed = True
    while changed:   # contract every edge between candidates that makes no cycle (:1120-1180)
        changed = False
        for e in live:
            if e.src not in cand or e.dst not in cand:
                continue
            if lazy and opt.enable_dp and w.op[e.src] == "IteratorGetNext":
                continue    # graph option is_dynamic_getnext (:1140-1143)
            si, di = find(ids[e.src]), find(ids[e.dst])
            if si == di or not cyc.has_edge(si, di):
                continue
            c = cyc.contract(si, di)
            if c is None:
                continue
            other = di if c == si else si
            parent[other] = c
            size[c] += size.pop(other)
            changed = True
    rep = {n: find(ids[n]) for n in nodes}
    members = {}
    for n in nodes:
        members.setdefault(rep[n], []).append(n)
    info = {}   # cluster index -> (GeOp name, size), named in node order (:1189-1233)
    for n in nodes:
        c = rep[n]
        if c in info or n not in cand:
            continue
        info[c] = ("GeOp%d_%d" % (run.graph_num, len(info)), len(members[c]))
    for c, (name, _) in info.items():
        for n in members[c]:
            run.part[n] = name
    if not info:
        return 0
    to_merge = {name: set() for name, _ in info.values()}
    cset = sorted(info)
    if len(cset) > 1:   # which clusters may merge: neither reaches the other (:1236-1293)
        by_index = {}
        for s in cset:
            for d in cset:
                if s == d or cyc.reachable(s, d) or cyc.reachable(d, s):
                    continue
                if opt.mix_compile_mode:
                    if any(cyc.reachable(d, c) or cyc.reachable(c, d)
                           for c in by_index.get(s, ())):
                        continue
                    by_index.setdefault(s, set()).add(d)
                to_merge[info[s][0]].add(info[d][0])
    order = sorted((info[c] for c in cset), key=lambda x: -x[1])
    count = len(order)
    if order[0][1] == 1:   # every cluster a single node: lone NoOp / Identity go back (:1332)
        for n in sorted(cand, key=ids.__getitem__):
            if w.op[n] in ("NoOp", "Identity") and n in run.part:
                del run.part[n]
                run.put_out(n, "isolated")
                count -= 1
    if count > 1:
        if opt.mix_compile_mode or lazy:
            _merge_new_way(run, order, to_merge)
        else:
            _merge_full(run, order, to_merge)
            count = 1
    return count


def _merge_full(run, order, to_merge):
    """MergeSubgraphs (:932-980): full offload keeps the largest cluster, with every cluster
    that neither reaches nor is reached by it and the others merged; the rest go back to
    the host."""
    dst = order[0][0]
    merged = {dst}
    for name, _ in order[1:]:
        if (name in to_merge[dst] and dst in to_merge[name]
                and all(name in to_merge[m] and m in to_merge[name] for m in merged)):
            merged.add(name)
    for n, name in list(run.part.items()):
        if name == dst:
            continue
        if name in merged:
            run.part[n] = dst
        else:
            del run.part[n]
            run.put_out(n, "not_merged", "cluster %s could not merge into %s" % (name, dst))


def _merge_new_way(run, order, to_merge):
    """MergeSubgraphsInNewWay (:886-930): mix_compile_mode (or lazy_recompile) keeps every
    cluster; mutually mergeable ones are renamed to the larger, largest first."""
    merged, pair = set(), {}
    for dst, _ in order:
        if dst in merged:
            continue
        merged.add(dst)
        for t in sorted(to_merge[dst]):
            if dst in to_merge[t]:
                merged.add(t)
                pair[t] = dst
    for n, name in list(run.part.items()):
        if name in pair:
            run.part[n] = pair[name]


def copy_vars(run):
    """CopyVarsBetweenGeOp (ProcessGraph :2525-2581, mix_compile_mode): a variable read
    through a Ref or resource input by another GeOp gets a copy of the same name there; a
    host consumer of such an input fails the graph."""
    w, part = run.work, run.part
    edges = [e for n in w.nodes() if w.op[n] in ("VariableV2", "VarHandleOp")
             for e in w.out_edges(n) if not e.control]
    copied = {}
    for e in edges:
        refish = is_ref(e.dtype) or base(e.dtype) == "resource"
        dst_sub = part.get(e.dst)
        if dst_sub is None:
            if refish:
                run.fail("NPB193", run.graph.name, e.dst,
                         subject="the %s input %d of %s (%s, on the host) reads variable %s "
                         "(mix_compile_mode copies a variable only into GeOps)" % (
                             "Ref" if is_ref(e.dtype) else "resource", e.dst_slot, e.dst,
                             w.op[e.dst], e.src),
                         adapter="Ref Tensors (e.g., Variables) output: %s is not in white "
                         "list" % e.dst, lines="2546-2555")
            continue
        if refish and part.get(e.src, "") != dst_sub:
            key = (dst_sub, e.src)
            if key not in copied:
                copy = "%s@%s" % (e.src, dst_sub)
                w.add_node(copy, w.op[e.src], w.attrs[e.src], w.outputs[e.src])
                run.label[copy] = run.label.get(e.src, e.src)
                part[copy] = dst_sub
                copied[key] = copy
            w.add_edge(copied[key], e.slot, e.dst, e.dst_slot, e.dtype)
            w.remove_edge(e)


def copy_consts(run):
    """CopyConstBetweenGeOp (:2583-2634, mix_compile_mode): a Const feeding another GeOp than
    its own gets a copy `<name>_copied` there, run after the original (a control edge)."""
    w, part = run.work, run.part
    for n in [n for n in w.nodes() if w.op[n] in ("Const", "HostConst")]:
        src_sub = part.get(n, "")
        copies = {}
        for e in list(w.out_edges(n)):
            dst_sub = part.get(e.dst)
            if dst_sub is None or dst_sub == src_sub:
                continue
            if dst_sub not in copies:
                copy = "%s_copied@%s" % (n, dst_sub)
                w.add_node(copy, w.op[n], w.attrs[n], w.outputs[n])
                run.label[copy] = n + "_copied"
                part[copy] = dst_sub
                copies[dst_sub] = copy
            copy = copies[dst_sub]
            w.add_edge(copy, e.slot, e.dst, e.dst_slot, e.dtype)
            w.remove_edge(e)
            if not any(c.control and c.src == n for c in w.in_edges(copy)):
                w.add_edge(n, CONTROL, copy, CONTROL)


def split(run):
    """OMSplitter (:1427-2151): each GeOp's inputs (_Arg per distinct producer tensor) and
    outputs (_Retval per distinct tensor, through `<src>_dummyIdentity` for a Ref one), the
    rewritten graph's edges and each GeOp's function graph. Returns (geops, edges, functions)
    where geops maps name -> {"members", "args", "results", ...} and functions name -> a
    function making its graph string."""
    w, part, label = run.work, run.part, run.label
    lab = lambda n: label.get(n, n)   # noqa: E731
    geops = {}
    for n in w.nodes():
        if n in part:
            g = geops.setdefault(part[n], {"members": [], "args": {}, "arg_list": [],
                                           "arg_dst": {}, "results": {}, "res_list": [],
                                           "internal": [], "ident": {}})
            g["members"].append(n)
    ref_in = set()
    live = w.live_edges()
    for e in live:
        ss, ds = part.get(e.src), part.get(e.dst)
        if ss is not None and ss == ds:
            geops[ss]["internal"].append(e)
            continue
        if e.control:
            continue
        if ss is not None:
            if is_ref(e.dtype):
                run.fail("NPB193", run.graph.name, lab(e.dst),
                         subject="the Ref input %d of %s (%s, %s) reads %s:%d from GeOp %s" % (
                             e.dst_slot, lab(e.dst), w.op[e.dst],
                             "in GeOp %s" % ds if ds is not None else "on the host",
                             lab(e.src), e.slot, ss),
                         adapter="Ref Tensors (e.g., Variables) are not supported as results",
                         lines="1913-1925")
            g = geops[ss]
            key = (e.src, e.slot)
            if key not in g["results"]:
                g["results"][key] = len(g["res_list"])
                g["res_list"].append((e.src, e.slot, e.dst))
                if is_ref(w.output_type(e.src, e.slot)):
                    g["ident"][key] = lab(e.src) + "_dummyIdentity"
        if ds is not None:
            if is_ref(e.dtype):
                run.fail("NPB193", run.graph.name, lab(e.dst),
                         subject="the Ref input %d of %s (%s, in GeOp %s) reads %s:%d from %s" % (
                             e.dst_slot, lab(e.dst), w.op[e.dst], ds, lab(e.src), e.slot,
                             "the host" if ss is None else "GeOp " + ss),
                         adapter="Ref Tensors (e.g., Variables) are not supported as args",
                         lines="1927-1944")
            if is_ref(w.output_type(e.src, e.slot)):
                ref_in.add(e.id)
            g = geops[ds]
            key = (e.src, e.slot)
            if key not in g["args"]:
                g["args"][key] = len(g["arg_list"])
                g["arg_list"].append((e.src, e.slot, e.dst, e.dtype))
            g["arg_dst"][(e.dst, e.dst_slot)] = g["args"][key]
    edges, added = [], set()
    for e in live:   # AddEdgesToOutputGraph (:2079-2140)
        ss, ds = part.get(e.src), part.get(e.dst)
        if ss is not None and ss == ds:
            continue
        si, di = ss or lab(e.src), ds or lab(e.dst)
        if e.control:
            key = (si, CONTROL, di, CONTROL)
            if key not in added:
                added.add(key)
                edges.append(key)
            continue
        so = geops[ss]["results"][(e.src, e.slot)] if ss else e.slot
        do = geops[ds]["arg_dst"][(e.dst, e.dst_slot)] if ds else e.dst_slot
        key = (si, so, di, do)
        if key in added:
            continue
        added.add(key)
        if e.id in ref_in:
            ident = lab(e.src) + "_dummyIdentity"
            edges += [(si, so, ident, 0), (ident, 0, di, do)]
        else:
            edges.append(key)
    functions = {name: (lambda name=name, g=g: _function_graph(run, name, g))
                 for name, g in geops.items()}   # made when read (tests, debugging)
    return geops, edges, functions


def _function_graph(run, name, g):
    """The GeOp's function graph as the adapter's test prints it after TensorFlow's
    InstantiateFunction round trip: _Arg nodes, the body in graph order, then one
    `<src>_<slot>_retval_RetVal` per output."""
    w, label = run.work, run.label
    lab = lambda n: label.get(n, n)   # noqa: E731
    arg_name = ["%s_%d_arg" % (lab(s), slot) for s, slot, _, _ in g["arg_list"]]
    nodes = [node(a, "_Arg") for a in arg_name]
    inputs = {m: {} for m in g["members"]}
    controls = {m: [] for m in g["members"]}
    for e in g["internal"]:
        if e.control:
            controls[e.dst].append(lab(e.src))
        else:
            inputs[e.dst][e.dst_slot] = "%s:%d" % (lab(e.src), e.slot)
    for (dst, slot), idx in g["arg_dst"].items():
        inputs[dst][slot] = arg_name[idx]
    for m in g["members"]:
        ins = [inputs[m][k] for k in sorted(inputs[m])] + ["^" + c for c in controls[m]]
        nodes.append(node(lab(m), w.op[m], ins))
    for key, ident in g["ident"].items():
        nodes.append(node(ident, "Identity", ["%s:%d" % (lab(key[0]), key[1])]))
    for src, slot, _ in g["res_list"]:
        ident = g["ident"].get((src, slot))
        nodes.append(node("%s_%d_retval_RetVal" % (lab(src), slot), "_Retval",
                          [ident if ident else "%s:%d" % (lab(src), slot)]))
    fw = construct(PGraph(name, tuple(nodes)))
    return edge_string((e.src, e.slot, e.dst, e.dst_slot) for e in fw.live_edges())


def edge_string(edges):
    """CanonicalGraphString of the adapter's test: 'SRC->DST' joined by ';', an end written
    `name` for slot 0, `name:control` for a control edge, else `name:slot`."""
    def end(n, slot):
        return n if slot == 0 else ("%s:control" % n if slot == CONTROL else "%s:%d" % (n, slot))
    return ";".join("%s->%s" % (end(a, s), end(b, d)) for a, s, b, d in edges)
