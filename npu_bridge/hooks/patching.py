"""Every change npu_bridge makes to TensorFlow and the libraries around it, made one way and
undone one way (imports no TensorFlow).

`replace(owner, name, value, tag)` sets an attribute of a class or module, `replace_item`
an entry of a dict (`sys.modules`, a module's namespace), `insert(sequence, index, value,
tag)` puts a value into a list (`sys.meta_path`, a package's `__path__`), `wrap(owner, name,
make, tag)` replaces a function by `make(original)` marked with `ORIGINAL` (the one way a
wrapper is marked); `on_undo(callback, tag)` records a change that is none of these
(TensorFlow's v2 behaviour switches). Each is recorded in `npu_bridge.hooks.state.PATCHES`
under its tag ("session": the Session patch; "tf1": the TF 1.x API mode with its Keras,
contrib and absl parts; "dropout": `npu_convert_dropout`); `undo(tag)` puts back what its
changes replaced, the last one first, and `undo()` everything.
"""
from npu_bridge.hooks import state as _state

ORIGINAL = "_npu_bridge_original"   # on a wrapper: the function it wraps
_ABSENT = object()


def _current(owner, name):
    """What `owner` itself holds under `name` (not inherited), or _ABSENT."""
    return vars(owner).get(name, _ABSENT)


def replace(owner, name, value, tag):
    """`setattr(owner, name, value)`, recorded under `tag`; returns `value`."""
    with _state.lock:
        _state.PATCHES.append((tag, "attr", owner, name, _current(owner, name)))
        setattr(owner, name, value)
    return value


def replace_item(mapping, key, value, tag):
    """`mapping[key] = value` (e.g. `sys.modules`), recorded under `tag`."""
    with _state.lock:
        _state.PATCHES.append((tag, "item", mapping, key, mapping.get(key, _ABSENT)))
        mapping[key] = value
    return value


def insert(sequence, index, value, tag):
    """`sequence.insert(index, value)` (a list), recorded under `tag`: undone by removing
    that value (by identity) wherever it is then. Returns `value`."""
    with _state.lock:
        _state.PATCHES.append((tag, "insert", sequence, value, None))
        sequence.insert(index, value)
    return value


def wrap(owner, name, make, tag, missing=_ABSENT):
    """Replace the function `owner.name` by `make(original)`, which gets the original's name
    and docstring and `ORIGINAL`; recorded under `tag`. Returns the wrapper. `missing`: the
    original when `owner` has no `name` (e.g. None for a module without `__getattr__`); not
    given, AttributeError."""
    original = getattr(owner, name) if missing is _ABSENT else getattr(owner, name, missing)
    wrapper = make(original)
    setattr(wrapper, ORIGINAL, original)
    if original is not None:
        wrapper.__doc__ = getattr(original, "__doc__", None)
        wrapper.__name__ = getattr(original, "__name__", name)
    return replace(owner, name, wrapper, tag)


def original(function):
    """The function `function` wraps (`wrap`), or `function` itself."""
    return getattr(function, ORIGINAL, function)


def wrapped(owner, name):
    """True while `owner` itself holds a wrapper (`wrap`) under `name`."""
    return hasattr(_current(owner, name), ORIGINAL)


def on_undo(callback, tag):
    """Call `callback()` when `tag` is undone (a change that is no attribute or entry)."""
    with _state.lock:
        _state.PATCHES.append((tag, "call", callback, None, None))


def installed(tag=None):
    """How many recorded changes of `tag` (every tag: None) are in place."""
    with _state.lock:
        return sum(1 for entry in _state.PATCHES if tag is None or entry[0] == tag)


def undo(tag=None):
    """Put back what the changes of `tag` (every tag: None) replaced, the last first; returns
    how many were undone."""
    with _state.lock:
        mine = [e for e in _state.PATCHES if tag is None or e[0] == tag]
        _state.PATCHES[:] = [e for e in _state.PATCHES if not (tag is None or e[0] == tag)]
    for _, kind, owner, name, previous in reversed(mine):
        if kind == "call":
            owner()
        elif kind == "insert":
            for i, value in enumerate(owner):
                if value is name:
                    del owner[i]
                    break
        elif kind == "item":
            if previous is _ABSENT:
                owner.pop(name, None)
            else:
                owner[name] = previous
        elif previous is _ABSENT:
            try:
                delattr(owner, name)
            except AttributeError:
                pass
        else:
            setattr(owner, name, previous)
    return len(mine)
