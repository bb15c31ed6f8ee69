"""Spellings of older adapter releases: one table, read by the resolver, NPURunConfig and
lint (an `NPB108` warning instead of an unknown spelling's error: `resolver` builds it for a
parameter_map key, `argtypes.legacy_argument` for a constructor argument). Plain data,
importing nothing of the package: `config_schema`'s hints read it and `diagnostics` reads the
schema. Columns and sources: docs/design.md "Module notes".
"""
from types import MappingProxyType
from typing import NamedTuple, Optional, Tuple


class LegacySpelling(NamedTuple):
    name: str
    where: str
    field: Optional[str]
    releases: str
    now: str
    moved_to: str
    writes: Optional[Tuple[str, str]]
    requires: Tuple[str, ...] = ()


_HISTORY = "Ascend/tensorflow release branches"
_ROWS = (
    LegacySpelling(
        "auto_tune_mode", "NPURunConfig", None,
        "NPURunConfig(auto_tune_mode=None) in releases r1.1.1 .. r1.10.0 (%s; npu_estimator.py "
        "wrote parameter_map['auto_tune_mode'].s); removed from the class for r1.11.0 (commits "
        "78ecc222 2022-11-08, c8e219da 2022-11-23)" % _HISTORY,
        "read",
        "parameter_map['auto_tune_mode'].s (still read: ge.autoTuneMode); Auto Tune itself is "
        "superseded by AOE (aoe_mode)",
        ("auto_tune_mode", "s")),
    LegacySpelling(
        "mstune_mode", "NPURunConfig", None,
        "NPURunConfig(mstune_mode=None) in releases r1.2.0 and r1.3.0 (%s; npu_estimator.py "
        "wrote parameter_map['mstune_mode'].s and required work_path); renamed aoe_mode by "
        "r1.5.0 (commit a0bc1f7f 2021-06-01 'change mstune_mode to aoe_mode')" % _HISTORY,
        "ignored",
        "NPURunConfig(aoe_mode=...) / parameter_map['aoe_mode'] ('1' subgraph tuning, '2' "
        "operator tuning, '4' gradient split; mstune_mode '3' was 1 and 2 together)",
        ("mstune_mode", "s")),
    LegacySpelling(
        "mstune_mode", "parameter_map", "s",
        "read by the adapter in releases r1.2.0 and r1.3.0 (%s: util/npu_attrs.cc, values "
        "'1'..'4', sent to GE as ge.jobType); renamed aoe_mode by r1.5.0 (a0bc1f7f)" % _HISTORY,
        "ignored",
        "parameter_map['aoe_mode'] ('1' subgraph tuning, '2' operator tuning, '4' gradient "
        "split)",
        None),
    LegacySpelling(
        "op_tune_mode", "NPURunConfig", None,
        "NPURunConfig(op_tune_mode=None) in release r1.3.0 (%s; npu_estimator.py wrote "
        "parameter_map['op_tune_mode'].s next to mstune_mode); deleted by commit 9c7b68d4 "
        "2021-05-31" % _HISTORY,
        "ignored",
        "aoe_mode (operator tuning is aoe_mode '2')",
        ("op_tune_mode", "s"), ("mstune_mode",)),
    LegacySpelling(
        "op_tune_mode", "parameter_map", "s",
        "read by the adapter in release r1.3.0 (%s: util/npu_attrs.cc, forwarded as "
        "op_tune_mode); deleted by commit 9c7b68d4 2021-05-31" % _HISTORY,
        "ignored",
        "parameter_map['aoe_mode'] (operator tuning is '2')",
        None),
    LegacySpelling(
        "fp_point", "parameter_map", "s",
        "read by the adapter in release r1.1.1 (%s: util/npu_attrs.cc; npu_estimator.py wrote it "
        "from ProfilingConfig(fp_point=...)); moved into profiling_options by commit 75a73d1c "
        "2020-12-11 'profiling options changed'" % _HISTORY,
        "ignored",
        "the \"fp_point\" field of the profiling_options JSON (parameter_map['profiling_options'].s, "
        "hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/Profiling.md)",
        None),
    LegacySpelling(
        "bp_point", "parameter_map", "s",
        "read by the adapter in release r1.1.1 (%s: util/npu_attrs.cc; npu_estimator.py wrote it "
        "from ProfilingConfig(bp_point=...)); moved into profiling_options by commit 75a73d1c "
        "2020-12-11 'profiling options changed'" % _HISTORY,
        "ignored",
        "the \"bp_point\" field of the profiling_options JSON (parameter_map['profiling_options'].s, "
        "hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/Profiling.md)",
        None),
    LegacySpelling(
        "fp_point", "ProfilingConfig", None,
        "ProfilingConfig(enable_profiling=False, enable_options=[], fp_point=None, bp_point=None) "
        "in release r1.1.1 (%s; npu_estimator.py wrote parameter_map['fp_point'].s and "
        "['bp_point'].s when profiling was on and both were given); moved into profiling_options "
        "by commit 75a73d1c 2020-12-11 'profiling options changed'" % _HISTORY,
        "ignored",
        "the \"fp_point\" field of ProfilingConfig(profiling_options=...), a JSON string "
        "(hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/Profiling.md)",
        ("fp_point", "s"), ("bp_point", "enable_profiling")),
    LegacySpelling(
        "bp_point", "ProfilingConfig", None,
        "ProfilingConfig(enable_profiling=False, enable_options=[], fp_point=None, bp_point=None) "
        "in release r1.1.1 (%s; npu_estimator.py wrote parameter_map['fp_point'].s and "
        "['bp_point'].s when profiling was on and both were given); moved into profiling_options "
        "by commit 75a73d1c 2020-12-11 'profiling options changed'" % _HISTORY,
        "ignored",
        "the \"bp_point\" field of ProfilingConfig(profiling_options=...), a JSON string "
        "(hicann/tensorflow docs/en/tfadapter_1/apiref/session_config/Profiling.md)",
        ("bp_point", "s"), ("fp_point", "enable_profiling")),
    LegacySpelling(
        "enable_options", "ProfilingConfig", None,
        "ProfilingConfig(enable_options=[...]) in release r1.1.1 (%s; a list of "
        "'training_trace', 'task_trace', 'op_trace': npu_estimator.py wrote it joined by ':' to "
        "parameter_map['profiling_options'].s, a form the current adapter hands GE as the JSON "
        "of its profiling options, so it is not written: profiling on without profiling_options "
        "runs with the adapter's default options); replaced by profiling_options by commit "
        "75a73d1c 2020-12-11 'profiling options changed'" % _HISTORY,
        "ignored",
        "ProfilingConfig(profiling_options='{\"output\": ..., \"training_trace\": \"on\", "
        "\"task_trace\": \"on\", \"fp_point\": ..., \"bp_point\": ...}') (hicann/tensorflow "
        "docs/en/tfadapter_1/apiref/session_config/Profiling.md)",
        None),
    LegacySpelling(
        "es_cluster_config", "NPURunConfig", None,
        "NPURunConfig(es_cluster_config=None) in releases r1.13.0 .. r1.15.0 and r3.2.0 (%s; "
        "npu_estimator.py wrote parameter_map['es_cluster_config'].s; the embedding service's "
        "cluster configuration); not in the current class (hicann/tensorflow)" % _HISTORY,
        "ignored",
        "",
        ("es_cluster_config", "s")),
    LegacySpelling(
        "es_cluster_config", "parameter_map", "s",
        "read by the adapter in releases r1.13.0 .. r1.15.0 and r3.2.0 (%s: util/npu_attrs.cc, "
        "sent as ge.esClusterConfig); not read by the current adapter (hicann/tensorflow)"
        % _HISTORY,
        "ignored",
        "",
        None),
    LegacySpelling(
        "enable_auto_mix_precision", "NPURunConfig", None,
        "a release older than the public adapter history (no branch of Ascend/tensorflow, "
        "2020-08 .. 2023, has it): the vendor migration sample shows "
        "NPURunConfig(enable_auto_mix_precision=True) replaced by "
        "precision_mode='allow_mix_precision' (hicann/tensorflow "
        "docs/en/tfadapter_1/migration/sample_ref/run_config.md); model-zoo scripts set "
        "parameter_map['enable_auto_mix_precision'].b, which is what is written",
        "ignored",
        "NPURunConfig(precision_mode='allow_mix_precision') / parameter_map['precision_mode']",
        ("enable_auto_mix_precision", "b")),
    LegacySpelling(
        "enable_auto_mix_precision", "parameter_map", "b",
        "a release older than the public adapter history (no branch of Ascend/tensorflow has "
        "it; the vendor migration sample hicann/tensorflow docs/en/tfadapter_1/migration/"
        "sample_ref/run_config.md replaces it by precision_mode='allow_mix_precision')",
        "ignored",
        "parameter_map['precision_mode'].s = 'allow_mix_precision'",
        None),
    LegacySpelling(
        "master_slave_mode", "parameter_map", "b",
        "set by Huawei's own WideDeep host-embedding scripts of 2022 (Ascend/ModelZoo-TensorFlow "
        "WideDeep_ID0028 and WideDeep_hostembedding); no branch of the public adapter "
        "(Ascend/tensorflow 2020-08 .. 2023, hicann/tensorflow) reads it, so which release did "
        "is not confirmed (a host-embedding build outside the public history)",
        "ignored",
        "",
        None),
)

ROWS = _ROWS
_BY = MappingProxyType({(r.where, r.name): r for r in _ROWS})
ARGUMENTS = MappingProxyType({cls: MappingProxyType({r.name: r for r in _ROWS if r.where == cls})
                              for cls in dict.fromkeys(r.where for r in _ROWS)
                              if cls != "parameter_map"})   # class -> {argument: row}
CONSTRUCTOR_ARGS = ARGUMENTS["NPURunConfig"]
PARAMETER_MAP_KEYS = MappingProxyType({r.name: r for r in _ROWS if r.where == "parameter_map"})


def row(where, name):
    """The row of `name` written at `where` (a class name or "parameter_map"), or None."""
    return _BY.get((where, name))


def now_text(r):
    """What the current adapter does with row `r`'s spelling (an NPB108 message's effect)."""
    if r.now == "read":
        return "the current adapter still reads it"
    return "the current adapter ignores it (the setting has no effect)"
