"""`npu_bridge.profiler` of the real adapter: `profiler.Profiler` (docs/design.md)."""
