"""Ascend product families, their on-chip memory, and how SoC names map to them.

Ids and seed names follow the product tables of the seeds (`memoryconfig_constructor_zh.txt`,
`ge_memory_options_zh.txt`) and DESIGN.md "Products".

SoC names (what `soc_config` / `ge.socVersion` hold) are matched by the patterns in
`SOC_PATTERNS`, first match wins. Ambiguous names are read as follows:
- `Ascend910B1`..`Ascend910B4`, `Ascend910B4-1` (the 910B chip family) ship both in the
  Atlas A2 training series and the Atlas A2 inference series (e.g. Atlas 800I A2). This is
  the *training* adapter, so they are read as `atlas-a2-training`; an inference target must
  be named explicitly with `product="atlas-a2-inference"` (or `--product`).
- `Ascend910_93xx` is read as `atlas-a3-training` for the same reason
  (`atlas-a3-inference` must be named explicitly).
- `Ascend910A`, `Ascend910B` (no digit), `Ascend910ProA/ProB`, `Ascend910PremiumA` are the
  first-generation Ascend 910 parts: `atlas-training`.
"""
import contextlib
import re
import threading
from dataclasses import dataclass
from types import MappingProxyType
from typing import Optional, Tuple

GIB = 1024 ** 3


@dataclass(frozen=True, slots=True)
class Product:
    """One product family.

    id: the project's identifier; seed_names: the names the seeds/vendor docs use;
    memory_bytes: on-chip (HBM) memory of one device in bytes, or None where no single
    documented figure exists (the `graph_memory_max_size + variable_memory_max_size` rule is
    then skipped); memory_source: where the figure comes from.
    """
    id: str
    seed_names: Tuple[str, ...]
    memory_bytes: Optional[int]
    memory_source: str


PRODUCTS = MappingProxyType({p.id: p for p in (
    Product("ascend-950", ("Ascend 950PR", "Ascend 950DT"), None,
            "no single figure: 950PR and 950DT carry different memory; rule skipped"),
    Product("atlas-a3-training", ("Atlas A3 训练系列产品", "Atlas A3 training product"), 64 * GIB,
            "Atlas A3 series product pages: 128 GB HBM per Ascend 910C package = 2 dies x 64 GB; "
            "one device is one die"),
    Product("atlas-a3-inference", ("Atlas A3 推理系列产品", "Atlas A3 inference product"), 64 * GIB,
            "as atlas-a3-training (same package)"),
    Product("atlas-a2-training", ("Atlas A2 训练系列产品", "Atlas A2 training product"), 64 * GIB,
            "Atlas 800T A2 / 900 A2 PoD product pages: 64 GB HBM per NPU"),
    Product("atlas-a2-inference", ("Atlas A2 推理系列产品", "Atlas A2 inference product"), 64 * GIB,
            "Atlas 800I A2 product page: 64 GB HBM per NPU"),
    Product("atlas-200i-500-a2", ("Atlas 200I/500 A2 推理产品", "Atlas 200I/500 A2 inference product"),
            None, "SoC shares LPDDR system memory with the host CPU; no on-chip figure; rule skipped"),
    Product("atlas-inference", ("Atlas 推理系列产品", "Atlas inference product"), 24 * GIB,
            "Atlas 300I Pro product page: 24 GB LPDDR4X per Ascend 310P (300I Duo: 2 x 24 GB)"),
    Product("atlas-training", ("Atlas 训练系列产品", "Atlas training product"), 32 * GIB,
            "Atlas 300T / 800 training product pages: 32 GB HBM per Ascend 910"),
)})
"""Product id -> Product, in the order of DESIGN.md's table."""

PRODUCT_IDS = tuple(PRODUCTS)

SOC_PATTERNS = (
    (r"Ascend950(PR|DT)?(_\w+)?", "ascend-950"),
    (r"Ascend910_93\d\d", "atlas-a3-training"),
    (r"Ascend910B[1-4](C|-1)?", "atlas-a2-training"),
    (r"Ascend910(A|B|ProA|ProB|PremiumA)", "atlas-training"),
    (r"Ascend310P\d*", "atlas-inference"),
    (r"Ascend310B\d*", "atlas-200i-500-a2"),
)
"""(regex over the whole SoC name, product id); first match wins."""

_SOC_RES = tuple((re.compile(p), pid) for p, pid in SOC_PATTERNS)
KNOWN_SOC_FORMS = ("Ascend950PR*/Ascend950DT*", "Ascend910_93xx", "Ascend910B1..B4, Ascend910B4-1",
                   "Ascend910A/B/ProA/ProB/PremiumA", "Ascend310P*", "Ascend310B*")


def product_from_soc(name):
    """Map a SoC name such as `Ascend910B1` to a product id; None when it is not known."""
    if not name or not isinstance(name, str):
        return None
    for rx, pid in _SOC_RES:
        if rx.fullmatch(name):
            return pid
    return None


def lookup(name):
    """Map a product id or a SoC name to a product id; None when neither is known."""
    if not isinstance(name, str):
        return None
    if name in PRODUCTS:
        return name
    return product_from_soc(name)


_forced_lock = threading.Lock()
_forced = [None]   # the active forced_product() override (a product id or SoC name), or None


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
    with _forced_lock:
        previous = _forced[0]
        _forced[0] = product or None
    try:
        yield product
    finally:
        with _forced_lock:
            _forced[0] = previous


def current_forced_product():
    """The active `forced_product()` override, or None."""
    return _forced[0]


def check_product_arg(where, product):
    """TypeError unless `product` is None or a str (a product id or SoC name)."""
    if product is not None and not isinstance(product, str):
        raise TypeError("%s: product=%r (%s) is not allowed; give a product id (%s) or a SoC "
                        "name such as 'Ascend910B1' as a str, or None"
                        % (where, product, type(product).__name__, ", ".join(PRODUCT_IDS)))


def unknown_message(name, where):
    """The message for an unknown product id or SoC name, listing the known ones."""
    return ("unknown product %r (from %s); known product ids: %s; known SoC names: %s "
            "(README 'Products' table; docs/options.md)" % (name, where, ", ".join(PRODUCT_IDS), ", ".join(KNOWN_SOC_FORMS)))
