"""What the NPU's precision mode does to each operator, for `npu-bridge run --precision emulate`
(no TensorFlow). Rules and sources: docs/precision.md.

`plan_for(ge_options, sat_mode=None)` turns a resolved configuration into a `PrecisionPlan`:
the mode GE applies (`precision_mode_v2`, else `precision_mode`, else the product's training
default), the low-precision type it computes in (float16 / bfloat16 / none), the overflow
mode (saturation or INF/NaN), and, through `PrecisionPlan.kind(op_type)`, what happens to one
operator type. Sources:
- the modes: hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/accuracy_tuning.md
  (precision_mode, precision_mode_v2, modify_mixlist; the training defaults per product);
- the matrix ("cube") operators: GE's fe.ini `fp16.op_type` (hicann/ge
  compiler/engines/nn_engine/optimizer/fe_config/fe.ini line 117), the list GE's
  allow_fp32_to_fp16 and force_fp32 strategies read (op_dtype_selection_strategy_allow_fp32_to_fp16.cc
  line 71, op_dtype_selection_strategy_force_fp32.cc line 42), mapped to TensorFlow op types;
- the built-in mixed-precision lists: not public (they are the `precision_reduce` flags of
  the OPP ops-info files on an installed CANN); the stand-in is TensorFlow's own AMP lists
  (`MIXED_LISTS_SOURCE`), allow -> white, deny -> black, every other op gray, as the
  vendor doc says of an op with no flag;
- the overflow mode: docs/en/tfadapter_1/apiref/npu_plugin/set_device_sat_mode.md.
"""
import dataclasses
import json

# GE's fe.ini fp16.op_type (Ascend IR names) as the TensorFlow op types the adapter hands GE
# for them (TF spells depthwise convolution DepthwiseConv2dNative; conv2d_transpose and
# conv3d_transpose are Conv2DBackpropInput / Conv3DBackpropInputV2 in TF graphs).
MATRIX_OPS = frozenset((
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3",
    "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput",
    "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
    "DepthwiseConv2dNativeBackpropInput",
    "Conv3D", "Conv3DBackpropInput", "Conv3DBackpropInputV2", "Conv3DBackpropFilter",
    "Conv3DBackpropFilterV2",
))
MATRIX_SOURCE = ("hicann/ge compiler/engines/nn_engine/optimizer/fe_config/fe.ini line 117 "
                 "(fp16.op_type), mapped to TensorFlow op types")

# Stand-in for the NPU's built-in mixed lists: TensorFlow's AMP lists (tensorflow/tensorflow
# tensorflow/core/grappler/optimizers/auto_mixed_precision_lists.h, commit 0107439; TF 2.15
# calls them allow/deny). Only the op types a CPU graph can hold are kept.
MIXED_WHITE = frozenset((
    "BlockLSTM", "BlockLSTMV2", "BlockLSTMGrad", "BlockLSTMGradV2", "Conv2D",
    "Conv2DBackpropFilter", "Conv2DBackpropInput", "Einsum", "GRUBlockCell", "GRUBlockCellGrad",
    "LSTMBlockCell", "LSTMBlockCellGrad", "MatMul", "BatchMatMul", "BatchMatMulV2", "Conv3D",
    "Conv3DBackpropFilter", "Conv3DBackpropFilterV2", "Conv3DBackpropInput",
    "Conv3DBackpropInputV2",
))
MIXED_BLACK = frozenset((
    "Exp", "Expm1", "L2Loss", "Mean", "Pow", "SaveV2", "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits", "Sum",
))
MIXED_LISTS_SOURCE = ("stand-in: TensorFlow's AMP lists (tensorflow/core/grappler/optimizers/"
                      "auto_mixed_precision_lists.h: allow -> white, deny -> black, others "
                      "gray); the NPU's own lists are the precision_reduce flags of the "
                      "installed OPP ops-info files, not public")

# Never computed in low precision: they move or store float32 state (variables, optimizer
# updates, casts, control flow); GE keeps variables in their dtype.
_NEVER_LOW_PREFIXES = ("Apply", "ResourceApply", "SparseApply", "ResourceSparseApply", "Assign",
                       "Variable", "VarHandle", "ReadVariable", "Save", "Restore")
