"""Ascend product families, their on-chip memory, and how SoC names map to them.

Ids and seed names follow the product tables of the seeds (`memoryconfig_constructor_zh.txt`,
`ge_memory_options_zh.txt`) and DESIGN.md "Products".

On-chip memory: the figures are the `[SoCInfo] memory_size` of the CANN platform configs
(`data/platform_config/<SoC>.ini`, what GE reads for a SoC), per SoC in `SOC_MEMORY`. A
family whose SoCs carry different figures (Ascend910B4 has half the memory of
Ascend910B1..B3) gets its largest figure: a sum above it is too large for every device of the
family, and a smaller device is only checked exactly through `memory_for(pid, soc)`. A
family with SoCs of unknown memory (empty `memory_size`, or no config found) has None, and
the `graph_memory_max_size + variable_memory_max_size` rule (NPB140) is skipped there.

SoC names (what `soc_config` / `ge.socVersion` hold) are matched by the patterns in
`SOC_PATTERNS`, first match wins. Ambiguous names are read as follows:
- `Ascend910B1`, `Ascend910B2`, `Ascend910B2C`, `Ascend910B3`, `Ascend910B4`,
  `Ascend910B4-1` (the 910B chip family) ship both in the Atlas A2 training series and the
  Atlas A2 inference series (e.g. Atlas 800I A2). This is the *training* adapter, so they are
  read as `atlas-a2-training`; an inference target must be named explicitly with
  `product="atlas-a2-inference"` (or `--product`).
- `Ascend910_93xx` is read as `atlas-a3-training` for the same reason
  (`atlas-a3-inference` must be named explicitly).
- `Ascend910`, `Ascend910A`, `Ascend910B` (no digit), `Ascend910ProA/ProB`,
  `Ascend910PremiumA` are the first-generation Ascend 910 parts: `atlas-training`.
- `Ascend910_95`, `Ascend910_95xx` (CANN 8.x names) and `Ascend950`, `Ascend950PR_xxxx`,
  `Ascend950DT_xxxx` (later names) are the Ascend 950 parts: `ascend-950`.
"""
import contextlib
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Optional, Tuple

from npu_bridge.ge import records as _records
from npu_bridge.ge.diagnostics import make
from npu_bridge.ge.text import close_names

GIB = 1024 ** 3

# Platform configs read for the figures: the vendor's CANN 8.1.RC1 toolkit files (what GE reads
# for a SoC), named by their path in the toolkit.
_INI = "vendor CANN 8.1.RC1 toolkit data/platform_config/"

SOC_MEMORY = MappingProxyType({soc: (memory, _INI + soc + ".ini") for soc, memory in (
    ("Ascend910B", None),                    # first-generation 910 bin; memory_size empty
    ("Ascend910B1", 64 * GIB),
    ("Ascend910B2", 64 * GIB),
    ("Ascend910B2C", None),                  # memory_size empty
    ("Ascend910B3", 64 * GIB),
    ("Ascend910B4", 32 * GIB),
    ("Ascend910_9391", 64 * GIB),
    ("Ascend910_9362", 32 * GIB),
    ("Ascend310P1", 24000000000),            # decimal 24 GB, as written in the config
    ("Ascend310P3", 24000000000),
    ("Ascend310P5", 24000000000),
    ("Ascend310P7", 24000000000),
    ("Ascend310B1", 32 * GIB),
    ("Ascend310B2", None),                   # memory_size empty
    ("Ascend310B3", None),
    ("Ascend310B4", None),
)})
"""SoC name -> (memory_size in bytes or None where the config leaves it empty, source)."""


