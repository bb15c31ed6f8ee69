"""A diagnostic is a row of the code table (npu_bridge/ge/codes.py): every diagnostic of the
package, run time and lint, is built by `make(code, option, value, **fields)` from its code's
one template; nothing writes a message of its own (issue 23)."""
import ast
import json
import os
import pickle
import re
import string

import pytest

from npu_bridge.ge import codes
from npu_bridge.ge.diagnostics import (CODES, SEVERITIES, SHORT_LIMIT, cite, fill, fix_of, make,
                                       name_pages, short_of)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# where a Diagnostic may be built directly: `make` itself and the JSON reader of GeOptions
BUILDERS = {os.path.join("npu_bridge", "ge", "diagnostics.py"),
            os.path.join("npu_bridge", "ge", "options.py")}
MAKERS = ("make", "_make", "problem", "_problem")


def _calls():
    for folder, dirs, files in os.walk(os.path.join(ROOT, "npu_bridge")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, ROOT)
                for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                    if isinstance(node, ast.Call):
                        func = node.func
                        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                        yield rel, node, called


def test_no_diagnostic_writes_its_own_message():
    bad = []
    for rel, node, called in _calls():
        if called in MAKERS and (len(node.args) > 3 or any(k.arg == "message" for k in node.keywords)):
            bad.append("%s:%d %s(...) with a message of its own" % (rel, node.lineno, called))
        if called in ("Diagnostic", "_Diagnostic") and rel not in BUILDERS:
            bad.append("%s:%d builds a Diagnostic directly" % (rel, node.lineno))
    assert not bad, "\n".join(bad)


def test_each_code_is_named_by_literal_in_few_modules():
    """A code's message lives in its row: the modules that raise it are few (NPB160 and
    NPB108 were named in 6 modules each before the table held their text)."""
    where = {}
    for rel, node, called in _calls():
        if called in MAKERS and node.args and isinstance(node.args[0], ast.Constant):
            where.setdefault(node.args[0].value, set()).add(rel)
    crowded = {code: sorted(mods) for code, mods in where.items() if len(mods) > 3}
    assert not crowded, crowded


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_rows_are_complete(code):
    row = CODES[code]
    assert row.severity in SEVERITIES and row.title and row.source and row.template
    for _, field, _, _ in string.Formatter().parse(row.template):
        assert field is None or field.split("!")[0].isidentifier(), (code, field)


def test_make_fills_the_template_and_says_what_is_missing():
    d = make("NPB176", "ExponentialUpdateLossScaleManager", "AssignAdd", deps="AssignAdd")
    assert d.severity == "error" and d.message.startswith(
        "ExponentialUpdateLossScaleManager created inside tf.control_dependencies(AssignAdd)")
    assert "npu_loss_scale_optimizer_faq.md" in d.message
    with pytest.raises(KeyError, match="deps"):
        make("NPB176", "m", None)
    with pytest.raises(ValueError, match="severity 'fatal' of NPB176"):
        make("NPB176", "m", None, severity="fatal", deps="x")
    with pytest.raises(KeyError):
        make("NPB999", "m", None)


