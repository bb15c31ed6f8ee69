"""`npu_bridge.tbe` of older adapter releases (r1.x: `npu_vector_ops`, `npu_cube_ops`).

Only `npu_vector_ops` is provided. `npu_cube_ops` (`deformable_conv2d`) is deliberately
absent: the scripts that use it import it inside `try` and fall back to composed TensorFlow
ops when the import fails, which is the CPU path.
"""