@dataclass(frozen=True, slots=True)
class Product:
    """One product family.

    id: the project's identifier; seed_names: the names the seeds/vendor docs use;
    memory_bytes: on-chip memory of one device in bytes (the largest of the family's SoCs),
    or None where no figure is known (the `graph_memory_max_size + variable_memory_max_size`
    rule NPB140 is then skipped, with info NPB145 saying so); memory_source: where the figure
    comes from; memory_confidence: "high", "medium" or "low" (reference ge_memory.md "Device
    memory per product"; NPB140 is a warning, not an error, on a low-confidence figure).
    """
    id: str
    seed_names: Tuple[str, ...]
    memory_bytes: Optional[int]
    memory_source: str
    memory_confidence: Optional[str] = None


_GE_MEMORY = "reference ge_memory.md 'Device memory per product'"
_A2 = ("largest platform-config memory_size of the family: Ascend910B1/B2/B3.ini 64 GiB "
       "(Ascend910B4.ini 32 GiB, Ascend910B2C.ini empty), " + _INI + "; " + _GE_MEMORY +
       " (64 GiB, npu-smi 65536 MB)")
_A3 = ("largest platform-config memory_size of the family: Ascend910_9391.ini 64 GiB "
       "(Ascend910_9362.ini 32 GiB; 9392/9381/9382/9372 configs not checked), " + _INI + "; "
       + _GE_MEMORY + " (64 GiB per die)")

PRODUCTS = MappingProxyType({p.id: p for p in (
    Product("ascend-950", ("Ascend 950PR", "Ascend 950DT"), 144 * GIB,
            _GE_MEMORY + ": 128 GB (950PR) / 144 GB (950DT) announced, the larger taken for the "
            "family; CANN 8.1 platform config Ascend910_95.ini 128 GiB", "low"),
    Product("atlas-a3-training", ("Atlas A3 训练系列产品", "Atlas A3 training product"), 64 * GIB,
            _A3, "medium"),
    Product("atlas-a3-inference", ("Atlas A3 推理系列产品", "Atlas A3 inference product"), 64 * GIB,
            _A3, "medium"),
    Product("atlas-a2-training", ("Atlas A2 训练系列产品", "Atlas A2 training product"), 64 * GIB,
            _A2, "high"),
    Product("atlas-a2-inference", ("Atlas A2 推理系列产品", "Atlas A2 inference product"), 64 * GIB,
            _A2, "high"),
    Product("atlas-200i-500-a2", ("Atlas 200I/500 A2 推理产品", "Atlas 200I/500 A2 inference product"),
            None, "none: Ascend310B2/B3/B4.ini leave memory_size empty (Ascend310B1.ini: "
            "32 GiB), " + _INI + "; " + _GE_MEMORY + " has no figure for it; rule skipped"),
    Product("atlas-inference", ("Atlas 推理系列产品", "Atlas inference product"), 24000000000,
            "platform-config memory_size of Ascend310P1/P3/P5/P7.ini (decimal 24 GB), " + _INI +
            "; " + _GE_MEMORY + " (24 GB per chip)", "medium"),
    Product("atlas-training", ("Atlas 训练系列产品", "Atlas training product"), 32 * GIB,
            "no platform config carries it (Ascend910B.ini: empty); " + _GE_MEMORY + ": 32 GiB "
            "HBM of Ascend 910, matching GE's defaults of 26/32 + 5/32 of a 32 GiB device "
            "(hicann/ge base/graph/manager/graph_var_manager.h)", "high"),
)})
"""Product id -> Product, in the order of DESIGN.md's table."""

PRODUCT_IDS = tuple(PRODUCTS)

SOC_PATTERNS = (
    (r"Ascend950(PR|DT)?(_\w+)?", "ascend-950"),
    (r"Ascend910_95\w*", "ascend-950"),
    (r"Ascend910_93\d\d", "atlas-a3-training"),
    (r"Ascend910B(1|2|2C|3|4|4-1)", "atlas-a2-training"),
    (r"Ascend910(A|B|ProA|ProB|PremiumA)?", "atlas-training"),
    (r"Ascend310P\d*(vir\d\d)?", "atlas-inference"),
    (r"Ascend310B\d*", "atlas-200i-500-a2"),
)
"""(regex over the whole SoC name, product id); first match wins."""

