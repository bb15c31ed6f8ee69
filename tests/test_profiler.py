"""`profiler.Profiler` of `from npu_bridge.npu_init import *` (hicann/tensorflow
tf_adapter/python/npu_bridge/profiler/profiler.py, rules in tf_adapter/util/profiler.cc): a
script using it ran into NameError (a tryout). Its checks are the real ones; it collects
nothing on the CPU and says so."""
import os
import warnings

import pytest

from npu_bridge.profiler import profiler


def test_the_star_import_gives_profiler():
    namespace = {}
    exec("from npu_bridge.npu_init import *", namespace)   # noqa: S102 (the way scripts import it)
    assert namespace["profiler"] is profiler


def test_a_valid_profiler_runs_its_block_and_writes_nothing(tmp_path):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with profiler.Profiler(level="L1", aic_metrics="ArithmeticUtilization",
                               output_path=str(tmp_path)) as prof:
            ran = True
        with profiler.Profiler():          # L0, no metrics: the defaults
            pass
    assert ran and isinstance(prof, profiler.Profiler)
    assert os.listdir(tmp_path) == []
    said = [str(w.message) for w in seen]
    assert len(said) == 1 and "no profile data" in said[0], said   # said once per process


@pytest.mark.parametrize("kwargs,named", [({"level": 1}, "level"),
                                          ({"aic_metrics": None}, "aic_metrics"),
                                          ({"output_path": b"/tmp"}, "output_path")])
def test_a_non_string_argument_is_a_value_error_at_construction(kwargs, named):
    with pytest.raises(ValueError) as err:
        profiler.Profiler(**kwargs)
    assert "Profiler(%s=" % named in str(err.value) and "expected a str" in str(err.value)
    assert "profiler.py" in str(err.value)


def test_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        profiler.Profiler("L1")   # pylint: disable=too-many-function-args


@pytest.mark.parametrize("kwargs,says", [
    ({"level": "L3"}, ["Profiler(level=...)", "'L3'", "allowed: L0, L1, L2", "profiler.cc"]),
    ({"level": "l1"}, ["'l1'", "did you mean 'L1'"]),
    ({"level": "L1", "aic_metrics": "PipeUtilisation"},
     ["Profiler(aic_metrics=...)", "'PipeUtilisation'", "did you mean 'PipeUtilization'",
      "ArithmeticUtilization", "L2Cache"]),
    ({"aic_metrics": "Memory"}, ["'Memory'", "level L0", "L1 or L2"]),
])
def test_a_bad_level_or_metric_is_refused_when_the_block_starts(kwargs, says):
    prof = profiler.Profiler(**kwargs)   # the real class checks values in start()
    with pytest.raises(RuntimeError) as err:
        with prof:
            pytest.fail("the block ran")
    for text in says:
        assert text in str(err.value), str(err.value)
    with profiler.Profiler():   # nothing left active by the refused one
        pass


def test_nested_profilers_are_refused_and_the_outer_one_still_ends():
    with profiler.Profiler(level="L2"):
        with pytest.raises(RuntimeError) as err:
            with profiler.Profiler():
                pass
        assert "nested" in str(err.value) and "profiler.cc" in str(err.value)
    with profiler.Profiler():   # the outer one ended
        pass