# One realistic (long) example per code: (option, value, fields) as its callers pass them.
# A new code needs its example here: the tests below are parametrized over the table.
_LONG_PATH = "/home/user/projects/resnet50_imagenet/output/" + "x" * 60
EXAMPLES = {
    "E10001": ("precision_mode", "allow_mix_precison", dict(
        shown="'allow_mix_precison'", reason="did you mean 'allow_mix_precision'?",
        suggestion="allow_mix_precision", allowed="allow_fp32_to_fp16, force_fp16, "
        "must_keep_origin_dtype, allow_mix_precision, cube_fp16in_fp32out, allow_mix_precision_fp16",
        where="seed:ge_memory_options_zh.txt")),
    "NPB100": ("sfusion_switch_file", "/cfg/fusion.cfg", dict(
        key="'sfusion_switch_file'", what="is unknown",
        effect="ignores it; did you mean 'fusion_switch_file' or 'fusion_switch_files'?",
        suggestion="fusion_switch_file")),
    "NPB101": ("optypelist_for_implmode", True, dict(
        want_name="s (bytes/string)", field_name="b (bool)", want="s",
        effect="ignores the value", outcome="the value is lost")),
    "NPB102": ("jit_compile", True, dict(
        field_name="b (bool)", want_name="s (bytes/string)", want="s", converted="true",
        effect="refuses it: session creation fails (InvalidArgument; hicann/tensorflow "
               "tf_adapter/util/npu_attrs.cc:2635)", outcome="the adapter refuses it")),
    "NPB103": ("static_memory_policy", 1, dict(
        shown="1", note="legacy value, runs as 2", allowed="0, 2, 3, 4",
        where="seed:memoryconfig_constructor_zh.txt; seed:ge_memory_options_zh.txt",
        runs_as=2)),
    "NPB104": ("input_fusion_size", 67108864, dict(
        allowed="[0, 33554432] bytes", bound=33554432, how="as the real adapter does",
        where="seed:ge_memory_options_zh.txt; "
        "docs/en/tfadapter_1/apiref/session_config/memory_management.md")),
    "NPB105": ("variable_memory_max_size", None, dict(
        replacement=" (use the MemoryConfig of NPURunConfig instead)",
        where="docs/en/tfadapter_1/apiref/session_config/deprecated_options.md")),
    "NPB106": ("NpuOptimizer", "precision_mode, static_memory_policy", dict(
        count=3, changes="precision_mode 'allow_mix_precision' (NpuOptimizer #1) -> "
        "'force_fp32' (NpuOptimizer #2); static_memory_policy 2 (NpuOptimizer #1) -> "
        "unset, its default 0 (NpuOptimizer #3)")),
    "NPB107": ("NpuOptimizer", "NPUOptimizer", {}),
    "NPB108": ("enable_auto_mix_precision", True, dict(
        spelling="NPURunConfig(enable_auto_mix_precision=True)",
        what="an argument of NPURunConfig", note=" (r1.1.1 to r1.7.0)",
        effect="the current adapter ignores it; precision_mode='allow_mix_precision' is the "
        "setting now", releases="Ascend/tensorflow r1.1.1..r1.7.0 npu_config.py")),
    "NPB110": ("product", None, dict(env="NPU_BRIDGE_PRODUCT")),
    "NPB111": ("product", "atlas-a2-trainning", dict(
        where="--product", ids="ascend-950, atlas-a3-training, atlas-a3-inference, "
        "atlas-a2-training, atlas-a2-inference, atlas-200i-500-a2, atlas-inference, "
        "atlas-training", socs="Ascend950, Ascend910_93xx, Ascend910B1/B2/B2C/B3/B4/B4-1",
        known="ascend-950, atlas-a3-training, atlas-a3-inference, atlas-a2-training, "
        "atlas-a2-inference, atlas-200i-500-a2, atlas-inference, atlas-training",
        fix="--product atlas-a2-training")),
    "NPB115": ("soc_config", "Ascend310P3", dict(
        product="atlas-a2-training", where="forced_product() / --product",
        name="atlas-a2-training", soc_product="atlas-inference")),
    "NPB117": ("NPU_BRIDGE_PRODUCT", "atlas-a2-trainning", dict(
        env="NPU_BRIDGE_PRODUCT", where="soc_config", name="Ascend910B1",
        product="atlas-a2-training", unknown="unknown product 'atlas-a2-trainning'")),
    "NPB116": ("NpuOptimizer", None, {}),
    "NPB112": ("variable_use_1g_huge_page", 1, dict(
        shown="1", product="atlas-inference", products="atlas-a3-training, "
        "atlas-a3-inference, atlas-a2-training, atlas-training",
        where="seed:memoryconfig_constructor_zh.txt")),
    "NPB113": ("precision_mode", "allow_mix_precision_bf16", dict(
        shown="allow_mix_precision_bf16", product="atlas-training",
        products="ascend-950, atlas-a3-training, atlas-a3-inference, atlas-a2-training, "
        "atlas-a2-inference", where="docs/en/tfadapter_1/apiref/session_config/"
        "accuracy_tuning.md")),
    "NPB114": ("MemoryConfig", None, dict(
        product="atlas-200i-500-a2", products="atlas-a3-training, atlas-a3-inference, "
        "atlas-a2-training, atlas-training", where="seed:memoryconfig_constructor_zh.txt")),
    "NPB120": ("static_memory_policy", 1, dict(
        shown="1", runs_as=" (runs as 2)", parallel=4,
        where="seed memoryconfig_constructor_zh.txt")),
    "NPB121": ("static_memory_policy", 2, dict(
        shown="2", var="GE_USE_STATIC_MEMORY", env_value="3", merged=4,
        where="reference README")),
    "NPB122": ("input_fusion_size", 25600, dict(where="seed:ge_memory_options_zh.txt")),
    "NPB123": ("static_memory_policy", 2, dict(
        shown="static_memory_policy 1 (runs as 2) (the process's: Session#1 initialized GE "
        "with it)", what="graph Session#2/3 started while graph Session#1/2 was executing",
        allowed="0, 2, 3, 4, 1 (legacy)", key="ge.exec.staticMemoryPolicy")),
    "NPB124": ("iterations_per_loop", 100, dict(
        steps=1050, start=0, last=1050, end_by="steps=1050", npu_end=1100, last_loop=50,
        fix="steps=1100 (or steps=1000)",
        source="reference option_values.json (iterations_per_loop notes)")),
    "NPB125": ("iterations_per_loop", 10, dict(
        call="util.set_iteration_per_loop(sess, train_op, 10)", session="Session#1",
        shown="parameter_map iterations_per_loop unset (adapter default 1)",
        effect="the NPU would not loop at all: the adapter switches the device loop on only "
        "when the session's value is above 1")),
    "NPB126": ("static_memory_policy", 2, dict(
        owner="Session#1", listed="static_memory_policy 2 (GE runs 0); precision_mode "
        "'allow_mix_precision' (GE runs 'allow_fp32_to_fp16')",
        advice="close the other NPU sessions first, or give every session the same global "
        "options")),
    "NPB130": ("ge.exec.staticMemoryPolicy", "2", dict(
        level="session", levels="global", where="seed:ge_memory_options_zh.txt")),
    "NPB131": ("ge.exec.outputReuseInputMemIndexes", "0,1|6,8", dict(
        dropped="6,8, 9,9, 12,3", inputs=2, outputs=3)),
    "NPB132": ("ge.exec.inputReuseMemIndexes", "0,1", dict(where="seed:ge_memory_options_zh.txt")),
    "NPB133": ("ge.externalWeightDir", _LONG_PATH, dict(got="0", where="seed:ge_memory_options_zh.txt")),
    "NPB134": ("ge.externalWeightDir", _LONG_PATH, dict(
        wdir=_LONG_PATH, key="ge.externalWeightDir", var="ASCEND_WORK_PATH",
        where="seed:ge_memory_options_zh.txt (precedence rule)")),
    "NPB135": ("ge.exec.staticMemoryPolcy", "2", dict(
        what="unknown GE option", key="ge.exec.staticMemoryPolcy",
        detail="; did you mean ge.exec.staticMemoryPolicy?")),
    "NPB136": ("ge.externalWeightDir", _LONG_PATH + "/../weights", dict(
        files="external weight files", reason="has a '..' component (it would leave the "
        "folder it names)", where="project rule (npu_bridge/ge/paths.py)")),
    "NPB140": ("graph_memory_max_size", 38654705664, dict(
        sizes="graph_memory_max_size 27917287424 + variable_memory_max_size 10737418240",
        parts=[27917287424, 10737418240], memory=34359738368, product="atlas-training",
        confidence="high", figure="no platform config carries it (Ascend910B.ini: empty); "
        "reference ge_memory.md 'Device memory per product': 32 GiB HBM of Ascend 910",
        where="GE's defaults, hicann/ge base/graph/manager/graph_var_manager.h",
        fix_key="graph_memory_max_size", fit=23622320128)),
    "NPB145": ("graph_memory_max_size", None, dict(
        product="atlas-200i-500-a2", figure="none: Ascend310B2/B3/B4.ini leave memory_size "
        "empty", rule="NPB140")),
    "NPB141": ("mix_compile_mode", True, dict(
        shown="true", needs="iterations_per_loop", allowed=1, got="100",
        where="docs/en/tfadapter_1/apiref/session_config/mixed_computing.md")),
    "NPB142": ("precision_mode", "allow_mix_precision", dict(
        shown="'allow_mix_precision'", other="precision_mode_v2", other_shown="'mixed_float16'",
        failure="the real adapter fails session creation",
        where="reference option_values.json checked_by_adapter (precision_mode, "
        "precision_mode_v2)")),
    "NPB143": ("enable_dump", True, dict(
        subject="enable_dump=True", needed="dump_path (a directory)",
        failure="the real adapter fails session creation", fix='parameter_map["dump_path"].s '
        '= b"DUMP_PATH"',
        where="reference option_values.json checked_by_adapter (enable_dump, dump_path)")),
    "NPB144": ("dump_path", _LONG_PATH, dict(
        cause="enable_dump=True", failure="the real adapter fails session creation",
        where="reference option_values.json checked_by_adapter (enable_dump, dump_path)")),
    "NPB150": ("GE_USE_STATIC_MEMORY", "yes", dict(allowed="0, 1, 2, 3, 4",
                                                   where="reference README")),
    "NPB160": ("static_memory_policy", "2", dict(
        subject="MemoryConfig(static_memory_policy='2')", expected="an int (or a bool, "
        "written as 1/0)", got="str", detail="; the real NPUEstimator writes it with "
        "parameter_map['static_memory_policy'].i = value, where protobuf raises TypeError",
        where="hicann/tensorflow npu_estimator.py")),
    "NPB161": ("distribute", None, dict(
        subject="distribute=None", rule="\"cluster\" (TF_CONFIG) and a ParameterServerStrategy "
        "distribute must be set together in ps mode",
        source="hicann/tensorflow npu_config.py")),
    "NPB162": ("external_weight", 2, dict(
        subject="NPURunConfig(external_weight=2)", what="argument",
        how="the real NPUEstimator writes it with parameter_map['external_weight'].b = 2",
        sent="ge.externalWeight '1' (session)", where="hicann/tensorflow npu_estimator.py",
        advice="; GE's own ge.externalWeight also takes '2' (one file): to get it, set "
        "ge.externalWeight='2' directly as a GE option at the session level")),
    "NBL001": ("", None, dict(problem="does not parse: invalid syntax (line 12, column 33: "
                              "'custom_op.parameter_map[\"precision_mode\"].s = b\"x'")),
    "NBL002": ("", None, dict(size=3221225, limit=2097152)),
    "NBL003": ("", None, dict(error="Permission denied")),
    "NBL010": ("precision_mode", None, dict(
        subject="custom_op.parameter_map[\"precision_mode\"].str", field="str",
        fields="b, f, func, i, list, placeholder, s, shape, tensor, type",
        source="tensorflow core/framework/attr_value.proto")),
    "NBL011": ("precision_mode", "allow_mix_precision", dict(
        subject="custom_op.parameter_map[\"precision_mode\"].s", shown="'allow_mix_precision'",
        error="TypeError: expected bytes, str found (write b'allow_mix_precision' or "
        "tf.compat.as_bytes('allow_mix_precision'))",
        source="tensorflow core/framework/attr_value.proto")),
    "NBL012": ("precison_mode", None, dict(
        error="NPURunConfig.__init__() got an unexpected keyword argument 'precison_mode' "
        "(TypeError at run time); did you mean 'precision_mode' or 'precision_mode_v2'?")),
    "NPB170": ("Session#1/12", "while/Merge", dict(
        graph="Session#1/12", why="dynamic_input with lazy_recompile", count=48,
        node="while/Merge", kind="Merge", fix="call tf.compat.v1.enable_control_flow_v2() and "
        "tf.compat.v1.enable_resource_variables() before building the graph, or set "
        "ENABLE_FORCE_V2_CONTROL=1")),
    "NPB171": ("Session#1/12", 420, dict(
        graph="Session#1/12", limit=100, fix="call tf.compat.v1.enable_control_flow_v2() and "
        "tf.compat.v1.enable_resource_variables() before building the graph, or set "
        "ENABLE_FORCE_V2_CONTROL=1")),
    "NPB172": ("iterations_per_loop", 100, dict(
        subject="iterations_per_loop=100 with a one-shot iterator", effect="the real adapter "
        "aborts the process (LOG(FATAL)): a one-shot iterator allows 1 step per loop "
        "(OneShotIterator feeds IteratorGetNext in graph Session#2/6)",
        fix="tf.compat.v1.data.make_initializable_iterator and run its initializer",
        where="hicann/tensorflow tf_adapter/optimizers/om_partition_subgraphs_pass.cc:2440-2443")),
    "NPB173": ("Session#1/4", "IteratorGetNext", dict(graph="Session#1/4", ipl=100)),
    "NPB174": ("Session#1/2", "MakeIterator", dict(
        subject="graph Session#1/2", initializers="161 variable initializer(s)")),
    "NPB175": ("mix_compile_mode", "0", dict(graph="Session#1/4",
                                             table="string_to_index/hash_table")),
    "NPB176": ("ExponentialUpdateLossScaleManager", "AssignAdd", dict(deps="[train_op, update_ops]")),
    "NPB177": ("Session#1/12", 40802189312, dict(
        graph="Session#1/12", target="atlas-training", verdict="Sum of total_mem_offset "
        "30064771072 is greater than memory manager malloc max size 27917287424",
        feature_map="28.0 GiB", reuse="on", reuse_off="61.2 GiB", variables="10.0 GiB",
        budget="26/32 of atlas-training's 32.0 GiB",
        sizes="checked feature map 28.0 GiB + variables 10.0 GiB > budget 26.0 GiB",
        fix="a smaller batch (fewer live activations); a product with more memory than "
        "atlas-training")),
    "NPB178": ("static_memory_policy", 0, dict(
        count=3, session="Session#1", verdict="Sum of total_mem_offset 30064771072 is greater "
        "than memory manager malloc max size 27917287424", policy2="20.0 GiB",
        policy0="28.0 GiB")),
    "NPB180": ("precision_mode", "allow_mix_precision", dict(
        graph="Session#1/12", step=37, low="float16", sat_mode="INF/NaN",
        op="resnet_model/batch_normalization_48/FusedBatchNormV3", op_type="FusedBatchNormV3",
        max_abs=1.7e5, when="", fixes="npu_scope.keep_dtype_scope() around resnet_model/"
        "batch_normalization_48/FusedBatchNormV3, or modify_mixlist black-list to-add "
        "FusedBatchNormV3", fix_more="; modify_mixlist black-list; NPULossScaleOptimizer "
        "(dynamic scale)")),
    "NPB182": ("precision_mode", "allow_fp32_to_fp16", dict(
        graph="Session#1/12", step=1, low="float16", limit=65504.0,
        op="resnet_model/dense_1/MatMul", op_type="MatMul", max_abs=1.2e5,
        outcome="NPULossScaleOptimizer (already used) skipped the step, and as the op is in "
        "the forward pass no loss scale removes the overflow: every such step is skipped and "
        "the model does not train", outcome_short="unchecked: enable_overflow_check=False",
        fixes="npu_scope.keep_dtype_scope() around resnet_model/dense_1/MatMul, or smaller "
        "inputs or weights", fix_more="; modify_mixlist black-list; smaller inputs/weights "
        "(forward pass)")),
    "NPB181": ("modify_mixlist", _LONG_PATH + "/ops_info.json", dict(
        problem="is not JSON: Expecting ',' delimiter: line 3 column 5 (char 31)")),
    "NPB190": ("enable_data_pre_proc", "0", dict(node="IteratorGetNext")),
    "NPB191": ("in_out_pair", "[[['a'], ['b']]]", {}),
    "NPB192": ("in_out_pair", "[[a]]", dict(
        subject="in_out_pair '[[a]]' is invalid", adapter="in_out_pair: ... is invalid.",
        lines="535-537", fix="; write it as [[['head', ...], ['tail', ...]], ...]")),
    "NPB193": ("Session#1/2", None, dict(
        subject="the Ref tensor of resnet_model/conv2d/kernel would cross from GeOp1_0 to the "
        "host op save/SaveV2", adapter="Node resnet_model/conv2d/kernel has ref input, but "
        "not in the same cluster", lines="1097-1118")),
    "NPB195": ("iterations_per_loop", 100, {}),
    "NPB197": ("Session#1/3", 3, dict(
        count=3, graph="Session#1/3", ops="PyFunc resnet_model/py_func, Where "
        "resnet_model/where, Unique resnet_model/unique", geop="GeOp3_0")),
    "NPB198": ("iterations_per_loop", 100, dict(
        geop="GeOp12_0", graph="Session#1/12", hosts="PyFunc input/py_func, "
        "StringToHashBucketFast input/hash")),
}


