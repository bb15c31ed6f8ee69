"""`mox.file`: ModelArts MoXing's file API on a local folder (`obs://` and `s3://` URLs name
files under `$MOXING_LOCAL_ROOT`). Notes: docs/design.md "Module notes".
"""
import builtins
import glob as _glob_mod
import os
import shutil

ENV_ROOT = "MOXING_LOCAL_ROOT"
DEFAULT_ROOT = os.path.join("~", ".cache", "npu_bridge", "moxing")
SCHEMES = ("obs://", "s3://")

# The originals, saved before any shift: this module always calls these.
_open = builtins.open
_listdir, _makedirs, _mkdir = os.listdir, os.makedirs, os.mkdir
_exists, _getsize, _isdir, _isfile = os.path.exists, os.path.getsize, os.path.isdir, os.path.isfile
_remove, _rename, _scandir, _stat, _walk = os.remove, os.rename, os.scandir, os.stat, os.walk
_glob = _glob_mod.glob
_copyfile, _copytree, _rmtree, _copy2 = shutil.copyfile, shutil.copytree, shutil.rmtree, shutil.copy2


class MoxingPathError(PermissionError):
    """An `obs://` / `s3://` URL that would resolve outside the local root."""


def local_root():
    """The folder OBS URLs are served from (absolute; need not exist yet)."""
    return os.path.abspath(os.path.expanduser(os.environ.get(ENV_ROOT) or DEFAULT_ROOT))


def is_url(path):
    """True for an `obs://` or `s3://` URL (str only; bytes and PathLike are local paths)."""
    return isinstance(path, str) and path.startswith(SCHEMES)


def _scheme(url):
    return next(s for s in SCHEMES if url.startswith(s))


def local_path(url):
    """The local path of `url`: `<root>/bucket/key` for an OBS/S3 URL, else `url` itself.

    Raises:
      MoxingPathError: a `..` component, or the resolved path (symbolic links followed)
        outside the root.
    """
    if not is_url(url):
        return url
    rest = url[len(_scheme(url)):]
    parts = [p for p in rest.replace("\\", "/").split("/") if p not in ("", ".")]
    root = local_root()
    if ".." in parts:
        raise MoxingPathError("%s: a '..' component would leave the local OBS root %s "
                              "(%s); URLs are served from inside that folder only"
                              % (url, root, ENV_ROOT))
    path = os.path.join(root, *parts)
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != real_root and not real.startswith(real_root + os.sep):
        raise MoxingPathError("%s: resolves to %s through a symbolic link, outside the local "
                              "OBS root %s (%s); links out of that folder are refused"
                              % (url, real, root, ENV_ROOT))
    return path


def _where(url):
    """`url` for a message; an OBS URL also names its local path (where to put the data)."""
    return "%s (local %s)" % (url, local_path(url)) if is_url(url) else str(url)


def _url_join(base, name):
    return base.rstrip("/") + "/" + name if is_url(base) else os.path.join(base, name)


def _to_url(url, root_path, path):
    """Map a local `path` under `root_path` (the local path of `url`) back into URL form."""
    if not is_url(url):
        return path
    rel = os.path.relpath(path, root_path)
    return url.rstrip("/") if rel == "." else _url_join(url, rel.replace(os.sep, "/"))


# ------------------------------------------------------------------ queries
def exists(url):
    """Whether the file or directory exists (`os.path.exists`)."""
    return _exists(local_path(url))


def is_directory(url):
    """Whether `url` is a directory (`os.path.isdir`)."""
    return _isdir(local_path(url))


def get_size(url, recursive=False):
    """Size in bytes: of a file; of a directory, the sum of its files' sizes with
    `recursive=True`, else 0 (as the ModelArts docs describe). Raises FileNotFoundError."""
    path = local_path(url)
    if not _exists(path):
        raise FileNotFoundError("mox.file.get_size: %s does not exist" % _where(url))
    if not _isdir(path):
        return _getsize(path)
    if not recursive:
        return 0
    return sum(_getsize(os.path.join(d, f)) for d, _, files in _walk(path) for f in files)