_SOC_RES = tuple((re.compile(p), pid) for p, pid in SOC_PATTERNS)
KNOWN_SOC_FORMS = ("Ascend950, Ascend950PR*/Ascend950DT*, Ascend910_95*", "Ascend910_93xx",
                   "Ascend910B1/B2/B2C/B3/B4/B4-1", "Ascend910, Ascend910A/B/ProA/ProB/PremiumA",
                   "Ascend310P*", "Ascend310B*")


def product_from_soc(name):
    """Map a SoC name such as `Ascend910B1` to a product id; None when it is not known."""
    if not name or not isinstance(name, str):
        return None
    for rx, pid in _SOC_RES:
        if rx.fullmatch(name):
            return pid
    return None


def memory_for(pid, soc=None):
    """On-chip memory in bytes for product `pid`, exact for `soc` where known.

    The figure of `soc` in `SOC_MEMORY` when `soc` maps to the family of `pid` (the A2 and A3
    inference ids share the SoCs of their training ids) and the config gives one; else the
    product's figure (None: unknown, the NPB140 rule is skipped).
    """
    return memory_figure(pid, (soc,))[0]


def memory_figure(pid, socs=()):
    """`(bytes or None, source)` of the on-chip memory of product `pid`: the figure of the
    first SoC name in `socs` that belongs to the family of `pid` and has one in
    `SOC_MEMORY` (source: "<SoC>: <platform config file>"), else the product's figure and
    `memory_source`. Non-strings and unknown names in `socs` are skipped."""
    family = {"atlas-a2-inference": "atlas-a2-training",
              "atlas-a3-inference": "atlas-a3-training"}.get(pid, pid)
    for soc in socs:
        figure, where = SOC_MEMORY.get(soc, (None, "")) if isinstance(soc, str) else (None, "")
        if figure is not None and product_from_soc(soc) == family:
            return figure, "%s: %s" % (soc, where)
    return PRODUCTS[pid].memory_bytes, PRODUCTS[pid].memory_source


def lookup(name):
    """Map a product id or a SoC name to a product id; None when neither is known."""
    if not isinstance(name, str):
        return None
    if name in PRODUCTS:
        return name
    return product_from_soc(name)


@contextlib.contextmanager
def forced_product(product):
    """Process-wide explicit target product, as `npu-bridge run --product P` sets it.

    While the context is active, `resolve()` / `resolve_ge()` called with `product=None`
    behave as if `product=product` were given: it beats the `soc_config` option and
    `$NPU_BRIDGE_PRODUCT` (DESIGN.md Products). An explicit `product=` argument still wins.
    Nesting restores the previous override on exit (also on an exception); the override is
    one value for the whole process (all threads), set and restored under a lock.
    `forced_product(None)` clears the override for its duration.

    Args:
      product: a product id (`atlas-a2-training`) or SoC name (`Ascend910B1`), or None.
        An unknown name is reported by the resolver (NPB111) like an unknown `product=`.
    Raises:
      TypeError: `product` is not a str or None.
    """
    check_product_arg("forced_product", product)
    run = _records.RUN   # the override is part of the run's context
    with run.lock:
        previous = run.forced_product
        run.forced_product = product or None
    try:
        yield product
    finally:
        with run.lock:
            run.forced_product = previous


def current_forced_product():
    """The active `forced_product()` override, or None."""
    return _records.RUN.forced_product


def check_product_arg(where, product):
    """TypeError unless `product` is None or a str (a product id or SoC name)."""
    if product is not None and not isinstance(product, str):
        raise TypeError("%s: product=%r (%s) is not allowed; give a product id (%s) or a SoC "
                        "name such as 'Ascend910B1' as a str, or None"
                        % (where, product, type(product).__name__, ", ".join(PRODUCT_IDS)))


