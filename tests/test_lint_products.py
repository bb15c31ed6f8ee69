"""`npu-bridge lint`, `options` and `explain` agree on where each option is supported, for
every catalog key with a product restriction: its own (`products`, NPB112) or that of the
config class whose argument sets it (the seed MemoryConfig page's table, NPB114).

Fresh-user try-out: `explain static_memory_policy` said "products: all" while lint refused
`MemoryConfig(static_memory_policy=2)` on atlas-inference. The seed (MemoryConfig构造函数,
product table) restricts the MemoryConfig class; the GE page of ge.exec.staticMemoryPolicy
and the adapter's parameter_map page restrict nothing: so the class spelling is refused there
and a parameter_map entry is not, and explain says both (`catalog.product_support`)."""
import json

import pytest

from npu_bridge.ge import catalog, config_schema, products
from npu_bridge.tools import cli, lint

PRODUCT_CODES = ("NPB112", "NPB114")
RESTRICTED = [r for r in catalog.OPTIONS if r.key and any(
    allowed for _, allowed, _ in catalog.product_support(r))]


def _value(row):
    """A valid value of `row` that switches it on (not its default)."""
    if row.rule == "bool":
        return True
    if row.allowed:
        return [v for v in row.allowed if v != row.default][-1]   # (NPB113 not counted)
    return row.example or "/tmp/npu_bridge_products"


def _argument_source(row, value):
    cls, arg = config_schema.owner(row.runconfig_arg)
    text = "%s(%s=%r)" % (cls.name, arg, value)
    while cls.prefix:
        cls, arg = config_schema.owner(cls.prefix)
        text = "%s(%s=%s)" % (cls.name, arg, text)
    return text


def _lint_refused(source, product):
    return bool([f for f in lint.lint_source(source, "t.py", product=product, env={})
                 if f.code in PRODUCT_CODES])


def _explain(capsys, key):
    assert cli.main(["explain", key]) == 0
    fields = dict(l.split(": ", 1) for l in capsys.readouterr().out.splitlines())
    every = frozenset(products.PRODUCT_IDS)

    def ids(text):
        text = text.split(" (")[0]
        return every if text == "all" else frozenset(text.split(", "))
    by_arg = [v for k, v in fields.items() if k.startswith("products (as ")]
    pm = ids(fields["products"])
    return pm, (ids(by_arg[0]) if by_arg else pm)


def _options_refused(capsys, key, value, product):
    shown = "true" if value is True else value
    assert cli.main(["options", "--product", product, "--format", "json", "--set",
                     "%s=%s" % (key, shown)]) in (0, 1)
    out = capsys.readouterr().out
    return any(d["code"] in PRODUCT_CODES for d in json.loads(out)["diagnostics"])


def test_the_restricted_keys_include_the_memory_config_ones():
    names = {r.key for r in RESTRICTED}
    assert {"static_memory_policy", "atomic_clean_policy", "variable_use_1g_huge_page",
            "aoe_mode", "input_batch_cpy"} <= names


@pytest.mark.parametrize("row", RESTRICTED, ids=lambda r: r.key)
def test_lint_options_and_explain_agree_on_every_product(row, capsys):
    value = _value(row)
    pm_ok, arg_ok = _explain(capsys, row.key)
    literal = {"b": repr(bool(value)), "i": repr(value),
               "s": "tf.compat.as_bytes(%r)" % str(value)}[row.field]
    pm_line = 'custom_op.parameter_map["%s"].%s = %s\n' % (row.key, row.field, literal)
    for product in products.PRODUCT_IDS:
        refused = product not in pm_ok
        assert _lint_refused(pm_line, product) == refused, (product, pm_line)
        assert _options_refused(capsys, row.key, value, product) == refused, product
        if row.runconfig_arg:
            call = "config = %s\n" % _argument_source(row, value)
            assert _lint_refused(call, product) == (product not in arg_ok), (product, call)


def test_static_memory_policy_per_the_seed(capsys):
    pm_ok, arg_ok = _explain(capsys, "static_memory_policy")
    assert "atlas-inference" in pm_ok and "atlas-inference" not in arg_ok
    assert arg_ok == {"atlas-a3-training", "atlas-a3-inference", "atlas-a2-training",
                      "atlas-training"}