_NEVER_LOW = frozenset(("Cast", "Const", "Placeholder", "PlaceholderWithDefault", "Switch",
                        "Merge", "Enter", "Exit", "NextIteration", "RefSwitch", "RefMerge",
                        "RefEnter", "RefExit", "RefNextIteration", "LoopCond", "NoOp",
                        "IsFinite", "IsInf", "IsNan", "CheckNumerics"))
# Pass a value on unchanged: low out when their input came low, never rounded themselves.
TRANSPARENT = frozenset(("Identity", "IdentityN", "StopGradient", "Snapshot", "Reshape",
                         "Squeeze", "ExpandDims", "PreventGradient", "EnsureShape"))

# mode (either option's spelling) -> (canonical name, low dtype, rule)
# rules: "matrix" matrix ops low; "all" every float op low; "cube_in" matrix ops read low,
# write float32; "mixed" the white/gray/black lists; "none" nothing changes on a CPU graph
MODES = {
    "allow_fp32_to_fp16": ("allow_fp32_to_fp16", "float16", "matrix"),
    "force_fp16": ("force_fp16", "float16", "all"),
    "fp16": ("force_fp16", "float16", "all"),
    "force_fp32": ("cube_fp16in_fp32out", "float16", "cube_in"),
    "cube_fp16in_fp32out": ("cube_fp16in_fp32out", "float16", "cube_in"),
    "must_keep_origin_dtype": ("must_keep_origin_dtype", None, "none"),
    "origin": ("must_keep_origin_dtype", None, "none"),
    "allow_mix_precision": ("allow_mix_precision_fp16", "float16", "mixed"),
    "allow_mix_precision_fp16": ("allow_mix_precision_fp16", "float16", "mixed"),
    "mixed_float16": ("allow_mix_precision_fp16", "float16", "mixed"),
    "allow_mix_precision_bf16": ("allow_mix_precision_bf16", "bfloat16", "mixed"),
    "mixed_bfloat16": ("allow_mix_precision_bf16", "bfloat16", "mixed"),
    # float32 is kept wherever the AI Core supports it, as every CPU kernel does
    "allow_fp32_to_bf16": ("allow_fp32_to_bf16", None, "none"),
}
NOT_MODELLED = {"mixed_hif8": "hifloat8 has no CPU type (and the adapter doc says the current "
                              "version does not support it)",
                "cube_hif8": "hifloat8 has no CPU type (and the adapter doc says the current "
                             "version does not support it)"}
# training default of precision_mode per product (accuracy_tuning.md, "In training scenarios")
TRAINING_DEFAULT = {"atlas-training": "allow_fp32_to_fp16"}
_KEEP_DEFAULT_PRODUCTS = ("ascend-950", "atlas-a3-training", "atlas-a3-inference",
                          "atlas-a2-training", "atlas-a2-inference")
# largest finite value of each low type (overflow: beyond it)
TYPE_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}

SATURATION, INF_NAN = "saturation", "inf_nan"
SAT_MODE_SOURCE = "hicann/tensorflow docs/en/tfadapter_1/apiref/npu_plugin/set_device_sat_mode.md"


