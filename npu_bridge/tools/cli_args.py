"""The `npu-bridge` command line: its subcommands, options and help texts (`build_parser`);
the commands themselves are in `npu_bridge.tools.cli`. See docs/cli.md.
"""
import argparse

from npu_bridge.tools.cli_types import bounded

LINT_FORMATS = ("text", "json", "sarif", "github")
# --fail-on: the severities that fail a command (one model for run and lint).
FAIL_ON = {"error": ("error",), "warning": ("error", "warning"),
           "info": ("error", "warning", "info")}
DEFAULT_REPORT = "npu_bridge_report.json"


def _product(value):
    """argparse type of --product: a product id, or a SoC name mapped to one
    (`npu_bridge.ge.products.lookup`). An unknown name is a usage error listing the known ones."""
    from npu_bridge.ge import products
    found = products.lookup(value)
    if found is None:
        raise argparse.ArgumentTypeError(products.unknown_product("--product", value,
                                                                  "--product").message)
    return found


def _add_fail_on(parser, default):
    parser.add_argument("--fail-on", choices=tuple(FAIL_ON), default=default,
                        help="lowest severity that makes the exit code 1 (default: %s)"
                             % default)


def _add_show_source(parser):
    parser.add_argument("--show-source", action="store_true",
                        help="under each finding, where its rule comes from (the vendor page "
                             "by title and path, the adapter or GE file and line, a figure's "
                             "confidence); `npu-bridge explain CODE` says it per code")