def _example(code):
    option, value, fields = EXAMPLES[code]
    return make(code, option, value, **fields)


def test_every_code_has_an_example():
    assert set(EXAMPLES) == set(codes.CODES), sorted(set(EXAMPLES) ^ set(codes.CODES))


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_short_line_is_short_and_without_provenance(code):
    """issue 28: a finding's text is one line of at most SHORT_LIMIT characters, and its
    provenance moves to `--show-source`, `explain` and the JSON outputs."""
    d = _example(code)
    short = d.message.short
    assert short and len(short) <= SHORT_LIMIT, (len(short), short)
    assert "\n" not in short and "source:" not in short and "seed" not in short, short
    assert "reference " not in short and ".json" not in short, short
    if code.startswith("NPB") or code == "E10001":   # the full message keeps its provenance
        assert d.message.provenance, code


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_every_code_with_a_fix_prints_it(code):
    d = _example(code)
    fix = d.message.fix
    # a row without a fix template has no fix (a shortened line gets the pointer, `more`)
    assert bool(fix) == bool(codes.CODES[code].fix) or d.message.more.startswith(
        "see npu-bridge explain "), \
        (code, fix)
    if fix:
        assert len(fix) <= SHORT_LIMIT and "\n" not in fix and "{" not in fix, fix