@dataclasses.dataclass(frozen=True)
class PrecisionPlan:
    """What one configuration's precision mode does.

    mode: the canonical mode name (`MODES`), or the value as set when not modelled;
    set_by: "precision_mode_v2", "precision_mode" or "default (<product>)"; low: "float16",
    "bfloat16" or None; rule: see `MODES`; sat_mode: `SATURATION` or `INF_NAN`, sat_source:
    where that came from; white/black: the mixed lists after modify_mixlist; not_emulated:
    why nothing is emulated (None when something is); diagnostics: problems of the
    modify_mixlist file (`npu_bridge.ge.diagnostics.Diagnostic`)."""
    mode: str
    set_by: str
    low: object
    rule: str
    sat_mode: str
    sat_source: str
    white: frozenset = MIXED_WHITE
    black: frozenset = MIXED_BLACK
    not_emulated: object = None
    mixlist: object = None
    diagnostics: tuple = ()

    def kind(self, op_type, keep_dtype=False):
        """What op type `op_type` does under this plan: "low" (reads and writes `low`),
        "cube_in" (reads `low`, writes float32), "gray" (low when an input comes low: mixed
        modes), "transparent" (passes its input on: low when that came low) or "keep". `keep_dtype`: the op is under `npu_scope.keep_dtype_scope`
        (`_keep_dtype` = 1: GE keeps its dtype, op_format_dtype_strategy_manager.cc line 229)."""
        if keep_dtype or self.low is None or op_type in _NEVER_LOW or op_type.startswith(
                _NEVER_LOW_PREFIXES):
            return "keep"
        if op_type in TRANSPARENT:
            return "transparent"
        if self.rule == "matrix":
            return "low" if op_type in MATRIX_OPS else "keep"
        if self.rule == "cube_in":
            return "cube_in" if op_type in MATRIX_OPS else "keep"
        if self.rule == "all":
            return "low"
        if self.rule == "mixed":
            if op_type in self.black:
                return "keep"
            return "low" if op_type in self.white else "gray"
        return "keep"

    def lists_short(self):
        """`lists_source` in a few words, for the summary line."""
        if self.rule == "mixed":
            extra = " changed by modify_mixlist %s" % self.mixlist if self.mixlist else ""
            return "stand-in TensorFlow AMP lists%s (docs/precision.md)" % extra
        if self.rule in ("matrix", "cube_in"):
            return "matrix ops of GE's fe.ini fp16.op_type"
        return ""

    def lists_source(self):
        """Where this plan's op lists come from (one line)."""
        if self.rule == "mixed":
            extra = " changed by modify_mixlist %s" % self.mixlist if self.mixlist else ""
            return MIXED_LISTS_SOURCE + extra
        if self.rule in ("matrix", "cube_in"):
            return "matrix ops: " + MATRIX_SOURCE
        return ""


def sat_mode_for(product, requested):
    """(mode, source) of the overflow mode: `requested` (0 saturation, 1 INF/NaN from
    `npu_plugin.set_device_sat_mode`, or None) on a product that can switch, else the
    product's own: only saturation on atlas-training, INF/NaN by default on A2/A3/950
    (set_device_sat_mode.md). No product and no call: INF/NaN, said so in the source."""
    if product == "atlas-training":
        note = "" if requested in (None, 0) else " (set_device_sat_mode(1) ignored: the only mode)"
        return SATURATION, "atlas-training has saturation mode only%s (%s)" % (note, SAT_MODE_SOURCE)
    if requested is not None:
        return ((SATURATION if requested == 0 else INF_NAN),
                "npu_plugin.set_device_sat_mode(%d)" % requested)
    if product is None:
        return INF_NAN, "no product: INF/NaN assumed (atlas-training would saturate)"
    return INF_NAN, "%s default (%s)" % (product, SAT_MODE_SOURCE)


