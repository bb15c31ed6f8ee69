"""Part of npu_bridge (see README)."""
