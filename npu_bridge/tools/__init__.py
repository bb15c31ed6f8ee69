"""Layer 4, the tools: the `npu-bridge` command, the report, the static checker,
the runner and the launcher (docs/design.md "Layers").
"""
