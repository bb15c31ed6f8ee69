"""The AttrValue field each parameter_map key is read from, checked against the real adapter
(issue: NPB102 accepted jit_compile given as `.b`, which the adapter refuses).

Facts from hicann/tensorflow tf_adapter/util/npu_attrs.cc (commit 82957b9),
NpuAttrs::SetNpuOptimizerAttr: the field each key is read from and the line of that read;
`FIELD_CHECKED`: the keys whose read first checks the AttrValue's `value_case`, and what it
does with a value in another field ("refuse": NPU_REQUIRES fails, InvalidArgument, the session
is not created; "skip": the key is read only from its field, else left at its default)."""
import pytest

from npu_bridge.ge import NpuConfigError, catalog, resolve

ADAPTER_READS = {
    "HCCL_algorithm": ("s", 2502), "ac_parallel_enable": ("s", 2115), "aicore_num": ("s", 2604),
    "all_tensor_not_empty": ("b", 2609), "aoe_config_file": ("s", 2571),
    "aoe_mode": ("s", 2155), "atomic_clean_policy": ("i", 2514),
    "auto_multistream_parallel_mode": ("s", 2612), "auto_tune_mode": ("s", 2135),
    "buffer_optimize": ("s", 2375), "compile_dynamic_mode": ("b", 2266),
    "compile_hybrid_mode": ("i", 2346), "compress_weight_conf": ("s", 2401),
    "const_input": ("s", 981), "customize_dtypes": ("s", 2499), "debug_dir": ("s", 2410),
    "deterministic": ("i", 2388), "device_type": ("s", 2487), "distribute_config": ("s", 2185),
    "dump_data": ("s", 2560), "dump_debug_mode": ("s", 2103), "dump_layer": ("s", 2568),
    "dump_mode": ("s", 2093), "dump_path": ("s", 2070), "dump_step": ("s", 2085),
    "dynamic_dims": ("s", 2334), "dynamic_graph_execute_mode": ("s", 2252),
    "dynamic_input": ("b", 2248), "dynamic_inputs_shape_range": ("s", 2261),
    "dynamic_node_type": ("i", 2340), "enable_compress_weight": ("b", 2398),
    "enable_data_pre_proc": ("b", 2218), "enable_dump": ("b", 2050),
    "enable_dump_debug": ("b", 2053), "enable_exception_dump": ("i", 2295),
    "enable_graph_parallel": ("b", 2557), "enable_scope_fusion_passes": ("s", 2151),
    "enable_small_channel": ("i", 2382), "event_sync_timeout": ("i", 2577),
    "experimental_accelerate_train_mode": ("s", 2532),
    "experimental_logical_device_cluster_deploy_mode": ("s", 2526),
    "experimental_logical_device_id": ("s", 2529),
    "experimental_model_deploy_devicelist": ("s", 2538),
    "experimental_model_deploy_mode": ("s", 2535), "export_compile_stat": ("i", 2590),
    "external_weight": ("b", 2580), "frozen_variable": ("b", 2583),
    "fusion_switch_file": ("s", 2391), "graph_compiler_cache_dir": ("s", 2654),
    "graph_exec_timeout": ("i", 2508), "graph_max_parallel_model_num": ("i", 2231),
    "graph_memory_max_size": ("s", 2044), "graph_parallel_option_path": ("s", 2554),
    "graph_run_mode": ("i", 2138), "graph_slice": ("s", 2657), "hccl_timeout": ("i", 2490),
    "hcom_multi_mode": ("b", 2413), "hcom_parallel": ("b", 2041), "in_out_pair": ("s", 2291),
    "in_out_pair_flag": ("b", 2288), "input_batch_cpy": ("b", 2616),
    "input_fusion_size": ("i", 2056), "input_shape": ("s", 2328), "insert_op_file": ("s", 2546),
    "is_tailing_optimization": ("b", 2122), "iterations_per_loop": ("i", 2228),
    "jit_compile": ("s", 2637), "job": ("s", 2239), "local_device_list": ("s", 2279),
    "local_rank_id": ("i", 2270), "lower_functional_ops": ("b", 2236),
    "memory_optimization_policy": ("s", 2523), "mix_compile_mode": ("b", 2225),
    "modify_mixlist": ("s", 2439), "oo_constant_folding": ("b", 2598), "oo_level": ("s", 2623),
    "op_compiler_cache_dir": ("s", 2407), "op_compiler_cache_mode": ("s", 2404),
    "op_debug_config": ("s", 2505), "op_debug_level": ("i", 2145),
    "op_execute_timeout": ("i", 2496), "op_precision_mode": ("s", 2484),
    "op_select_implmode": ("s", 2315), "op_wait_timeout": ("i", 2493),
    "optimization_switch": ("s", 2628), "optypelist_for_implmode": ("s", 2323),
    "precision_mode": ("s", 2189), "precision_mode_v2": ("s", 2204),
    "profiling_mode": ("b", 2125), "profiling_options": ("s", 2128),
    "quant_dumpable": ("s", 2118), "resource_config_path": ("s", 2551),
    "session_device_id": ("i", 2416), "shape_generalization_mode": ("s", 2648),
    "soc_config": ("s", 2213), "static_memory_policy": ("i", 2511),
    "stream_max_parallel_num": ("s", 2112), "stream_sync_timeout": ("i", 2574),
    "task_index": ("i", 2244), "topo_sorting_mode": ("i", 2541), "use_off_line": ("b", 2222),
    "variable_format_optimize": ("b", 2038), "variable_memory_max_size": ("s", 2047),
    "variable_placement": ("s", 2586), "variable_use_1g_huge_page": ("i", 2517),
    "work_path": ("s", 2170),
}
FIELD_CHECKED = {"jit_compile": ("refuse", 2635), "shape_generalization_mode": ("refuse", 2645),
                 "export_compile_stat": ("skip", 2589), "oo_constant_folding": ("skip", 2597)}
