"""`tf.contrib.opt.LazyAdamOptimizer` (TF 1.15 contrib/opt/python/training/
lazy_adam_optimizer.py): a `tf.compat.v1.train.AdamOptimizer` whose sparse updates (the
`IndexedSlices` gradient of an embedding lookup) update only the rows the gradient has: m, v
and the variable, the other rows are left as they are (plain Adam decays m and v of every row
and moves rows with momentum). Duplicate indices are summed first, by the v1 Optimizer as in
TF 1.15. Dense gradients: Adam's. Nothing maintained has it as a v1 Optimizer (TensorFlow
Addons' LazyAdam is a Keras optimizer: no `global_step`, `var_list` required)."""
import tensorflow as tf

_v1 = tf.compat.v1


class LazyAdamOptimizer(_v1.train.AdamOptimizer):
    """TF 1.15's LazyAdamOptimizer: same constructor as AdamOptimizer (`learning_rate=0.001,
    beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"`)."""

    def _lazy_rows(self, values, var, indices):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = (tf.cast(p, dtype) for p in self._get_beta_accumulators())
        lr, beta1, beta2, epsilon = (tf.cast(t, dtype) for t in (
            self._lr_t, self._beta1_t, self._beta2_t, self._epsilon_t))
        step = lr * tf.sqrt(1 - beta2_power) / (1 - beta1_power)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_rows = beta1 * tf.gather(m, indices) + (1 - beta1) * values
        v_rows = beta2 * tf.gather(v, indices) + (1 - beta2) * tf.square(values)
        m_t = _v1.scatter_update(m, indices, m_rows, use_locking=self._use_locking)
        v_t = _v1.scatter_update(v, indices, v_rows, use_locking=self._use_locking)
        var_t = _v1.scatter_sub(var, indices, step * m_rows / (tf.sqrt(v_rows) + epsilon),
                                use_locking=self._use_locking)
        return tf.group(var_t, m_t, v_t)

    def _apply_sparse(self, grad, var):
        return self._lazy_rows(grad.values, var, grad.indices)

    def _resource_apply_sparse(self, grad, var, indices):
        return self._lazy_rows(grad, var, indices)
