"""Row-driven tests: every catalog row's rule gets a good, a boundary and a bad value taken
from the row's own data, so a new row is tested with no new test code."""
import json
import os

import pytest

from npu_bridge.ge import NpuConfigError, catalog, cross, resolve, resolve_ge
from npu_bridge.ge.diagnostics import name_pages

PM_ROWS = [r for r in catalog.OPTIONS if r.key]
GE_ROWS = [r for r in catalog.OPTIONS if not r.key]
# Options whose "on" value needs a companion key (a cross-option rule, tested elsewhere).
COMPANIONS = {"enable_dump": {"dump_path": "/tmp"}, "enable_dump_debug": {"dump_path": "/tmp"}}


def cases(row):
    """(good, boundary, bad) for a row from its own data; bad None when the kind has none."""
    kind = row.rule
    if kind == "enum":
        allowed = list(row.allowed)
        if isinstance(allowed[0], int):
            bad = max(allowed) + 7
        else:
            bad = "no_such_value"
        return allowed[0], allowed[-1], bad
    if kind in ("range", "clamp", "int_string"):
        lo, hi = row.min, row.max
        conv = str if kind == "int_string" else int
        good = conv(lo if lo is not None else hi)
        boundary = conv(hi if hi is not None else lo)
        bad = hi + 1 if hi is not None else lo - 1
        if str(bad) == row.adapter_default:  # the adapter's "unset" value is accepted
            bad = lo - 2
        return good, boundary, conv(bad)
    if kind == "regex":
        return row.example, "", row.example + "@@!"
    if kind == "json":
        return '{"output": "./"}', "", "{not json"
    if kind in ("path", "write_dir"):
        # "" means unset in a parameter_map; a GE key given directly needs a non-empty path
        return "/tmp/some_dir", ("" if row.key else "/tmp/other_dir"), "bad\0path"
    if kind == "bool":
        return False, True, None
    typed = {"i": (0, 1), "f": (0.5, 0.0), "b": (True, False)}
    good, boundary = typed.get(row.field, ("anything", ""))
    return good, boundary, None


def _errors(call):
    try:
        result = call()
    except NpuConfigError as err:
        return [d for d in err.diagnostics if d.severity == "error"], None
    return [], result


def _companions(key):
    """Values for what the "requires" cross-option rules triggered by `key` need, from the
    rules' own data (a value the rule lists, else the needed row's good value)."""
    extra = dict(COMPANIONS.get(key, {}))
    for rule in cross.CROSS_RULES:
        if rule.kind != "requires" or rule.severity == "warning" \
                or key not in [k for k, _ in rule.when]:
            continue
        for need, test in rule.needs[:1] if rule.any_of else rule.needs:
            if need == key or need in extra:
                continue
            extra[need] = test[0] if isinstance(test, tuple) else (
                test if isinstance(test, bool) else cases(catalog.BY_KEY[need])[0])
    return extra


def _pm(row, value):
    pm = {row.key: value}
    if value not in ("", None):
        pm.update(_companions(row.key))
    return pm


@pytest.mark.parametrize("row", PM_ROWS, ids=lambda r: r.key)
def test_parameter_map_good_and_boundary_values_resolve(row):
    good, boundary, _ = cases(row)
    for value in (good, boundary):
        if row.legacy_values and value in row.legacy_values:
            continue
        errors, result = _errors(lambda: resolve(_pm(row, value), env={}))
        assert errors == [], (row.key, value, errors)
        for route in row.routes:
            if route.when == "present" or (value not in ("", None)):
                target = {"global": result.global_options, "session": result.session_options,
                          "graph": result.graph_options, "adapter": result.adapter_options}
                if route.when == "nonempty" and value == "":
                    continue
                assert route.key in target[route.level], (row.key, route)


@pytest.mark.parametrize("row", [r for r in PM_ROWS if cases(r)[2] is not None],
                         ids=lambda r: r.key)
def test_parameter_map_bad_value(row):
    _, _, bad = cases(row)
    if row.rule == "clamp":
        result = resolve(_pm(row, bad), env={})
        warn = [d for d in result.diagnostics if d.code == "NPB104"]
        assert warn and warn[0].option == row.key
        assert result.effective[row.ge_key] == str(row.max)
        return
    errors, _ = _errors(lambda: resolve(_pm(row, bad), env={}))
    assert [d.code for d in errors] == ["E10001"], (row.key, bad, errors)
    msg = errors[0].message
    assert row.key in msg and row.allowed_text in msg and name_pages(row.source) in msg