def plan_for(ge_options, sat_mode=None, read_text=None):
    """The `PrecisionPlan` of a resolved configuration (`GeOptions`: its `global_options`
    and `product`). `sat_mode`: what `npu_plugin.set_device_sat_mode` set (0, 1 or None).
    `read_text(path) -> str` reads the modify_mixlist file (default: open it as UTF-8).
    Never raises: a modify_mixlist problem is a diagnostic NPB181 on the plan (the built-in
    lists are used then)."""
    opts = getattr(ge_options, "global_options", None) or {}
    product = getattr(ge_options, "product", None)
    sat, sat_source = sat_mode_for(product, sat_mode)
    v2 = opts.get("ge.exec.precision_mode_v2") or ""
    v1 = opts.get("ge.exec.precision_mode") or ""
    if v2:
        value, set_by = v2, "precision_mode_v2"
    elif v1:
        value, set_by = v1, "precision_mode"
    elif product in TRAINING_DEFAULT:
        value, set_by = TRAINING_DEFAULT[product], "default (%s)" % product
    elif product in _KEEP_DEFAULT_PRODUCTS:
        value, set_by = "must_keep_origin_dtype", "default (%s)" % product
    else:
        return PrecisionPlan("unknown", "default (no product)", None, "none", sat, sat_source,
                             not_emulated="no precision mode set and no target product: the "
                             "NPU's default depends on the product (allow_fp32_to_fp16 on "
                             "atlas-training, must_keep_origin_dtype on A2/A3); pass --product")
    if value in NOT_MODELLED:
        return PrecisionPlan(value, set_by, None, "none", sat, sat_source,
                             not_emulated=NOT_MODELLED[value])
    if value not in MODES:
        return PrecisionPlan(value, set_by, None, "none", sat, sat_source,
                             not_emulated="mode %r is not one the emulation knows" % value)
    mode, low, rule = MODES[value]
    white, black, mixlist, diags = MIXED_WHITE, MIXED_BLACK, None, ()
    path = opts.get("ge.exec.modify_mixlist") or ""
    if rule == "mixed" and path:
        white, black, diags = apply_mixlist(path, read_text)
        mixlist = path
    return PrecisionPlan(mode, set_by, low, rule, sat, sat_source, white, black, None, mixlist,
                         tuple(diags))


_SECTIONS = ("black-list", "white-list", "gray-list")
_ACTIONS = ("to-add", "to-remove")


def apply_mixlist(path, read_text=None):
    """(white, black, diagnostics): the built-in mixed lists changed by the modify_mixlist
    file at `path` (JSON, accuracy_tuning.md "modify_mixlist"): black-list to-add moves an op
    type to black, to-remove from black to gray; white-list likewise for white; gray-list
    to-add moves it to gray (out of both), to-remove is refused (gray has no other place to
    go). Every problem is one NPB181 error; with any, the built-in lists are returned."""
    from npu_bridge.ge import diagnostics as _diagnostics
    problems = []
    try:
        text = read_text(path) if read_text else _read(path)
        data = json.loads(text)
    except (OSError, UnicodeDecodeError) as err:
        problems.append("cannot be read: %s" % err)
        data = None
    except ValueError as err:
        problems.append("is not valid JSON: %s" % err)
        data = None
    white, black = set(MIXED_WHITE), set(MIXED_BLACK)
    if data is not None and not isinstance(data, dict):
        problems.append("must hold a JSON object with the keys %s" % ", ".join(_SECTIONS))
    elif data is not None:
        for section, body in data.items():
            if section not in _SECTIONS:
                problems.append("has section %r; allowed: %s" % (section, ", ".join(_SECTIONS)))
                continue
            if not isinstance(body, dict):
                problems.append("section %r must be an object with %s" % (section, " / ".join(_ACTIONS)))
                continue
            for action, ops in body.items():
                if action not in _ACTIONS or (section == "gray-list" and action == "to-remove"):
                    allowed = ("to-add",) if section == "gray-list" else _ACTIONS
                    problems.append("%s has %r; allowed: %s" % (section, action, ", ".join(allowed)))
                    continue
                if not isinstance(ops, list) or not all(isinstance(o, str) for o in ops):
                    problems.append("%s.%s must be a list of op type names" % (section, action))
                    continue
                for op in ops:
                    if action == "to-remove":   # out of this list: gray
                        (black if section == "black-list" else white).discard(op)
                        continue
                    white.discard(op)
                    black.discard(op)
                    if section == "white-list":
                        white.add(op)
                    elif section == "black-list":
                        black.add(op)
    if problems:
        return MIXED_WHITE, MIXED_BLACK, [_diagnostics.make(
            "NPB181", "modify_mixlist", path, problem=p) for p in problems]
    return frozenset(white), frozenset(black), []


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def overflow_fixes(plan, op, op_type, forward, scaling):
    """`(fixes, fix_more)`: the fixes of a low-precision overflow of op `op` (TensorFlow type
    `op_type`) under `plan`, for NPB180 / NPB182: `fixes` the message's sentence, `fix_more`
    what the fix line adds after "keep_dtype_scope() around <op>" (short). `forward`: True
    when the op feeds the loss (no loss scale changes its output), False for a gradient op,
    None when unknown (no loss seen). `scaling`: None (no NPULossScaleOptimizer on the step),
    "checks" (one whose overflow check runs), "no_check" (FixedLossScaleManager(
    enable_overflow_check=False) in saturation mode: nothing checked,
    npu_loss_scale_optimizer.py line 76). Never advises what the script already has;
    modify_mixlist only for the mixed modes (accuracy_tuning.md "modify_mixlist": it acts
    when mixed precision is enabled)."""
    fixes, more = ["npu_scope.keep_dtype_scope() around %s" % op], []
    if plan.rule == "mixed":
        fixes.append("modify_mixlist black-list to-add %s" % op_type)
        more.append("modify_mixlist black-list")
    if forward:
        fixes.append("smaller inputs or weights for %s (it is in the forward pass: no loss scale "
                     "changes its output%s)" % (op, ", so the NPULossScaleOptimizer already "
                                                    "used cannot help" if scaling else ""))
        more.append("smaller inputs/weights (forward pass)")
    elif scaling is None:
        fixes.append("add NPULossScaleOptimizer with ExponentialUpdateLossScaleManager (it skips "
                     "overflowed steps and lowers the scale)")
        more.append("NPULossScaleOptimizer (dynamic scale)")
    elif scaling == "no_check":
        fixes.append("FixedLossScaleManager(enable_overflow_check=True) (overflowed steps are "
                     "then skipped) or a lower loss_scale")
        more.append("enable_overflow_check=True")
    else:
        fixes.append("NPULossScaleOptimizer is already used: a lower init_loss_scale / "
                     "loss_scale, or ExponentialUpdateLossScaleManager's "
                     "decr_every_n_nan_or_inf / decr_ratio")
        more.append("a lower loss scale")
    if (not forward and plan.sat_mode == SATURATION
            and plan.sat_source.startswith("npu_plugin.set_device_sat_mode")):
        fixes.append("npu_plugin.set_device_sat_mode(1) (INF/NaN, this product's default)")
    return (", ".join(fixes[:-1]) + ", or " + fixes[-1],
            "".join("; " + m for m in more))


