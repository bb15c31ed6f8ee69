"""A config-class finding speaks of an argument as the user passed it: `arg=value` given by
keyword, `arg=value (Nth positional argument)` given by position, and a hint about a position
(MemoryConfig's third argument, the seed's prototype) only for an argument given there. The
constructors and `npu-bridge lint` alike, for every config class (docs/cli.md `lint`)."""
import pytest

from npu_bridge.ge import config_schema
from npu_bridge.tools import lint

pytest.importorskip("tensorflow")
from npu_bridge.estimator.npu import npu_config  # noqa: E402

HEAD = "from npu_bridge.npu_init import *\n"
WRONG = [1]   # a type no argument of any config class takes
# DynamicInputConfig's four are required: valid values around the wrong one
BASE = {"DynamicInputConfig": ("data:-1,224,224,3", "1;2;4", 1, 0)}


def _calls():
    for cls in config_schema.CLASSES:
        for i, arg in enumerate(cls.params):
            yield cls.name, i, arg


def _refusal(call):
    """The NPB160/NPB162 diagnostics of the constructor call `call` (text)."""
    try:
        eval(call, vars(npu_config))
    except npu_config.NpuArgumentError as err:
        return [d for d in err.diagnostics if d.code in ("NPB160", "NPB162")]
    except Exception:   # pylint: disable=broad-except  (RunConfig's own ValueError...)
        return []
    return []


def _spell(cls, i, by_position):
    """`cls(...)` with its argument `i` WRONG, by position (the ones before it at their
    defaults) or by keyword."""
    signature = config_schema.BY_NAME[cls].signature
    base = BASE.get(cls)
    values = [base[j] if base else default for j, (_, default) in enumerate(signature)]
    if by_position:
        return "%s(%s)" % (cls, ", ".join([repr(v) for v in values[:i]] + [repr(WRONG)]))
    given = ["%s=%r" % (signature[j][0], values[j]) for j in range(len(signature))
             if base and j != i]
    return "%s(%s)" % (cls, ", ".join(given + ["%s=%r" % (signature[i][0], WRONG)]))


@pytest.mark.parametrize("by_position", [False, True], ids=["keyword", "position"])
@pytest.mark.parametrize("cls,i,arg", list(_calls()), ids=lambda v: str(v))
def test_a_finding_speaks_of_the_argument_as_it_was_passed(cls, i, arg, by_position):
    call = _spell(cls, i, by_position)
    said = [d for d in _refusal(call) if d.option == arg or d.option.endswith("." + arg)]
    if not said:
        pytest.skip("%s takes %r (no type rule)" % (call, WRONG))
    n = i + 1
    ordinal = "%d%s positional argument" % (n, "th" if 10 <= n % 100 <= 20 else
                                            {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))
    for d in said:
        assert "%s=%r" % (arg, WRONG) in d.message, d.message
        if by_position:
            assert "%s=%r (%s)" % (arg, WRONG, ordinal) in d.message, d.message
        else:
            assert "positional" not in d.message, d.message
    # lint says the same of the same call
    findings = [f for f in lint.lint_source(HEAD + "c = %s\n" % call, "t.py")
                if f.code in ("NPB160", "NPB162")]
    assert [(f.code, str(f.message)) for f in findings] == \
        [(d.code, str(d.message)) for d in _refusal(call)]


@pytest.mark.parametrize("call,positional", [
    ("MemoryConfig(memory_optimization_policy=7)", False),
    ("MemoryConfig(memory_optimization_policy=1)", False),
    ("MemoryConfig(memory_optimization_policy=1, variable_use_1g_huge_page=2)", False),
    ("MemoryConfig(0, 2, 7)", True),
    ("MemoryConfig(0, 2, 1, 2)", True),
    ("MemoryConfig(0, 2, 1, variable_use_1g_huge_page=2)", True),
])
def test_memory_config_third_argument_hint_only_when_given_third(call, positional):
    """The hint about MemoryConfig's third positional argument (the seed's prototype reads an
    int 0, 1 or 2 there as variable_use_1g_huge_page) is for an argument given third; one
    given by keyword is the real signature's memory_optimization_policy, a str: a plain
    NPB160, never read as variable_use_1g_huge_page."""
    said = _refusal(call)
    assert [d.option for d in said] == ["memory_optimization_policy"], said
    text = str(said[0].message)
    assert ("positional" in text) is positional, text
    assert ("variable_use_1g_huge_page" in text) is positional, text
    findings = [f for f in lint.lint_source(HEAD + "c = %s\n" % call, "t.py")
                if f.code == "NPB160"]
    assert [str(f.message) for f in findings] == [text]


def test_seed_form_is_read_only_by_position():
    assert npu_config.MemoryConfig(0, 2, 1)._variable_use_1g_huge_page == 1
    with pytest.raises(npu_config.NpuArgumentError):
        npu_config.MemoryConfig(memory_optimization_policy=1)   # a str in the real signature


# enable_data_pre_proc (13th) and hcom_parallel (18th) by position, each an int for a bool
POSITIONAL = "NPURunConfig(1, None, None, None, 100, None, None, None, 5, 10000, 100, None, 2, " \
             "None, False, None, False, 2%s)"


def _bool_int(diagnostics):
    return sorted(d.message.short.partition(":")[0] for d in diagnostics if d.code == "NPB162")


def test_a_replaced_config_speaks_of_the_arguments_as_replace_gave_them():
    """`NPURunConfig.replace(arg=...)` gives `arg` by keyword: its findings say so, and the
    arguments it does not replace keep the original call's positions (accepted or refused,
    the refused call's probe as the accepted config)."""
    config = eval(POSITIONAL % "", vars(npu_config))
    assert _bool_int(config._npu_arg_warnings()) == [
        "enable_data_pre_proc=2 (13th positional argument)",
        "hcom_parallel=2 (18th positional argument)"]
    replaced = config.replace(enable_data_pre_proc=3)
    assert _bool_int(replaced._npu_arg_warnings()) == [
        "enable_data_pre_proc=3", "hcom_parallel=2 (18th positional argument)"]
    # refused (a bad precision_mode): the same spellings among the error's diagnostics
    for kwargs, said in (({}, ["enable_data_pre_proc=2 (13th positional argument)",
                               "hcom_parallel=2 (18th positional argument)"]),
                         ({"hcom_parallel": 4}, ["enable_data_pre_proc=2 (13th positional "
                                                 "argument)", "hcom_parallel=4"])):
        with pytest.raises(npu_config.NpuArgumentError) as err:
            config.replace(precision_mode="bogus", **kwargs)
        assert _bool_int(err.value.diagnostics) == said, kwargs
    # a refused constructor call: as the accepted one, and as lint says it
    call = POSITIONAL % ", precision_mode_v2='bogus'"
    with pytest.raises(npu_config.NpuArgumentError) as err:
        eval(call, vars(npu_config))
    assert _bool_int(err.value.diagnostics) == _bool_int(config._npu_arg_warnings())
    findings = lint.lint_source(HEAD + "c = %s\n" % call, "t.py")
    assert sorted(str(f.message) for f in findings if f.code == "NPB162") == \
        sorted(str(d.message) for d in err.value.diagnostics if d.code == "NPB162")