@pytest.mark.parametrize("row", PM_ROWS, ids=lambda r: r.key)
def test_wrong_attr_value_field_is_an_error_unless_the_row_allows_it(row):
    other = {"b": 5, "i": "text", "s": True, "f": 1}[row.field]
    other_field = {"b": "i", "i": "s", "s": "b", "f": "i"}[row.field]
    errors, result = _errors(lambda: resolve({row.key: other}, env={}))
    how = row.other_fields.get(other_field)
    if how == "accept":   # the real NPUEstimator writes it there
        assert errors == []
    else:   # "older": a field older releases read (NPB102), still refused today
        code = "NPB102" if how == "older" else "NPB101"
        assert [(d.code, d.option) for d in errors] == [(code, row.key)]


@pytest.mark.parametrize("row", [r for r in PM_ROWS if r.adapter_default is not None],
                         ids=lambda r: r.key)
def test_absent_key_sends_the_adapter_default(row):
    result = resolve({}, env={})
    levels = {"global": result.global_options, "session": result.session_options,
              "graph": result.graph_options, "adapter": result.adapter_options}
    for route in row.routes:
        if route.when == "always":
            assert levels[route.level][route.key] == row.adapter_default, route


@pytest.mark.parametrize("row", GE_ROWS, ids=lambda r: r.ge_key)
def test_ge_rows_good_bad_and_levels(row):
    level = row.levels[0]
    good, boundary, bad = cases(row)
    companions = {"ge.externalWeight": "1"} if row.ge_key == "ge.externalWeightDir" else {}
    for value in (good, boundary):
        opts = dict(companions, **{row.ge_key: value})
        errors, result = _errors(lambda: resolve_ge(**{level + "_options": opts}, env={}))
        assert errors == [], (row.ge_key, value, errors)
    if bad is not None:
        errors, result = _errors(lambda: resolve_ge(**{level + "_options": {row.ge_key: bad}},
                                                    env={}))
        if row.rule == "clamp":
            assert result.effective[row.ge_key] == str(row.max)
        elif row.rule == "write_dir":  # an unsafe directory has its own code
            assert "NPB136" in [d.code for d in errors]
        else:
            assert "E10001" in [d.code for d in errors]
    for other in ("global", "session", "graph"):
        if other not in row.levels:
            errors, _ = _errors(lambda: resolve_ge(**{other + "_options": {row.ge_key: good}},
                                                   env={}))
            assert ("NPB130", row.ge_key) in [(d.code, d.option) for d in errors]


@pytest.mark.parametrize("row", [r for r in catalog.OPTIONS if r.products], ids=lambda r: r.name)
def test_product_restriction_from_the_row(row):
    good, on, _ = cases(row)
    if row.rule == "bool":
        on = True
    elif row.rule in ("regex", "path", "any", "json"):
        on = good
    unsupported = [p for p in ("atlas-inference", "atlas-200i-500-a2", "ascend-950",
                               "atlas-training") if p not in row.products][0]
    if row.key:
        call = lambda pid: resolve(_pm(row, on), product=pid, env={})  # noqa: E731
    else:
        call = lambda pid: resolve_ge(session_options={row.ge_key: on}, product=pid, env={})  # noqa
    errors, result = _errors(lambda: call(row.products[0]))
    assert errors == []
    errors, result = _errors(lambda: call(unsupported))
    if row.product_severity == "error":
        assert ("NPB112", row.name) in [(d.code, d.option) for d in errors]
    else:
        assert ("NPB112", row.name) in [(d.code, d.option) for d in result.diagnostics]


def test_find_resolves_every_kind_of_name():
    assert catalog.find("static_memory_policy").key == "static_memory_policy"
    assert catalog.find("memory_config.static_memory_policy").key == "static_memory_policy"
    assert catalog.find("ge.exec.staticMemoryPolicy").ge_key == "ge.exec.staticMemoryPolicy"
    assert catalog.find("ge.exec.staticMemoryPolicy").key is None  # the seed's GE row
    assert catalog.find("EXEC_DISABLE_REUSED_MEMORY").ge_key == "ge.exec.disableReuseMemory"
    assert catalog.find("ge::ir_option::EXTERNAL_WEIGHT").ge_key == "ge.externalWeight"
    assert catalog.find("ge.graphRunMode").key == "graph_run_mode"
    assert catalog.find("dump_config.dump_mode").key == "dump_mode"
    assert catalog.find("no_such_option") is None


from _reference import REFERENCE  # noqa: E402  (tests/_reference.py)
_OPTIONS_JSON = os.path.join(REFERENCE, "npu_options.json")


