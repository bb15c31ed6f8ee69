"""Safety of directory paths GE writes files into (catalog rule kind `write_dir`, NPB136);
nothing here touches the file system but `os.lstat`. Notes: docs/design.md "Module notes".
"""
import os
import stat

CODE = "NPB136"


def unsafe_dir_reason(path):
    """Why `path` is not a safe directory for GE to write into, or None when it is."""
    if not isinstance(path, str):
        return "not a path string"
    if "\0" in path or "\n" in path or "\r" in path:
        return "holds a NUL byte or a line break"
    parts = path.replace("\\", "/").split("/")
    if ".." in parts:
        return ("has a '..' component, whose target depends on the symlinks along the way; "
                "give the normalised path %s" % os.path.normpath(os.path.abspath(path)))
    trimmed = path.rstrip("/") or path
    try:
        info = os.lstat(trimmed)
    except (OSError, ValueError):
        return None  # does not exist yet: GE creates it
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link (to %s): GE would write and remove files through it" % (
            os.readlink(trimmed),)
    if not stat.S_ISDIR(info.st_mode):
        return "exists and is not a directory"
    return None
