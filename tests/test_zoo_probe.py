"""tools/zoo_probe.py: model folders, the entry-script heuristic and the error classifier, on
tiny synthetic zoo folders (no mirror, no TensorFlow, nothing run)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

import _pool


@pytest.fixture(autouse=True, scope="module")
def _no_background_runs():
    """These tests bound elapsed time: no background run of tests/_pool.py beside them."""
    _pool.wait_early()


_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "zoo_probe.py")
_spec = importlib.util.spec_from_file_location("zoo_probe", _PATH)
zp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(zp)


def write(root, rel, text=""):
    path = os.path.join(str(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(textwrap.dedent(text))
    return path


NPU = "from npu_bridge.npu_init import *\n"
MAIN = "if __name__ == '__main__':\n    main()\n"


def test_model_folders_skip_category_folders_and_folders_without_npu_imports(tmp_path):
    write(tmp_path, "TensorFlow/built-in/cv/image_classification/A_for_TensorFlow/train.py", NPU)
    write(tmp_path, "TensorFlow/built-in/cv/image_classification/.keep")   # a dotfile only
    write(tmp_path, "TensorFlow/contrib/cv/B_for_TensorFlow/README.md")
    write(tmp_path, "TensorFlow/contrib/cv/B_for_TensorFlow/src/deep/net.py", "import npu_bridge\n")
    write(tmp_path, "TensorFlow/contrib/cv/C_for_TensorFlow/train.py", "import tensorflow\n")
    write(tmp_path, "TensorFlow/contrib/cv/D_for_TensorFlow/x.py", "# from npu_bridge import x\n")
    assert zp.model_folders(str(tmp_path)) == [
        os.path.join("TensorFlow", "built-in", "cv", "image_classification", "A_for_TensorFlow"),
        os.path.join("TensorFlow", "contrib", "cv", "B_for_TensorFlow")]


def test_entry_from_train_full_1p_follows_cur_path_cd_and_pythonpath(tmp_path):
    model = str(tmp_path / "M")
    write(model, "train.py", NPU)
    write(model, "src/lib.py")
    write(model, "test/train_full_1p.sh", """\
        #!/bin/bash
        cur_path=`pwd`/../
        # python3 commented.py
        export PYTHONPATH=$cur_path/src:$PYTHONPATH
        cd $cur_path
        echo "python3 echoed.py"
        nohup python3.7 -u ${cur_path}/train.py --data_path=${data_path} > log 2>&1 &
        """)
    entry = zp.pick_entry(model)
    assert entry == {"script": os.path.join(model, "train.py"), "cwd": model,
                     "pythonpath": [os.path.join(model, "src")], "how": os.path.join("test", "train_full_1p.sh")}


def test_entry_from_dirname_0_and_relative_script(tmp_path):
    model = str(tmp_path / "M")
    write(model, "code/run_it.py", MAIN)
    write(model, "test/train_performance_1p.sh", """\
        cur_path=`echo $(cd $(dirname $0);pwd)`
        cd ${cur_path}/../code
        python3 missing.py
        python3 run_it.py --steps 10
        """)
    entry = zp.pick_entry(model)
    assert entry["script"] == os.path.join(model, "code", "run_it.py")
    assert entry["cwd"] == os.path.join(model, "code")
    assert entry["how"] == os.path.join("test", "train_performance_1p.sh")


def test_entry_shell_naming_a_script_outside_the_folder_falls_back(tmp_path):
    model = str(tmp_path / "M")
    write(str(tmp_path), "other.py", MAIN)
    write(model, "test/train_full_1p.sh", "python3 ../../other.py\n")
    write(model, "main.py", MAIN)
    write(model, "train.py", "print('no main guard')\n")        # not an entry: no guard
    write(model, "tools/train.py", MAIN)                          # deeper than main.py
    entry = zp.pick_entry(model)
    assert (entry["script"], entry["cwd"], entry["how"]) == (os.path.join(model, "main.py"), model, "fallback")


def test_entry_fallback_name_ranks_and_absl_app_run_counts(tmp_path):
    model = str(tmp_path / "M")
    write(model, "run_model.py", MAIN)
    write(model, "train_net.py", "from absl import app\napp.run(main)\n")
    assert zp.pick_entry(model)["script"] == os.path.join(model, "train_net.py")
    write(model, "main.py", MAIN)
    assert zp.pick_entry(model)["script"] == os.path.join(model, "main.py")
    write(model, "train.py", MAIN)
    assert zp.pick_entry(model)["script"] == os.path.join(model, "train.py")


def test_entry_none_without_candidates(tmp_path):
    model = str(tmp_path / "M")
    write(model, "model.py", NPU + MAIN)   # not a training-script name
    write(model, "test/train_full_1p.sh", "echo nothing\n")
    assert zp.pick_entry(model) is None


def tb(script, exc, line=3, frames=()):
    body = ['Traceback (most recent call last):',
            '  File "%s", line %d, in <module>' % (script, line), "    import something"]
    for path, number, function, code in frames:
        body += ['  File "%s", line %d, in %s' % (path, number, function), "    " + code,
                 "    ^^^^^^^^"]
    body += [exc, "npu-bridge run: 0 configuration(s), 0 error(s), 0 warning(s)", "exit code: 1"]
    return "\n".join(body) + "\n"


@pytest.fixture
def folder(tmp_path):
    model = str(tmp_path / "M")
    script = write(model, "train.py", """\
        import os
        import mylib
        def main():
            open('data.txt')
        main()
        """)
    write(model, "mylib/__init__.py")
    return model, script


@pytest.mark.parametrize("exc,klass,detail", [
    ("npu_bridge.hooks.tf1_mode.MissingTF1ModuleError: tf.contrib.slim is not available: it was removed",
     "tf_contrib", "tf.contrib.slim"),
    ("npu_bridge.hooks.tf1_mode.MissingTF1AttributeError: tf.nn.deconv2d is not available: it was removed",
     "tf_api", "tf.nn.deconv2d"),
    ("ModuleNotFoundError: No module named 'tensorflow.contrib'", "tf_contrib", "tensorflow.contrib"),
    ("npu_bridge.hooks.tf1_mode.MissingTF1ModuleError: tf.contrib.learn.python.learn is not available: no",
     "contrib_no_library", "tf.contrib.learn.python.learn"),
    ("ModuleNotFoundError: No module named 'tensorflow.contrib.quantize'", "contrib_no_library",
     "tensorflow.contrib.quantize"),
    ("AttributeError: module 'tensorflow' has no attribute 'contrib'", "tf_contrib", "tf.contrib"),
    ("ImportError: cannot import name 'threadpool' from 'tensorflow.python.data.experimental.ops' (/x.py)",
     "tf_api", "tensorflow.python.data.experimental.ops.threadpool"),
    ("ModuleNotFoundError: No module named 'keras.utils.np_utils'", "tf_api", "keras.utils.np_utils"),
    # TF 1.15's pip package installed Keras-Applications / Keras-Preprocessing with it
    ("ModuleNotFoundError: No module named 'keras_applications'", "tf_api", "keras_applications"),
    ("ModuleNotFoundError: No module named 'keras_preprocessing'", "tf_api", "keras_preprocessing"),
    ("AttributeError: module 'tensorflow._api.v2.compat.v1' has no attribute 'mul'", "tf_api",
     "tensorflow._api.v2.compat.v1.mul"),
    ("ModuleNotFoundError: No module named 'moxing'", "moxing", "moxing"),
    ("ModuleNotFoundError: No module named 'hccl.manage'", "npu_bridge", "hccl.manage"),
    ("ImportError: cannot import name 'npu_hooks' from 'npu_bridge.estimator.npu' (/p.py)",
     "npu_bridge", "npu_bridge.estimator.npu.npu_hooks"),
    ("npu_bridge.ge.diagnostics.NpuConfigError: precision_mode='x': not one of ...", "config_refusal",
     "NpuConfigError"),
    ("npu_bridge.estimator.npu.npu_config.NpuArgumentError: NPURunConfig got auto_tune_mode",
     "config_refusal", "NpuArgumentError"),
    ("ValueError: enum_values cannot be a str", "flags", "ValueError"),
    ("absl.flags._exceptions.UnrecognizedFlagError: Unknown command line flag 'help'", "past_imports",
     "UnrecognizedFlagError --help"),
    ("ModuleNotFoundError: No module named 'yacs.config'", "third_party", "yacs.config"),
    ("AttributeError: module 'pytest' has no attribute 'int'", "third_party", "pytest.int"),
    ("AttributeError: module 'mylib' has no attribute 'int'", "other", "AttributeError"),
    ("AttributeError: module 'os' has no attribute 'int'", "other", "AttributeError"),
    ("ModuleNotFoundError: No module named 'mylib.sub'", "layout", "mylib.sub"),
    ("NameError: name 'npu_config_proto' is not defined", "npu_bridge", "npu_config_proto"),
    ("SyntaxError: Missing parentheses in call to 'print'", "other", "SyntaxError"),
])
def test_classify_by_exception(folder, exc, klass, detail):
    model, script = folder
    got = zp.classify(1, tb(script, exc, line=2), False, script, model)
    assert got[:2] == (klass, detail)
    assert got[2] == exc


def test_classify_import_time_vs_later_errors(folder):
    model, script = folder
    later = tb(script, "FileNotFoundError: [Errno 2] No such file or directory: 'data.txt'", line=5,
               frames=[(script, 4, "main", "open('data.txt')")])
    assert zp.classify(1, later, False, script, model)[0] == "past_imports"
    at_import = tb(script, "FileNotFoundError: [Errno 2] No such file or directory: 'cfg.yaml'", line=2,
                   frames=[(os.path.join(model, "mylib", "__init__.py"), 1, "<module>", "open()")])
    assert zp.classify(1, at_import, False, script, model)[0] == "layout"
    assert zp.classify(1, tb(script, "KeyError: 'x'", line=5), False, script, model)[:2] == ("past_imports", "KeyError")
    assert zp.classify(1, tb(script, "KeyError: 'x'", line=2), False, script, model)[:2] == ("other", "KeyError")


def test_classify_error_raised_inside_the_product(folder, tmp_path):
    model, script = folder
    project = str(tmp_path / "proj" / "npu_bridge")
    out = tb(script, "TypeError: bad operand", line=5,
             frames=[(os.path.join(project, "estimator", "npu_ops.py"), 9, "dropout", "x + y")])
    assert zp.classify(1, out, False, script, model, [project])[:2] == ("npu_bridge", "TypeError in npu_ops.py:9")
    assert zp.classify(1, out, False, script, model, [])[0] == "past_imports"
    data = tb(script, "FileNotFoundError: MNIST files missing in 'MNIST_data': train-images-idx3-ubyte.gz",
              line=5, frames=[(os.path.join(project, "mnist.py"), 139, "read_data_sets", "raise")])
    assert zp.classify(1, data, False, script, model, [project])[0] == "past_imports"


def test_classify_without_traceback(folder):
    model, script = folder
    assert zp.classify(0, "usage: train.py [-h]\n", False, script, model)[0] == "ok"
    absl_help = "\n       USAGE: train.py [flags]\nflags:\n\nTry --helpfull to get a list of all flags.\n"
    assert zp.classify(1, absl_help, False, script, model)[0] == "ok"
    assert zp.classify(0, "training...\n", False, script, model)[:2] == ("past_imports", "")
    assert zp.classify(3, "no data\nexit code: 3\n", False, script, model) == ("past_imports", "exit 3", "no data")
    assert zp.classify(-11, "", False, script, model)[:2] == ("other", "signal -11")
    refused = "npu-bridge run: 1 configuration(s), 2 error(s), 0 warning(s)\nexit code: 1\n"
    assert zp.classify(1, refused, False, script, model)[0] == "config_refusal"
    assert zp.classify(None, "", True, script, model)[0] == "timeout"


def test_parse_traceback_takes_the_last_one():
    out = tb("/a.py", "ValueError: first") + "During handling\n" + tb("/b.py", "KeyError: 'second'", line=7)
    frames, exc = zp.parse_traceback(out)
    assert exc == "KeyError: 'second'"
    assert frames == [("/b.py", 7, "<module>", "import something")]
    assert zp.parse_traceback("no traceback here\n") == ([], None)


def test_findings_and_summary_group_by_class_and_name():
    rows = [dict(dict.fromkeys(zp.ROW_FIELDS, ""), folder="f%d" % i, **{"class": k, "detail": d,
                 "error": "E: %s" % d}) for i, (k, d) in enumerate(
        [("tf_contrib", "tf.contrib.slim"), ("tf_contrib", "tf.contrib.slim"), ("tf_contrib", "tf.contrib.rnn"),
         ("ok", ""), ("past_imports", ""), ("no_entry", "")])]
    text = zp.findings_markdown(rows)
    assert "## tf_contrib: 3 folders" in text
    assert text.index("`tf.contrib.slim`: 2 folder(s), e.g. `f0`, `f1`") < text.index("`tf.contrib.rnn`: 1")
    assert "## ok" not in text
    meta = {"project": "/p", "project_commit": "abc", "zoo_commit": "z", "date": "d", "timeout": 60,
            "command": "python tools/zoo_probe.py zoo"}
    summary = zp.summary_markdown(rows, meta)
    assert "past imports (ok + past_imports): 2 of 5 run (40.0%)" in summary
    assert zp.counts(rows)["tf_contrib"] == 3


def _stacks(*blocks):
    """faulthandler's dump: one block per thread, most recent call first."""
    out = []
    for i, frames in enumerate(blocks):
        out.append("%s 0x00007f00000%d (most recent call first):" % ("Current thread" if i == 0 else "Thread", i))
        out += ['  File "%s", line %d in %s' % f for f in frames]
        out.append("")
    return "training step 10\n" + "\n".join(out)


