"""`tf.contrib.training.HParams` with TensorFlow 1.15's behaviour (no maintained library has it).

Behaviour as TF 1.15's `tensorflow/contrib/training/python/training/hparam.py` (the rules and
error texts below are that file's): a hyperparameter's type is fixed by its first value (a list's
by its first element); `parse("a=1,b=[1,2],c=x")` parses each value with that type (bool:
`true`/`True`/`false`/`False` or an integer), `set_hparam` casts where TF 1.15 cast
(int -> float) and refuses the rest (float -> int, number <-> str, bool <-> number, list <->
scalar). `to_proto` / `hparam_def=` (a protobuf of contrib's own) are not provided.
"""
import json
import numbers
import re

# name, optional [index], "=", then a scalar (no comma or "[") or a bracketed list
_PARAM_RE = re.compile(r"""
  (?P<name>[a-zA-Z][\w\.]*)
  (\[\s*(?P<index>\d+)\s*\])?
  \s*=\s*
  ((?P<val>[^,\[]*)
   |
   \[(?P<vals>[^\]]*)\])
  ($|,\s*)""", re.VERBOSE)


def _parse_fail(name, var_type, value, values):
    raise ValueError("Could not parse hparam '%s' of type '%s' with value '%s' in %s"
                     % (name, var_type.__name__, value, values))


def _reuse_fail(name, values):
    raise ValueError("Multiple assignments to variable '%s' in %s" % (name, values))


def _scalar(name, parse, var_type, match, values, results):
    try:
        parsed = parse(match["val"])
    except ValueError:
        _parse_fail(name, var_type, match["val"], values)
    if not match["index"]:
        if name in results:
            _reuse_fail(name, values)
        results[name] = parsed
        return
    if name in results and not isinstance(results[name], dict):
        _reuse_fail(name, values)
    slots = results.setdefault(name, {})
    index = int(match["index"])
    if index in slots:
        _reuse_fail("%s[%d]" % (name, index), values)
    slots[index] = parsed


def _list(name, parse, var_type, match, values, results):
    if match["index"] is not None:
        raise ValueError("Assignment of a list to a list index.")
    elements = [e for e in re.split("[ ,]", match["vals"]) if e]
    if name in results:
        _reuse_fail(name, values)
    try:
        results[name] = [parse(e) for e in elements]
    except ValueError:
        _parse_fail(name, var_type, match["vals"], values)


def parse_values(values, type_map, ignore_unknown=False):
    """Parse "name=value,name=[v1,v2],name[i]=v" into {name: value} (indexed ones as
    {name: {i: value}}) using `type_map` {name: type}.

    Raises ValueError: malformed text, an unknown name (unless `ignore_unknown`), a value that
    does not parse as its type, a name assigned twice."""
    results = {}
    pos = 0
    while pos < len(values):
        match = _PARAM_RE.match(values, pos)
        if not match:
            raise ValueError("Malformed hyperparameter value: %s" % values[pos:])
        pos = match.end()
        match = match.groupdict()
        name = match["name"]
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError("Unknown hyperparameter type for %s" % name)
        var_type = type_map[name]
        if var_type == bool:
            def parse(value, name=name):
                if value in ("true", "True"):
                    return True
                if value in ("false", "False"):
                    return False
                try:
                    return bool(int(value))
                except ValueError:
                    _parse_fail(name, var_type, value, values)
        else:
            parse = var_type
        if match["val"] is not None:
            _scalar(name, parse, var_type, match, values, results)
        elif match["vals"] is not None:
            _list(name, parse, var_type, match, values, results)
        else:
            _parse_fail(name, var_type, "", values)
    return results


def _cast(name, param_type, value):
    """`value` as `param_type` where TF 1.15 allowed it, else ValueError."""
    fail = "Could not cast hparam '%s' of type '%s' from value %r" % (name, param_type, value)
    if type(value) == param_type:   # noqa: E721  (isinstance(True, int) is True)
        return value
    if issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise ValueError(fail)
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise ValueError(fail)
    if issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise ValueError(fail)
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise ValueError(fail)
    return param_type(value)


class HParams:
    """Named hyperparameters as attributes: `HParams(learning_rate=0.1, layers=[64, 32])`.

    Methods as TF 1.15: `add_hparam`, `set_hparam`, `del_hparam`, `parse`,
    `override_from_dict`, `parse_json`, `to_json`, `values`, `get`, `in`,
    `set_model_structure` / `get_model_structure`. Errors are ValueError (KeyError for
    `set_hparam` of an unknown name), with TF 1.15's texts."""

    _HAS_DYNAMIC_ATTRIBUTES = True   # (pytype hint in TF 1.15; harmless)

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types = {}
        self._model_structure = model_structure
        if hparam_def:
            raise ValueError("HParams(hparam_def=...) needs TF 1.15 contrib's hparam_pb2 "
                             "protobuf, which npu_bridge does not provide: pass the values "
                             "as keyword arguments or use parse_json()")
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        """Add `name` with `value` (its type, or its first element's, becomes the type).
        Raises ValueError for a name the object already has or an empty list."""
        if getattr(self, name, None) is not None:
            raise ValueError("Hyperparameter name is reserved: %s" % name)
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError("Multi-valued hyperparameters cannot be empty: %s" % name)
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        """Set an existing hyperparameter, cast to its type (see the module docstring)."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError("Must not pass a list for single-valued parameter: %s" % name)
            setattr(self, name, [_cast(name, param_type, v) for v in value])
        else:
            if is_list:
                raise ValueError("Must pass a list for multi-valued parameter: %s." % name)
            setattr(self, name, _cast(name, param_type, value))

    def del_hparam(self, name):
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Override values from "name=value,..." text (`parse_values`); returns self."""
        type_map = {name: param_type for name, (param_type, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, type_map))

    def override_from_dict(self, values_dict):
        """`set_hparam` for each item; returns self."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        """The values as JSON (callables left out, as TF 1.15 did)."""
        def remove_callables(x):
            if isinstance(x, dict):
                return {k: remove_callables(v) for k, v in x.items() if not callable(v)}
            if isinstance(x, list):
                return [remove_callables(i) for i in x if not callable(i)]
            return x
        return json.dumps(remove_callables(self.values()), indent=indent,
                          separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json):
        """Override values from a JSON object; returns self."""
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        """{name: value} of every hyperparameter."""
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key, default=None):
        """The value of `key`, or `default` when there is none; ValueError when `default`
        has a type the hyperparameter could not take."""
        if key in self._hparam_types:
            if default is not None:
                param_type, is_param_list = self._hparam_types[key]
                type_str = "list<%s>" % param_type if is_param_list else str(param_type)
                fail_msg = ("Hparam '%s' of type '%s' is incompatible with default=%s"
                            % (key, type_str, default))
                is_default_list = isinstance(default, list)
                if is_param_list != is_default_list:
                    raise ValueError(fail_msg)
                try:
                    for value in (default if is_default_list else [default]):
                        _cast(key, param_type, value)
                except ValueError as e:
                    raise ValueError("%s. %s" % (fail_msg, e)) from None
            return getattr(self, key)
        return default

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return str(sorted(self.values().items()))

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.__str__())
