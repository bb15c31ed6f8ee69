"""Layer 3, the TensorFlow hooks behind the real adapter's modules: the Session
patch, its guard, the TF 1.x mode, `tf.contrib`, the graph capture, the
cluster (docs/design.md "Layers").
"""
