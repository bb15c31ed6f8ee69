"""`tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell`: the CPU cell whose variables match cuDNN's
LSTM. TF 1.15 (`contrib/cudnn_rnn/python/ops/cudnn_rnn_ops.py`) made it an LSTM block cell
with forget_bias 0, no clipping, no peepholes, named "cudnn_compatible_lstm_cell"; its weights
are one `kernel` [input + units, 4 * units] and `bias`, gates in LSTMCell's order (i, j, f, o),
which is what `tf.compat.v1.nn.rnn_cell.LSTMCell` with those settings builds."""
import tensorflow as tf


class CudnnCompatibleLSTMCell(tf.compat.v1.nn.rnn_cell.LSTMCell):
    """LSTMCell(num_units, forget_bias=0) named "cudnn_compatible_lstm_cell"."""

    def __init__(self, num_units, reuse=None):
        super().__init__(num_units, forget_bias=0.0, cell_clip=None, use_peepholes=False,
                         reuse=reuse, name="cudnn_compatible_lstm_cell")
