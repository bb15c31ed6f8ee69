"""GE is initialized once per process while NPU sessions are open (`_session_patch`, "GE
initialization"; hicann/tensorflow ge_plugin.cc GePlugin::Init, geop_npu.cc GeOp::Finalize):
a second session opened meanwhile runs with the first one's global options (warning NPB126,
recorded with the second session), static_memory_policy included, so the concurrency guard
follows the process's policy; closing the last NPU session (or npu_resource_shutdown)
finalizes GE and the next session initializes it with its own."""
import gc
import threading
import time

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.hooks import state as _state
from npu_bridge.ge import records as _records
from npu_bridge.hooks import session_patch as _session_patch
from npu_bridge.estimator.npu import npu_plugin
from npu_bridge.ge import NpuConfigError


@pytest.fixture(autouse=True)
def patched():
    _session_patch.patch(inject_defaults=False)
    _session_patch.clear_caches()
    _records.clear()
    yield
    _records.clear()


def config(**params):
    proto = tf.compat.v1.ConfigProto()
    op = proto.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    for key, value in params.items():
        if isinstance(value, str):
            op.parameter_map[key].s = value.encode()
        else:
            op.parameter_map[key].i = value
    return proto


def codes(session):
    return [d.code for d in _state.of(session).ge_options.diagnostics]


def ignored(session):
    found = [d for d in _state.of(session).ge_options.diagnostics if d.code == "NPB126"]
    return found[0] if found else None


def test_a_second_open_session_runs_with_the_first_ones_global_options():
    graph = tf.Graph()
    first = tf.compat.v1.Session(graph=graph, config=config(static_memory_policy=2))
    second = tf.compat.v1.Session(graph=graph, config=config(
        static_memory_policy=0, precision_mode="force_fp32"))
    try:
        assert ignored(first) is None
        diag = ignored(second)
        assert diag is not None and diag.severity == "warning"
        assert "Session#" in diag.message and "initialized it" in diag.message and "close the other NPU sessions" in diag.message
        assert "static_memory_policy '0' (GE runs '2')" in diag.message
        assert "precision_mode 'force_fp32' (GE runs " in diag.message
        assert "ge_plugin.cc" in diag.message
        # one mention per option the user wrote (not the adapter's duplicate GE keys)
        assert diag.message.count("static_memory_policy '0'") == 1
        assert _state.guard_policy(first) == "2" and _state.guard_policy(second) == "2"
        # recorded with the second session: npu-bridge run shows it
        rec = [r for r in _records.records() if r["options"] is _state.of(second).ge_options]
        assert len(rec) == 1
    finally:
        first.close()
        second.close()


def test_the_same_configuration_twice_is_not_reported():
    one = tf.compat.v1.Session(config=config(static_memory_policy=2))
    two = tf.compat.v1.Session(config=config(static_memory_policy=2))
    try:
        assert "NPB126" not in codes(one) and "NPB126" not in codes(two)
    finally:
        one.close()
        two.close()


def test_policy_0_first_means_a_later_policy_2_session_is_not_guarded():
    one = tf.compat.v1.Session(config=config(static_memory_policy=0))
    two = tf.compat.v1.Session(config=config(static_memory_policy=2))
    try:
        assert "static_memory_policy '2' (GE runs '0')" in ignored(two).message
        assert _state.guard_policy(two) is None
    finally:
        one.close()
        two.close()


def test_after_close_the_next_session_initializes_ge_with_its_own_options():
    first = tf.compat.v1.Session(config=config(static_memory_policy=0))
    first.close()
    assert _session_patch.ge_initialization() is None
    with tf.compat.v1.Session(config=config(static_memory_policy=2)) as second:
        assert "NPB126" not in codes(second)
        assert _state.guard_policy(second) == "2"
        owner, options = _session_patch.ge_initialization()
        assert owner.startswith("Session#") and options.global_options["static_memory_policy"] == "2"
    assert _session_patch.ge_initialization() is None


def test_a_session_collected_without_close_finalizes_ge():
    session = tf.compat.v1.Session(config=config(static_memory_policy=0))
    assert _session_patch.ge_initialization() is not None
    del session
    gc.collect()
    assert _session_patch.ge_initialization() is None


def test_sessions_without_npu_optimizer_do_not_take_part():
    plain = tf.compat.v1.Session()
    try:
        if _session_patch.injects_defaults():
            # after npu_init (an earlier test imported it) every session gets the NpuOptimizer,
            # as with the real one: an NPU session like any other
            assert _session_patch.ge_initialization()[0].startswith("Session#")
            return
        assert _session_patch.ge_initialization() is None
        with tf.compat.v1.Session(config=config(static_memory_policy=2)) as npu:
            assert _state.guard_policy(npu) == "2"
    finally:
        plain.close()


def _slow(x):
    time.sleep(0.6)
    return x


