"""`npu-bridge memory SCRIPT ARGS`: run a script as `run` does and print GE's memory plan of
each graph (largest tensors, peak point, each memory option's effect); `--plot FILE.png|.svg`
draws live memory over the schedule with the reuse-off line and the budget line;
`--graph FILE.json [--format text|json]` plans a graph given as data
(`memory_graph_cli`). Rules: docs/memory.md.
"""
import os
import sys

from npu_bridge.ge import graph_roles
from npu_bridge.ge import memory_plan as mp
from npu_bridge.tools.cli_types import bounded

PLOT_SIZE = (8.0, 7.0)   # inches: the block layout above, live memory below
PLOT_DPI = 100           # -> 800 x 700 pixels


def add_parser(sub, product_type):
    """Add the `memory` command to the `npu-bridge` subparsers `sub`."""
    import argparse
    p = sub.add_parser(
        "memory", help="run a script and print GE's memory plan of each graph",
        description="Run SCRIPT as `npu-bridge run` does (no report), capture each GE graph "
                    "of its sessions and print the plan GE's memory assigner would make: "
                    "feature map with and without reuse, variables, weights, the largest "
                    "tensors, the peak point, the budget and what each memory option changes "
                    "(docs/memory.md).",
        epilog="After the plans: the diagnostics `npu-bridge run` prints for the same run "
               "(its count line, one short line and a fix: line each). Exit code: the script's "
               "own when it fails; else 1 when a diagnostic is an error (as `run`: a graph "
               "that does not fit is NPB177) or the plot was not written, else 0. With "
               "--graph: 0, or 2 for a bad file or a GE feature not modelled.")
    p.add_argument("--graph", metavar="FILE.json",
                   help="plan a graph given as data (one case object: nodes with outputs and "
                        "workspace bytes, attrs, edges [src, out, dst, in], options as GE "
                        "keys; docs/memory.md) instead of running a script")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text, or JSON: with --graph one object with total_hbm (bytes) and "
                        "the [IMAS] figures; with a SCRIPT one object with each session's "
                        "plan (bytes; docs/memory.md)")
    p.add_argument("--product", type=product_type, help="target product id (else soc_config, "
                   "else $NPU_BRIDGE_PRODUCT)")
    p.add_argument("--plot", metavar="FILE", help="draw the largest graph's plan to FILE "
                   "(.png or .svg)")
    p.add_argument("--top", type=bounded(int, 0), default=5,
                   help="largest tensors listed per graph")
    p.add_argument("--workspace", type=bounded(int, 0), default=0, metavar="BYTES",
                   help="assumed operator workspace per node (default 0: unknown on a CPU)")
    p.add_argument("--fp16", action="store_true",
                   help="assume float32 feature maps run as float16 (mixed precision)")
    p.add_argument("--steps", type=int, metavar="N",
                   help="let the script run N training steps (runs of a graph with an "
                        "optimizer's Apply ops), then stop it at the next one, which is "
                        "captured and planned but not computed. --steps 0 computes nothing "
                        "of its NPU sessions: every run (initializers, dataset and checkpoint "
                        "runs too) is captured and planned, returns zeros of its fetches' "
                        "static shapes, and the first training step stops the script: it "
                        "plans a model too big for this machine (default: the script runs "
                        "to its end)")
    p.add_argument("--all", action="store_true",
                   help="list every graph in full (default: the training step first, else the "
                        "largest graph, then the other steps; the bookkeeping graphs - "
                        "initialization, checkpoint, summary - folded into one line)")
    p.add_argument("script", metavar="SCRIPT", nargs="?")
    rest = p.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER)
    rest.required = False
    return p


