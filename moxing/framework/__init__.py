"""`moxing.framework`: the engine-independent part of MoXing; here only `file`."""
from moxing.framework import file  # noqa: F401
