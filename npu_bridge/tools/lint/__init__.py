"""`npu-bridge lint`: a static check of Ascend TF1 scripts (`ast` only: never imports or runs
them). Laid out as flake8/pyflakes are: `files` (discovery, `# noqa`, the pool), `registry`
(the producers of findings, wired in one place), `prefilter` (candidate lines), `literals`
(literal folding), `scopes`, `visitor` (one handler per statement type), `checks` (groups
resolved by `npu_bridge.ge.resolve` into findings), `npu_calls` (one handler per NPU-only
call kind) and `schema` (the callables it follows; the config classes' schema is
`npu_bridge.ge.config_schema`). How it reads a script: docs/lint.md.
"""
from npu_bridge.ge import plugin_args as _plugin_args  # noqa: F401  (the module lint's plugin checks use)
from npu_bridge.tools.lint.checks import (LINT_CODES, NAME_FIELD_CODES, Finding,  # noqa: F401
    _RESOLVED, known_codes)
from npu_bridge.tools.lint.files import (DEFAULT_MAX_BYTES, Selection,  # noqa: F401
    iter_python_files, lint_file, lint_paths, lint_source, lint_stdin)
from npu_bridge.tools.lint.literals import (ATTR_FIELDS, SCALAR_FIELDS, LiteralAttr,  # noqa: F401
                                      LiteralList, _NOT_LITERAL, literal_value)
from npu_bridge.tools.lint.prefilter import _text_lines  # noqa: F401
from npu_bridge.tools.lint.schema import PLUGIN_FUNCTION  # noqa: F401
from npu_bridge.tools.lint.scopes import _local_names  # noqa: F401
from npu_bridge.tools.lint.visitor import _Collector, close_names  # noqa: F401

__all__ = ["ATTR_FIELDS", "DEFAULT_MAX_BYTES", "Finding", "LINT_CODES", "LiteralAttr",
           "Selection", "LiteralList", "NAME_FIELD_CODES", "PLUGIN_FUNCTION",
           "SCALAR_FIELDS", "close_names", "iter_python_files", "known_codes", "lint_file",
           "lint_paths", "lint_source", "lint_stdin", "literal_value"]
