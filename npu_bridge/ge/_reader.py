"""`_read` of npu_bridge.ge.resolver, generated from the catalog rows by
tools/gen_catalog_doc.py (resolver.reader_module_text); do not edit. The resolver
gives it its constants, and compiles its own copy instead when this file is not
what the catalog gives (a checked-in module is compiled once, by the install, not at
every import)."""
# flake8: noqa
# pylint: skip-file


def _read(pm, keys, AV, values, L0, L1, L2, L3, src, diags, slow):
    if 'variable_format_optimize' in keys:
        a = pm['variable_format_optimize']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['variable_format_optimize'] = v
            L1['variable_format_optimize'] = ('1' if v else '0')
            src['variable_format_optimize'] = 'parameter_map:variable_format_optimize'
            diags.append(DEP0.get(v) or Diagnostic('NPB105', 'info', 'variable_format_optimize', v, 'variable_format_optimize is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('variable_format_optimize', a)
    if 'hcom_parallel' in keys:
        a = pm['hcom_parallel']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['hcom_parallel'] = v
            L1['hcom_parallel'] = ('1' if v else '0')
            src['hcom_parallel'] = 'parameter_map:hcom_parallel'
        else:
            slow('hcom_parallel', a)
    if 'graph_memory_max_size' in keys:
        a = pm['graph_memory_max_size']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in U2 or (type(v) is str and len(v) <= 40 and D2(v) is not None and LO2 <= int(v) <= HI2)):
            values['graph_memory_max_size'] = v
            if v:
                L1['graph_memory_max_size'] = v
                src['graph_memory_max_size'] = 'parameter_map:graph_memory_max_size'
            diags.append(Diagnostic('NPB105', 'info', 'graph_memory_max_size', v, 'graph_memory_max_size is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('graph_memory_max_size', a)
    if 'variable_memory_max_size' in keys:
        a = pm['variable_memory_max_size']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in U3 or (type(v) is str and len(v) <= 40 and D3(v) is not None and LO3 <= int(v) <= HI3)):
            values['variable_memory_max_size'] = v
            if v:
                L1['variable_memory_max_size'] = v
                src['variable_memory_max_size'] = 'parameter_map:variable_memory_max_size'
            diags.append(Diagnostic('NPB105', 'info', 'variable_memory_max_size', v, 'variable_memory_max_size is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('variable_memory_max_size', a)
    if 'enable_dump' in keys:
        a = pm['enable_dump']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['enable_dump'] = v
            L1['enable_dump'] = ('1' if v else '0')
            src['enable_dump'] = 'parameter_map:enable_dump'
        else:
            slow('enable_dump', a)
    if 'enable_dump_debug' in keys:
        a = pm['enable_dump_debug']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['enable_dump_debug'] = v
            L1['enable_dump_debug'] = ('1' if v else '0')
            src['enable_dump_debug'] = 'parameter_map:enable_dump_debug'
        else:
            slow('enable_dump_debug', a)
    if 'input_fusion_size' in keys:
        a = pm['input_fusion_size']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A6):
            values['input_fusion_size'] = v
            L1['input_fusion_size'] = str(v)
            src['input_fusion_size'] = 'parameter_map:input_fusion_size'
        else:
            slow('input_fusion_size', a)
    if 'dump_path' in keys:
        a = pm['dump_path']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['dump_path'] = v
            L1['dump_path'] = v
            src['dump_path'] = 'parameter_map:dump_path'
        else:
            slow('dump_path', a)
    if 'dump_step' in keys:
        a = pm['dump_step']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R8(v) is not None):
            values['dump_step'] = v
            L1['dump_step'] = v
            src['dump_step'] = 'parameter_map:dump_step'
        else:
            slow('dump_step', a)
    if 'dump_mode' in keys:
        a = pm['dump_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A9):
            values['dump_mode'] = v
            L1['dump_mode'] = v
            src['dump_mode'] = 'parameter_map:dump_mode'
        else:
            slow('dump_mode', a)
    if 'dump_debug_mode' in keys:
        a = pm['dump_debug_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A10):
            values['dump_debug_mode'] = v
            L1['dump_debug_mode'] = v
            src['dump_debug_mode'] = 'parameter_map:dump_debug_mode'
        else:
            slow('dump_debug_mode', a)
    if 'stream_max_parallel_num' in keys:
        a = pm['stream_max_parallel_num']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R11(v) is not None):
            values['stream_max_parallel_num'] = v
            L1['stream_max_parallel_num'] = v
            src['stream_max_parallel_num'] = 'parameter_map:stream_max_parallel_num'
        else:
            slow('stream_max_parallel_num', a)
    if 'ac_parallel_enable' in keys:
        a = pm['ac_parallel_enable']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A12):
            values['ac_parallel_enable'] = v
            L1['ac_parallel_enable'] = v
            src['ac_parallel_enable'] = 'parameter_map:ac_parallel_enable'
        else:
            slow('ac_parallel_enable', a)
    if 'quant_dumpable' in keys:
        a = pm['quant_dumpable']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A13):
            values['quant_dumpable'] = v
            L1['quant_dumpable'] = v
            src['quant_dumpable'] = 'parameter_map:quant_dumpable'
        else:
            slow('quant_dumpable', a)
    if 'is_tailing_optimization' in keys:
        a = pm['is_tailing_optimization']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['is_tailing_optimization'] = v
            L1['is_tailing_optimization'] = ('1' if v else '0')
            src['is_tailing_optimization'] = 'parameter_map:is_tailing_optimization'
        else:
            slow('is_tailing_optimization', a)
    if 'profiling_mode' in keys:
        a = pm['profiling_mode']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['profiling_mode'] = v
            L0['profiling_mode'] = ('1' if v else '0')
            src['profiling_mode'] = 'parameter_map:profiling_mode'
            L0['ge.exec.profilingMode'] = ('1' if v else '0')
            src['ge.exec.profilingMode'] = 'parameter_map:profiling_mode'
        else:
            slow('profiling_mode', a)
    if 'profiling_options' in keys:
        a = pm['profiling_options']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in U16 or J16(v)):
            values['profiling_options'] = v
            L0['profiling_options'] = v
            src['profiling_options'] = 'parameter_map:profiling_options'
            L0['ge.exec.profilingOptions'] = v
            src['ge.exec.profilingOptions'] = 'parameter_map:profiling_options'
        else:
            slow('profiling_options', a)
    if 'auto_tune_mode' in keys:
        a = pm['auto_tune_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A17):
            values['auto_tune_mode'] = v
            L0['ge.autoTuneMode'] = v
            src['ge.autoTuneMode'] = 'parameter_map:auto_tune_mode'
        else:
            slow('auto_tune_mode', a)
    if 'graph_run_mode' in keys:
        a = pm['graph_run_mode']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A18):
            values['graph_run_mode'] = v
            L0['graph_run_mode'] = str(v)
            src['graph_run_mode'] = 'parameter_map:graph_run_mode'
            L0['ge.graphRunMode'] = str(v)
            src['ge.graphRunMode'] = 'parameter_map:graph_run_mode'
        else:
            slow('graph_run_mode', a)
    if 'op_debug_level' in keys:
        a = pm['op_debug_level']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A19):
            values['op_debug_level'] = v
            L0['op_debug_level'] = str(v)
            src['op_debug_level'] = 'parameter_map:op_debug_level'
            L0['ge.opDebugLevel'] = str(v)
            src['ge.opDebugLevel'] = 'parameter_map:op_debug_level'
            diags.append(DEP19.get(v) or Diagnostic('NPB105', 'info', 'op_debug_level', v, 'op_debug_level is deprecated (use op_debug_config instead); source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('op_debug_level', a)
    if 'enable_scope_fusion_passes' in keys:
        a = pm['enable_scope_fusion_passes']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R20(v) is not None):
            values['enable_scope_fusion_passes'] = v
            L0['enable_scope_fusion_passes'] = v
            src['enable_scope_fusion_passes'] = 'parameter_map:enable_scope_fusion_passes'
            L0['ge.exec.enableScopeFusionPasses'] = v
            src['ge.exec.enableScopeFusionPasses'] = 'parameter_map:enable_scope_fusion_passes'
        else:
            slow('enable_scope_fusion_passes', a)
    if 'aoe_mode' in keys:
        a = pm['aoe_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A21):
            values['aoe_mode'] = v
            L0['aoe_mode'] = v
            src['aoe_mode'] = 'parameter_map:aoe_mode'
            L0['ge.jobType'] = v
            src['ge.jobType'] = 'parameter_map:aoe_mode'
        else:
            slow('aoe_mode', a)
    if 'work_path' in keys:
        a = pm['work_path']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['work_path'] = v
            L0['ge.tuningPath'] = v
            src['ge.tuningPath'] = 'parameter_map:work_path'
        else:
            slow('work_path', a)
    if 'distribute_config' in keys:
        a = pm['distribute_config']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['distribute_config'] = v
            L0['distribute_config'] = v
            src['distribute_config'] = 'parameter_map:distribute_config'
        else:
            slow('distribute_config', a)
    if 'precision_mode' in keys:
        a = pm['precision_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A24):
            values['precision_mode'] = v
            L0['precision_mode'] = v
            src['precision_mode'] = 'parameter_map:precision_mode'
            L0['ge.exec.precision_mode'] = v
            src['ge.exec.precision_mode'] = 'parameter_map:precision_mode'
        else:
            slow('precision_mode', a)
    if 'precision_mode_v2' in keys:
        a = pm['precision_mode_v2']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A25):
            values['precision_mode_v2'] = v
            L0['precision_mode_v2'] = v
            src['precision_mode_v2'] = 'parameter_map:precision_mode_v2'
            L0['ge.exec.precision_mode_v2'] = v
            src['ge.exec.precision_mode_v2'] = 'parameter_map:precision_mode_v2'
        else:
            slow('precision_mode_v2', a)
    if 'soc_config' in keys:
        a = pm['soc_config']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R26(v) is not None):
            values['soc_config'] = v
            L0['soc_config'] = v
            src['soc_config'] = 'parameter_map:soc_config'
            if v:
                L0['ge.socVersion'] = v
                src['ge.socVersion'] = 'parameter_map:soc_config'
        else:
            slow('soc_config', a)
    if 'enable_data_pre_proc' in keys:
        a = pm['enable_data_pre_proc']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['enable_data_pre_proc'] = v
            L3['enable_data_pre_proc'] = ('1' if v else '0')
            src['enable_data_pre_proc'] = 'parameter_map:enable_data_pre_proc'
            diags.append(DEP27.get(v) or Diagnostic('NPB105', 'info', 'enable_data_pre_proc', v, 'enable_data_pre_proc is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('enable_data_pre_proc', a)
    if 'use_off_line' in keys:
        a = pm['use_off_line']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['use_off_line'] = v
            L3['use_off_line'] = ('1' if v else '0')
            src['use_off_line'] = 'parameter_map:use_off_line'
        else:
            slow('use_off_line', a)
    if 'mix_compile_mode' in keys:
        a = pm['mix_compile_mode']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['mix_compile_mode'] = v
            L3['mix_compile_mode'] = ('1' if v else '0')
            src['mix_compile_mode'] = 'parameter_map:mix_compile_mode'
        else:
            slow('mix_compile_mode', a)
    if 'iterations_per_loop' in keys:
        a = pm['iterations_per_loop']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and ((type(v) is int and LO30 <= v <= HI30) or v in U30):
            values['iterations_per_loop'] = v
            L3['iterations_per_loop'] = str(v)
            src['iterations_per_loop'] = 'parameter_map:iterations_per_loop'
        else:
            slow('iterations_per_loop', a)
    if 'graph_max_parallel_model_num' in keys:
        a = pm['graph_max_parallel_model_num']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A31):
            values['graph_max_parallel_model_num'] = v
            L3['graph_max_parallel_model_num'] = str(v)
            src['graph_max_parallel_model_num'] = 'parameter_map:graph_max_parallel_model_num'
        else:
            slow('graph_max_parallel_model_num', a)
    if 'lower_functional_ops' in keys:
        a = pm['lower_functional_ops']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['lower_functional_ops'] = v
            L3['lower_functional_ops'] = ('1' if v else '0')
            src['lower_functional_ops'] = 'parameter_map:lower_functional_ops'
        else:
            slow('lower_functional_ops', a)
    if 'job' in keys:
        a = pm['job']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['job'] = v
            L3['job'] = v
            src['job'] = 'parameter_map:job'
        else:
            slow('job', a)
    if 'task_index' in keys:
        a = pm['task_index']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and ((type(v) is int and LO34 <= v <= HI34) or v in U34):
            values['task_index'] = v
            L3['task_index'] = str(v)
            src['task_index'] = 'parameter_map:task_index'
        else:
            slow('task_index', a)
    if 'dynamic_input' in keys:
        a = pm['dynamic_input']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['dynamic_input'] = v
            L3['dynamic_input'] = ('1' if v else '0')
            src['dynamic_input'] = 'parameter_map:dynamic_input'
            diags.append(DEP35.get(v) or Diagnostic('NPB105', 'info', 'dynamic_input', v, 'dynamic_input is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('dynamic_input', a)
    if 'dynamic_graph_execute_mode' in keys:
        a = pm['dynamic_graph_execute_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A36):
            values['dynamic_graph_execute_mode'] = v
            L3['dynamic_graph_execute_mode'] = v
            src['dynamic_graph_execute_mode'] = 'parameter_map:dynamic_graph_execute_mode'
            diags.append(DEP36.get(v) or Diagnostic('NPB105', 'info', 'dynamic_graph_execute_mode', v, 'dynamic_graph_execute_mode is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('dynamic_graph_execute_mode', a)
    if 'dynamic_inputs_shape_range' in keys:
        a = pm['dynamic_inputs_shape_range']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R37(v) is not None):
            values['dynamic_inputs_shape_range'] = v
            L3['dynamic_inputs_shape_range'] = v
            src['dynamic_inputs_shape_range'] = 'parameter_map:dynamic_inputs_shape_range'
            diags.append(Diagnostic('NPB105', 'info', 'dynamic_inputs_shape_range', v, 'dynamic_inputs_shape_range is deprecated; source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('dynamic_inputs_shape_range', a)
    if 'compile_dynamic_mode' in keys:
        a = pm['compile_dynamic_mode']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['compile_dynamic_mode'] = v
            L3['compile_dynamic_mode'] = ('1' if v else '0')
            src['compile_dynamic_mode'] = 'parameter_map:compile_dynamic_mode'
        else:
            slow('compile_dynamic_mode', a)
    if 'local_rank_id' in keys:
        a = pm['local_rank_id']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A39):
            values['local_rank_id'] = v
            L3['local_rank_id'] = str(v)
            src['local_rank_id'] = 'parameter_map:local_rank_id'
        else:
            slow('local_rank_id', a)
    if 'local_device_list' in keys:
        a = pm['local_device_list']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R40(v) is not None):
            values['local_device_list'] = v
            L3['local_device_list'] = v
            src['local_device_list'] = 'parameter_map:local_device_list'
        else:
            slow('local_device_list', a)
    if 'in_out_pair_flag' in keys:
        a = pm['in_out_pair_flag']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['in_out_pair_flag'] = v
            L3['in_out_pair_flag'] = ('1' if v else '0')
            src['in_out_pair_flag'] = 'parameter_map:in_out_pair_flag'
        else:
            slow('in_out_pair_flag', a)
    if 'in_out_pair' in keys:
        a = pm['in_out_pair']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['in_out_pair'] = v
            L3['in_out_pair'] = v
            src['in_out_pair'] = 'parameter_map:in_out_pair'
        else:
            slow('in_out_pair', a)
    if 'enable_exception_dump' in keys:
        a = pm['enable_exception_dump']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A43):
            values['enable_exception_dump'] = v
            L0['enable_exception_dump'] = str(v)
            src['enable_exception_dump'] = 'parameter_map:enable_exception_dump'
            L0['ge.exec.enable_exception_dump'] = str(v)
            src['ge.exec.enable_exception_dump'] = 'parameter_map:enable_exception_dump'
        else:
            slow('enable_exception_dump', a)
    if 'op_select_implmode' in keys:
        a = pm['op_select_implmode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A44):
            values['op_select_implmode'] = v
            L1['op_select_implmode'] = v
            src['op_select_implmode'] = 'parameter_map:op_select_implmode'
            L0['ge.opSelectImplmode'] = v
            src['ge.opSelectImplmode'] = 'parameter_map:op_select_implmode'
            diags.append(DEP44.get(v) or Diagnostic('NPB105', 'info', 'op_select_implmode', v, 'op_select_implmode is deprecated (use op_precision_mode instead); source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('op_select_implmode', a)
    if 'optypelist_for_implmode' in keys:
        a = pm['optypelist_for_implmode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['optypelist_for_implmode'] = v
            L1['optypelist_for_implmode'] = v
            src['optypelist_for_implmode'] = 'parameter_map:optypelist_for_implmode'
            L0['ge.optypelistForImplmode'] = v
            src['ge.optypelistForImplmode'] = 'parameter_map:optypelist_for_implmode'
            diags.append(Diagnostic('NPB105', 'info', 'optypelist_for_implmode', v, 'optypelist_for_implmode is deprecated (use op_precision_mode instead); source: docs/en/tfadapter_1/apiref/session_config/deprecated_options.md'))
        else:
            slow('optypelist_for_implmode', a)
    if 'input_shape' in keys:
        a = pm['input_shape']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R46(v) is not None):
            values['input_shape'] = v
            L2['input_shape'] = v
            src['input_shape'] = 'parameter_map:input_shape'
        else:
            slow('input_shape', a)
    if 'dynamic_dims' in keys:
        a = pm['dynamic_dims']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R47(v) is not None):
            values['dynamic_dims'] = v
            L2['dynamic_dims'] = v
            src['dynamic_dims'] = 'parameter_map:dynamic_dims'
        else:
            slow('dynamic_dims', a)
    if 'dynamic_node_type' in keys:
        a = pm['dynamic_node_type']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A48):
            values['dynamic_node_type'] = v
            L2['dynamic_node_type'] = str(v)
            src['dynamic_node_type'] = 'parameter_map:dynamic_node_type'
        else:
            slow('dynamic_node_type', a)
    if 'compile_hybrid_mode' in keys:
        a = pm['compile_hybrid_mode']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A49):
            values['compile_hybrid_mode'] = v
            L2['compile_hybrid_mode'] = str(v)
            src['compile_hybrid_mode'] = 'parameter_map:compile_hybrid_mode'
        else:
            slow('compile_hybrid_mode', a)
    if 'buffer_optimize' in keys:
        a = pm['buffer_optimize']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A50):
            values['buffer_optimize'] = v
            L1['buffer_optimize'] = v
            src['buffer_optimize'] = 'parameter_map:buffer_optimize'
        else:
            slow('buffer_optimize', a)
    if 'enable_small_channel' in keys:
        a = pm['enable_small_channel']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A51):
            values['enable_small_channel'] = v
            L1['enable_small_channel'] = str(v)
            src['enable_small_channel'] = 'parameter_map:enable_small_channel'
        else:
            slow('enable_small_channel', a)
    if 'deterministic' in keys:
        a = pm['deterministic']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A52):
            values['deterministic'] = v
            L0['ge.deterministic'] = str(v)
            src['ge.deterministic'] = 'parameter_map:deterministic'
        else:
            slow('deterministic', a)
    if 'fusion_switch_file' in keys:
        a = pm['fusion_switch_file']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['fusion_switch_file'] = v
            L1['fusion_switch_file'] = v
            src['fusion_switch_file'] = 'parameter_map:fusion_switch_file'
            L0['ge.fusionSwitchFile'] = v
            src['ge.fusionSwitchFile'] = 'parameter_map:fusion_switch_file'
        else:
            slow('fusion_switch_file', a)
    if 'enable_compress_weight' in keys:
        a = pm['enable_compress_weight']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['enable_compress_weight'] = v
            L1['enable_compress_weight'] = ('1' if v else '0')
            src['enable_compress_weight'] = 'parameter_map:enable_compress_weight'
        else:
            slow('enable_compress_weight', a)
    if 'compress_weight_conf' in keys:
        a = pm['compress_weight_conf']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['compress_weight_conf'] = v
            L1['compress_weight_conf'] = v
            src['compress_weight_conf'] = 'parameter_map:compress_weight_conf'
        else:
            slow('compress_weight_conf', a)
    if 'op_compiler_cache_mode' in keys:
        a = pm['op_compiler_cache_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A56):
            values['op_compiler_cache_mode'] = v
            L0['op_compiler_cache_mode'] = v
            src['op_compiler_cache_mode'] = 'parameter_map:op_compiler_cache_mode'
            L0['ge.op_compiler_cache_mode'] = v
            src['ge.op_compiler_cache_mode'] = 'parameter_map:op_compiler_cache_mode'
        else:
            slow('op_compiler_cache_mode', a)
    if 'op_compiler_cache_dir' in keys:
        a = pm['op_compiler_cache_dir']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['op_compiler_cache_dir'] = v
            L0['op_compiler_cache_dir'] = v
            src['op_compiler_cache_dir'] = 'parameter_map:op_compiler_cache_dir'
            L0['ge.op_compiler_cache_dir'] = v
            src['ge.op_compiler_cache_dir'] = 'parameter_map:op_compiler_cache_dir'
        else:
            slow('op_compiler_cache_dir', a)
    if 'debug_dir' in keys:
        a = pm['debug_dir']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['debug_dir'] = v
            L0['debug_dir'] = v
            src['debug_dir'] = 'parameter_map:debug_dir'
            L0['ge.debugDir'] = v
            src['ge.debugDir'] = 'parameter_map:debug_dir'
        else:
            slow('debug_dir', a)
    if 'hcom_multi_mode' in keys:
        a = pm['hcom_multi_mode']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['hcom_multi_mode'] = v
            L1['hcom_multi_mode'] = ('1' if v else '0')
            src['hcom_multi_mode'] = 'parameter_map:hcom_multi_mode'
            L0['ge.hcomMultiMode'] = ('1' if v else '0')
            src['ge.hcomMultiMode'] = 'parameter_map:hcom_multi_mode'
        else:
            slow('hcom_multi_mode', a)
    if 'session_device_id' in keys:
        a = pm['session_device_id']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and ((type(v) is int and LO60 <= v <= HI60) or v in U60):
            values['session_device_id'] = v
            L1['session_device_id'] = str(v)
            src['session_device_id'] = 'parameter_map:session_device_id'
        else:
            slow('session_device_id', a)
    if 'modify_mixlist' in keys:
        a = pm['modify_mixlist']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['modify_mixlist'] = v
            L1['modify_mixlist'] = v
            src['modify_mixlist'] = 'parameter_map:modify_mixlist'
            L0['ge.exec.modify_mixlist'] = v
            src['ge.exec.modify_mixlist'] = 'parameter_map:modify_mixlist'
        else:
            slow('modify_mixlist', a)
    if 'op_precision_mode' in keys:
        a = pm['op_precision_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['op_precision_mode'] = v
            L1['op_precision_mode'] = v
            src['op_precision_mode'] = 'parameter_map:op_precision_mode'
            L0['ge.exec.op_precision_mode'] = v
            src['ge.exec.op_precision_mode'] = 'parameter_map:op_precision_mode'
        else:
            slow('op_precision_mode', a)
    if 'device_type' in keys:
        a = pm['device_type']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['device_type'] = v
            L0['device_type'] = v
            src['device_type'] = 'parameter_map:device_type'
            L0['ge.deviceType'] = v
            src['ge.deviceType'] = 'parameter_map:device_type'
        else:
            slow('device_type', a)
    if 'hccl_timeout' in keys:
        a = pm['hccl_timeout']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A64):
            values['hccl_timeout'] = v
            L1['hccl_timeout'] = str(v)
            src['hccl_timeout'] = 'parameter_map:hccl_timeout'
            L0['ge.exec.hcclExecuteTimeOut'] = str(v)
            src['ge.exec.hcclExecuteTimeOut'] = 'parameter_map:hccl_timeout'
        else:
            slow('hccl_timeout', a)
    if 'op_wait_timeout' in keys:
        a = pm['op_wait_timeout']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['op_wait_timeout'] = v
            L0['op_wait_timeout'] = str(v)
            src['op_wait_timeout'] = 'parameter_map:op_wait_timeout'
            L0['ge.exec.opWaitTimeout'] = str(v)
            src['ge.exec.opWaitTimeout'] = 'parameter_map:op_wait_timeout'
        else:
            slow('op_wait_timeout', a)
    if 'op_execute_timeout' in keys:
        a = pm['op_execute_timeout']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['op_execute_timeout'] = v
            L0['op_execute_timeout'] = str(v)
            src['op_execute_timeout'] = 'parameter_map:op_execute_timeout'
            L0['ge.exec.opExecuteTimeout'] = str(v)
            src['ge.exec.opExecuteTimeout'] = 'parameter_map:op_execute_timeout'
        else:
            slow('op_execute_timeout', a)
    if 'customize_dtypes' in keys:
        a = pm['customize_dtypes']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['customize_dtypes'] = v
            L0['customize_dtypes'] = v
            src['customize_dtypes'] = 'parameter_map:customize_dtypes'
            L0['ge.customizeDtypes'] = v
            src['ge.customizeDtypes'] = 'parameter_map:customize_dtypes'
        else:
            slow('customize_dtypes', a)
    if 'HCCL_algorithm' in keys:
        a = pm['HCCL_algorithm']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['HCCL_algorithm'] = v
            L1['HCCL_algorithm'] = v
            src['HCCL_algorithm'] = 'parameter_map:HCCL_algorithm'
            L0['HCCL_algorithm'] = v
            src['HCCL_algorithm'] = 'parameter_map:HCCL_algorithm'
        else:
            slow('HCCL_algorithm', a)
    if 'op_debug_config' in keys:
        a = pm['op_debug_config']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['op_debug_config'] = v
            L0['op_debug_config'] = v
            src['op_debug_config'] = 'parameter_map:op_debug_config'
            L0['ge.exec.opDebugConfig'] = v
            src['ge.exec.opDebugConfig'] = 'parameter_map:op_debug_config'
        else:
            slow('op_debug_config', a)
    if 'graph_exec_timeout' in keys:
        a = pm['graph_exec_timeout']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['graph_exec_timeout'] = v
            L0['graph_exec_timeout'] = str(v)
            src['graph_exec_timeout'] = 'parameter_map:graph_exec_timeout'
            L0['ge.exec.graphExecTimeout'] = str(v)
            src['ge.exec.graphExecTimeout'] = 'parameter_map:graph_exec_timeout'
        else:
            slow('graph_exec_timeout', a)
    if 'static_memory_policy' in keys:
        a = pm['static_memory_policy']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A71):
            values['static_memory_policy'] = v
            L0['static_memory_policy'] = str(v)
            src['static_memory_policy'] = 'parameter_map:static_memory_policy'
            L0['ge.exec.staticMemoryPolicy'] = str(v)
            src['ge.exec.staticMemoryPolicy'] = 'parameter_map:static_memory_policy'
        else:
            slow('static_memory_policy', a)
    if 'atomic_clean_policy' in keys:
        a = pm['atomic_clean_policy']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A72):
            values['atomic_clean_policy'] = v
            L1['atomic_clean_policy'] = str(v)
            src['atomic_clean_policy'] = 'parameter_map:atomic_clean_policy'
            L1['ge.exec.atomicCleanPolicy'] = str(v)
            src['ge.exec.atomicCleanPolicy'] = 'parameter_map:atomic_clean_policy'
        else:
            slow('atomic_clean_policy', a)
    if 'variable_use_1g_huge_page' in keys:
        a = pm['variable_use_1g_huge_page']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A73):
            values['variable_use_1g_huge_page'] = v
            L1['variable_use_1g_huge_page'] = str(v)
            src['variable_use_1g_huge_page'] = 'parameter_map:variable_use_1g_huge_page'
            L1['ge.variableUse1gHugePage'] = str(v)
            src['ge.variableUse1gHugePage'] = 'parameter_map:variable_use_1g_huge_page'
            L0['variable_use_1g_huge_page'] = str(v)
            src['variable_use_1g_huge_page'] = 'parameter_map:variable_use_1g_huge_page'
            L0['ge.variableUse1gHugePage'] = str(v)
            src['ge.variableUse1gHugePage'] = 'parameter_map:variable_use_1g_huge_page'
        else:
            slow('variable_use_1g_huge_page', a)
    if 'memory_optimization_policy' in keys:
        a = pm['memory_optimization_policy']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A74):
            values['memory_optimization_policy'] = v
            L1['memory_optimization_policy'] = v
            src['memory_optimization_policy'] = 'parameter_map:memory_optimization_policy'
            L1['ge.exec.memoryOptimizationPolicy'] = v
            src['ge.exec.memoryOptimizationPolicy'] = 'parameter_map:memory_optimization_policy'
        else:
            slow('memory_optimization_policy', a)
    if 'experimental_logical_device_cluster_deploy_mode' in keys:
        a = pm['experimental_logical_device_cluster_deploy_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A75):
            values['experimental_logical_device_cluster_deploy_mode'] = v
            L0['logical_device_cluster_deploy_mode'] = v
            src['logical_device_cluster_deploy_mode'] = 'parameter_map:experimental_logical_device_cluster_deploy_mode'
            L0['ge.exec.logicalDeviceClusterDeployMode'] = v
            src['ge.exec.logicalDeviceClusterDeployMode'] = 'parameter_map:experimental_logical_device_cluster_deploy_mode'
        else:
            slow('experimental_logical_device_cluster_deploy_mode', a)
    if 'experimental_logical_device_id' in keys:
        a = pm['experimental_logical_device_id']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['experimental_logical_device_id'] = v
            L0['logical_device_id'] = v
            src['logical_device_id'] = 'parameter_map:experimental_logical_device_id'
            L0['ge.exec.logicalDeviceId'] = v
            src['ge.exec.logicalDeviceId'] = 'parameter_map:experimental_logical_device_id'
        else:
            slow('experimental_logical_device_id', a)
    if 'experimental_accelerate_train_mode' in keys:
        a = pm['experimental_accelerate_train_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R77(v) is not None):
            values['experimental_accelerate_train_mode'] = v
            L3['accelerate_train_mode'] = v
            src['accelerate_train_mode'] = 'parameter_map:experimental_accelerate_train_mode'
        else:
            slow('experimental_accelerate_train_mode', a)
    if 'experimental_model_deploy_mode' in keys:
        a = pm['experimental_model_deploy_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['experimental_model_deploy_mode'] = v
            L0['model_deploy_mode'] = v
            src['model_deploy_mode'] = 'parameter_map:experimental_model_deploy_mode'
            L0['ge.exec.modelDeployMode'] = v
            src['ge.exec.modelDeployMode'] = 'parameter_map:experimental_model_deploy_mode'
        else:
            slow('experimental_model_deploy_mode', a)
    if 'experimental_model_deploy_devicelist' in keys:
        a = pm['experimental_model_deploy_devicelist']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['experimental_model_deploy_devicelist'] = v
            L0['model_deploy_devicelist'] = v
            src['model_deploy_devicelist'] = 'parameter_map:experimental_model_deploy_devicelist'
            L0['ge.exec.modelDeployDevicelist'] = v
            src['ge.exec.modelDeployDevicelist'] = 'parameter_map:experimental_model_deploy_devicelist'
        else:
            slow('experimental_model_deploy_devicelist', a)
    if 'topo_sorting_mode' in keys:
        a = pm['topo_sorting_mode']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A80):
            values['topo_sorting_mode'] = v
            L1['topo_sorting_mode'] = str(v)
            src['topo_sorting_mode'] = 'parameter_map:topo_sorting_mode'
            L1['ge.topoSortingMode'] = str(v)
            src['ge.topoSortingMode'] = 'parameter_map:topo_sorting_mode'
        else:
            slow('topo_sorting_mode', a)
    if 'insert_op_file' in keys:
        a = pm['insert_op_file']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['insert_op_file'] = v
            L1['insert_op_file'] = v
            src['insert_op_file'] = 'parameter_map:insert_op_file'
            L1['ge.insertOpFile'] = v
            src['ge.insertOpFile'] = 'parameter_map:insert_op_file'
        else:
            slow('insert_op_file', a)
    if 'resource_config_path' in keys:
        a = pm['resource_config_path']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['resource_config_path'] = v
            L1['resource_config_path'] = v
            src['resource_config_path'] = 'parameter_map:resource_config_path'
        else:
            slow('resource_config_path', a)
    if 'graph_parallel_option_path' in keys:
        a = pm['graph_parallel_option_path']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['graph_parallel_option_path'] = v
            L1['graph_parallel_option_path'] = v
            src['graph_parallel_option_path'] = 'parameter_map:graph_parallel_option_path'
        else:
            slow('graph_parallel_option_path', a)
    if 'enable_graph_parallel' in keys:
        a = pm['enable_graph_parallel']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['enable_graph_parallel'] = v
            L1['enable_graph_parallel'] = ('1' if v else '0')
            src['enable_graph_parallel'] = 'parameter_map:enable_graph_parallel'
        else:
            slow('enable_graph_parallel', a)
    if 'dump_data' in keys:
        a = pm['dump_data']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A85):
            values['dump_data'] = v
            L0['dump_data'] = v
            src['dump_data'] = 'parameter_map:dump_data'
            L0['ge.exec.dumpData'] = v
            src['ge.exec.dumpData'] = 'parameter_map:dump_data'
        else:
            slow('dump_data', a)
    if 'dump_layer' in keys:
        a = pm['dump_layer']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT:
            values['dump_layer'] = v
            L1['dump_layer'] = v
            src['dump_layer'] = 'parameter_map:dump_layer'
            L1['ge.exec.dumpLayer'] = v
            src['ge.exec.dumpLayer'] = 'parameter_map:dump_layer'
        else:
            slow('dump_layer', a)
    if 'aoe_config_file' in keys:
        a = pm['aoe_config_file']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['aoe_config_file'] = v
            L0['aoe_config_file'] = v
            src['aoe_config_file'] = 'parameter_map:aoe_config_file'
            L0['ge.aoe_config_file'] = v
            src['ge.aoe_config_file'] = 'parameter_map:aoe_config_file'
        else:
            slow('aoe_config_file', a)
    if 'stream_sync_timeout' in keys:
        a = pm['stream_sync_timeout']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and ((type(v) is int and LO88 <= v <= HI88) or v in U88):
            values['stream_sync_timeout'] = v
            L0['stream_sync_timeout'] = str(v)
            src['stream_sync_timeout'] = 'parameter_map:stream_sync_timeout'
        else:
            slow('stream_sync_timeout', a)
    if 'event_sync_timeout' in keys:
        a = pm['event_sync_timeout']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and ((type(v) is int and LO89 <= v <= HI89) or v in U89):
            values['event_sync_timeout'] = v
            L0['event_sync_timeout'] = str(v)
            src['event_sync_timeout'] = 'parameter_map:event_sync_timeout'
        else:
            slow('event_sync_timeout', a)
    if 'external_weight' in keys:
        a = pm['external_weight']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['external_weight'] = v
            L1['external_weight'] = ('1' if v else '0')
            src['external_weight'] = 'parameter_map:external_weight'
            L1['ge.externalWeight'] = ('1' if v else '0')
            src['ge.externalWeight'] = 'parameter_map:external_weight'
        else:
            slow('external_weight', a)
    if 'frozen_variable' in keys:
        a = pm['frozen_variable']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['frozen_variable'] = v
            L3['frozen_variable'] = ('1' if v else '0')
            src['frozen_variable'] = 'parameter_map:frozen_variable'
        else:
            slow('frozen_variable', a)
    if 'variable_placement' in keys:
        a = pm['variable_placement']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A92):
            values['variable_placement'] = v
            L3['variable_location'] = v
            src['variable_location'] = 'parameter_map:variable_placement'
        else:
            slow('variable_placement', a)
    if 'export_compile_stat' in keys:
        a = pm['export_compile_stat']
        if type(a) is AV:
            v = a.i
            if not v and a.WhichOneof('value') != 'i':
                v = _NOT
        elif type(a) is int:
            v = a
        else:
            v = _NOT
        if v is not _NOT and (v in A93):
            values['export_compile_stat'] = v
            L0['export_compile_stat'] = str(v)
            src['export_compile_stat'] = 'parameter_map:export_compile_stat'
            L0['ge.exportCompileStat'] = str(v)
            src['ge.exportCompileStat'] = 'parameter_map:export_compile_stat'
        else:
            slow('export_compile_stat', a)
    if 'oo_constant_folding' in keys:
        a = pm['oo_constant_folding']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['oo_constant_folding'] = v
            L0['oo_constant_folding'] = ('true' if v else 'false')
            src['oo_constant_folding'] = 'parameter_map:oo_constant_folding'
            L0['ge.oo.constantFolding'] = ('true' if v else 'false')
            src['ge.oo.constantFolding'] = 'parameter_map:oo_constant_folding'
        else:
            slow('oo_constant_folding', a)
    if 'aicore_num' in keys:
        a = pm['aicore_num']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R95(v) is not None):
            values['aicore_num'] = v
            L0['aicore_num'] = v
            src['aicore_num'] = 'parameter_map:aicore_num'
            L0['ge.aicoreNum'] = v
            src['ge.aicoreNum'] = 'parameter_map:aicore_num'
            L1['aicore_num'] = v
            src['aicore_num'] = 'parameter_map:aicore_num'
            L1['ge.aicoreNum'] = v
            src['ge.aicoreNum'] = 'parameter_map:aicore_num'
        else:
            slow('aicore_num', a)
    if 'all_tensor_not_empty' in keys:
        a = pm['all_tensor_not_empty']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['all_tensor_not_empty'] = v
            L1['all_tensor_not_empty'] = ('1' if v else '0')
            src['all_tensor_not_empty'] = 'parameter_map:all_tensor_not_empty'
            L1['ge.exec.allTensorNotEmpty'] = ('1' if v else '0')
            src['ge.exec.allTensorNotEmpty'] = 'parameter_map:all_tensor_not_empty'
        else:
            slow('all_tensor_not_empty', a)
    if 'auto_multistream_parallel_mode' in keys:
        a = pm['auto_multistream_parallel_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R97(v) is not None):
            values['auto_multistream_parallel_mode'] = v
            L1['auto_multistream_parallel_mode'] = v
            src['auto_multistream_parallel_mode'] = 'parameter_map:auto_multistream_parallel_mode'
            L1['ge.autoMultistreamParallelMode'] = v
            src['ge.autoMultistreamParallelMode'] = 'parameter_map:auto_multistream_parallel_mode'
        else:
            slow('auto_multistream_parallel_mode', a)
    if 'input_batch_cpy' in keys:
        a = pm['input_batch_cpy']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['input_batch_cpy'] = v
            L0['input_batch_cpy'] = ('true' if v else 'false')
            src['input_batch_cpy'] = 'parameter_map:input_batch_cpy'
            L0['ge.inputBatchCpy'] = ('true' if v else 'false')
            src['ge.inputBatchCpy'] = 'parameter_map:input_batch_cpy'
            L1['input_batch_cpy'] = ('1' if v else '0')
            src['input_batch_cpy'] = 'parameter_map:input_batch_cpy'
            L1['ge.inputBatchCpy'] = ('1' if v else '0')
            src['ge.inputBatchCpy'] = 'parameter_map:input_batch_cpy'
        else:
            slow('input_batch_cpy', a)
    if 'oo_level' in keys:
        a = pm['oo_level']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A99):
            values['oo_level'] = v
            L0['oo_level'] = v
            src['oo_level'] = 'parameter_map:oo_level'
            L0['ge.oo.level'] = v
            src['ge.oo.level'] = 'parameter_map:oo_level'
            L1['oo_level'] = v
            src['oo_level'] = 'parameter_map:oo_level'
            L1['ge.oo.level'] = v
            src['ge.oo.level'] = 'parameter_map:oo_level'
        else:
            slow('oo_level', a)
    if 'optimization_switch' in keys:
        a = pm['optimization_switch']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (R100(v) is not None):
            values['optimization_switch'] = v
            L0['optimization_switch'] = v
            src['optimization_switch'] = 'parameter_map:optimization_switch'
            L0['ge.optimizationSwitch'] = v
            src['ge.optimizationSwitch'] = 'parameter_map:optimization_switch'
            L1['optimization_switch'] = v
            src['optimization_switch'] = 'parameter_map:optimization_switch'
            L1['ge.optimizationSwitch'] = v
            src['ge.optimizationSwitch'] = 'parameter_map:optimization_switch'
        else:
            slow('optimization_switch', a)
    if 'jit_compile' in keys:
        a = pm['jit_compile']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A101):
            values['jit_compile'] = v
            L1['jit_compile'] = fmt101_0(v)
            src['jit_compile'] = 'parameter_map:jit_compile'
            L1['ge.jit_compile'] = fmt101_1(v)
            src['ge.jit_compile'] = 'parameter_map:jit_compile'
        else:
            slow('jit_compile', a)
    if 'shape_generalization_mode' in keys:
        a = pm['shape_generalization_mode']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A102):
            values['shape_generalization_mode'] = v
            L3['shape_generalization_mode'] = v
            src['shape_generalization_mode'] = 'parameter_map:shape_generalization_mode'
        else:
            slow('shape_generalization_mode', a)
    if 'graph_compiler_cache_dir' in keys:
        a = pm['graph_compiler_cache_dir']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and ('\0' not in v and '\n' not in v):
            values['graph_compiler_cache_dir'] = v
            if v:
                L1['graph_compiler_cache_dir'] = v
                src['graph_compiler_cache_dir'] = 'parameter_map:graph_compiler_cache_dir'
        else:
            slow('graph_compiler_cache_dir', a)
    if 'graph_slice' in keys:
        a = pm['graph_slice']
        if type(a) is AV:
            v = a.s.decode('utf-8', 'replace')
            if not v and a.WhichOneof('value') != 's':
                v = _NOT
        elif type(a) is str:
            v = a
        elif type(a) is bytes:
            v = a.decode('utf-8', 'replace')
        else:
            v = _NOT
        if v is not _NOT and (v in A104):
            values['graph_slice'] = v
            L1['graph_slice'] = v
            src['graph_slice'] = 'parameter_map:graph_slice'
        else:
            slow('graph_slice', a)
    if 'enable_reduce_precision' in keys:
        a = pm['enable_reduce_precision']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['enable_reduce_precision'] = v
        else:
            slow('enable_reduce_precision', a)
    if 'min_group_size' in keys:
        a = pm['min_group_size']
        if type(a) is AV:
            v = a.b
            if not v and a.WhichOneof('value') != 'b':
                v = _NOT
        elif type(a) is bool:
            v = a
        else:
            v = _NOT
        if v is not _NOT:
            values['min_group_size'] = v
        else:
            slow('min_group_size', a)
