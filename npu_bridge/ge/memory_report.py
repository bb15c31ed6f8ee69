"""The memory plan of a run's sessions as the report and the summary show it (no TensorFlow).

`configuration_memory(rec)`: the report's `memory` object of one record (its captured
graphs, planned by `npu_bridge.ge.memory_plan`); `memory_lines(conf)`: the summary's lines.
Schema: docs/report_schema.md `memory`; rules: docs/memory.md.
"""
from npu_bridge.ge import graph_roles
from npu_bridge.ge import memory_plan as mp


def planned(rec):
    """The record's captured graphs that have a plan (`GraphEntry`s; a graph that could not
    be planned has none)."""
    return [e for e in (rec.get("graphs") or ()) if e["plan"] is not None]


def roles(rec):
    """The role (`graph_roles.ROLES`) of each captured graph of record `rec`, in capture
    order (the order of `session_plan(rec).graphs`)."""
    return [getattr(e["captured"], "role", graph_roles.OTHER) for e in planned(rec)]


def named(summary, name, role):
    """`summary` (a line `graph NAME: ...`) with the graph's role after its name."""
    head = "graph %s" % name
    if role and summary.startswith(head):
        return "%s (%s)%s" % (head, role, summary[len(head):])
    return summary


def session_plan(rec, options=None, assumptions=None):
    """The `SessionPlan` of the record's captured graphs (None when none were captured).
    `options` (a `MemoryOptions`) replaces the record's own (the `memory` command's
    comparisons); the graphs are planned again when `options` or `assumptions` is given."""
    entries = planned(rec)
    if not entries:
        return None
    own = rec.get("_memory_options") or mp.MemoryOptions.from_ge(rec["options"])
    if options is None and assumptions is None:
        return mp.plan_session([e["plan"] for e in entries], own)
    options = options or own
    return mp.plan_session([e["captured"].graph for e in entries], options, assumptions)


def configuration_memory(rec):
    """The report's `memory` object for record `rec`, or None (no graph captured, or its plan
    failed: the report is written regardless)."""
    try:
        return _configuration_memory(rec)
    except Exception:   # pylint: disable=broad-except
        return None


def _configuration_memory(rec):
    plan = session_plan(rec)
    if plan is None:
        return None
    out = plan.to_dict()
    for g, p, v, r in zip(out["graphs"], plan.graphs, plan.verdicts, roles(rec)):
        g["role"] = r
        g["summary"] = named(mp.summary_line(p, v, plan.options), p.name, r)
    out["assumptions"] = mp.Assumptions().to_dict()
    return out


def memory_lines(conf, show_all=False):
    """Summary lines of one configuration's memory plan (empty without one): a line per graph
    `graph_roles.arrange` shows (as the `memory` command: the training step first, the
    other steps, the largest static graph, each graph that does not fit), the session line,
    and one line folding the graphs not shown, by role; `show_all` (`run --all`): a line per
    graph."""
    mem = conf.get("memory")
    if not mem:
        return []
    graphs = mem["graphs"]
    shown = graphs
    if not show_all and len(graphs) > 1:
        shown = graph_roles.arrange(graphs)[0]
    lines = ["  memory: " + g["summary"] for g in shown]
    if len(graphs) > 1:
        alt = mem["policy_alternatives"]
        lines.append("  memory: %s %s (static_memory_policy %d): feature map %s (policy 0: %s, "
                     "policy 2: %s), variables %s" % (
                         conf.get("kind", "session"), conf.get("name", ""), mem["policy"],
                         mp.mib(mem["feature_map"]), mp.mib(alt["0"]),
                         mp.mib(alt["2"]), mp.mib(mem["variables"])))
    hidden = [g for g in graphs if g not in shown]
    if hidden:
        dynamic = sum(1 for g in hidden if g.get("dynamic"))
        # (the graphs over the budget are all shown: a hidden static one fits, or its
        # budget is unknown, with no product and no graph_memory_max_size)
        unknown = sum(1 for g in hidden if not g.get("dynamic")
                      and (g.get("verdict") or {}).get("fits") is None)
        verdict = ("none over the budget" if not unknown else
                   "%d not checked" % unknown if mem.get("graph_budget") is not None else
                   "not checked: memory of %s unknown (NPB145), no graph_memory_max_size"
                   % mem["product"] if mem.get("product") else
                   "not checked: no budget (no target product, no graph_memory_max_size)")
        lines.append("  memory: %s" % graph_roles.folded_line(
            hidden, "%d static, %s; %d dynamic shape: --all lists them" % (
                len(hidden) - dynamic, verdict, dynamic), conf.get("name", "")))
    return lines
