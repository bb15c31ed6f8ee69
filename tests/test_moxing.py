"""moxing: mox.file on a local root (MOXING_LOCAL_ROOT), escapes refused, shift and undo."""
import builtins
import glob as glob_mod
import os
import shutil

import pytest

import moxing as mox
from moxing.framework import file as mfile


@pytest.fixture
def root(tmp_path, monkeypatch):
    r = tmp_path / "obsroot"
    r.mkdir()
    monkeypatch.setenv("MOXING_LOCAL_ROOT", str(r))
    yield r
    mox.file.shift("mox", "os")   # never leave a test's shift behind


def _tree(base):
    (base / "data" / "sub").mkdir(parents=True)
    (base / "data" / "a.txt").write_text("alpha")
    (base / "data" / "sub" / "b.bin").write_bytes(b"\x00\x01\x02")
    return base / "data"


def test_url_maps_into_root_and_both_schemes_agree(root):
    assert mfile.local_path("obs://bucket/x/y.txt") == os.path.join(str(root), "bucket", "x", "y.txt")
    assert mfile.local_path("s3://bucket//x/./y.txt") == mfile.local_path("obs://bucket/x/y.txt")
    assert mfile.local_path("/tmp/local/file") == "/tmp/local/file"   # local path as is


def test_default_root_when_unset(monkeypatch):
    monkeypatch.delenv("MOXING_LOCAL_ROOT", raising=False)
    assert mfile.local_root() == os.path.abspath(os.path.expanduser("~/.cache/npu_bridge/moxing"))


def test_copy_parallel_downloads_tree_and_uploads_back(root, tmp_path):
    _tree(root / "bucket")
    local = tmp_path / "cache"
    mox.file.copy_parallel("obs://bucket/data", str(local))
    assert (local / "a.txt").read_text() == "alpha"
    assert (local / "sub" / "b.bin").read_bytes() == b"\x00\x01\x02"
    (local / "new.txt").write_text("n")
    mox.file.copy_parallel(str(local), "obs://bucket/out")
    assert sorted(mox.file.list_directory("obs://bucket/out")) == ["a.txt", "new.txt", "sub"]


def test_copy_parallel_file_list_and_errors(root, tmp_path):
    _tree(root / "bucket")
    dst = tmp_path / "only"
    mox.file.copy_parallel("obs://bucket/data", str(dst), file_list=["sub/b.bin"])
    assert [p.name for p in dst.rglob("*") if p.is_file()] == ["b.bin"]
    with pytest.raises(NotADirectoryError, match="use mox.file.copy"):
        mox.file.copy_parallel("obs://bucket/data/a.txt", str(dst))
    with pytest.raises(FileNotFoundError, match="obs://bucket/nothing"):
        mox.file.copy_parallel("obs://bucket/nothing", str(dst))
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        mox.file.copy_parallel("obs://bucket/data", str(dst), file_list=["missing.txt"])


def test_copy_one_file_makes_obs_parents_and_refuses_directories(root, tmp_path):
    src = tmp_path / "w.txt"
    src.write_text("weights")
    mox.file.copy(str(src), "obs://bucket/deep/er/w.txt")
    assert (root / "bucket" / "deep" / "er" / "w.txt").read_text() == "weights"
    mox.file.copy("obs://bucket/deep/er/w.txt", str(tmp_path / "back.txt"))
    assert (tmp_path / "back.txt").read_text() == "weights"
    with pytest.raises(IsADirectoryError, match="copy_parallel"):
        mox.file.copy("obs://bucket/deep", str(tmp_path / "d"))
    with pytest.raises(FileNotFoundError):
        mox.file.copy("obs://bucket/none.txt", str(tmp_path / "d"))


def test_queries_listing_walk_glob_size(root):
    _tree(root / "b")
    assert mox.file.exists("obs://b/data/a.txt") and not mox.file.exists("obs://b/zz")
    assert mox.file.is_directory("obs://b/data") and not mox.file.is_directory("obs://b/data/a.txt")
    assert mox.file.list_directory("obs://b/data") == ["a.txt", "sub"]
    assert mox.file.list_directory("obs://b/data", recursive=True) == ["sub", "a.txt", "sub/b.bin"]
    assert mox.file.get_size("obs://b/data/a.txt") == 5
    assert mox.file.get_size("obs://b/data") == 0          # a folder without recursive
    assert mox.file.get_size("obs://b/data", recursive=True) == 8
    walked = list(mox.file.walk("obs://b/data"))
    assert walked[0] == ("obs://b/data", ["sub"], ["a.txt"])
    assert walked[1] == ("obs://b/data/sub", [], ["b.bin"])
    assert mox.file.glob("obs://b/data/*.txt") == ["obs://b/data/a.txt"]
    assert mox.file.glob("s3://b/data/sub/*") == ["s3://b/data/sub/b.bin"]
    with pytest.raises(NotADirectoryError):
        mox.file.list_directory("obs://b/data/a.txt")
    with pytest.raises(FileNotFoundError):
        mox.file.get_size("obs://b/nothing")


def test_make_dirs_remove_rename(root):
    mox.file.make_dirs("obs://b/x/y")
    mox.file.make_dirs("obs://b/x/y")            # existing: fine
    assert (root / "b" / "x" / "y").is_dir()
    mox.file.write("obs://b/x/y/f.txt", "hi")
    mox.file.rename("obs://b/x/y/f.txt", "obs://b/z/g.txt")
    assert mox.file.read("obs://b/z/g.txt") == "hi" and not mox.file.exists("obs://b/x/y/f.txt")
    with pytest.raises(IsADirectoryError, match="recursive=True"):
        mox.file.remove("obs://b/x")
    mox.file.remove("obs://b/x", recursive=True)
    assert not (root / "b" / "x").exists()
    mox.file.remove("obs://b/z/g.txt")
    with pytest.raises(FileNotFoundError):
        mox.file.remove("obs://b/z/g.txt")