def list_directory(url, top_down=True, recursive=False):
    """Names in directory `url` (`os.listdir`, sorted). With `recursive=True`, every file
    and directory below it, as paths relative to `url` joined with '/' (top-down order
    unless `top_down=False`). Raises NotADirectoryError / FileNotFoundError."""
    path = local_path(url)
    if not _isdir(path):
        if _exists(path):
            raise NotADirectoryError("mox.file.list_directory: %s is a file" % url)
        raise FileNotFoundError("mox.file.list_directory: %s does not exist" % _where(url))
    if not recursive:
        return sorted(_listdir(path))
    out = []
    for d, dirs, files in _walk(path, topdown=top_down):
        dirs.sort()
        rel = os.path.relpath(d, path)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        out.extend(prefix + n for n in sorted(dirs) + sorted(files))
    return out


def walk(url, topdown=True, onerror=None):
    """`os.walk` over `url`, yielding `(dir, dirnames, filenames)` with `dir` in the form of
    `url` (an OBS URL stays a URL, so `os.path.join`-style joins with '/' keep working)."""
    path = local_path(url)
    for d, dirs, files in _walk(path, topdown=topdown, onerror=onerror):
        yield _to_url(url, path, d), dirs, files


def glob(url, recursive=False):
    """`glob.glob` on `url` (a pattern; `**` with `recursive=True`); matches are returned in
    the form of `url`."""
    if not is_url(url):
        return _glob(url, recursive=recursive)
    scheme = _scheme(url)
    head = url[len(scheme):].split("/", 1)[0]   # the bucket: no wildcard there
    if any(c in head for c in "*?["):
        raise ValueError("mox.file.glob: wildcards in the bucket name %r are not supported"
                         % head)
    root = local_root()
    local_pattern = local_path(url)
    found = []
    for match in sorted(_glob(local_pattern, recursive=recursive)):
        local_path(scheme + os.path.relpath(match, root).replace(os.sep, "/"))  # escapes
        found.append(scheme + os.path.relpath(match, root).replace(os.sep, "/"))
    return found


def stat(url):
    """`os.stat` of `url`."""
    return _stat(local_path(url))


def scan_dir(url):
    """`os.scandir` of `url` (entries carry local paths)."""
    return _scandir(local_path(url))


# ------------------------------------------------------------------ changes
def make_dirs(url):
    """Create `url` and its missing parents (`os.makedirs`; an existing one is fine)."""
    _makedirs(local_path(url), exist_ok=True)


def mk_dir(url):
    """Create one directory (`os.mkdir`); its parent must exist."""
    _mkdir(local_path(url))


def remove(url, recursive=False):
    """Remove a file (`os.remove`); a directory needs `recursive=True` (`shutil.rmtree`).

    Raises:
      FileNotFoundError: nothing at `url`; IsADirectoryError: a directory without
        `recursive=True`.
    """
    path = local_path(url)
    if _isdir(path) and not os.path.islink(path):
        if not recursive:
            raise IsADirectoryError("mox.file.remove: %s is a directory; pass recursive=True "
                                    "to remove it with its contents" % url)
        _rmtree(path)
    elif os.path.lexists(path):
        _remove(path)
    else:
        raise FileNotFoundError("mox.file.remove: %s does not exist" % _where(url))


def rename(src_url, dst_url):
    """Move a file or directory (`os.rename`; across the OBS root and local disk too)."""
    src, dst = local_path(src_url), local_path(dst_url)
    if not os.path.lexists(src):
        raise FileNotFoundError("mox.file.rename: %s does not exist" % _where(src_url))
    parent = os.path.dirname(dst)
    if parent and is_url(dst_url):
        _makedirs(parent, exist_ok=True)   # OBS has no directories to create first
    shutil.move(src, dst)