_SPELLING = {"soc_config": 'parameter_map["soc_config"].s = b"%s"', "--product": "--product %s",
             "$" + "NPU_BRIDGE_PRODUCT": "NPU_BRIDGE_PRODUCT=%s", "product=": 'product="%s"'}


def unknown_product(option, name, where):
    """NPB111 for `name`, an unknown product id or SoC name given as `option` (`where`: how
    it was given, e.g. "--product"), listing the known ones: `known` the SoC name forms for a
    soc_config, else the product ids; `fix` the closest known name spelled as `where` takes
    it (None when none is close)."""
    names = tuple(SOC_MEMORY) if where == "soc_config" else PRODUCT_IDS + tuple(SOC_MEMORY)
    close = close_names(str(name), names, n=1)
    fix = _SPELLING.get(where, "%s") % close[0] if close else None
    return make("NPB111", option, name, where=where, ids=", ".join(PRODUCT_IDS),
                socs=", ".join(KNOWN_SOC_FORMS), fix=fix,
                known=", ".join(KNOWN_SOC_FORMS if where == "soc_config" else PRODUCT_IDS))


# ---------------------------------------------------------------- the target of a resolution
PRODUCT_ENV = "NPU_BRIDGE_PRODUCT"


def _candidates(product, soc, env):
    """`(name, where)` of each place a target can come from, in precedence order (DESIGN.md
    Products: product= (or an active `forced_product()`) > soc_config > env)."""
    where_product = "product="
    if product is None:
        product = _records.RUN.forced_product
        where_product = "forced_product() / --product"
    elif not isinstance(product, str):
        check_product_arg("resolve()/resolve_ge()", product)
    return ((product, where_product), (soc, "soc_config"),
            (env.get(PRODUCT_ENV), "$" + PRODUCT_ENV))


def target_source(product, soc, env):
    """Where `target(product, soc, env, ...)` takes its product from: `(where, name)`, where
    is "product=", "forced_product() / --product", "soc_config" or "$NPU_BRIDGE_PRODUCT" and
    name the value found there (a product id or SoC name); None when there is no target.
    The first non-empty place wins even when its name is unknown (then NPB111, no product)."""
    for name, where in _candidates(product, soc, env):
        if name:
            return where, name
    return None


def target(product, soc, env, diags):
    """The target product id (DESIGN.md Products: product= (or an active
    `forced_product()`) > soc_config > env), or None."""
    for i, (name, where) in enumerate(_candidates(product, soc, env)):
        if name:
            pid = lookup(name)
            if pid is None:
                diags.append(unknown_product(where.strip("=$"), name, where))
            if i == 0 and soc and isinstance(soc, str):
                # the explicit product wins, but soc_config still goes to GE: check it
                soc_pid = lookup(soc)
                if soc_pid is None:
                    diags.append(unknown_product("soc_config", soc, "soc_config"))
                elif pid is not None and soc_pid != pid:
                    diags.append(make("NPB115", "soc_config", soc, product=pid,
                                      where=where.strip("="), name=name, soc_product=soc_pid))
            _unused_env(env, i, pid, where, name, diags)
            return pid
    diags.append(NO_TARGET)
    return None


def _unused_env(env, winner, pid, where, name, diags):
    """NPB117 when $NPU_BRIDGE_PRODUCT names no product but a place before it won (a typo
    there is unused now, and the target of every run without --product / soc_config)."""
    value = env.get(PRODUCT_ENV)
    if winner < 2 and value and lookup(value) is None:
        diags.append(make("NPB117", PRODUCT_ENV, value, env=PRODUCT_ENV, where=where.strip("="),
                          name=name, product=pid or "unknown",
                          unknown=unknown_product(PRODUCT_ENV, value, "$" + PRODUCT_ENV).message))


NO_TARGET = make("NPB110", "product", None, env=PRODUCT_ENV)   # immutable: one for every call