def plan_lines(rec, assumptions, top=5, show_all=False):
    """Text lines of the plan of one record's graphs: a header, each shown graph's table
    (`memory_table.GRAPH_ROWS`) named by its role, the training step first
    (`graph_roles.arrange`; `show_all`: every graph, in capture order), the bookkeeping
    graphs folded into one line, the session line (policy 0 against 2)."""
    from npu_bridge.ge import memory_graph, memory_report
    from npu_bridge.tools import memory_table
    base = memory_report.session_plan(rec, assumptions=assumptions)
    host = host_only_lines(rec)
    if base is None:
        return (["%s: no graph GE compiles" % rec["name"]] + host) if host else []
    o = base.options
    lines = ["%s (product %s, static_memory_policy %d, reuse %s): feature-map budget %s (%s), "
             "variable budget %s (%s)" % (rec["name"], o.product or "none", o.policy,
                                          "on" if o.reuse else "off", mp.mib(o.graph_budget),
                                          o.graph_budget_source, mp.mib(o.var_budget),
                                          o.var_budget_source)]
    entries = memory_report.planned(rec)
    rows = [{"role": r, "feature_map": g.feature_map, "variables": g.variables,
             "nodes": g.nodes, "verdict": v.to_dict(), "dynamic": g.dynamic, "at": i}
            for i, (g, v, r) in enumerate(zip(base.graphs, base.verdicts,
                                              memory_report.roles(rec)))]
    shown, folded = (rows, []) if show_all else graph_roles.arrange(rows)
    for row in shown:
        g, v, e = base.graphs[row["at"]], base.verdicts[row["at"]], entries[row["at"]]
        lines.append("  graph %s (%s): %d nodes, %d inputs, %d outputs" % (
            g.name, row["role"], g.nodes, g.num_inputs, g.num_outputs))
        if g.dynamic:
            lines.append("    " + mp.summary_line(g, v, o).split(": ", 1)[1])
            continue
        graph = memory_graph.fold_constants(e["captured"].graph)
        lines.extend(memory_table.graph_lines(memory_table.Table(
            g, v, o, base.variables, graph, assumptions or mp.Assumptions(), top)))
    if folded:
        lines.append("  " + graph_roles.folded_line(folded))
    lines.extend(host)
    alt = base.policy_alternatives
    lines.append("  session: feature map %s under policy %d; policy 0 (each graph its own): %s; "
                 "policy 2 (one pool, the largest graph): %s; variables %s; fits %s%s" % (
                     mp.mib(base.feature_map), o.policy, mp.mib(alt["0"]), mp.mib(alt["2"]),
                     mp.mib(base.variables),
                     {True: "yes", False: "NO", None: "unknown"}[base.session_verdict.fits],
                     " - " + base.session_verdict.text() if base.session_verdict.message
                     else ""))
    if o.external_weights:
        lines.append("  ge.externalWeight: %s of constants off the device" % mp.mib(
            sum(g.external_weights for g in base.graphs)))
    if o.huge_pages:
        lines.append("  ge.variableUse1gHugePage: variables rounded up to %s" % mp.mib(
            base.variables))
    return lines


def host_only(rec):
    """The partitions (`partition.Partition`) of the record's graphs that have no GeOp: the
    adapter leaves every op on the host (a dataset initializer), GE compiles nothing, so they
    have a number (`Session#1/1`, run order) and no memory plan (docs/memory.md)."""
    return [p for p in (rec.get("partitions") or ()) if p is not None and not p.geops]


def host_only_lines(rec):
    """`  host-only: graph Session#1/1 (nothing GE compiles: 7 host op(s), dataset_init 7): no
    GE memory`, one line per host-only graph of the record (`host_only`)."""
    lines = []
    for part in host_only(rec):
        rules = {}
        for h in part.host_ops:
            rules[h.rule] = rules.get(h.rule, 0) + 1
        lines.append("  host-only: graph %s (nothing GE compiles: %d host op(s)%s): no GE "
                     "memory" % (part.graph, len(part.host_ops), "".join(
                         ", %s %d" % kv for kv in sorted(rules.items(),
                                                         key=lambda kv: (-kv[1], kv[0])))))
    return lines


def budget_label(options, variables):
    """The plot's budget line: what is left for the feature map, and how it follows from the
    budget the text shows (`budget 1.0 GiB`): `feature-map budget 1005.9 MiB = 1.0 GiB
    (graph_memory_max_size) - 18.1 MiB variables`."""
    source = options.graph_budget_source
    share = "%d/%d" % mp.GRAPH_SHARE
    if source.startswith(share + " of "):   # the product's share: name the product
        source = "%s of %s" % (share, options.product or "the product's memory")
    return "feature-map budget %s = %s (%s) - %s variables" % (
        mp.mib(options.graph_budget - variables), mp.mib(options.graph_budget), source,
        mp.mib(variables))