def build_parser():
    """The `npu-bridge` argument parser (argparse), every subcommand's options and help."""
    parser = argparse.ArgumentParser(
        prog="npu-bridge",
        description="Run Ascend TF1 scripts on the CPU and check their NPU (GE) options.",
        epilog="Exit codes: 0 clean, 1 findings or errors, 2 usage error.")
    from npu_bridge import __version__
    parser.add_argument("--version", action="version", version="npu-bridge " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run", help="run a script unmodified and report every NPU configuration it resolved",
        description="Run SCRIPT as `python SCRIPT ARGS` would (same sys.argv, __main__, working "
                    "directory) in the TF 1.x API mode with the single-device Ascend job "
                    "environment, collect each configuration it resolved, print a summary "
                    "(stderr) and write the JSON report.",
        epilog="Exit code: the script's own when it fails; else 1 on errors (--strict: on "
               "warnings too), else 0.")
    run.add_argument("--product", type=_product, help="target product id (else soc_config, "
                     "else $NPU_BRIDGE_PRODUCT)")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--report", metavar="FILE", default=DEFAULT_REPORT,
                       help="JSON report path, replaced atomically (default: ./%s); "
                       "anything there but a regular file (symlink, folder, device, FIFO, "
                       "socket) is refused before the script runs, as are a folder refusing "
                       "new files, the script itself and an existing file that is not a "
                       "previous npu-bridge report" % DEFAULT_REPORT)
    where.add_argument("--no-report", action="store_true", help="write no report file")
    run.add_argument("--strict", action="store_true",
                     help="exit 1 on warnings too (the same as --fail-on warning)")
    _add_fail_on(run, "error")
    run.add_argument("--require-config", action="store_true",
                     help="exit 1 when the script resolved no NPU configuration at all (a CI "
                          "check that the script really configures the NPU)")
    run.add_argument("--all", action="store_true",
                     help="the summary also lists the options left at their defaults")
    _add_show_source(run)
    run.add_argument("--precision", choices=("off", "emulate"), default=None,
                     help="emulate: each NPU session's graph computes with the precision the "
                     "NPU would use (float16/bfloat16, its overflow mode, the loss-scale "
                     "skips) and the summary says what overflowed (docs/precision.md); "
                     "default: $NPU_BRIDGE_PRECISION, else off")
    ranks = run.add_argument_group("several ranks (docs/collectives.md)")
    ranks.add_argument("--ranks", type=int, metavar="N", help="start N worker processes, one per "
                       "rank, on TensorFlow's own collectives (a version 1.0 rank table is "
                       "generated unless --rank-table is given)")
    ranks.add_argument("--rank-table", metavar="FILE", help="a rank table (version 1.0 or 1.2) "
                       "deciding the ranks, servers and local ranks")
    ranks.add_argument("--hosts", metavar="ADDR,...", help="one address per server of the rank "
                       "table (loopback addresses such as 127.0.0.2 on one machine)")
    ranks.add_argument("--collective-timeout", type=bounded(float, 0, above=True), metavar="S",
                       default=None,
                       help="seconds a Session.run that executes collectives may take before "
                       "it fails naming the missing ranks (default 120)")
    run.add_argument("script", metavar="SCRIPT", help="the Python script to run (or, as "
                     "python takes, a directory or zip file holding __main__.py)")
    rest = run.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                            help="arguments passed to the script")
    rest.required = False   # argparse marks a REMAINDER positional required: ARGS is optional

    opts = sub.add_parser(
        "options", help="resolve a ConfigProto (text format) or parameter_map entries",
        description="Resolve an NpuOptimizer configuration and print, per level, the GE keys "
                    "and values, the effective values, where each came from and the "
                    "diagnostics.",
        epilog="--set KEY=VALUE types VALUE as the catalog says for KEY (a bool: true, "
               "false, 1 or 0, any case; a decimal int; a string); KEY.FIELD=VALUE forces the "
               "AttrValue field (b, i, f, s).")
    opts.add_argument("--product", type=_product, help="target product id")
    opts.add_argument("--format", choices=("table", "json"), default="table")
    opts.add_argument("--all", action="store_true",
                      help="also list the options left at their adapter defaults")
    _add_show_source(opts)
    src = opts.add_mutually_exclusive_group(required=True)
    src.add_argument("--pbtxt", metavar="FILE", help="a ConfigProto in protobuf text format")
    src.add_argument("--set", metavar="KEY=VALUE", action="append", dest="entries",
                     help="a parameter_map entry (repeatable)")

    lint = sub.add_parser(
        "lint", help="statically check scripts (never runs them)",
        description="Find parameter_map assignments and config-class arguments in Python "
                    "files and folders and check their literal values with the resolver. "
                    "Text output: path:line:col: CODE severity: message (and an indented "
                    "fix: line where a fix exists), then a one-line summary on stderr.",
        epilog="Exit code 1 when a finding is at or above --fail-on (default: warning), "
               "0 otherwise or with --exit-zero, 2 on a usage error. Formats: text, json, "
               "sarif (SARIF 2.1.0, for code-scanning uploads), github (workflow annotations).")
    lint.add_argument("--product", type=_product, help="target product id")
    lint.add_argument("--format", choices=LINT_FORMATS, default="text")
    lint.add_argument("--jobs", type=int, default=None,
                      help="worker processes (default: the number of CPUs)")
    lint.add_argument("--max-bytes", type=int, default=None,
                      help="skip (with a finding) files larger than this")
    lint.add_argument("--select", metavar="CODES", default="",
                      help="comma-separated codes or prefixes to report (default: all), e.g. "
                           "NPB1,NBL")
    lint.add_argument("--ignore", metavar="CODES", default="",
                      help="comma-separated codes or prefixes to leave out (e.g. NPB105); a "
                           "line can also say `# noqa` or `# noqa: CODE`")
    _add_fail_on(lint, "warning")
    lint.add_argument("--exit-zero", action="store_true",
                      help="exit 0 even when there are findings (usage errors still exit 2)")
    _add_show_source(lint)
    lint.add_argument("--stdin-display-name", metavar="NAME", default="stdin",
                      help="the name findings of `-` (the script read from stdin) carry "
                           "(default: stdin), as flake8's option")
    lint.add_argument("paths", metavar="PATH", nargs="+",
                      help="files or folders; `-` reads one script from stdin")

    explain = sub.add_parser(
        "explain", help="describe one option from the catalog",
        description="Print an option's GE key, level, field, default, values, products and "
                    "source. OPTION is a parameter_map key, an NPURunConfig argument (also one "
                    "taking a config class, such as memory_config), a GE key, an ir_option "
                    "name, or a diagnostic code (NPB126, E10001, NBL011).")
    explain.add_argument("option", metavar="OPTION")
    from npu_bridge.tools import memory_cli
    memory_cli.add_parser(sub, _product)
    from npu_bridge.tools import partition_cli
    partition_cli.add_parser(sub, _product)
    partition_cli.add_supported_ops(run)

    diff = sub.add_parser(
        "diff", help="what changed between two reports (a migration's before and after)",
        description="Compare two reports (`run --report` files or `options --format json` "
                    "output): per configuration (paired by kind and name, else in order), the "
                    "GE options added (+), removed (-) or changed (~) at each level, and the "
                    "diagnostics that appeared (+) or went away (-).",
        epilog="Exit code: 0 no differences, 1 differences, 2 usage error (as diff(1)).")
    diff.add_argument("--format", choices=("text", "json"), default="text")
    diff.add_argument("before", metavar="A.json")
    diff.add_argument("after", metavar="B.json")
    return parser
