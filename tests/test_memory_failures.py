"""NPU-only failures (npu_failure_cases.md rows 1-7 and 12), each found from a real captured
graph and its configuration: one case that triggers it, one that is clean."""
import numpy as np
import pytest

import npu_bridge.npu_init  # noqa: F401  (the Session patch)
import tensorflow as tf
from npu_bridge.hooks import graph_capture as _graph_capture
from npu_bridge.ge import records as _records
from _capture_helper import capturing  # noqa: F401  (fixture)
from npu_bridge.estimator.npu.npu_loss_scale_manager import ExponentialUpdateLossScaleManager

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def _capture_every_test(capturing):
    yield


def _config(**pm):
    config = v1.ConfigProto()
    op = config.graph_options.rewrite_options.custom_optimizers.add()
    op.name = "NpuOptimizer"
    for key, value in pm.items():
        if isinstance(value, bool):
            op.parameter_map[key].b = value
        elif isinstance(value, int):
            op.parameter_map[key].i = value
        else:
            op.parameter_map[key].s = value.encode()
    return config


def _codes():
    return [d.code for r in _records.records() for d in r.get("runtime", ())]


def _findings(code):
    return [d for r in _records.records() for d in r.get("runtime", ()) if d.code == code]


# ---- rows 1 and 2: V1 control flow
def _cond_graph(dynamic, n_conds=1):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [8], name="x")
        # Where: a data-dependent shape
        vals = tf.gather(x, tf.where(x > 0)[:, 0]) if dynamic else x
        out = []
        for i in range(n_conds):
            out.append(tf.cond(x[0] > float(i), lambda: tf.reduce_sum(vals * 2.0),
                               lambda: tf.reduce_sum(vals)))
        total = tf.add_n(out)
    return g, x, total


@pytest.mark.parametrize("dynamic,expected", [(True, ["NPB170"]), (False, [])])
def test_v1_control_flow_in_dynamic_graph(dynamic, expected):
    g, x, total = _cond_graph(dynamic)
    with g.as_default(), v1.Session(config=_config()) as sess:
        sess.run(total, {x: np.arange(8, dtype=np.float32)})
    assert _codes() == expected
    if expected:
        (d,) = _findings("NPB170")
        assert d.severity == "error" and "is v1 control operator" in d.message
        assert "Where" in d.message and "enable_control_flow_v2" in d.message


def test_v1_control_flow_with_dynamic_input_option_and_force_v2(monkeypatch):
    g, x, total = _cond_graph(False)
    with g.as_default(), v1.Session(config=_config(dynamic_input=True)) as sess:
        sess.run(total, {x: np.arange(8, dtype=np.float32)})
    assert _codes() == ["NPB170"]
    _records.clear()
    _graph_capture.reset()
    monkeypatch.setenv("ENABLE_FORCE_V2_CONTROL", "1")
    with g.as_default(), v1.Session(config=_config(dynamic_input=True)) as sess:
        sess.run(total, {x: np.arange(8, dtype=np.float32)})
    assert _codes() == []


@pytest.mark.parametrize("n,expected", [(110, ["NPB171"]), (3, [])])
def test_many_v1_branches_in_static_graph(n, expected):
    g, x, total = _cond_graph(False, n)
    with g.as_default(), v1.Session(config=_config()) as sess:
        sess.run(total, {x: np.arange(8, dtype=np.float32)})
    assert _codes() == expected


# ---- rows 3 and 4: iterations_per_loop and the input pipeline
def _pipeline_graph(one_shot, drop_remainder):
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.ones((20, 3), np.float32)).repeat()
        ds = ds.batch(4, drop_remainder=drop_remainder)
        it = (v1.data.make_one_shot_iterator(ds) if one_shot
              else v1.data.make_initializable_iterator(ds))
        x = it.get_next()
        w = v1.get_variable("w", [3, 1])
        loss = tf.reduce_mean(tf.matmul(x, w))
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = v1.global_variables_initializer()
    return g, it, init, train


def _run_pipeline(config, one_shot, drop_remainder, together=False):
    g, it, init, train = _pipeline_graph(one_shot, drop_remainder)
    with g.as_default(), v1.Session(config=config) as sess:
        if together:
            sess.run(tf.group(init, it.initializer))
        else:
            sess.run(init)
            if not one_shot:
                sess.run(it.initializer)
        sess.run(train)