def _run_with_stdout_on_stderr(run, *args, **kwargs):
    """Call run(...) with file descriptor 1 (and so `print`, C code and child processes) on
    stderr; fd 1 is restored afterwards, whatever the script did."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        return run(*args, **kwargs)
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):   # the script closed or broke sys.stdout
            pass
        os.dup2(saved, 1)
        os.close(saved)


def plot(plan, options, path, variables=0):
    """Draw `plan` (a static `GraphPlan`). Above: GE's block layout over the schedule, each
    tensor a rectangle at its offset (MiB) from its first to its last step in GE's
    topological order (`memory_table.draw_layout`). Below: live feature-map memory at each
    step, the highest address used so far, the bytes requested so far (what no reuse would
    need), and the budget left for the feature map (feature-map budget minus `variables`).
    Writes `path` (.png: PLOT_SIZE at PLOT_DPI, 800 x 700 pixels; .svg). Raises ValueError
    for another suffix or a dynamic plan."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".png", ".svg"):
        raise ValueError("--plot %r: give a .png or .svg file name" % path)
    if plan.dynamic:
        raise ValueError("graph %s is dynamic: nothing to draw" % plan.name)
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from npu_bridge.tools import memory_table
    fig = Figure(figsize=PLOT_SIZE, dpi=PLOT_DPI)
    layout = fig.add_subplot(2, 1, 1)
    memory_table.draw_layout(layout, plan)
    layout.set_title("GE memory plan: %s (%d nodes), %s, %s: block layout over the schedule"
                     % (plan.name, plan.nodes, plan.strategy, plan.topo_mode), fontsize=10)
    ax = fig.add_subplot(2, 1, 2, sharex=layout)
    steps = range(1, len(plan.steps) + 1)
    scale = 2 ** 20
    ax.step(steps, [s[1] / scale for s in plan.steps], where="post", label="live (reuse)")
    ax.plot(steps, [s[2] / scale for s in plan.steps], label="highest address used")
    ax.plot(steps, [s[3] / scale for s in plan.steps], linestyle="--",
            label="no reuse (requested so far)")
    top = max(s[3] for s in plan.steps) if plan.steps else 0
    if options.graph_budget is not None:
        budget = (options.graph_budget - variables) / scale
        ax.axhline(budget, color="red", linestyle=":", label=budget_label(options, variables))
        if top and budget > 20 * top / scale:
            ax.set_yscale("log")
    if plan.peak_step is not None:
        ax.annotate("peak: %s" % plan.peak_node[:40], (plan.peak_step + 1,
                                                       plan.largest_live / scale),
                    fontsize=8)
    ax.set_xlabel("step (node in GE's topological order)")
    ax.set_ylabel("MiB")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, format=suffix[1:])
    return path