def test_file_modes_read_write_append(root):
    with mox.file.File("obs://b/t/log.txt", "w") as f:
        f.write("one\n")
    mox.file.append("obs://b/t/log.txt", "two\n")
    with mox.file.File("obs://b/t/log.txt") as f:
        assert f.readlines() == ["one\n", "two\n"]
    mox.file.write("obs://b/t/raw.bin", b"\xff", binary=True)
    assert mox.file.read("obs://b/t/raw.bin", binary=True) == b"\xff"
    with mox.file.File("obs://b/t/raw.bin", "rb") as f:
        assert f.read() == b"\xff"
    with pytest.raises(FileNotFoundError):
        mox.file.File("obs://b/t/none.txt", "r")
    assert mox.file.set_auth(is_secure=False, retry=50) is None


def test_dotdot_escape_refused(root):
    (root.parent / "secret.txt").write_text("s")
    for bad in ("obs://b/../../secret.txt", "obs://../secret.txt", "s3://b/x/../../../secret.txt"):
        with pytest.raises(mfile.MoxingPathError, match=r"'\.\.' component.*MOXING_LOCAL_ROOT"):
            mox.file.exists(bad)
    with pytest.raises(mfile.MoxingPathError):
        mox.file.copy_parallel("obs://b/..", "/tmp/never")
    with pytest.raises(mfile.MoxingPathError):
        mox.file.copy_parallel(str(root), "obs://b/d", file_list=["../x"])


def test_symlink_escape_refused_and_inner_link_allowed(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (root / "b").mkdir()
    os.symlink(outside, root / "b" / "link")
    with pytest.raises(mfile.MoxingPathError, match="symbolic link"):
        mox.file.read("obs://b/link/secret.txt")
    with pytest.raises(mfile.MoxingPathError):
        mox.file.write("obs://b/link/new.txt", "x")
    assert not (outside / "new.txt").exists()
    (root / "b" / "real").mkdir()
    (root / "b" / "real" / "f").write_text("ok")
    os.symlink(root / "b" / "real", root / "b" / "inner")
    assert mox.file.read("obs://b/inner/f") == "ok"


def test_shift_patches_documented_apis_and_undo_restores(root, tmp_path):
    _tree(root / "b")
    originals = (builtins.open, os.listdir, os.path.exists, shutil.copytree, glob_mod.glob)
    mox.file.shift("os", "mox")
    assert mfile.is_shifted()
    assert os.listdir("obs://b/data") == ["a.txt", "sub"]
    assert os.path.exists("obs://b/data/a.txt") and os.path.isdir("obs://b/data/sub")
    assert os.path.getsize("obs://b/data/a.txt") == 5
    with open("obs://b/data/a.txt") as f:
        assert f.read() == "alpha"
    with open("obs://b/new/w.txt", "w") as f:
        f.write("w")
    assert (root / "b" / "new" / "w.txt").read_text() == "w"
    os.makedirs("obs://b/made/deep")
    assert (root / "b" / "made" / "deep").is_dir()
    shutil.copytree("obs://b/data", str(tmp_path / "copied"))
    assert (tmp_path / "copied" / "sub" / "b.bin").exists()
    shutil.copyfile(str(tmp_path / "copied" / "a.txt"), "obs://b/up/a.txt")
    assert [w[0] for w in os.walk("obs://b/data")] == ["obs://b/data", "obs://b/data/sub"]
    assert glob_mod.glob("obs://b/data/*.txt") == ["obs://b/data/a.txt"]
    os.rename("obs://b/up/a.txt", "obs://b/up/c.txt")
    os.remove("obs://b/up/c.txt")
    shutil.rmtree("obs://b/made")
    assert not (root / "b" / "made").exists()
    local = tmp_path / "plain.txt"                      # local paths unchanged
    with open(local, "w") as f:
        f.write("p")
    assert os.listdir(str(tmp_path)).count("plain.txt") == 1
    with pytest.raises(mfile.MoxingPathError):           # escapes refused through os too
        os.path.exists("obs://b/../../x")
    mox.file.shift("os", "mox")                          # idempotent
    mox.file.shift("mox", "os")
    assert not mfile.is_shifted()
    assert (builtins.open, os.listdir, os.path.exists, shutil.copytree, glob_mod.glob) == originals
    with pytest.raises(FileNotFoundError):
        os.listdir("obs://b/data")                       # plain os again: no such local dir


def test_shift_bad_pair_and_framework_names(root):
    with pytest.raises(ValueError, match=r"shift\('os', 'mox'\)"):
        mox.file.shift("os", "tf")
    with pytest.raises(AttributeError, match="training framework"):
        mox.run
    import moxing.tensorflow as moxtf
    assert moxtf.file is mox.file
    with pytest.raises(AttributeError, match="not provided"):
        moxtf.ModelSpec


def test_missing_url_names_its_local_path_and_recursive_glob(root):
    with pytest.raises(FileNotFoundError, match=r"obs://b/none \(local .*obsroot/b/none\)"):
        mox.file.copy_parallel("obs://b/none", "/tmp/never-made")
    _tree(root / "b")
    assert mox.file.glob("obs://b/**/*.bin", recursive=True) == ["obs://b/data/sub/b.bin"]
    mox.file.shift("os", "mox")
    assert glob_mod.glob("obs://b/**/*.bin", recursive=True) == ["obs://b/data/sub/b.bin"]
