"""What a captured graph does, read from its fetches and targets (no TensorFlow import), and
the order the `memory` command and the run summary show a session's graphs in.

`role(...)` names one captured graph; `arrange(graphs)` puts the training step (else the
largest graph) first and folds the small bookkeeping graphs into one line (`folded_line`).
Rules: docs/memory.md "Graph roles".
"""

TRAINING = "training step"
EVALUATION = "evaluation/inference step"
INITIALIZATION = "variable initialization"
CHECKPOINT = "checkpoint save/restore"
SUMMARY = "summary"
OTHER = "other"
ROLES = (TRAINING, EVALUATION, INITIALIZATION, CHECKPOINT, SUMMARY, OTHER)
# the steps of a script: shown in full; the rest is bookkeeping, folded unless it does not fit
STEPS = (TRAINING, EVALUATION)

# TensorFlow op types (tensorflow/core/ops/io_ops.cc, logging_ops.cc, summary_ops.cc)
_CHECKPOINT_TYPES = frozenset(("SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore",
                               "RestoreSlice", "MergeV2Checkpoints"))
_INIT_CHECK_TYPES = frozenset(("IsVariableInitialized", "VarIsInitializedOp"))
_ASSIGN_TYPES = frozenset(("Assign", "AssignVariableOp"))
# what report_uninitialized_variables fetches: names of variables not initialized yet
# (tensorflow/python/ops/variables.py report_uninitialized_variables), or the flags themselves
_INIT_CHECK_RESULT = _INIT_CHECK_TYPES | frozenset((
    "ConcatV2", "Pack", "BooleanMask", "Identity", "LogicalNot", "Gather", "GatherV2",
    "Const", "Reshape", "StridedSlice", "Where", "Squeeze", "Shape"))
_DATA_TYPES = frozenset(("IteratorGetNext", "IteratorGetNextSync", "GetNext",
                         "IteratorGetNextAsOptional"))


def _is_summary(op_type):
    return op_type.endswith("Summary") or op_type.endswith("SummaryV2")


def role(training, tf_types, root_types, fed_inputs=0):
    """The role of one captured graph, one of `ROLES`, first rule that holds:

    - `training step`: it updates variables through an optimizer (`training`: Apply* ops);
    - `checkpoint save/restore`: it runs a Save/Restore op (`tf_types`: TF op type -> count in
      the subgraph);
    - `summary`: every fetched op or target (`root_types`: their TF op types) is a summary op;
    - `variable initialization`: it only assigns variables (targets, no fetched value) or
      checks which are initialized (`report_uninitialized_variables`: string/bool results of
      IsVariableInitialized/VarIsInitializedOp);
    - `evaluation/inference step`: it reads data (a GetNext, or `fed_inputs` fed tensors);
    - `other` (a global-step read, a metric reset, ...).
    """
    types = tf_types or {}
    roots = tuple(root_types or ())
    if training:
        return TRAINING
    if any(t in _CHECKPOINT_TYPES for t in types):
        return CHECKPOINT
    if roots and all(_is_summary(t) for t in roots):
        return SUMMARY
    if any(t in _INIT_CHECK_TYPES for t in types) and not any(t in _DATA_TYPES for t in types) \
            and not fed_inputs and all(t in _INIT_CHECK_RESULT for t in roots):
        return INITIALIZATION
    if roots and all(t in _ASSIGN_TYPES or t == "NoOp" for t in roots) and \
            any(t in _ASSIGN_TYPES for t in types) and not any(t in _DATA_TYPES for t in types):
        return INITIALIZATION
    if fed_inputs or any(t in _DATA_TYPES for t in types):
        return EVALUATION
    return OTHER


def _size(g):
    return (g.get("feature_map") or 0) + (g.get("variables") or 0)


def arrange(graphs):
    """(shown, folded): `graphs` (the report's graph dicts, each with `role`, `feature_map`,
    `nodes`, `verdict`) in the order to show them, and the ones folded into one line.

    First the training step (the largest by feature map + variables when there are several),
    else the evaluation/inference step, else the largest graph; then the other training and
    evaluation/inference steps, any graph that does not fit and the largest static graph
    (`dynamic` not set: the one static_memory_policy 2 sizes its pool by), in capture order.
    Folded: the rest (initialization, checkpoint, summary, other), in capture order. The run
    summary and the `memory` command both show this selection, so they count alike."""
    if not graphs:
        return [], []
    training = [g for g in graphs if g.get("role") == TRAINING]
    steps = [g for g in graphs if g.get("role") == EVALUATION]
    lead = max(training or steps or graphs, key=lambda g: (_size(g), g.get("nodes") or 0))
    static = [g for g in graphs if not g.get("dynamic")]
    largest = max(static, key=_size, default=None)
    shown = [lead]
    folded = []
    for g in graphs:
        if g is lead:
            continue
        if g.get("role") in STEPS or (g.get("verdict") or {}).get("fits") is False \
                or g is largest:
            shown.append(g)
        else:
            folded.append(g)
    return shown, folded


def folded_line(folded, hint="--all lists them", owner=""):
    """`5 more graphs: variable initialization (3), checkpoint save/restore, other: --all
    lists them` (roles in `ROLES` order, a count where more than one; `owner`: `5 more graphs
    of Session#1: ...`), or "" for none."""
    if not folded:
        return ""
    counts = {}
    for g in folded:
        r = g.get("role") or OTHER
        counts[r] = counts.get(r, 0) + 1
    parts = ["%s (%d)" % (r, counts[r]) if counts[r] > 1 else r
             for r in ROLES if r in counts]
    return "%d more graph%s%s: %s: %s" % (len(folded), "s" if len(folded) > 1 else "",
                                          " of " + owner if owner else "", ", ".join(parts),
                                          hint)
