"""The partition as the report and the summaries show it (no TensorFlow): the report's
`partition` list of a configuration (`configuration_partition(rec)`), one summary line per
graph (`graph_line`) and the full listing of `npu-bridge partition` (`full_lines`).
Schema: docs/report_schema.md `partition`; rules: docs/partition.md.
"""
from npu_bridge.ge import diagnostics as _diag

SUMMARY_GRAPHS = 8   # graphs shown per configuration in the run summary


def configuration_partition(rec):
    """The report's `partition` of record `rec`: one dict per graph (`Partition.to_dict`),
    or None when no graph was partitioned."""
    parts = rec.get("partitions") or ()
    return [p.to_dict() for p in parts] or None


def size(n):
    """Bytes in B / KiB / MiB, one decimal."""
    if n is None:
        return "?"
    for unit, scale in (("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return "%.1f %s" % (n / scale, unit)
    return "%d B" % n


def _rules(d):
    counts = {}
    for h in d["host_ops"]:
        if h["rule"] != "boundary":
            counts[h["rule"]] = counts.get(h["rule"], 0) + 1
    return ", ".join("%s %d" % kv for kv in sorted(counts.items(), key=lambda kv: -kv[1]))


def _way(t):
    text = "%d tensor(s) %s" % (t["count"], size(t["bytes"]))
    return text + (" + %d of unknown size" % t["unknown_bytes"] if t["unknown_bytes"] else "")


def graph_line(d):
    """One line: GeOps and their ops, host ops by rule, host<->device tensors per step."""
    host = [h for h in d["host_ops"] if h["rule"] != "boundary"]
    t = d["transfers_per_step"]
    line = "  partition %s: %d GeOp(s) (%s), %d host op(s)%s; per step to device %s, to host %s" % (
        d["graph"], len(d["geops"]), ", ".join("%s %d ops" % (g["name"], g["ops"])
                                               for g in d["geops"]) or "nothing compiled",
        len(host), " (%s)" % _rules(d) if host else "", _way(t["to_device"]), _way(t["to_host"]))
    if d["unknown_ops"]:
        line += "; %d op type(s) unknown to the list" % len(d["unknown_ops"])
    return line


def summary_lines(conf, show_all=False):
    """The run summary's partition lines of one configuration (report dict `conf`)."""
    parts = conf.get("partition") or ()
    shown = parts if show_all else parts[:SUMMARY_GRAPHS]
    lines = [graph_line(d) for d in shown]
    lists = sorted({d["ops_list"] for d in parts})
    if lists:
        lines.append("  partition: supported-op list: %s" % "; ".join(lists))
    if len(parts) > len(shown):
        lines.append("  ... %d more partitioned graph(s) (--all, or the report)"
                     % (len(parts) - len(shown)))
    return lines


def full_lines(d, top=10):
    """Everything of one graph's partition: each GeOp (op types, largest tensors, inputs and
    outputs), each host op with its rule and source, the unknown op types, diagnostics."""
    lines = [graph_line(d), "    supported-op list: %s" % d["ops_list"]]
    for g in d["geops"]:
        types = ", ".join("%s x%d" % kv for kv in list(g["op_types"].items())[:top])
        lines.append("    %s: %d ops (%s)" % (g["name"], g["ops"], types))
        for x in g["largest"]:
            lines.append("      largest %s %s %s: %s" % (x["tensor"], x["dtype"], x["shape"],
                                                       size(x["bytes"])))
        for way, key in (("in ", "inputs"), ("out", "outputs")):
            for t in g[key][:top]:
                lines.append("      %s %s -> %s %s %s: %s" % (way, t["src"], t["dst"], t["dtype"],
                                                           t["shape"], size(t["bytes"])))
            if len(g[key]) > top:
                lines.append("      %s ... %d more" % (way, len(g[key]) - top))
    host = [h for h in d["host_ops"] if h["rule"] != "boundary"]
    if host:
        lines.append("    host ops:")
    for h in host:
        lines.append("      %s (%s): %s%s [%s]" % (h["name"], h["op"], h["rule"],
                                                   " - " + h["detail"] if h["detail"] else "",
                                                   h["source"]))
    if d["unknown_ops"]:
        lines.append("    unknown to the list (taken as compiled): %s" % ", ".join(d["unknown_ops"]))
    for x in d["diagnostics"]:   # one short line and its fix (issue 28), also read from JSON
        message = _diag.message_of(x)
        lines.append("    %s %s: %s" % (x["severity"], x["code"], _diag.short_of(message)))
        lines += ["        %s: %s" % part for part in _diag.below(message)]
    return lines


def geop_graphs(graph, part):
    """One `memory_plan.Graph` per GeOp of `part` (a `Partition`), cut from `graph` (the
    captured `memory_plan.Graph` of the same run, topological): what GE compiles and plans,
    one GE graph per GeOp. The GeOp's ops in `graph`'s order, with the copies the pass makes
    under mix_compile_mode (a variable keeps its name: one per session; a constant is
    `<name>_copied`); the run's own inputs (fed tensors) stay the `Data` nodes they are, first;
    another tensor made outside the GeOp becomes a `Data` input (`<src>_<slot>_arg`, the
    pass's name); outputs: the GeOp's outputs. Named `<graph>` for a
    single GeOp, `<graph>/<GeOp name>` for several."""
    import dataclasses
    from npu_bridge.ge import memory_plan as mp
    by = {n.name: n for n in graph.nodes}
    out = []
    for g in part.geops:
        names = {name for name, _ in g.ops}
        copies = {name[:-len("_copied")]: name for name in names
                  if name not in by and name.endswith("_copied") and name[:-7] in by}
        members = names & set(by)
        known = {(t.src, t.slot): (t.shape, t.dtype) for t in g.inputs}
        nodes, made, inputs = [], set(), []
        for n in graph.nodes:
            if n.name not in members:
                continue
            ins = []
            for src, slot in n.inputs:
                if src in members:
                    ins.append((src, slot))
                elif src in by and by[src].op in mp.DATA_OPS:   # the run's own input
                    if src not in made:
                        made.add(src)
                        nodes.append(by[src])
                    ins.append((src, slot))
                elif src in copies:
                    if copies[src] not in made:
                        made.add(copies[src])
                        nodes.append(dataclasses.replace(by[src], name=copies[src]))
                    ins.append((copies[src], slot))
                else:
                    arg = "%s_%d_arg" % (src, slot)
                    if arg not in made:
                        made.add(arg)
                        producer = by.get(src)
                        if producer is not None and slot < len(producer.outputs):
                            out_type = producer.outputs[slot]
                        else:
                            out_type = known.get((src, slot), (None, "float32"))
                        nodes.append(mp.Node(arg, "Data", (tuple(out_type),)))
                        inputs.append(arg)
                    ins.append((arg, 0))
            nodes.append(dataclasses.replace(n, inputs=tuple(ins)))
        inputs = [i for i in graph.inputs if i in made] + inputs
        outs = tuple((t.src, t.slot) for t in g.outputs if t.src in members)
        name = graph.name if len(part.geops) == 1 else "%s/%s" % (graph.name, g.name)
        out.append(mp.Graph(name, tuple(nodes), tuple(inputs), outs))
    return out
