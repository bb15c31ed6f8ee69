"""`npu_bridge.ge.graph_roles`: what each captured graph does, and the order shown."""
from npu_bridge.ge import graph_roles as gr


def test_roles_from_fetches_and_targets():
    assert gr.role(True, {"ApplyAdam": 3, "SaveV2": 1}, ["NoOp"]) == gr.TRAINING
    assert gr.role(False, {"SaveV2": 1, "MergeV2Checkpoints": 1}, ["Identity"], 1) == \
        gr.CHECKPOINT
    assert gr.role(False, {"RestoreV2": 1, "Assign": 4}, ["NoOp"]) == gr.CHECKPOINT
    assert gr.role(False, {"ScalarSummary": 2, "MergeSummary": 1}, ["MergeSummary"]) == \
        gr.SUMMARY
    assert gr.role(False, {"Assign": 15, "NoOp": 1}, ["NoOp"]) == gr.INITIALIZATION
    # report_uninitialized_variables: a string tensor built from IsVariableInitialized
    assert gr.role(False, {"IsVariableInitialized": 15, "ConcatV2": 1}, ["ConcatV2"]) == \
        gr.INITIALIZATION
    assert gr.role(False, {"IteratorGetNext": 1, "MatMul": 2}, ["ArgMax"]) == gr.EVALUATION
    assert gr.role(False, {"MatMul": 2}, ["Softmax"], fed_inputs=1) == gr.EVALUATION
    # a global-step read through IsVariableInitialized: not an initializer, not a step
    assert gr.role(False, {"IsVariableInitialized": 1, "AddV2": 1}, ["AddV2"]) == gr.OTHER


def _g(role, fm, fits=True):
    return {"role": role, "feature_map": fm, "variables": 0, "nodes": 1,
            "verdict": {"fits": fits}}


def test_arrange_leads_with_the_training_step_and_folds_bookkeeping():
    init, save, step, other = (_g(gr.INITIALIZATION, 900), _g(gr.CHECKPOINT, 5),
                               _g(gr.TRAINING, 100), _g(gr.OTHER, 1))
    init2, big = _g(gr.INITIALIZATION, 3), _g(gr.SUMMARY, 10 ** 9, fits=False)
    shown, folded = gr.arrange([init, save, step, other, init2, big])
    assert shown == [step, big]   # a graph that does not fit is never folded
    assert folded == [init, save, other, init2]
    assert gr.folded_line(folded) == ("4 more graphs: variable initialization (2), "
                                      "checkpoint save/restore, other: --all lists them")
    assert gr.folded_line([]) == ""
    # no training step: the evaluation step, else the largest graph
    ev = _g(gr.EVALUATION, 1)
    assert gr.arrange([init, ev])[0] == [ev, init]   # init: the largest static graph
    assert gr.arrange([init, dict(ev, feature_map=10 ** 4)])[0] == [dict(ev, feature_map=10 ** 4)]
    dyn = dict(init, dynamic=True, feature_map=None)   # a dynamic graph has no static size
    assert gr.arrange([dyn, ev, save]) == ([ev, save], [dyn])
    assert gr.arrange([save, init])[0] == [init]