def test_classify_timeout_by_the_stacks_dumped_at_the_timeout(folder):
    model, script = folder
    lib = os.path.join(model, "mylib", "__init__.py")
    # killed while main() ran (line 5: past the imports): it was past its imports
    later = _stacks([(lib, 9, "step"), (script, 4, "main"), (script, 5, "<module>"),
                     ("<frozen runpy>", 88, "_run_code")], [("/usr/lib/threading.py", 320, "wait")])
    assert zp.parse_stacks(later)[:2] == [("<frozen runpy>", 88, "_run_code", ""), (script, 5, "<module>", "")]
    assert zp.classify(None, later, True, script, model) == (
        "past_imports", "timeout after its imports", "timeout at train.py line 5")
    # killed inside `import mylib` (line 2), or with no stacks at all: a timeout
    importing = _stacks([(lib, 3, "<module>"), (script, 2, "<module>")])
    assert zp.classify(None, importing, True, script, model)[0] == "timeout"
    assert zp.classify(None, "training step 10\n", True, script, model)[0] == "timeout"


def test_stacks_dumped_after_a_progress_bar_without_a_newline(folder):
    # SWA (zoo probe, issue 25): Keras' progress bar (no tty: backspaces, no newline) ran into
    # faulthandler's first line, so the dump was not seen and a run killed while training
    # (past its imports) was counted as a timeout inside its imports
    model, script = folder
    dump = _stacks([(script, 4, "main"), (script, 5, "<module>")])
    bar = " 65536/131072 [=====>....] - ETA: 0s - loss: 0.4018" + "\b" * 8
    output = dump.replace("Current thread", bar + "Current thread", 1)
    assert zp.parse_stacks(output) == [(script, 5, "<module>", ""), (script, 4, "main", "")]
    assert zp.classify(None, output, True, script, model) == (
        "past_imports", "timeout after its imports", "timeout at train.py line 5")


