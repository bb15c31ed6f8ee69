"""Layer 2, the config classes: `NPURunConfig` and the classes it takes
(docs/design.md "Layers").
"""
