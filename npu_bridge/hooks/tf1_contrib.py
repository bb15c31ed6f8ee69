"""`tf.contrib` and the other TF 1.15 names TensorFlow 2.15 lacks, served from maintained
libraries through one table, `MOVED`. Notes: docs/design.md "Module notes"; docs/contrib.md.
"""
import importlib
import importlib.machinery
import sys
import types

from npu_bridge.hooks import patching as _patching
from npu_bridge.hooks.tf1_moved import MOVED, Row  # noqa: F401 (Row: for the table's readers)

TAG = "tf1"   # part of the TF 1.x mode's changes (npu_bridge.hooks.tf1_mode.TAG)


class MissingTF1APIError(Exception):
    """A TF 1.x name that no maintained library provides with its TF 1.x meaning.

    Attributes: `tf1_name` (e.g. "tf.contrib.quantize.create_training_graph") and `equivalent`
    (the nearest replacement, from `MOVED`)."""

    def __init__(self, tf1_name, equivalent):
        self.tf1_name = tf1_name
        self.equivalent = equivalent
        super().__init__(
            "%s is not available: TensorFlow 2 removed it and no maintained library provides it "
            "with its TF 1.x meaning (npu_bridge's TF 1.x mode, npu_bridge.hooks.tf1_contrib.MOVED). "
            "Nearest replacement: %s" % (tf1_name, equivalent))


class MissingTF1AttributeError(MissingTF1APIError, AttributeError):
    """Raised for attribute access (an AttributeError: `hasattr` works)."""


class MissingTF1ModuleError(MissingTF1APIError, ImportError):
    """Raised for `import ...` / `from ... import name` (an ImportError, so `except ImportError`
    works)."""

    def __init__(self, tf1_name, equivalent, module_name):
        super().__init__(tf1_name, equivalent)
        self.name = module_name


def display_name(name):
    """`tensorflow.contrib.x` -> `tf.contrib.x` (as scripts write it); other names unchanged."""
    for root in ("tensorflow.contrib", "tensorflow.examples"):
        if name == root or name.startswith(root + "."):
            return "tf" + name[len("tensorflow"):]
    return name


