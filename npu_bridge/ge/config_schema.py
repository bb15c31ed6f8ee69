"""The config classes' schema (layer 2's data, TensorFlow-free): what the real
`NPUEstimator` writes besides the catalog rows.
"""

# Grappler optimizers the real NPUEstimator appends to rewrite_options.optimizers (written by
# npu_config, recognised and removed for TensorFlow's CPU session by the Session patch).
ESTIMATOR_GRAPPLER_OPTIMIZERS = ("pruning", "function", "constfold", "shape", "arithmetic",
                                  "loop", "dependency", "layout", "GradFusionOptimizer")