def test_catalog_covers_the_reference_keys_and_columns():
    keys = catalog.PARAMETER_MAP_KEYS
    assert len(set(keys)) == len(keys)
    assert len(keys) >= 108   # the reference's 107 keys, plus const_input (GetPassOptions)
    if os.path.exists(_OPTIONS_JSON):   # CI has ../shared; a user's clone may not
        with open(_OPTIONS_JSON, encoding="utf-8") as handle:
            reference = [entry["key"] for entry in json.load(handle)["parameter_map"]]
        assert len(reference) == 107 and set(reference) <= set(keys)
        # a key beyond the reference's says where the real adapter reads it
        for key in sorted(set(keys) - set(reference)):
            assert "hicann/tensorflow" in catalog.find(key).source, key
    for row in catalog.OPTIONS:
        assert row.rule in catalog.RULE_KINDS, row.name
        assert row.source, row.name
        for route in row.routes:
            assert not route.key.startswith("ge::"), (row.name, route.key)
        if row.key:
            assert row.field in ("b", "i", "s", "f")
            assert row.estimator_write in catalog.ESTIMATOR_WRITE_MODES
    ge_keys = {r.ge_key for r in catalog.OPTIONS if not r.key}
    assert ge_keys == {"ge.exec.atomicCleanPolicy", "ge.exec.disableReuseMemory",
                       "ge.exec.input_fusion_size", "ge.exec.inputReuseMemIndexes",
                       "ge.exec.staticMemoryPolicy", "ge.exec.outputReuseInputMemIndexes",
                       "ge.exec.outputReuseMemIndexes", "ge.externalWeight",
                       "ge.externalWeightDir", "ge.inputBatchCpy", "ge.featureBaseRefreshable",
                       "ge.variableUse1gHugePage"}


def test_const_input_is_an_adapter_pass_option():
    """const_input (hicann/tensorflow npu_attrs.cc GetPassOptions, s field, default ""): the
    Placeholder names SetVarMaxSizePass marks as const inputs; kept by the adapter, never sent
    to GE, no NPURunConfig argument."""
    row = catalog.BY_KEY["const_input"]
    assert (row.field, row.runconfig_arg, row.estimator_write) == ("s", None, "never")
    got = resolve({"const_input": b"input,mask"})
    assert [d.code for d in got.diagnostics if d.severity != "info"] == []
    assert got.adapter_options["const_input"] == "input,mask"
    assert not any("const_input" in opts for opts in
                   (got.global_options, got.session_options, got.graph_options))
    with pytest.raises(NpuConfigError, match="const_input"):
        resolve({"const_input": 3})


def test_estimator_write_columns_match_the_real_estimator():
    by = catalog.BY_KEY
    assert by["use_off_line"].estimator_write == "always" and by["use_off_line"].estimator_value is True
    assert by["min_group_size"].estimator_value is True
    assert by["jit_compile"].estimator_write == "always"
    assert by["static_memory_policy"].estimator_write == "when_set"
    assert by["atomic_clean_policy"].estimator_write == "always"
    assert by["enable_dump"].estimator_default is False
    assert by["work_path"].estimator_requires == "aoe_mode"
    assert by["auto_tune_mode"].estimator_write == "never"


def test_suggestions_ignore_case():
    """An unknown key differing in case only (or also by a typo) gets the catalog spelling."""
    assert catalog.suggest("PRECISION_MODE")[0] == "precision_mode"
    assert catalog.suggest("Precison_Mode")[0] == "precision_mode"
    assert catalog.suggest("hccl_ALGORITHM")[0] == "HCCL_algorithm"
    assert catalog.suggest("sump_mode") == ["dump_mode", "dump_debug_mode"]


# ---- a row's columns are the catalog's own: a misspelled column is an import error, not a
# column silently dropped (the notice rows' `quiet` once was)
def test_a_misspelled_option_column_names_the_row_the_column_and_the_known_ones():
    with pytest.raises(ValueError) as info:
        catalog._build({"key": "my_key", "field": "s", "adapter_defualt": "1"})
    text = str(info.value)
    assert "catalog row 'my_key'" in text and "'adapter_defualt'" in text
    assert "did you mean 'adapter_default'?" in text
    assert "known columns:" in text and "estimator_write" in text and "plugin_key" in text


def test_a_row_without_key_is_named_by_its_other_names():
    with pytest.raises(ValueError, match=r"catalog row 'ge\.x'.*'rul'.*did you mean 'rule'"):
        catalog._build({"ge_key": "ge.x", "rul": "bool"})
    with pytest.raises(ValueError, match=r"catalog row 'my_key', route 'ge\.y'.*'whn'"
                                         r".*did you mean 'when'.*known columns: level, key"):
        catalog._build({"key": "my_key", "routes": [{"level": "session", "key": "ge.y",
                                                      "whn": "always"}]})