def copy(src_url, dst_url):
    """Copy one file (`shutil.copyfile`); a missing parent of an OBS destination is made
    (OBS keys need none). A directory is refused: use `copy_parallel`.

    Raises:
      FileNotFoundError: no `src_url`; IsADirectoryError: `src_url` is a directory.
    """
    src, dst = local_path(src_url), local_path(dst_url)
    if _isdir(src):
        raise IsADirectoryError("mox.file.copy copies one file; %s is a directory: use "
                                "mox.file.copy_parallel" % src_url)
    if not _exists(src):
        raise FileNotFoundError("mox.file.copy: %s does not exist" % _where(src_url))
    parent = os.path.dirname(dst)
    if parent:
        _makedirs(parent, exist_ok=True)
    _copyfile(src, dst)


def copy_parallel(src_url, dst_url, file_list=None, threads=16, is_processing=True,
                  use_queue=True):
    """Copy the directory tree `src_url` into `dst_url` (`shutil.copytree`; existing files
    in `dst_url` are overwritten, others kept). `file_list`: only these paths (relative to
    `src_url`). `threads`, `is_processing`, `use_queue` tune the real one's parallelism and
    are accepted; local copies run in this thread.

    Raises:
      FileNotFoundError: no `src_url`, or a `file_list` entry missing; NotADirectoryError:
        `src_url` is a file (use `copy`).
    """
    src, dst = local_path(src_url), local_path(dst_url)
    if not _exists(src):
        raise FileNotFoundError("mox.file.copy_parallel: %s does not exist" % _where(src_url))
    if not _isdir(src):
        raise NotADirectoryError("mox.file.copy_parallel copies a directory; %s is a file: "
                                 "use mox.file.copy" % src_url)
    if file_list is None:
        _makedirs(dst, exist_ok=True)
        _copytree(src, dst, dirs_exist_ok=True)
        return
    for rel in file_list:
        parts = [p for p in str(rel).replace("\\", "/").split("/") if p not in ("", ".")]
        if ".." in parts:
            raise MoxingPathError("mox.file.copy_parallel: file_list entry %r leaves %s"
                                  % (rel, src_url))
        one_src = os.path.join(src, *parts)
        if not _exists(one_src):
            raise FileNotFoundError("mox.file.copy_parallel: file_list entry %r: %s does not "
                                    "exist" % (rel, _url_join(src_url, "/".join(parts))))
        one_dst = os.path.join(dst, *parts)
        if _isdir(one_src):
            _copytree(one_src, one_dst, dirs_exist_ok=True)
        else:
            _makedirs(os.path.dirname(one_dst), exist_ok=True)
            _copyfile(one_src, one_dst)


# ------------------------------------------------------------------ contents
class File:
    """`mox.file.File(name, mode='r', ...)`: `open` for OBS URLs and local paths; returns the
    opened file object (a context manager with `read`, `readline`, `readlines`, `write`,
    iteration), mode as `open`'s. Writing creates the missing parents of an OBS URL."""

    def __new__(cls, name, mode="r", *args, **kwargs):
        path = local_path(name)
        if is_url(name) and any(c in mode for c in "wax"):
            parent = os.path.dirname(path)
            if parent:
                _makedirs(parent, exist_ok=True)
        return _open(path, mode, *args, **kwargs)


def read(url, binary=False):
    """The whole content: str, or bytes with `binary=True`."""
    with File(url, "rb" if binary else "r") as f:
        return f.read()


def write(url, content, binary=False):
    """Write `content` (str, or bytes with `binary=True`), replacing the file."""
    with File(url, "wb" if binary else "w") as f:
        f.write(content)


def append(url, content, binary=False):
    """Append `content` (str, or bytes with `binary=True`)."""
    with File(url, "ab" if binary else "a") as f:
        f.write(content)


def set_auth(*args, **kwargs):
    """Accepted and ignored: the local root needs no OBS credentials or client settings."""
    return None


# ------------------------------------------------------------------ shift
def _dispatch(original, mox_fn):
    """Call `mox_fn` when the first argument is an OBS URL, else `original` unchanged."""
    def patched(*args, **kwargs):
        if args and is_url(args[0]):
            return mox_fn(*args, **kwargs)
        return original(*args, **kwargs)
    patched.__name__ = getattr(original, "__name__", "patched")
    patched.__doc__ = original.__doc__
    patched.__wrapped__ = original
    return patched


