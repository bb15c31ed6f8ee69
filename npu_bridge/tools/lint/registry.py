"""Every producer of lint findings, wired here and nowhere else, in order (flake8's list of
checkers): each is `producer(parsed)` -> [(line, col, code, severity, message, option), ...]
for one parsed file (`Parsed`). A new check is one handler in a producer's list (a statement
kind: `visitor._HANDLERS`; an NPU-only call kind: `npu_calls.CALL_CHECKS`), or a producer
here.
"""
from typing import Any, NamedTuple, Optional

from npu_bridge.tools.lint import npu_calls
from npu_bridge.tools.lint.checks import _catalog, _check_group
from npu_bridge.tools.lint.prefilter import _candidate_lines
from npu_bridge.tools.lint.schema import _NPU_OPTIMIZER
from npu_bridge.tools.lint.visitor import _Collector


class Parsed(NamedTuple):
    """One file as the producers read it.

    Attributes:
      path: its path; tree: its `ast` module; source: its text (str or bytes).
      product, env: the target product and environment the configurations are resolved with.
      targets: a set that gets `(product id or None, where, name)` of every configuration
        resolved (`lint_source`'s `targets`), or None.
    """
    path: str
    tree: Any
    source: Any
    product: Optional[str]
    env: dict
    targets: Optional[set]


def config_findings(parsed):
    """The config classes, `npu_resource_init` calls and parameter_map assignments: the
    collector's own findings (NBL010-NBL012, NPB160, NPB108; one handler per statement type)
    and each group it collects resolved by `npu_bridge.ge.resolve` (`checks._check_group`).
    Raises RecursionError for a file nested too deeply to walk."""
    class_lines, names = set(), set()
    lines = _candidate_lines(parsed.source, class_lines, names)
    if not lines:
        return []
    collector = _Collector(lines, sorted(class_lines), parsed.source, names)
    collector.visit_module(parsed.tree)
    out = list(collector.findings)
    if not collector.groups:
        return out
    _link_session_configs(collector.groups)
    cat, seen, used = _catalog(), set(), set()
    for group in collector.groups:
        for found in _check_group(group, cat, parsed.product, parsed.env, used):
            if found not in seen:
                seen.add(found)
                out.append(found)
    if parsed.targets is not None:
        parsed.targets.update((parsed.path,) + t for t in used)
    return out


def _link_session_configs(groups):
    """Give each NPURunConfig group whose `session_config` is a ConfigProto lint follows the
    parameter_map groups of that ConfigProto's NpuOptimizer(s), in the order they were added
    (the real NPUEstimator appends its own after them: the resolver merges them, NPB106)."""
    maps = {}
    for group in groups:
        if group.kind == "parameter_map" and group.container is not None \
                and group.opt_name in (None, _NPU_OPTIMIZER):
            name, scope = group.container
            maps.setdefault((name, id(scope)), []).append(group)
    for group in groups:
        if group.session_config is not None:
            name, scope = group.session_config
            group.user_maps = maps.get((name, id(scope)), [])


def npu_call_findings(parsed):
    """The NPU-only failure kinds of a call (`npu_calls.CALL_CHECKS`)."""
    return npu_calls.findings(parsed.tree, parsed.source)


PRODUCERS = (config_findings, npu_call_findings)