@pytest.mark.parametrize("preload", [False, True])
def test_a_run_killed_at_the_timeout_dumps_its_stacks_first(tmp_path, preload):
    model = str(tmp_path / "zoo" / "TensorFlow" / "built-in" / "cv" / "M")
    script = write(model, "train.py", """\
        import time
        import npu_bridge
        def main():
            while True:
                time.sleep(0.1)
        if __name__ == "__main__":
            main()
        """)
    entry = {"script": script, "cwd": model, "pythonpath": [model], "how": "test"}
    project = os.path.dirname(os.path.dirname(os.path.abspath(zp.__file__)))
    home = str(tmp_path / "home")
    os.makedirs(home)
    if preload:
        server = zp.PreloadServer(sys.executable, project, home)
        try:
            returncode, output, timed_out, _ = server.run(entry, project, 15, home)
        finally:
            server.close()
    else:
        returncode, output, timed_out, _ = zp.run_entry(entry, sys.executable, project, 15, home)
    assert timed_out
    assert zp.classify(returncode, output, timed_out, script, model)[:2] == (
        "past_imports", "timeout after its imports"), output[-2000:]


def test_a_script_cannot_install_packages_while_probed(tmp_path):
    # HybridSN (issue 25) runs `os.system('pip install plotly')` while importing: the probe's
    # runs reached the package index and installed into the interpreter on PATH, not the
    # probe's venv. pip's own switches make such an install fail at once, offline.
    entry = {"script": "s.py", "cwd": str(tmp_path), "pythonpath": [str(tmp_path)], "how": "test"}
    env = zp._child_env(entry, "/p", str(tmp_path))
    assert env["PIP_NO_INDEX"] == "1"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run",
                           "no-such-package-npu-bridge-probe"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "No matching distribution" in done.stderr, done.stderr[-500:]
