"""The real adapter's `npu_bridge.estimator.npu.npu_config` is the config layer's
`npu_bridge.config.npu_config` under its real name (docs/design.md "Layers"): one module
object, so scripts see the same star import, the same names, and what they set on it is what
the package uses."""
import subprocess
import sys

from npu_bridge.config import npu_config as impl
from npu_bridge.estimator.npu import npu_config as thin


def test_the_real_path_is_the_implementation_module():
    assert thin is impl
    import npu_bridge.estimator.npu.npu_config as dotted
    assert dotted is impl and sys.modules["npu_bridge.estimator.npu.npu_config"] is impl


def test_star_import_gives_the_implementation_names():
    ns = {}
    exec("from npu_bridge.estimator.npu.npu_config import *", ns)
    ns.pop("__builtins__")
    assert sorted(ns) == sorted(impl.__all__)
    assert all(ns[name] is getattr(impl, name) for name in ns)


def test_a_name_set_on_the_real_path_is_the_one_the_package_uses(monkeypatch):
    class Mine(impl.NPURunConfig):
        pass

    private = next(n for n in sorted(vars(impl)) if n.startswith("_") and not n.endswith("__"))
    before = getattr(impl, private)
    monkeypatch.setattr(thin, "NPURunConfig", Mine)
    monkeypatch.setattr(thin, private, "replaced")
    assert impl.NPURunConfig is Mine and getattr(impl, private) == "replaced"
    monkeypatch.undo()
    assert impl.NPURunConfig is not Mine and getattr(impl, private) is before


def test_the_real_path_imported_first_in_a_fresh_interpreter():
    code = ("from npu_bridge.estimator.npu.npu_config import NPURunConfig\n"
            "import npu_bridge.estimator.npu as pkg, npu_bridge.config.npu_config as impl\n"
            "assert pkg.npu_config is impl and NPURunConfig is impl.NPURunConfig\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