def test_npb140_reads_in_gib_with_a_fix():
    d = _example("NPB140")
    assert d.message.short == ("26.0 GiB + 10.0 GiB = 36.0 GiB exceed the 32.0 GiB of an "
                               "atlas-training device")
    assert d.message.fix == ('parameter_map["graph_memory_max_size"].s = b"23622320128" '
                             '(22.0 GiB)')
    # one spelling, the user's: as an NPURunConfig argument where it was given as one
    from npu_bridge.ge.diagnostics import as_argument
    assert as_argument(d).message.fix == "NPURunConfig(graph_memory_max_size=23622320128)"
    # the exact bytes and the figure's confidence stay in the full message (JSON)
    assert "27917287424" in d.message and "figure confidence high" in d.message
    assert d.message.provenance.startswith("figure confidence high: no platform config")


def test_fix_left_out_when_its_field_is_not_given():
    option, value, fields = EXAMPLES["NPB100"]
    d = make("NPB100", option, value, **dict(fields, suggestion=None, effect="ignores it"))
    assert d.message.fix == "" and d.message.short.startswith("parameter_map key")
    # a key without a catalog row has no field to spell
    assert make("NPB104", "ge.exec.input_fusion_size", 9, allowed="[0, 1]", bound=1,
                how="", where="x").message.fix == ""


