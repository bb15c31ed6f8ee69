"""Product table: verified on-chip memory figures, the NPB140 boundary, SoC-name mapping.

Figures pinned here come from the platform configs of the vendor's CANN 8.1.RC1 toolkit
(`data/platform_config/<SoC>.ini`, `[SoCInfo] memory_size`) and reference ge_memory.md; see
`npu_bridge/ge/products.py` for the per-figure source and confidence.
"""
import pytest

from npu_bridge.ge import NpuConfigError, products, resolve

GIB = 1024 ** 3


def npb140(pm, product):
    """The NPB140 diagnostics of resolving `pm` for `product` (errors raise; collect both)."""
    try:
        opts = resolve(pm, product=product, env={})
    except NpuConfigError as err:
        return [d for d in err.diagnostics if d.code == "NPB140"]
    return [d for d in opts.diagnostics if d.code == "NPB140"]


def sizes(graph, variable):
    return {"graph_memory_max_size": str(graph), "variable_memory_max_size": str(variable)}


# ---- verified figures
@pytest.mark.parametrize("pid,memory", [
    ("ascend-950", 144 * GIB),          # reference ge_memory.md, low confidence (issue 17)
    ("atlas-a3-training", 64 * GIB),    # largest A3 config: Ascend910_9391.ini
    ("atlas-a3-inference", 64 * GIB),
    ("atlas-a2-training", 64 * GIB),    # largest A2 config: Ascend910B1/B2/B3.ini
    ("atlas-a2-inference", 64 * GIB),
    ("atlas-200i-500-a2", None),        # only Ascend310B1.ini carries a figure
    ("atlas-inference", 24000000000),   # Ascend310P1/3/5/7.ini, decimal 24 GB
    ("atlas-training", 32 * GIB),       # first-generation Ascend 910: no config figure
])
def test_product_memory_figures(pid, memory):
    p = products.PRODUCTS[pid]
    assert p.memory_bytes == memory
    assert p.memory_source   # every figure (and every None) says where it comes from


@pytest.mark.parametrize("soc,memory", [
    ("Ascend910B1", 64 * GIB), ("Ascend910B2", 64 * GIB), ("Ascend910B3", 64 * GIB),
    ("Ascend910B4", 32 * GIB), ("Ascend910B2C", None),
    ("Ascend910_9391", 64 * GIB), ("Ascend910_9362", 32 * GIB),
    ("Ascend310P1", 24000000000), ("Ascend310P3", 24000000000),
    ("Ascend310P5", 24000000000), ("Ascend310P7", 24000000000),
    ("Ascend310B1", 32 * GIB), ("Ascend310B2", None), ("Ascend310B3", None),
    ("Ascend310B4", None), ("Ascend910B", None),
])
def test_soc_memory_figures_from_platform_configs(soc, memory):
    assert soc in products.SOC_MEMORY
    figure, source = products.SOC_MEMORY[soc]
    assert figure == memory
    assert source.endswith(soc + ".ini")


def test_every_soc_with_a_figure_maps_to_a_known_product():
    for soc in products.SOC_MEMORY:
        assert products.product_from_soc(soc) in products.PRODUCTS, soc


@pytest.mark.parametrize("training,inference", [("atlas-a2-training", "atlas-a2-inference"),
                                                ("atlas-a3-training", "atlas-a3-inference")])
def test_family_figure_is_the_largest_soc_figure(training, inference):
    """A family whose SoCs differ carries its largest figure: a sum above it exceeds every
    device of the family, so NPB140 never fires on a configuration some device could hold."""
    figures = [m for soc, (m, _) in products.SOC_MEMORY.items()
               if m and products.product_from_soc(soc) == training]
    assert len(set(figures)) > 1                      # the family is not uniform
    assert products.PRODUCTS[training].memory_bytes == max(figures)
    assert products.PRODUCTS[inference].memory_bytes == max(figures)


def test_memory_for_prefers_the_soc_figure():
    assert products.memory_for("atlas-a2-training") == 64 * GIB
    assert products.memory_for("atlas-a2-training", "Ascend910B4") == 32 * GIB
    assert products.memory_for("atlas-a2-training", "Ascend910B1") == 64 * GIB
    # a SoC without a figure falls back to the product figure
    assert products.memory_for("atlas-a2-training", "Ascend910B2C") == 64 * GIB
    assert products.memory_for("atlas-a3-training", "Ascend910_9362") == 32 * GIB
    assert products.memory_for("atlas-200i-500-a2", "Ascend310B1") == 32 * GIB
    assert products.memory_for("atlas-200i-500-a2", "Ascend310B4") is None
    # a SoC of another family does not lend its figure
    assert products.memory_for("atlas-training", "Ascend910B4") == 32 * GIB
    assert products.memory_for("ascend-950", "Ascend910B1") == 144 * GIB
    assert products.memory_for("ascend-950") == 144 * GIB