def test_one_shot_iterator_with_loop():
    _run_pipeline(_config(iterations_per_loop=2, enable_data_pre_proc=True), True, True)
    (d,) = _findings("NPB172")
    # the real adapter aborts here (LOG(FATAL), hicann/tensorflow
    # tf_adapter/optimizers/om_partition_subgraphs_pass.cc:2440-2443): an error, citing it
    assert d.severity == "error" and "one-shot iterator" in d.message
    assert "make_initializable_iterator" in d.message
    assert "om_partition_subgraphs_pass.cc:2440" in d.message.provenance
    assert "aborts" in d.message


def test_loop_rows_severity_follows_what_the_adapter_does():
    # enable_data_pre_proc off is not checked by the adapter (the loop is just not offloaded)
    _run_pipeline(_config(iterations_per_loop=2), False, True)
    (d,) = _findings("NPB172")
    assert d.severity == "warning" and "migration" in d.message.provenance


def test_loop_without_data_pre_proc():
    _run_pipeline(_config(iterations_per_loop=2), False, True)
    (d,) = _findings("NPB172")
    assert "enable_data_pre_proc off" in d.message and _codes() == ["NPB172"]


def test_loop_with_sunk_static_batch_is_clean():
    _run_pipeline(_config(iterations_per_loop=2, enable_data_pre_proc=True), False, True)
    _run_pipeline(_config(enable_data_pre_proc=True), False, False)   # one step per loop
    assert _codes() == []


def test_non_static_batch_in_loop():
    _run_pipeline(_config(iterations_per_loop=2, enable_data_pre_proc=True), False, False)
    (d,) = _findings("NPB173")
    assert d.severity == "error" and "drop_remainder=True" in d.message
    assert _codes() == ["NPB173"]


# ---- row 5: iterator initializer grouped with the variable initializers
def test_iterator_initializer_with_variable_initializers():
    _run_pipeline(_config(), False, True, together=True)
    (d,) = _findings("NPB174")
    assert "variable stays 0" in d.message and _codes() == ["NPB174"]


def test_iterator_initializer_on_its_own_is_clean():
    _run_pipeline(_config(), False, True, together=False)
    assert _codes() == []


@pytest.mark.parametrize("initial,expected", [(0.0, []), (1.0, ["NPB174"])])
def test_zero_initialized_locals_with_the_iterator_initializer(initial, expected):
    """`Scaffold(local_init_op=tf.group(tf.local_variables_initializer(), it.initializer))`
    (open_seq2seq, Jasper in the zoo): metrics' local variables start at zeros, what a
    host-side initialization gives them anyway, so nothing fails on the NPU; a local variable
    with another initial value stays 0 there."""
    g, it, init, train = _pipeline_graph(False, True)
    with g.as_default():
        x = it.get_next()
        _, update = v1.metrics.mean(tf.reduce_sum(x))           # total, count: zeros
        local = [v1.get_local_variable("local%d" % i, shape,
                                       initializer=v1.constant_initializer(initial))
                 for i, shape in enumerate(([], [3], [1000, 100]))]   # Const zeros, or not
        v1.get_local_variable("big_zeros", [1000, 100], initializer=v1.zeros_initializer())   # Fill
        with v1.Session(config=_config()) as sess:
            sess.run(init)
            sess.run(tf.group(v1.local_variables_initializer(), it.initializer))
            sess.run([train, update])
            local[0].load(3.0, sess)     # feeds its initial value: the check must not forbid it
            assert sess.run(local[0]) == 3.0
    assert _codes() == expected


# ---- row 6: a lookup table in the input pipeline
@pytest.mark.parametrize("mix,expected", [(False, ["NPB175"]), (True, [])])
def test_lookup_table_in_input_pipeline(mix, expected):
    g = tf.Graph()
    with g.as_default():
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(["a", "b"]), tf.constant([0, 1], tf.int64)), -1)
        ds = tf.data.Dataset.from_tensor_slices(tf.constant(["a", "b", "a"])).map(table.lookup)
        ds = ds.batch(3, drop_remainder=True)
        it = v1.data.make_initializable_iterator(ds)
        x = tf.cast(it.get_next(), tf.float32)
        total = tf.reduce_sum(x * 2.0)
        with v1.Session(config=_config(mix_compile_mode=mix)) as sess:
            sess.run(v1.tables_initializer())
            sess.run(it.initializer)
            assert sess.run(total) == 2.0
    assert _codes() == expected
    if expected:
        assert "Table not initialized" in _findings("NPB175")[0].message