def test_cut_fields_share_the_room_left():
    long = "word " * 60
    text = fill("x {a:cut} y {b:cut} z", {"a": long, "b": "short"})
    assert SHORT_LIMIT - 6 < len(text) <= SHORT_LIMIT and text.endswith(" word... y short z"), text
    # one word too long for its room is never cut inside: it gives way whole
    assert fill("x {a:cut} y", {"a": "a" * 300}) == "x ... y"
    assert fill("{n:size} {m:size} {k:size} {b:size}", {"n": 1536, "m": 3 * 2 ** 20, "k": 26 * 2 ** 30,
                                                       "b": 12}) == "1.5 KiB 3.0 MiB 26.0 GiB 12 B"


def test_message_keeps_its_parts_across_processes_and_reads_as_text():
    d = _example("NPB101")
    back = pickle.loads(pickle.dumps(d))
    assert back == d and back.message.short == d.message.short
    assert back.message.fix == 'parameter_map["optypelist_for_implmode"].s = ...'
    assert json.loads(json.dumps({"m": d.message}))["m"] == str(d.message)
    assert short_of("plain text") == "plain text" and fix_of("plain") == ""


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_sources_name_vendor_pages_not_reference_files(code):
    """A source names a vendor page by its title and its path in the vendor's docs, or the
    adapter/GE file, never the project's reference copies (seed/reference file names)."""
    for text in (CODES[code].source, _example(code).message.provenance, _example(code).message):
        assert "seed:" not in text and "seed " not in text, text
        assert not re.search(r"reference \w+\.(json|md)\b|option_values\.json|npu_options\.json",
                             text), text