def test_a_misspelled_cross_rule_column_names_the_rule_and_its_kinds_columns_only():
    spec = {"kind": "notice", "if": [("input_fusion_size", "set")],
            "option": "input_fusion_size", "quiett": [131072], "code": "NPB122",
            "failure": "docs", "source": "test"}
    with pytest.raises(ValueError) as info:
        cross.build(spec)
    text = str(info.value)
    assert "cross-option rule notice NPB122 (input_fusion_size)" in text
    assert "'quiett'" in text and "did you mean 'quiet'?" in text
    # each kind declares its own columns: a notice row has no env_policy column
    assert "known columns: kind, if, code, source, failure, severity, level, option, quiet" \
        in text and "invalid_code" not in text
    del spec["quiett"]
    rule = cross.build(dict(spec, quiet=[131072]))
    assert type(rule) is cross.Notice and rule.quiet == (131072,)
    assert not hasattr(rule, "invalid_code") and not hasattr(rule, "needs")


def test_a_cross_rule_of_an_unknown_kind_or_missing_column_names_the_rule():
    with pytest.raises(ValueError, match=r"kind 'require' is not a rule kind "
                                         r"\(did you mean 'requires'\?\); kinds: requires, "):
        cross.build({"kind": "require", "if": [("enable_dump", True)], "code": "NPB143",
                     "source": "test"})
    with pytest.raises(ValueError, match=r"excludes NPB142 .*'others'"):
        cross.build({"kind": "excludes", "if": [("enable_dump", True)], "code": "NPB142",
                     "source": "test"})
    with pytest.raises(ValueError, match=r"level 'ge' \(kind excludes runs at parameter_map\)"):
        cross.build({"kind": "excludes", "if": [("ge.exec.dumpPath", "set")], "code": "NPB142",
                     "others": [("ge.exec.dumpMode", "set")], "source": "test", "level": "ge"})


def test_a_catalog_row_of_an_unknown_value_rule_kind_names_the_row():
    with pytest.raises(ValueError, match=r"catalog row 'my_key': rule 'enm' is not a rule kind "
                                         r"\(did you mean 'enum'\?\); kinds: bool, enum, "):
        catalog._build({"key": "my_key", "rule": "enm"})


def test_every_row_and_rule_reads_its_kind_from_the_registries():
    from npu_bridge.ge import rule_kinds
    assert catalog.RULE_KINDS == tuple(rule_kinds.KINDS)
    assert {row.rule for row in catalog.OPTIONS} <= set(rule_kinds.KINDS)
    for row in catalog.OPTIONS:
        assert row.kind is rule_kinds.KINDS[row.rule]
        assert row.allowed_text == row.kind.allowed_text(row)
    for rule in cross.CROSS_RULES:
        assert type(rule) is cross.KINDS[rule.kind] and rule.level in type(rule).levels
        assert rule.describe()



def test_the_views_below_the_catalog_read_what_the_catalog_and_the_rule_table_say():
    """`diagnostics` (a fix line's AttrValue field and config-class argument) and
    `rule_kinds` (NPB103's "runs as")
    read the rows' data (`_rows`), not the catalog and the compiled rule table that are built
    from them (no import cycle, tests/test_layers.py): the same answers for every row."""
    from npu_bridge.ge import config_schema, diagnostics, rule_kinds
    assert diagnostics._argument_of("static_memory_policy") == ("MemoryConfig",
                                                                "static_memory_policy")
    for row in catalog.OPTIONS:
        if row.key and row.field:
            assert diagnostics._field_of(row.key) == row.field
        if row.key and row.runconfig_arg:
            cls, arg = config_schema.owner(row.runconfig_arg)
            assert diagnostics._argument_of(row.key) == (cls.name, arg)
        if row.key:
            for value in list(row.legacy_values) + list(row.allowed or ()):
                expected = next((r.runs_as for r in cross.CROSS_RULES
                                 if r.kind == "legacy_value" and value in r.legacy
                                 and r.option in {rt.key for rt in row.routes} | {row.ge_key}),
                                None)
                assert rule_kinds.legacy_runs_as(row, value) == expected
    assert rule_kinds.legacy_runs_as(catalog.find("static_memory_policy"), 1) == 2
    with pytest.raises(LookupError):
        diagnostics._field_of("no_such_key")