def test_concurrent_graphs_are_refused_under_the_process_policy():
    # the tester's case: a policy-2 session runs a graph while a later policy-0 session (whose
    # own policy GE ignores) runs another: refused, and the message says whose policy it is
    graph = tf.Graph()
    with graph.as_default():
        slow = tf.compat.v1.py_func(_slow, [tf.constant(np.float32(1.0))], tf.float32)
        quick = tf.constant(2.0) * 3.0
    first = tf.compat.v1.Session(graph=graph, config=config(static_memory_policy=2))
    second = tf.compat.v1.Session(graph=graph, config=config(static_memory_policy=0))
    results, errors = {}, {}

    def run_slow():
        results["slow"] = first.run(slow)

    def run_quick():
        time.sleep(0.2)
        try:
            results["quick"] = second.run(quick)
        except NpuConfigError as err:
            errors["quick"] = err

    threads = [threading.Thread(target=run_slow), threading.Thread(target=run_quick)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        first.close()
        second.close()
    assert results == {"slow": 1.0}
    diag = errors["quick"].diagnostics[0]
    assert diag.code == "NPB123" and diag.value == "2"
    assert "initialized GE with it" in diag.message


def test_npu_resource_init_initializes_ge_until_shutdown():
    npu_plugin.npu_resource_init(op_debug_level=0)
    try:
        owner, _ = _session_patch.ge_initialization()
        assert owner == "npu_plugin.npu_resource_init"
        with tf.compat.v1.Session(config=config(static_memory_policy=2)) as session:
            # GE was initialized without a static memory policy: the session's is ignored
            assert "static_memory_policy '2' (GE runs unset (its default))" in ignored(session).message
            assert _state.guard_policy(session) is None
        assert _session_patch.ge_initialization() is not None   # "global": kept after close
    finally:
        npu_plugin.npu_resource_shutdown()
    assert _session_patch.ge_initialization() is None


def test_npu_resource_init_while_a_session_is_open_is_ignored():
    with tf.compat.v1.Session(config=config(op_debug_level=0)):
        npu_plugin.npu_resource_init(op_debug_level=2)
        plugin = [r for r in _records.records() if r["name"] == "npu_plugin.npu_resource_init"]
        diags = [d for d in plugin[-1]["options"].diagnostics if d.code == "NPB126"]
        assert len(diags) == 1 and "op_debug_level" in diags[0].message


def test_same_value_under_another_spelling_or_defaults_is_not_reported():
    # the plugin sends ge.exec.precision_mode; the session the same value under both
    # spellings, plus defaults GE was not given: nothing of this configuration is ignored
    npu_plugin.npu_resource_init(precision_mode="allow_mix_precision")
    try:
        with tf.compat.v1.Session(config=config(precision_mode="allow_mix_precision")) as session:
            assert ignored(session) is None
        with tf.compat.v1.Session(config=config(precision_mode="force_fp32")) as session:
            assert "precision_mode 'force_fp32' (GE runs 'allow_mix_precision')" in \
                ignored(session).message
    finally:
        npu_plugin.npu_resource_shutdown()


def test_an_option_the_session_also_sends_at_session_level_is_not_ignored():
    """The real adapter gives ge::Session its session options (NpuAttrs::GetSessOptions:
    op_select_implmode, hccl_timeout, aicore_num, ... besides their GEInitialize keys) and GE
    prefers a session option over the global one (InnerSession::Initialize). So a second
    session's op_select_implmode applies to it; only options sent at the global level alone
    (precision_mode) are ignored."""
    graph = tf.Graph()
    first = tf.compat.v1.Session(graph=graph, config=config(
        op_select_implmode="high_precision", precision_mode="allow_fp32_to_fp16"))
    second = tf.compat.v1.Session(graph=graph, config=config(
        op_select_implmode="high_performance", precision_mode="force_fp32"))
    try:
        diag = ignored(second)
        assert diag is not None and "precision_mode 'force_fp32'" in diag.message
        assert "op_select_implmode" not in diag.message
    finally:
        first.close()
        second.close()
    npu_plugin.npu_resource_init(aicore_num="2|4")   # ge.aicoreNum: sent at both levels
    try:
        with tf.compat.v1.Session(config=config(aicore_num="4|8")) as session:
            assert ignored(session) is None
    finally:
        npu_plugin.npu_resource_shutdown()


def test_a_legacy_value_is_named_with_what_ge_applies():
    # issue 17 defect 8: NPB126 said "static_memory_policy '0' (GE runs '1')" while NPB103
    # says 1 runs as 2; and a session asking for 2 under GE's 1 is no difference at all
    graph = tf.Graph()
    first = tf.compat.v1.Session(graph=graph, config=config(static_memory_policy=1))
    second = tf.compat.v1.Session(graph=graph, config=config(static_memory_policy=0))
    third = tf.compat.v1.Session(graph=graph, config=config(static_memory_policy=2))
    try:
        diag = ignored(second)
        assert "static_memory_policy '0' (GE runs '1', which it applies as '2')" in diag.message
        assert ignored(third) is None
    finally:
        first.close()
        second.close()
        third.close()


def test_the_second_sessions_summary_marks_its_ignored_global_options():
    # issue 17 defect 8: the table of the second session says which of its global options
    # GE ignores (NPB126), not only the warning under it
    from npu_bridge.tools import report
    first = tf.compat.v1.Session(config=config(static_memory_policy=2))
    second = tf.compat.v1.Session(config=config(static_memory_policy=0, atomic_clean_policy=1))
    try:
        data = report.build_run_report(
            script="/s.py", argv=["s.py"], cwd="/", product=None, strict=False,
            environment_set={}, records=_records.records(), script_exit_code=0, exit_code=0)
    finally:
        first.close()
        second.close()
    lines = report.summary_lines(data)
    at = [i for i, l in enumerate(lines) if l.startswith("[")]
    one, two = lines[at[0]:at[1]], lines[at[1]:]
    marked = [l.split()[1] for l in two if "ignored (GE initialized by Session#" in l]
    assert marked == ["ge.exec.staticMemoryPolicy", "static_memory_policy"], two
    assert all(l.split()[0] == "global" for l in two if "ignored (GE" in l)
    assert not any("ignored (GE" in l for l in one)
    # session-level options apply to the second session: not marked
    assert not any("atomic" in l.lower() and "ignored" in l for l in two)
    conf = data["configurations"][1]
    assert conf["ignored_globals"]["by"].startswith("Session#")
    assert conf["ignored_globals"]["keys"] == ["ge.exec.staticMemoryPolicy", "static_memory_policy"]