def test_cite_names_title_and_path():
    assert cite("seed:memoryconfig_constructor_zh.txt") == (
        "vendor page 'MemoryConfig构造函数 (MemoryConfig constructor)' (hicann/tensorflow "
        "docs/zh/tfadapter_1/apiref/npu_config/memoryconfig_constructor.md)")
    once = name_pages("docs/en/tfadapter_1/apiref/session_config/memory_management.md")
    assert once == ("vendor page 'Memory Management' (hicann/tensorflow docs/en/tfadapter_1/"
                    "apiref/session_config/memory_management.md)")
    assert name_pages(once) == once
    assert cite("reference option_values.json checked_by_adapter (enable_dump, dump_path)") == (
        "hicann/tensorflow tf_adapter/util/npu_attrs.cc:2049 NpuAttrs::SetNpuOptimizerAttr "
        "(enable_dump, dump_path)")


def test_trim_fields_give_up_room_before_cut_fields():
    """the try-out's cut lines: the least important field (a list of allowed values or
    products, marked `trim`) is shortened first; the value and the suggestion stay whole."""
    text = fill("{v:cut} ({r:cut}); allowed: {a:trim}",
                {"v": "'allow_mix_precison'", "r": "did you mean 'allow_mix_precision'?",
                 "a": ", ".join(["allow_fp32_to_fp16", "force_fp16", "must_keep_origin_dtype"] * 9)})
    # whole values, and how many are left out
    assert len(text) <= SHORT_LIMIT and text == (
        "'allow_mix_precison' (did you mean 'allow_mix_precision'?); allowed: allow_fp32_to_fp16, "
        "force_fp16, +25 more"), text


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_long_lists_never_cut_the_value_or_suggestion(code):
    """issue (try-out): every row, with its `trim` fields (lists) filled long but realistic,
    keeps each other field whole in its short line."""
    option, value, fields = EXAMPLES[code]
    row = codes.CODES[code]
    parsed = list(string.Formatter().parse(row.short or row.template))
    trims = {name for _, name, spec, _ in parsed if spec == "trim"}
    longs = dict(fields, **{n: ", ".join("value_%d_of_the_allowed_list" % i for i in range(12))
                            for n in trims})
    short = make(code, option, value, **longs).message.short
    assert len(short) <= SHORT_LIMIT, short
    key_facts = {"value", "shown", "suggestion", "key", "detail", "spelling", "subject",
                 "option"}   # the value given, the thing named, the "did you mean"
    for _, name, spec, _ in parsed:
        if name in key_facts and name in longs and len(str(longs[name])) <= 60:
            assert str(longs[name]) in short, (name, short)