def saturation_outcome(scaling, skipped, forward):
    """NPB182's `(outcome, outcome_short)`: what became of a saturated step (see
    `overflow_fixes` for `scaling`), or None when nothing is to be said (the optimizer
    skipped a gradient overflow, as loss scaling is meant to)."""
    if skipped:
        if not forward:
            return None
        return ("NPULossScaleOptimizer (already used) skipped the step, and as the op is in the "
                "forward pass no loss scale removes the overflow: every such step is skipped "
                "and the model does not train", "every step skipped (forward overflow)")
    if scaling == "no_check":
        return ("the loss-scale manager has enable_overflow_check=False, so NPULossScaleOptimizer "
                "applied the step with the clipped values",
                "unchecked: enable_overflow_check=False")
    return ("no NPULossScaleOptimizer reads the overflow status, so the step computed with the "
            "clipped values (a loss stays finite but wrong)",
            "unchecked: no NPULossScaleOptimizer")


# --- the report's `precision` object and the summary's lines ---------------------------------

NOT_EMULATED_LINE = ("numerics: not emulated (float32 on the CPU; `npu-bridge run --precision "
                     "emulate` previews the NPU's precision mode: docs/precision.md)")


NO_RUN = ("no run of this session went through Session.run while emulating (make_callable, "
          "Keras's callables and partial_run are not emulated; docs/precision.md)")