def run(args, finish_run):
    """The `memory` command: run the script with capture on, print the plans (or, with
    --graph, plan the graph file)."""
    if args.graph:
        from npu_bridge.tools import memory_graph_cli
        if args.script:
            raise ValueError("give --graph FILE or a SCRIPT, not both")
        try:
            return memory_graph_cli.run(args.graph, args.format)
        except memory_graph_cli.GraphFileError as err:
            raise ValueError(str(err))
    if not args.script:
        raise ValueError("give a SCRIPT to run, or --graph FILE.json")
    from npu_bridge.ge import records as _records
    from npu_bridge.tools import runner as _runner
    problem = _runner.script_problem(args.script)
    if problem:
        raise ValueError(problem)
    if args.plot:   # checked before the script runs, as `run --report` is (one line, exit 2)
        if os.path.splitext(args.plot)[1].lower() not in (".png", ".svg"):
            raise ValueError("--plot %r: give a .png or .svg file name" % args.plot)
        from npu_bridge.tools import report
        report.check_folder_accepts(report.check_destination(args.plot, "--plot"), "--plot")
    if args.steps is not None and args.steps < 0:
        raise ValueError("--steps %d: give 0 or more training steps" % args.steps)
    cwd = os.getcwd()
    _records.clear()
    from npu_bridge.tools import report
    report.forget_capture_failures()
    _records.RUN.capture = True
    _records.RUN.steps = args.steps
    _records.RUN.steps_run = 0
    assumptions = mp.Assumptions(workspace_bytes=args.workspace,
                                 float32_as_fp16=True if args.fp16 else None)
    # SIGTERM/SIGHUP (a CI job's timeout, a closed terminal) stop the script as Ctrl-C would;
    # the graphs it ran until then are still planned (docs/cli.md)
    stop = _runner.stop_signals()
    try:
        if args.format == "json":   # stdout carries the JSON alone: the script's output to stderr
            result = _run_with_stdout_on_stderr(_runner.run_script, args.script, args.args,
                                                product=args.product, stop=stop)
        else:
            result = _runner.run_script(args.script, args.args, product=args.product, stop=stop)
    finally:
        stop.uninstall()
    lines = []
    worst = None
    bad = False
    sessions = []
    from npu_bridge.ge import memory_report
    for rec in _records.records():
        if args.format == "text":
            lines.extend(plan_lines(rec, assumptions, args.top, args.all))
        s = memory_report.session_plan(rec, assumptions=assumptions)
        if s is None:
            continue
        sessions.append(dict(s.to_dict(), name=rec["name"]))
        for g, r in zip(sessions[-1]["graphs"], memory_report.roles(rec)):
            g["role"] = r
        bad = bad or s.session_verdict.fits is False or any(
            v.fits is False for v in s.verdicts)
        for g in s.graphs:
            if not g.dynamic and (worst is None or g.feature_map > worst[0].feature_map):
                worst = (g, s.options, s.variables)
        if s is not None:
            sessions[-1]["host_only"] = [p.graph for p in host_only(rec)]
    # graphs not planned or partitioned, runs of NPU sessions in no plan (partial_run, ...)
    failures = report.capture_failures()
    lines.extend(report.capture_failure_lines(failures))
    if not lines and not sessions:
        lines.append("no GE graph ran (no NPU session was run)")
    # the findings as `npu-bridge run` prints them, and its exit status (docs/cli.md)
    from npu_bridge.tools import report
    data = report.build_run_report(
        script=os.path.abspath(args.script), argv=[args.script] + list(args.args), cwd=cwd,
        product=args.product, strict=False, environment_set=result.environment_set,
        records=_records.records(), script_exit_code=result.script_exit_code, exit_code=0,
        exception=result.exception, config_error=result.config_error, notes=result.notes,
        signal=result.signal, unattached=_records.waiting(),
        capture=failures)
    findings = report.diagnostics_summary_lines(data)   # JSON: in "diagnostics", in full
    lines.extend(findings)
    lines.extend(report.note_lines(data))   # what the runner could not do
    if result.steps_done:
        lines.append("script " + result.steps_done)
    if result.signal:
        lines.append("stopped by %s: the script did not finish; the plans above are of the "
                     "graphs it ran until then" % result.signal)
    unwritten = False
    if args.plot:
        if worst is None:
            lines.append("plot NOT written: no static graph")
        else:
            try:   # the folder was checked; it can still go away or fill up while the script runs
                plot(worst[0], worst[1], args.plot, worst[2])
                lines.append("plot: %s (graph %s)" % (args.plot, worst[0].name))
            except OSError as err:
                lines.append("plot NOT written: %s: %s" % (args.plot, err.strerror or err))
                unwritten = True
    sys.stdout.flush()
    if args.format == "json":
        import json
        diagnostics = [dict(d, configuration=c["name"]) for c in data["configurations"]
                       for d in c["diagnostics"]] + list(data["unattached"])
        print(json.dumps({"sessions": sessions, "steps_done": result.steps_done,
                          "summary": data["summary"], "diagnostics": diagnostics,
                          "not_planned": data["not_planned"],
                          "not_partitioned": data["not_partitioned"],
                          "not_captured": data["not_captured"],
                          "notes": [l for l in lines if l not in findings]}, indent=1))
    else:
        print("\n".join(lines))
    errors = data["summary"]["errors"]   # `run`'s exit status: 1 for an error finding
    code = result.script_exit_code or (1 if errors or bad or unwritten else 0)
    if result.signal:   # stopped: end now, as `run` does
        _runner.exit_now(code)
    return code
