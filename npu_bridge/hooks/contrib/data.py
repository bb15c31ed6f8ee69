"""`tf.contrib.data.batch_and_drop_remainder` / `padded_batch_and_drop_remainder` of TF 1.15
(deprecated there: "use `tf.data.Dataset.batch(..., drop_remainder=True)`"): dataset
transformations for `Dataset.apply`, on the stock methods they name."""


def batch_and_drop_remainder(batch_size):
    """`dataset.apply(batch_and_drop_remainder(n))` == `dataset.batch(n, drop_remainder=True)`."""
    def _apply(dataset):
        return dataset.batch(batch_size, drop_remainder=True)
    return _apply


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """`dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)`."""
    def _apply(dataset):
        return dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)
    return _apply