def configuration_precision(rec, emulate=False):
    """The report's `precision` object of record `rec` (None when the emulation never looked
    at it: emulation off, an estimator or options record, a refused one; with `emulate` a
    session none of whose runs went through the emulation says so, `NO_RUN`). Keys: emulated (bool: some op really
    computed in the low type), mode, set_by, low, sat_mode, sat_source, lists, not_emulated,
    notes, graphs (per fetch set that ran: ops by type, steps, overflow_steps,
    skipped_updates, loss_scale [[step, value]...], first_overflow, nonfinite_loss)."""
    info = rec.get("precision")
    if not info:
        if emulate and rec.get("kind") == "session" and not rec.get("refused"):
            return {"emulated": False, "mode": None, "set_by": None, "low": None,
                    "sat_mode": None, "sat_source": None, "lists": "", "lists_short": "",
                    "not_emulated": NO_RUN, "notes": [], "graphs": []}
        return None
    plan = info["plan"]
    graphs = []
    for e in info["graphs"]:
        graphs.append({k: v for k, v in e.items() if not k.startswith("_")})
    emulated = any(g["ops_low"] or g["ops_cube_in"] for g in graphs)
    not_emulated = plan.not_emulated
    if not_emulated is None and not emulated:
        not_emulated = ("no op of the graphs run computes in %s under %s" % (plan.low, plan.mode)
                        if plan.low else "%s keeps float32 on every op a CPU graph holds"
                        % plan.mode)
    return {"emulated": emulated, "mode": plan.mode, "set_by": plan.set_by, "low": plan.low,
            "sat_mode": plan.sat_mode, "sat_source": plan.sat_source,
            "lists": plan.lists_source(), "lists_short": plan.lists_short(),
            "not_emulated": not_emulated,
            "notes": list(info.get("notes", ())), "graphs": graphs}


def _counts(table):
    return ", ".join("%s %d" % kv for kv in sorted(table.items(), key=lambda kv: (-kv[1], kv[0])))


def precision_lines(conf):
    """The summary's lines for one configuration's `precision` object (none without one)."""
    p = conf.get("precision")
    if not p:
        return []
    if p["mode"] is None:
        return ["  precision: NOT emulated: " + p["not_emulated"]]
    head = "  precision: %s (%s), %s mode" % (p["mode"], p["set_by"], p["sat_mode"].replace(
        "inf_nan", "INF/NaN"))
    if p["not_emulated"]:
        lines = [head + ": NOT emulated: " + p["not_emulated"]]
    else:
        lists = p.get("lists_short") or p["lists"]   # none when every float op is low
        lines = [head + ", emulated in %s%s" % (p["low"], "; lists: " + lists if lists else "")]
    for g in p["graphs"]:
        if not (g["ops_low"] or g["ops_cube_in"]):
            continue
        ops = _counts(g["ops_low"])
        if g["ops_cube_in"]:
            ops += ("; " if ops else "") + "%s in, float32 out: %s" % (p["low"], _counts(
                g["ops_cube_in"]))
        line = "    %s: %d step(s), ops in %s: %s" % (g["graph"], g["steps"], p["low"], ops)
        if g["keep_dtype_ops"]:
            line += "; %d kept by keep_dtype_scope" % g["keep_dtype_ops"]
        lines.append(line)
        over = "      overflowed steps %d, skipped updates %d" % (g["overflow_steps"],
                                                               g["skipped_updates"])
        if g["first_overflow"]:
            f = g["first_overflow"]
            over += "; first overflow at step %d: %s (%s, max |x| %.4g)" % (
                f["step"], f["op"], f["type"], f["max_abs"])
        lines.append(over)
        if g["loss_scale"]:
            hist = g["loss_scale"]
            shown = hist if len(hist) <= 6 else hist[:3] + [None] + hist[-2:]
            lines.append("      loss scale: " + " -> ".join(
                "..." if h is None else "%g@%d" % (h[1], h[0]) for h in shown))
        if g["skipped"]:
            lines.append("      left in float32 (rewrite failed): " + "; ".join(g["skipped"][:3]))
    lines.extend("    note: " + n for n in p["notes"])
    return lines


