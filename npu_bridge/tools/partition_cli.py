"""`npu-bridge partition SCRIPT ARGS`: run a script as `run` does and print, for each graph its
sessions ran, what the NPU compiles (the GeOps) and what stays on the host (each host op with
the adapter's rule), and the tensors crossing between them per step. Rules: docs/partition.md.
"""
import os
import sys

from npu_bridge.tools.cli_types import bounded

ENV = "NPU_BRIDGE_SUPPORTED_OPS"   # read by npu_bridge.hooks.partition_capture


def add_supported_ops(parser):
    parser.add_argument("--supported-ops", metavar="FILE",
                        help="an npu_supported_ops.json to decide which ops the NPU compiles "
                             "(else the CANN install's list under $ASCEND_OPP_PATH, else the "
                             "default list of public sources: docs/partition.md)")


def use_supported_ops(path):
    """Check `--supported-ops FILE` before the script runs (ValueError naming the file) and
    hand it to the hooks through the environment."""
    if path is None:
        return
    from npu_bridge.ge import supported_ops
    supported_ops.from_file(path)
    os.environ[ENV] = os.path.abspath(path)


def add_parser(sub, product_type):
    """Add the `partition` command to the `npu-bridge` subparsers `sub`."""
    import argparse
    p = sub.add_parser(
        "partition", help="run a script and print what the NPU compiles and what stays on "
                          "the host, per graph",
        description="Run SCRIPT as `npu-bridge run` does (no report), and print for each graph "
                    "its NPU sessions ran the TF adapter's partition: the GeOps GE compiles "
                    "(op types, largest tensors, inputs and outputs), the ops left on the host "
                    "each with the adapter's rule and its source, the host<->device tensors "
                    "per step, and the adapter's errors and warnings (docs/partition.md).",
        epilog="Exit code: the script's own when it fails; else 1 when the adapter would fail "
               "a graph (an error diagnostic), else 0.")
    p.add_argument("--product", type=product_type, help="target product id (else soc_config, "
                   "else $NPU_BRIDGE_PRODUCT)")
    add_supported_ops(p)
    p.add_argument("--top", type=bounded(int, 0), default=10, help="op types, inputs and outputs listed per "
                   "GeOp (default 10)")
    p.add_argument("script", metavar="SCRIPT")
    rest = p.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER)
    rest.required = False
    return p


def run(args):
    """The `partition` command: run the script with capture on, print the partitions."""
    from npu_bridge.ge import partition_report, records as _records
    from npu_bridge.tools import runner as _runner
    problem = _runner.script_problem(args.script)
    if problem:
        raise ValueError(problem)
    use_supported_ops(args.supported_ops)
    _records.clear()
    _records.RUN.capture = True
    result = _runner.run_script(args.script, args.args, product=args.product)
    lines, bad = [], False
    for rec in _records.records():
        parts = rec.get("partitions") or ()
        if parts:
            lines.append("%s %s:" % (rec["kind"], rec["name"]))
        for p in parts:
            d = p.to_dict()
            lines.extend(partition_report.full_lines(d, args.top))
            bad = bad or any(x["severity"] == "error" for x in d["diagnostics"])
    if not lines:
        lines.append("no graph ran in an NPU session: nothing partitioned")
    sys.stdout.flush()
    print("\n".join(lines))
    if result.script_exit_code:
        return result.script_exit_code
    return 1 if bad else 0