def _mox_makedirs(url, mode=0o777, exist_ok=False):
    _makedirs(local_path(url), mode, exist_ok)


def _mox_listdir(url="."):
    return list_directory(url)


def _mox_remove(url, *args, **kwargs):
    path = local_path(url)
    return _remove(path, *args, **kwargs)


def _mox_rmtree(url, *args, **kwargs):
    return _rmtree(local_path(url), *args, **kwargs)


def _two_path(original):
    """A two-path function (rename, copyfile, copytree): mapped when either is a URL."""
    def patched(src, dst, *args, **kwargs):
        if is_url(src) or is_url(dst):
            if is_url(dst) and original in (_copyfile, _rename):
                parent = os.path.dirname(local_path(dst))
                if parent:
                    _makedirs(parent, exist_ok=True)
            return original(local_path(src), local_path(dst), *args, **kwargs)
        return original(src, dst, *args, **kwargs)
    patched.__name__ = getattr(original, "__name__", "patched")
    patched.__doc__ = original.__doc__
    patched.__wrapped__ = original
    return patched


# (module, attribute, original, replacement): the local APIs of the ModelArts table.
_SHIFTS = (
    (builtins, "open", _open, _dispatch(_open, File)),
    (os, "listdir", _listdir, _dispatch(_listdir, _mox_listdir)),
    (os, "makedirs", _makedirs, _dispatch(_makedirs, _mox_makedirs)),
    (os, "mkdir", _mkdir, _dispatch(_mkdir, lambda u, *a, **k: _mkdir(local_path(u), *a, **k))),
    (os.path, "exists", _exists, _dispatch(_exists, exists)),
    (os.path, "getsize", _getsize, _dispatch(_getsize, lambda u: _getsize(local_path(u)))),
    (os.path, "isdir", _isdir, _dispatch(_isdir, is_directory)),
    (os, "remove", _remove, _dispatch(_remove, _mox_remove)),
    (os, "rename", _rename, _two_path(_rename)),
    (os, "scandir", _scandir, _dispatch(_scandir, lambda u=".": scan_dir(u))),
    (os, "stat", _stat, _dispatch(_stat, lambda u, *a, **k: _stat(local_path(u), *a, **k))),
    (os, "walk", _walk, _dispatch(_walk, walk)),
    (_glob_mod, "glob", _glob, _dispatch(_glob, lambda u, recursive=False, **k: glob(u, recursive))),
    (shutil, "copyfile", _copyfile, _two_path(_copyfile)),
    (shutil, "copytree", _copytree, _two_path(_copytree)),
    (shutil, "rmtree", _rmtree, _dispatch(_rmtree, _mox_rmtree)),
)
SHIFTED_APIS = tuple("%s.%s" % ({builtins: "builtins", os: "os", os.path: "os.path",
                                  _glob_mod: "glob", shutil: "shutil"}[m], a)
                     for m, a, _, _ in _SHIFTS)


def shift(src, dst):
    """`shift('os', 'mox')`: the local APIs in `SHIFTED_APIS` (open, os.listdir, os.makedirs,
    os.mkdir, os.path.exists/getsize/isdir, os.remove/rename/scandir/stat/walk, glob.glob,
    shutil.copyfile/copytree/rmtree) accept OBS URLs from now on, for every module of the
    process; local paths behave as before. `shift('mox', 'os')` restores the originals.
    Idempotent.

    Raises:
      ValueError: another pair than ('os', 'mox') or ('mox', 'os').
    """
    if (src, dst) == ("os", "mox"):
        for module, attr, _, replacement in _SHIFTS:
            setattr(module, attr, replacement)
    elif (src, dst) == ("mox", "os"):
        for module, attr, original, _ in _SHIFTS:
            setattr(module, attr, original)
    else:
        raise ValueError("mox.file.shift(%r, %r): supported are shift('os', 'mox') (local "
                         "APIs accept obs:// URLs) and shift('mox', 'os') (undo)" % (src, dst))


def is_shifted():
    """Whether `shift('os', 'mox')` is in effect."""
    return builtins.open is _SHIFTS[0][3]