def exit_line(records):
    """The one stderr line a plain `python` run with NPU_BRIDGE_PRECISION=emulate prints at
    exit (`npu-bridge run` prints its summary instead): per session configuration
    (`records`: `npu_bridge.ge.records.Record`s) the mode, the ops in the low type, steps,
    overflows, skipped updates, the first overflow and the codes of its warnings (the fixes
    are in the summary of `npu-bridge run`). None when no NPU session was made (a process
    the script started that opened none says nothing)."""
    parts = []
    for rec in records:
        p = configuration_precision(rec, emulate=True)
        if not p:
            continue
        name = rec.name
        if p["mode"] is None or p["not_emulated"]:
            mode = "" if p["mode"] is None else "%s (%s): " % (p["mode"], p["set_by"])
            parts.append("%s: %sNOT emulated: %s" % (name, mode, p["not_emulated"]))
            continue
        ran = [g for g in p["graphs"] if g["ops_low"] or g["ops_cube_in"]]
        types = sorted(set().union(*(set(g["ops_low"]) | set(g["ops_cube_in"]) for g in ran)))
        text = "%s: %s (%s), %s mode, in %s: %s; %d step(s), overflowed %d, skipped updates %d" % (
            name, p["mode"], p["set_by"], p["sat_mode"].replace("inf_nan", "INF/NaN"), p["low"],
            ", ".join(types), sum(g["steps"] for g in ran),
            sum(g["overflow_steps"] for g in ran), sum(g["skipped_updates"] for g in ran))
        first = next((g["first_overflow"] for g in ran if g["first_overflow"]), None)
        if first:
            text += "; first overflow at step %d: %s (%s, max |x| %.4g)" % (
                first["step"], first["op"], first["type"], first["max_abs"])
        codes = sorted({"%s %s" % (d.severity, d.code) for d in rec.runtime
                        if d.code.startswith("NPB18")})
        if codes:
            text += "; " + ", ".join(codes)
        parts.append(text)
    if not parts:
        return None
    return ("npu_bridge: precision emulated (NPU_BRIDGE_PRECISION=emulate): " + " | ".join(parts)
            + " (warnings and their fixes: npu-bridge run --precision emulate; docs/precision.md)")


# --- TensorFlow's own AMP pass next to the emulation -------------------------------------------

TF_AMP_PREFIX = "TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_"
_TF_AMP_LISTS = ("ALLOWLIST", "INFERLIST", "DENYLIST", "CLEARLIST")


def tf_amp_notes(environ, session_amp_on=False):
    """Notes (strings) on TensorFlow's grappler auto_mixed_precision pass when the emulation
    runs: `session_amp_on` (the session's RewriterConfig turns auto_mixed_precision* on: it
    rewrites on top of the emulation, which then counts what it did, not what TF did), and
    an op type in two of TF's lists once the `TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_<LIST>_ADD`
    / `_REMOVE` variables changed them (TF logs "Op lists have conflicting entries" and the
    pass leaves the graph in float32; TF's built-in infer/clear lists are not known here)."""
    notes = []
    if session_amp_on:
        notes.append("the session turns TensorFlow's grappler auto_mixed_precision on: it "
                     "rewrites the graph again after this emulation, which reports only its own")
    # the lists as TF builds them: its built-in allow/deny lists (the stand-ins above; its
    # infer/clear lists are not transcribed), then each variable's ADD and REMOVE
    lists = {"ALLOWLIST": set(MIXED_WHITE), "DENYLIST": set(MIXED_BLACK), "INFERLIST": set(),
             "CLEARLIST": set()}
    for name in _TF_AMP_LISTS:
        for action, change in (("_ADD", set.update), ("_REMOVE", set.difference_update)):
            change(lists[name], filter(None, (x.strip() for x in environ.get(
                TF_AMP_PREFIX + name + action, "").split(","))))
    seen = {}
    for name in _TF_AMP_LISTS:
        for op in lists[name]:
            seen.setdefault(op, []).append(name)
    clashes = {op: lists for op, lists in seen.items() if len(lists) > 1}
    if clashes:
        notes.append("TensorFlow's AMP pass would fail ('Op lists have conflicting entries') "
                     "and leave the graph float32: %s set in %s" % (
                         ", ".join(sorted(clashes)), "; ".join(
                             "%s: %s" % (op, "+".join(l)) for op, l in sorted(clashes.items()))))
    return notes
