"""`tf.contrib.training.HParams` (npu_bridge.hooks.contrib.hparam): TF 1.15's parsing, types and
errors. Pure Python: no TensorFlow is imported here (the served path is checked in
tests/test_contrib.py)."""
import json

import pytest

from npu_bridge.hooks.contrib.hparam import HParams, parse_values


def make():
    return HParams(learning_rate=0.1, num_layers=3, activation="relu", use_bn=True,
                   hidden=[64, 32], rates=[0.5, 0.25], names=["a", "b"])


def test_parse_scalars_and_lists_with_their_types():
    hp = make().parse("learning_rate=1,num_layers=5,activation=tanh,use_bn=false,"
                      "hidden=[128, 64,16],rates=[1,2e-3],names=[x y]")
    assert hp.learning_rate == 1.0 and type(hp.learning_rate) is float
    assert hp.num_layers == 5 and type(hp.num_layers) is int
    assert hp.activation == "tanh" and hp.use_bn is False
    assert hp.hidden == [128, 64, 16] and hp.rates == [1.0, 0.002] and hp.names == ["x", "y"]
    assert all(type(v) is float for v in hp.rates)


@pytest.mark.parametrize("text,value", [("True", True), ("true", True), ("False", False),
                                        ("0", False), ("7", True)])
def test_parse_bool_forms(text, value):
    assert make().parse("use_bn=" + text).use_bn is value


@pytest.mark.parametrize("text,message", [
    ("num_layers=1.5", "Could not parse hparam 'num_layers' of type 'int' with value '1.5'"),
    ("use_bn=maybe", "Could not parse hparam 'use_bn' of type 'bool' with value 'maybe'"),
    ("hidden=[1,x]", "Could not parse hparam 'hidden' of type 'int' with value '1,x'"),
    ("dropout=0.1", "Unknown hyperparameter type for dropout"),
    ("num_layers=1,num_layers=2", "Multiple assignments to variable 'num_layers'"),
    ("=3", "Malformed hyperparameter value: =3"),
    ("learning_rate=[0.1]", "Must not pass a list for single-valued parameter: learning_rate"),
    ("hidden=3", "Must pass a list for multi-valued parameter: hidden."),
])
def test_parse_errors_as_tf115(text, message):
    with pytest.raises(ValueError) as info:
        make().parse(text)
    assert message in str(info.value)


def test_parse_values_index_and_ignore_unknown():
    assert parse_values("a[1]=3,a[0]=2,b=1", {"a": int, "b": int}) == {"a": {1: 3, 0: 2}, "b": 1}
    assert parse_values("zz=1,b=2", {"b": int}, ignore_unknown=True) == {"b": 2}
    with pytest.raises(ValueError, match="Assignment of a list to a list index"):
        parse_values("a[0]=[1,2]", {"a": int})
    with pytest.raises(ValueError, match=r"Multiple assignments to variable 'a\[0\]'"):
        parse_values("a[0]=1,a[0]=2", {"a": int})


def test_set_hparam_casts_as_tf115():
    hp = make()
    hp.set_hparam("learning_rate", 2)          # int -> float is allowed
    assert hp.learning_rate == 2.0 and type(hp.learning_rate) is float
    for name, value in (("num_layers", 2.5), ("activation", 3), ("use_bn", 1),
                        ("learning_rate", "0.1"), ("learning_rate", True)):
        with pytest.raises(ValueError, match="Could not cast hparam '%s'" % name):
            hp.set_hparam(name, value)
    with pytest.raises(KeyError):
        hp.set_hparam("nope", 1)


def test_add_del_values_json_get():
    hp = make()
    hp.add_hparam("momentum", 0.9)
    assert "momentum" in hp and hp.values()["momentum"] == 0.9
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: momentum"):
        hp.add_hparam("momentum", 0.5)
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: parse"):
        hp.add_hparam("parse", 1)
    with pytest.raises(ValueError, match="Multi-valued hyperparameters cannot be empty: e"):
        hp.add_hparam("e", [])
    hp.del_hparam("momentum")
    assert "momentum" not in hp and not hasattr(hp, "momentum")
    assert json.loads(hp.to_json()) == hp.values()
    assert hp.to_json(sort_keys=True, indent=1).startswith('{\n "activation"')
    other = make().parse_json('{"num_layers": 9, "hidden": [1, 2]}')
    assert other.num_layers == 9 and other.hidden == [1, 2]
    assert make().override_from_dict({"activation": "gelu"}).activation == "gelu"
    assert hp.get("num_layers") == 3 and hp.get("missing", 7) == 7 and hp.get("num_layers", 1) == 3
    with pytest.raises(ValueError, match="is incompatible with default=x"):
        hp.get("num_layers", "x")
    assert str(make().parse("num_layers=1")).startswith("[('activation', 'relu')")
    assert repr(HParams(a=1)) == "HParams([('a', 1)])"
    with pytest.raises(ValueError, match="hparam_pb2"):
        HParams(hparam_def=b"x")