# ---- NPB140 boundary
@pytest.mark.parametrize("pid,memory", [("atlas-a2-training", 64 * GIB),
                                        ("atlas-a3-inference", 64 * GIB),
                                        ("atlas-inference", 24000000000),
                                        ("atlas-training", 32 * GIB)])
def test_npb140_boundary_sum_equal_passes_one_byte_more_fails(pid, memory):
    graph = memory * 26 // 32
    assert npb140(sizes(graph, memory - graph), pid) == []
    (d,) = npb140(sizes(graph, memory - graph + 1), pid)
    assert d.severity == "error" and d.value == memory + 1
    assert str(memory) in d.message and pid in d.message


def test_npb140_boundary_with_the_default_share_of_the_unset_size():
    memory = 24000000000                       # atlas-inference: 26/32 = 19.5e9, 5/32 = 3.75e9
    assert npb140({"graph_memory_max_size": str(memory - memory * 5 // 32)},
                  "atlas-inference") == []
    (d,) = npb140({"graph_memory_max_size": str(memory - memory * 5 // 32 + 1)},
                  "atlas-inference")
    assert d.value == memory + 1 and "5/32" in d.message


def _codes(pm, product):
    from npu_bridge.ge import NpuConfigError, resolve
    try:
        return [(d.code, d.severity) for d in resolve(pm, product=product, env={}).diagnostics]
    except NpuConfigError as err:
        return [(d.code, d.severity) for d in err.diagnostics]


@pytest.mark.parametrize("pid", ["atlas-200i-500-a2"])
def test_npb140_skipped_for_a_product_without_a_figure_says_so(pid):
    # issue 17 defect 2: the rule was skipped without a word
    assert products.PRODUCTS[pid].memory_bytes is None
    assert npb140(sizes(256 * GIB, 256 * GIB), pid) == []
    assert ("NPB145", "info") in _codes(sizes(256 * GIB, 256 * GIB), pid)
    assert "NPB145" not in [c for c, _ in _codes({}, pid)]   # nothing set: nothing skipped


def test_every_figure_has_a_confidence_and_a_source():
    for p in products.PRODUCTS.values():
        assert p.memory_source
        assert (p.memory_confidence in ("high", "medium", "low")) == (p.memory_bytes is not None)


def test_a_low_confidence_figure_gives_a_warning_not_an_error():
    (d,) = npb140(sizes(144 * GIB, 1), "ascend-950")
    assert d.severity == "warning" and "confidence low" in d.message
    (d,) = npb140(sizes(64 * GIB, 1), "atlas-a2-training")
    assert d.severity == "error" and "confidence high" in d.message


# ---- SoC names
@pytest.mark.parametrize("soc,pid", [
    # the names the real stack uses (platform_config/*.ini, HCCL/asc-devkit SoC tables)
    ("Ascend910B1", "atlas-a2-training"), ("Ascend910B2", "atlas-a2-training"),
    ("Ascend910B2C", "atlas-a2-training"), ("Ascend910B3", "atlas-a2-training"),
    ("Ascend910B4", "atlas-a2-training"), ("Ascend910B4-1", "atlas-a2-training"),
    ("Ascend910_9391", "atlas-a3-training"), ("Ascend910_9392", "atlas-a3-training"),
    ("Ascend910_9381", "atlas-a3-training"), ("Ascend910_9382", "atlas-a3-training"),
    ("Ascend910_9372", "atlas-a3-training"), ("Ascend910_9362", "atlas-a3-training"),
    ("Ascend910", "atlas-training"), ("Ascend910A", "atlas-training"),
    ("Ascend910B", "atlas-training"), ("Ascend910ProA", "atlas-training"),
    ("Ascend910ProB", "atlas-training"), ("Ascend910PremiumA", "atlas-training"),
    ("Ascend310P1", "atlas-inference"), ("Ascend310P3", "atlas-inference"),
    ("Ascend310P5", "atlas-inference"), ("Ascend310P7", "atlas-inference"),
    ("Ascend310P3vir02", "atlas-inference"),
    ("Ascend310B1", "atlas-200i-500-a2"), ("Ascend310B4", "atlas-200i-500-a2"),
    ("Ascend950", "ascend-950"), ("Ascend950PR", "ascend-950"),
    ("Ascend950PR_9599", "ascend-950"), ("Ascend950DT_9582", "ascend-950"),
    # CANN 8.x names of the same parts (Short_SoC_version=Ascend910_95, dav-c310)
    ("Ascend910_95", "ascend-950"), ("Ascend910_9579", "ascend-950"),
    ("Ascend910_958b", "ascend-950"), ("Ascend910_950z", "ascend-950"),
    # names no platform config or SoC table has
    ("Ascend910B1C", None), ("Ascend910B3C", None), ("Ascend910B2-1", None),
    ("Ascend910B5", None), ("Ascend310", None), ("Ascend910_5591", None),
])
def test_soc_names(soc, pid):
    assert products.product_from_soc(soc) == pid


# ---- NPB140 uses the exact SoC figure when the SoC is named
@pytest.mark.parametrize("where", ["soc_config", "product"])
def test_npb140_checks_the_named_soc_not_the_largest_of_its_family(where):
    # Ascend910B4 has 32 GiB (its platform config), the A2 family's largest is 64 GiB
    graph, variable = 26 * GIB, 7 * GIB           # 33 GiB: fits a B1, not a B4
    values = sizes(graph, variable)
    for soc, fits in (("Ascend910B1", True), ("Ascend910B4", False)):
        if where == "soc_config":
            run = lambda: resolve(dict(values, soc_config=soc), env={})   # noqa: E731
        else:
            run = lambda: resolve(values, product=soc, env={})            # noqa: E731
        if fits:
            assert not [d for d in run().diagnostics if d.code == "NPB140"]
        else:
            with pytest.raises(NpuConfigError) as err:
                run()
            (d,) = [d for d in err.value.diagnostics if d.code == "NPB140"]
            assert str(32 * GIB) in d.message and "Ascend910B4" in d.message


# ---- a "did you mean" the target product refuses (a tryout: the fix of
# precision_mode='allow_mix_precision_bf1' on atlas-training was allow_mix_precision_bf16,
# an NPB113 error there: one error fixed into another)
def _e10001(pm, product):
    with pytest.raises(NpuConfigError) as err:
        resolve(pm, product=product, env={})
    return [d for d in err.value.diagnostics if d.code == "E10001"]


@pytest.mark.parametrize("typed,meant,there", [
    ("allow_mix_precision_bf1", "allow_mix_precision_bf16", "allow_mix_precision_fp16"),
    ("allow_fp32_to_bf1", "allow_fp32_to_bf16", "allow_fp32_to_fp16"),
])
def test_a_suggestion_the_product_refuses_is_said_and_the_fix_is_one_it_takes(typed, meant,
                                                                              there):
    found = _e10001({"precision_mode": typed}, "atlas-training")
    assert len(found) == 1
    d = found[0]
    assert "did you mean %r? refused on atlas-training (NPB113): try %r" % (meant, there) \
        in d.message
    assert d.message.fix == 'parameter_map["precision_mode"].s = b"%s"' % there
    resolve({"precision_mode": there}, product="atlas-training", env={})   # the fix resolves
    # where the product takes it, or with no product, the suggestion stands as before
    for product in ("atlas-a2-training", None):
        d = _e10001({"precision_mode": typed}, product)[0]
        assert "refused on" not in d.message and d.message.fix.endswith('b"%s"' % meant)


def test_the_allowed_values_are_those_the_product_takes_then_the_refused_ones():
    d = _e10001({"precision_mode": "allow_mix_precison"}, "atlas-training")[0]
    assert "did you mean 'allow_mix_precision'?" in d.message
    assert d.message.fix == 'parameter_map["precision_mode"].s = b"allow_mix_precision"'
    allowed = d.message.split("allowed: ", 1)[1].split("; source:")[0]
    taken, refused = allowed.split("; refused on atlas-training (NPB113): ")
    assert "allow_mix_precision_fp16" in taken.split(", ") and "bf16" not in taken
    assert sorted(refused.split(", ")) == ["allow_fp32_to_bf16", "allow_mix_precision_bf16"]
    d = _e10001({"precision_mode": "allow_mix_precison"}, "atlas-a2-training")[0]
    assert "refused" not in d.message and "allow_mix_precision_bf16" in d.message
    # the short line keeps whole values of what the product takes ("+N more"), as before
    d = _e10001({"precision_mode": "allow_mix_precison"}, "atlas-inference")[0]
    assert d.message.short.endswith("allowed: allow_fp32_to_fp16, +6 more"), d.message.short