def test_e10001_keeps_the_suggestion_and_fixes_it_literally():
    from npu_bridge.ge import catalog, rule_kinds
    row = catalog.find("precision_mode")
    d = rule_kinds._check(row, "precision_mode", "allow_mix_precison")[1][0]
    assert "'allow_mix_precison'" in d.message.short
    assert "did you mean 'allow_mix_precision'" in d.message.short
    assert d.message.fix.startswith('parameter_map["precision_mode"].s = b"allow_mix_precision"')


def test_npb113_shows_the_value_whole():
    d = make("NPB113", "precision_mode", "allow_mix_precision_bf16",
             shown="allow_mix_precision_bf16", product="atlas-200i-500-a2",
             products=", ".join(["atlas-a2-training-series", "atlas-800i-a2-inference"] * 4),
             where="x")
    assert "precision_mode=allow_mix_precision_bf16 is not supported on atlas-200i-500-a2" \
        in d.message.short and len(d.message.short) <= SHORT_LIMIT


def test_npb172_step_counts_keep_subject_and_fix_with_the_nearest_multiples():
    from npu_bridge.ge import cross
    rule = cross.MultipleOf(code="NPB172", severity="warning", option="iterations_per_loop",
                            when=(), source="x", level="run_config",
                            steps=("save_checkpoints_steps", "save_summary_steps"))
    diags = []
    rule.compile()({"iterations_per_loop": 10, "save_checkpoints_steps": 15,
                    "save_summary_steps": 7}, diags)
    a, b = diags
    assert a.message.short.startswith("save_checkpoints_steps=15 is not a multiple of "
                                      "iterations_per_loop=10: on the NPU it happens at step 20")
    assert a.message.fix == "save_checkpoints_steps=20 (or save_checkpoints_steps=10)"
    assert b.message.fix == "save_summary_steps=10"   # no multiple below 7 but 0
    assert "between loops" in a.message   # the explanation stays in the full message