# ---- row 7: loss-scale manager under control_dependencies
@pytest.mark.parametrize("inside,expected", [(True, ["NPB176"]), (False, [])])
def test_loss_scale_manager_under_control_dependencies(inside, expected):
    g = tf.Graph()
    with g.as_default():
        v = v1.get_variable("v", [2])
        upd = v1.assign_add(v, [1.0, 1.0])
        with v1.Session(config=_config()) as sess:   # a configuration to attach it to
            if inside:
                with tf.control_dependencies([upd]):
                    ExponentialUpdateLossScaleManager(2 ** 10, 100)
            else:
                ExponentialUpdateLossScaleManager(2 ** 10, 100)
            sess.run(v1.global_variables_initializer())
    assert _codes() == expected
    if expected:
        d = _findings("NPB176")[0]
        assert "AssignAdd" in d.message and "outside the with block" in d.message


# ---- row 12: out of memory, and a session's graphs together
def _mlp(budget, runs=1):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [64, 512], name="x")
        w = v1.get_variable("w", [512, 512])
        y = x
        for _ in range(3):
            y = tf.nn.relu(tf.matmul(y, w))
        a, b = tf.reduce_sum(y), tf.reduce_mean(y)
        with v1.Session(config=_config(graph_memory_max_size=str(budget))) as sess:
            feed = {x: np.zeros((64, 512), np.float32)}
            sess.run(v1.global_variables_initializer())
            sess.run(a, feed)
            if runs > 1:
                sess.run(b, feed)


def test_graph_over_budget():
    _mlp(200000)
    d = _findings("NPB177")
    assert d and d[0].severity == "error"
    assert "ACL_ERROR_GE_MEMORY_ALLOCATION" in d[0].message
    assert "greater than memory manager malloc max size 200000" in d[0].message


def test_graph_within_budget_is_clean():
    _mlp(2 ** 30, runs=2)
    assert _codes() == []


def test_graphs_together_over_budget_under_policy_0():
    # the initializer graph (2 MiB + 512: the 1 MiB random tensors) and the two step graphs
    # (386 KiB each: 64x512 float32 activations) each fit with the 1 MiB + 512 of variables in
    # 3.5 MiB; their sum (2.89 MiB + 1 MiB) does not
    _mlp(3670016, runs=2)
    assert "NPB177" not in _codes() and "NPB178" in _codes()
    d = _findings("NPB178")[0]
    assert "policy 2" in d.message and d.severity == "warning"


# ---- row 3: checkpoint and summary steps against the loop (NPUEstimator)
def test_checkpoint_steps_not_multiple_of_loop(tmp_path):
    from npu_bridge.estimator.npu.npu_config import NPURunConfig
    from npu_bridge.estimator.npu.npu_estimator import NPUEstimator

    def model_fn(features, labels, mode):   # never called: the check is at construction
        raise AssertionError

    def recorded():   # a cross rule of the configuration (level run_config), recorded once
        return [d for r in _records.records() for d in tuple(r["options"].diagnostics)
                + tuple(r.get("runtime", ())) if d.code == "NPB172"]

    NPUEstimator(model_fn, config=NPURunConfig(model_dir=str(tmp_path / "a"),
                                               iterations_per_loop=10,
                                               save_checkpoints_steps=25))
    (d,) = recorded()
    assert d.option == "save_checkpoints_steps" and "happens at step 30, not 25" in d.message
    _records.clear()
    NPUEstimator(model_fn, config=NPURunConfig(model_dir=str(tmp_path / "b"),
                                               iterations_per_loop=10,
                                               save_checkpoints_steps=300))
    assert _codes() == [] and recorded() == []


def test_reading_a_zeros_initializer_leaves_it_feedable():
    # Variable.load feeds the initializer's value: NPB174's zeros check must not mark it
    # unfeedable (tf.get_static_value does), or the next load raises "may not be fed"
    graph = tf.Graph()
    with graph.as_default():
        var = tf.compat.v1.get_variable("v", [], tf.int64, tf.zeros_initializer(),
                                        use_resource=False)
        filled = tf.compat.v1.get_variable("f", [2], tf.float32, tf.constant_initializer(3.0))
    assert _graph_capture._zeros_init(var.initializer)   # pylint: disable=protected-access
    assert not _graph_capture._zeros_init(filled.initializer)   # pylint: disable=protected-access
    assert graph.is_feedable(var.initializer.inputs[1])
    with tf.compat.v1.Session(graph=graph) as sess:
        var.load(5, session=sess)
        assert sess.run(var) == 5


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64, tf.bool,
                                   tf.float16, tf.bfloat16, tf.int8, tf.uint8])