def _ancestor_row(name):
    """(key, row) of the longest `MOVED` key that is `name` or a module above it."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        row = MOVED.get(key)
        if row is not None and (i == len(parts) or isinstance(row.target, tuple)):
            return key, row
    return None, None


def nearest(name):
    """The nearest replacement `MOVED` names for `name` (a key, or a name under a module row)."""
    key, row = _ancestor_row(name)
    if row is None:
        return MOVED["tensorflow.contrib"].nearest
    if row.target is None or isinstance(row.target, tuple):
        return row.nearest or row.target
    return row.target


def lookup_equivalent(name):
    """What `MOVED` maps a TF 1.x name to ("tf.contrib.rnn.LSTMCell" or "tensorflow...."): the
    target of its row (a module row's targets joined with " or "), or the nearest replacement
    when nothing provides it; None when the name is not in or under a row."""
    if name.startswith("tf."):
        name = "tensorflow." + name[3:]
    key, row = _ancestor_row(name)
    if row is None:
        return None
    if key == name and isinstance(row.target, str):
        return row.target
    if key == name and row.target:
        return " or ".join(row.target)
    if key == name or not row.target:
        return row.nearest
    return " or ".join(t + name[len(key):] for t in row.target[:1])


def _resolve(target):
    """The object a string target names (imports what it needs)."""
    if target.startswith("tf."):
        value = sys.modules["tensorflow"]
        for part in target[3:].split("."):
            value = getattr(value, part)
        return value
    module_name, _, attrs = target.partition(":")
    value = importlib.import_module(module_name)
    for part in filter(None, attrs.split(".")):
        value = getattr(value, part)
    return value


def _is_prefix(name):
    prefix = name + "."
    return any(key.startswith(prefix) for key in MOVED)


def _public(module):
    names = getattr(module, "__all__", None)
    if names is None:
        return [n for n in vars(module) if not n.startswith("_")]
    return list(names)


def _submodule(base, rest):
    """`base` (a string target) + dotted `rest` as a module, or None."""
    if base.startswith("tf.") or ":" in base:
        try:
            value = _resolve(base)
            for part in rest.split("."):
                value = getattr(value, part)
        except AttributeError:
            return None
        return value if isinstance(value, types.ModuleType) else None
    name = base + "." + rest
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name and (name == error.name or name.startswith(error.name + ".")):
            return None
        raise


class ContribModule(types.ModuleType):
    """A module of `MOVED` (a row with a tuple target, or a module above rows): names are
    looked up on first use and kept."""

    def __init__(self, name, row):
        super().__init__(name, "TF 1.x %s, served by npu_bridge from %s (npu_bridge.hooks.tf1_contrib)"
                         % (display_name(name), ", ".join(row.target) if row and row.target
                            else "no library"))
        self.__path__ = []
        self._tf1_row = row

    def _targets(self):
        return self._tf1_row.target if self._tf1_row is not None and self._tf1_row.target else ()

    def __getattr__(self, attr):
        if attr.startswith("__"):
            if attr == "__all__":
                return self.__dir__()
            raise AttributeError(attr)
        value = self._lookup(attr)
        setattr(self, attr, value)
        return value

    def _lookup(self, attr):
        key = self.__name__ + "." + attr
        row = MOVED.get(key)
        if row is not None:
            if row.target is None:
                raise MissingTF1AttributeError(display_name(key), row.nearest)
            if isinstance(row.target, tuple):
                return importlib.import_module(key)
            return _resolve(row.target)
        if _is_prefix(key):
            return importlib.import_module(key)
        targets = self._targets()
        for target in targets:
            module = _resolve(target)
            if len(targets) > 1 and attr not in _public(module):
                continue
            if hasattr(module, attr):
                return getattr(module, attr)
        if targets and not attr.startswith("_"):
            module = _submodule(targets[0], attr)
            if module is not None:
                return module
        raise MissingTF1AttributeError(display_name(key), nearest(key))

    def __dir__(self):
        names = set()
        prefix = self.__name__ + "."
        for key in MOVED:
            if key.startswith(prefix) and MOVED[key].target is not None:
                names.add(key[len(prefix):].split(".")[0])
        for target in self._targets():
            names.update(_public(_resolve(target)))
        return sorted(n for n in names if not n.startswith("_"))


class _Loader:
    """Loads a `MOVED` module: a `ContribModule`, or the library module a row names. Its
    `sys.modules` entry and its binding on the parent module are recorded (`TAG`), so that
    undoing the mode takes them away."""

    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        _patching.replace_item(sys.modules, spec.name, self._module, TAG)
        parent, _, child = spec.name.rpartition(".")
        if parent in sys.modules:   # the import system binds it there next
            _patching.replace(sys.modules[parent], child, self._module, TAG)
        return self._module

    def exec_module(self, module):
        pass


def _spec(fullname, module):
    spec = importlib.machinery.ModuleSpec(fullname, _Loader(module), is_package=True)
    if isinstance(module, ContribModule):
        spec.submodule_search_locations = []
    return spec


def find_spec(fullname):
    """The module spec for `fullname` when `MOVED` serves it, None when it does not; raises
    `MissingTF1ModuleError` for a name under a served module that nothing provides."""
    row = MOVED.get(fullname)
    if row is not None:
        if row.target is None:
            raise MissingTF1ModuleError(display_name(fullname), row.nearest, fullname)
        if isinstance(row.target, tuple):
            return _spec(fullname, ContribModule(fullname, row))
        value = _resolve(row.target)
        if not isinstance(value, types.ModuleType):
            raise MissingTF1ModuleError(display_name(fullname), "import its module and use the "
                                        "attribute (%s is not a module)" % row.target, fullname)
        return _spec(fullname, value)
    if not fullname.startswith(_VIRTUAL_PREFIXES):
        alias = _alias_of(fullname)
        if alias is None:
            return None
        return _spec(fullname, importlib.import_module(alias))
    if _is_prefix(fullname):
        return _spec(fullname, ContribModule(fullname, None))
    key, row = _ancestor_row(fullname)
    if row is not None and row.target:
        module = _submodule(row.target[0], fullname[len(key) + 1:])
        if module is not None:
            return _spec(fullname, module)
    raise MissingTF1ModuleError(display_name(fullname), nearest(fullname), fullname)


def _parent(name):
    return name.rpartition(".")[0]


# Module rows that no real module holds (served by `find_spec`): their names and what is below.
_MODULE_ROWS = frozenset(key for key, row in MOVED.items() if isinstance(row.target, tuple))


def _under_module_row(key):
    parent = _parent(key)
    while parent:
        if parent in _MODULE_ROWS:
            return True
        parent = _parent(parent)
    return False


_VIRTUAL = tuple(key for key in _MODULE_ROWS if not _under_module_row(key))
_VIRTUAL_PREFIXES = tuple(key + "." for key in _VIRTUAL)
# Real modules that get a `__getattr__` serving the rows directly under them.
PATCHED = {}
for _key in MOVED:
    if not _key.startswith(_VIRTUAL_PREFIXES):
        PATCHED.setdefault(_parent(_key), []).append(_key.rpartition(".")[2])


def _is_module_name(target):
    return isinstance(target, str) and ":" not in target and not target.startswith("tf.")


# Rows naming a whole module (`tensorflow_core` -> `tensorflow`): what is below them is what is
# below that module.
_ALIAS_PREFIXES = tuple(key + "." for key, row in MOVED.items() if _is_module_name(row.target)
                        and not key.startswith(_VIRTUAL_PREFIXES))


def _alias_of(fullname):
    """`tensorflow_core.contrib.x` -> "tensorflow.contrib.x" (the nearest aliasing row)."""
    key = fullname
    while "." in key:
        key = _parent(key)
        row = MOVED.get(key)
        if row is not None and _is_module_name(row.target):
            return row.target + fullname[len(key):]
    return None


def handles(fullname):
    """True when `find_spec` (not the file system) decides what importing `fullname` gives."""
    return fullname in MOVED or fullname.startswith(_VIRTUAL_PREFIXES) or \
        fullname in _VIRTUAL or fullname.startswith(_ALIAS_PREFIXES)


def patch_module(module):
    """Give a real module the `MOVED` names directly under it that it lacks (module
    `__getattr__`, PEP 562, chained to one it already has). Idempotent."""
    names = PATCHED.get(module.__name__)
    if not names or _patching.wrapped(module, "__getattr__"):
        return
    prefix = module.__name__ + "."

    def make(previous):
        def __getattr__(attr):
            """TF 1.15 names this module had (npu_bridge.hooks.tf1_contrib.MOVED)."""
            if attr in names:
                row = MOVED[prefix + attr]
                if row.target is None:
                    raise MissingTF1AttributeError(display_name(prefix + attr), row.nearest)
                value = importlib.import_module(prefix + attr) \
                    if isinstance(row.target, tuple) else _resolve(row.target)
                if module.__dict__.get(attr) is not value:   # kept: looked up once
                    _patching.replace(module, attr, value, TAG)
                return value
            if previous is not None:
                return previous(attr)
            raise AttributeError("module %r has no attribute %r" % (module.__name__, attr))
        return __getattr__
    _patching.wrap(module, "__getattr__", make, TAG, missing=None)


def patch_loaded_modules():
    """`patch_module` on every `PATCHED` module already imported (costs no import)."""
    for name in PATCHED:
        module = sys.modules.get(name)
        if module is not None:
            patch_module(module)