def test_npb143_and_npb124_fixes_are_literal():
    from npu_bridge.ge import cross, resolve, NpuConfigError
    try:
        diags = resolve({"enable_dump_debug": True}).diagnostics
    except NpuConfigError as e:
        diags = e.diagnostics
    (d,) = [d for d in diags if d.code == "NPB143"]
    assert d.message.fix == 'parameter_map["dump_path"].s = b"DUMP_PATH"', d.message.fix
    # NPB124: max_steps counts from the global step train() starts at
    assert cross.multiple_fix("max_steps", 35, 10, 5) == "max_steps=45 (or max_steps=35)"
    assert cross.multiple_fix("steps", 7, 10) == "steps=10"


def test_a_value_too_long_for_int_to_str_is_a_diagnostic_not_a_crash():
    """A parameter_map value of 4301 digits (beyond Python's int-to-str limit) under every
    catalog key and an unknown one: the resolver answers with diagnostics (or NpuConfigError),
    never a ValueError from spelling the value in a fix line or a size (hypothesis found it in
    tests/test_fuzz_ge.py); sizes beyond int64 are said as such."""
    from npu_bridge.ge import NpuConfigError, catalog, resolve
    from npu_bridge.ge.text import size_text
    huge = b"7" * 4301
    for key in sorted(catalog.BY_KEY) + ["STATIC_EL"]:
        try:
            resolve({key: huge})
        except NpuConfigError:
            pass
    assert size_text(10 ** 5000) == "over 2^63 B"
    assert size_text(2 ** 30) == "1.0 GiB"


def test_a_rule_whose_real_stack_refuses_or_aborts_reports_an_error():
    # issue: NPB172 was a warning where the adapter aborts; every rule row of the kind says
    # what the real stack does (`failure`), and that sets its severity
    from npu_bridge.ge import cross
    for rule in cross.CROSS_RULES:
        severity = rule.severity or CODES[rule.code].severity
        if rule.failure in ("error", "fatal") and rule.code != "NPB144":
            assert severity == "error", rule
    # NPB144 (a folder on this machine, the adapter checks the NPU's) says why in its row
    assert {r.severity for r in cross.CROSS_RULES if r.code == "NPB144"} == {"warning"}
    row = {"kind": "multiple_of", "level": "run_config", "if": [("iterations_per_loop", "set")],
           "option": "iterations_per_loop", "steps": ["save_checkpoints_steps"],
           "code": "NPB172", "failure": "fatal", "source": "x"}
    with pytest.raises(ValueError, match="failure 'fatal'.*severity is 'warning'"):
        cross.build(row)
    assert cross.build(dict(row, severity="error")).severity == "error"


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_a_diagnostic_read_back_from_json_keeps_its_message_parts(code):
    # fresh-user try-out: a Message read back as a plain str lost short/fix/provenance
    # (partition diagnostics in a report, records, a process boundary): to_dict writes them,
    # from_dict / message_of give them back, wherever the dict went
    from npu_bridge.ge.diagnostics import Diagnostic, message_of
    d = _example(code)
    back = Diagnostic.from_dict(json.loads(json.dumps(d.to_dict())))
    assert back == d
    for part in ("short", "fix", "provenance", "more"):
        assert getattr(back.message, part) == getattr(d.message, part), part
    again = pickle.loads(pickle.dumps(back))
    assert again.message.fix == d.message.fix and again.message.short == d.message.short
    # a report's diagnostic (fix/provenance null when none) reads the same
    report = dict(d.to_dict(), fix=d.message.fix or None, provenance=d.message.provenance or None)
    assert short_of(message_of(report)) == d.message.short
    assert fix_of(message_of(report)) == d.message.fix
    assert short_of(message_of({"message": "plain"})) == "plain"   # an older report


def test_partition_listing_read_back_from_json_prints_short_lines_and_fixes():
    from npu_bridge.ge import partition_report
    d = _example("NPB191")   # a partition finding with a fix
    part = {"graph": "g", "ops_list": "x", "geops": [], "host_ops": [], "unknown_ops": [],
            "transfers_per_step": {w: {"count": 0, "bytes": 0, "unknown_bytes": 0}
                                   for w in ("to_device", "to_host")},
            "diagnostics": [d.to_dict()]}
    lines = partition_report.full_lines(json.loads(json.dumps(part)))
    assert "    %s %s: %s" % (d.severity, d.code, d.message.short) in lines
    assert "        fix: %s" % d.message.fix in lines