# a plain Python value set in each AttrValue field (the resolver's duck typing)
IN_FIELD = {"b": True, "i": 3, "s": "x", "f": 0.5}


def test_catalog_field_is_the_field_the_adapter_reads():
    wrong = {k: (catalog.BY_KEY[k].field if k in catalog.BY_KEY else None, f, line)
             for k, (f, line) in ADAPTER_READS.items()
             if k not in catalog.BY_KEY or catalog.BY_KEY[k].field != f}
    assert wrong == {}


def test_catalog_says_where_the_adapter_refuses_another_field():
    got = {r.key: r.field_check for r in catalog.OPTIONS if r.key and r.field_check}
    assert got == {k: "refuse tf_adapter/util/npu_attrs.cc:%d" % line
                   for k, (how, line) in FIELD_CHECKED.items() if how == "refuse"}


def _errors(key, value):
    try:
        opts = resolve({key: value}, env={})
    except NpuConfigError as err:
        return [d for d in err.diagnostics if d.severity == "error" and d.option == key], \
            err.ge_options
    return [], opts


@pytest.mark.parametrize("key", sorted(ADAPTER_READS))
def test_a_value_in_a_field_the_adapter_does_not_read_is_an_error(key):
    # every key the adapter reads: another field is never accepted (nothing is converted:
    # the adapter reads only its own field), and the value is not forwarded
    row = catalog.BY_KEY[key]
    for field, value in IN_FIELD.items():
        if field == row.field or row.other_fields.get(field) == "accept":
            continue
        errors, opts = _errors(key, value)
        assert [d.code for d in errors] in (["NPB101"], ["NPB102"]), (key, field, errors)
        sent = [k for r in row.routes for k in [r.key]
                if opts is not None and k in {**opts.global_options, **opts.session_options,
                                              **opts.graph_options, **opts.adapter_options}
                and opts.sources.get(k, "").startswith("parameter_map")]
        assert sent == [], (key, field, sent)


@pytest.mark.parametrize("key", sorted(k for k, v in FIELD_CHECKED.items() if v[0] == "refuse"))
def test_the_message_says_the_adapter_refuses_it_and_where(key):
    errors, _ = _errors(key, True)
    (d,) = errors
    assert "refuses" in d.message and "npu_attrs.cc:%d" % FIELD_CHECKED[key][1] in d.message
    # jit_compile's true is "true"; True is no STRICT/FULL/ADAPTIVE: no literal to offer
    assert d.message.fix == 'parameter_map["%s"].s = %s' % (
        key, 'b"true"' if key == "jit_compile" else "...")


def test_jit_compile_as_b_is_refused_not_converted():
    # the zoo's older scripts write it as .b: still named as such (NPB102), now an error
    errors, opts = _errors("jit_compile", False)
    assert [(d.code, d.severity) for d in errors] == [("NPB102", "error")]
    assert "older" in errors[0].message
    assert opts.sources.get("ge.jit_compile") == "adapter default"