def test_the_zeros_check_of_an_initializer_agrees_with_its_value(dtype):
    # the check reads splat Consts from their TensorProto: it must say what make_ndarray of
    # the value says, for splats, short lists, whole-buffer values and -0.0
    import numpy as np
    cases = {"zeros": np.zeros([3, 4]), "ones": np.ones([3, 4]), "one_nonzero": np.eye(3)[0],
             "negative_zero": np.full([2, 2], -0.0), "big": np.zeros([64, 64])}
    big_nonzero = np.zeros([64, 64])
    big_nonzero[63, 63] = 1
    cases["big_nonzero"] = big_nonzero
    graph = tf.Graph()
    with graph.as_default():
        for name, value in cases.items():
            value = value.astype(dtype.as_numpy_dtype)
            var = tf.compat.v1.Variable(tf.constant(value, dtype=dtype), name=name,
                                        use_resource=False)
            want = not np.any(value)
            assert _graph_capture._zeros_init(var.initializer) == want, name   # pylint: disable=protected-access


def test_out_of_memory_fix_names_the_option_that_binds():
    # the script's own graph_memory_max_size binds (reuse is on already): raise it
    _mlp(200000)
    d = _findings("NPB177")[0]
    fix = d.message.split("; fix: ", 1)[1]
    assert "raise graph_memory_max_size (195.3 KiB, set by the script) to at least " in fix
    assert "reuse on" not in fix and "static_memory_policy 3/4" not in fix, fix


def test_out_of_memory_fix_names_reuse_when_off_and_the_product_when_it_binds():
    import dataclasses
    from npu_bridge.ge import npu_failures
    _mlp(2 ** 30)   # fits: its plan is checked below under other options
    rec = _records.records()[-1]
    plan = rec["graphs"][-1]["plan"]
    own = rec["_memory_options"]
    product_budget = dict(graph_budget=100000, product="atlas-training",
                          graph_budget_source="26/32 of atlas-training's 123456 bytes")

    def fix(**changes):
        mo = dataclasses.replace(own, **changes)
        (d,) = [d for d in npu_failures.graph_findings("g", npu_failures.GraphFacts(), plan,
                                                         rec["options"], mo)
                if d.code == "NPB177"]
        return d.message.split("; fix: ", 1)[1]
    off = fix(reuse=False, **product_budget)
    assert off.startswith("block reuse is off (ge.exec.disableReuseMemory=1): turn it on"), off
    on = fix(reuse=True, **product_budget)
    assert "reuse" not in on.split("; source")[0] and "graph_memory_max_size" not in on, on
    assert "a product with more memory than atlas-training" in on, on


def test_a_product_without_a_memory_figure_is_said_and_npb145_fires():
    # try-out: run --product atlas-200i-500-a2 (no memory figure) said "no target product"
    # and NPB145 (explain: the memory rule skipped for that product) did not appear
    import dataclasses
    from npu_bridge.ge import memory_plan as mp, npu_failures
    _mlp(2 ** 30)
    rec = _records.records()[-1]
    plan = rec["graphs"][-1]["plan"]
    mo = dataclasses.replace(rec["_memory_options"], product="atlas-200i-500-a2",
                             device_memory=None, graph_budget=None, var_budget=None)
    v = mp.verdict(plan.checked, plan.variables, mo)
    assert v.fits is None and "memory of atlas-200i-500-a2 unknown" in v.reason, v.reason
    (d,) = [d for d in npu_failures.graph_findings("g", npu_failures.GraphFacts(), plan,
                                                     rec["options"], mo) if d.code == "NPB145"]
    assert "atlas-200i-500-a2" in d.message.short and d.severity == "info"
    assert "NPB145" in npu_failures.PER_SESSION   # once per session, not per graph
    # no product: not NPB145 (NPB110 says so), and the reason says no target product
    none = dataclasses.replace(mo, product=None)
    assert "no target product" in mp.verdict(plan.checked, plan.variables, none).reason
    assert "NPB145" not in [d.code for d in npu_failures.graph_findings(
        "g", npu_failures.GraphFacts(), plan, rec["options"], none)]
