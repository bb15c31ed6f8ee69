"""`tensorflow.examples.tutorials.mnist.input_data` (and contrib.learn's `datasets.mnist`) as
TF 1.15 had it, on local files only. Notes: docs/design.md "Module notes".
"""
import collections
import gzip
import os

import numpy

FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(stream):
    return int(numpy.frombuffer(stream.read(4), dtype=numpy.dtype(numpy.uint32).newbyteorder(">"))[0])


def extract_images(f):
    """uint8 array [N, rows, cols, 1] from a gzip'd idx3 file object. ValueError: bad magic."""
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2051:
            raise ValueError("Invalid magic number %d in MNIST image file: %s" % (magic, f.name))
        num, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = numpy.frombuffer(stream.read(rows * cols * num), dtype=numpy.uint8)
        return data.reshape(num, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    """[N] class ids -> [N, num_classes] one-hot (float64, as TF 1.15)."""
    num_labels = labels_dense.shape[0]
    one_hot = numpy.zeros((num_labels, num_classes))
    one_hot.flat[numpy.arange(num_labels) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    """uint8 [N] labels (or one-hot) from a gzip'd idx1 file object. ValueError: bad magic."""
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2049:
            raise ValueError("Invalid magic number %d in MNIST label file: %s" % (magic, f.name))
        num = _read32(stream)
        labels = numpy.frombuffer(stream.read(num), dtype=numpy.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels with `next_batch`; `images`, `labels`, `num_examples`,
    `epochs_completed` as TF 1.15."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype="float32",
                 reshape=True, seed=None):
        dtype = numpy.dtype(getattr(dtype, "as_numpy_dtype", dtype))
        if dtype not in (numpy.uint8, numpy.float32):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        if seed is not None:
            numpy.random.seed(seed)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError("images.shape: %s labels.shape: %s" % (images.shape, labels.shape))
            self._num_examples = images.shape[0]
            if reshape:
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == numpy.float32:
                images = images.astype(numpy.float32) * (1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next `batch_size` (images, labels); an epoch's tail is completed from the
        next epoch (reshuffled when `shuffle`)."""
        if fake_data:
            fake_image = [1] * 784
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return ([fake_image for _ in range(batch_size)],
                    [fake_label for _ in range(batch_size)])
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            perm0 = numpy.arange(self._num_examples)
            numpy.random.shuffle(perm0)
            self._images = self.images[perm0]
            self._labels = self.labels[perm0]
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest_num_examples = self._num_examples - start
            images_rest_part = self._images[start:self._num_examples]
            labels_rest_part = self._labels[start:self._num_examples]
            if shuffle:
                perm = numpy.arange(self._num_examples)
                numpy.random.shuffle(perm)
                self._images = self.images[perm]
                self._labels = self.labels[perm]
            start = 0
            self._index_in_epoch = batch_size - rest_num_examples
            end = self._index_in_epoch
            return (numpy.concatenate((images_rest_part, self._images[start:end]), axis=0),
                    numpy.concatenate((labels_rest_part, self._labels[start:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype="float32", reshape=True,
                   validation_size=5000, seed=None, source_url=DEFAULT_SOURCE_URL):
    """`Datasets(train, validation, test)` from the four `FILES` in `train_dir`.

    Raises FileNotFoundError naming the expected files when one is missing (nothing is
    downloaded; `source_url` is accepted and ignored), ValueError for a `validation_size`
    outside [0, number of training images] or a file that is not MNIST idx."""
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    paths = [os.path.join(train_dir, name) for name in FILES]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise FileNotFoundError(
            "MNIST files missing in %r: %s (expected the four files %s there; npu_bridge does "
            "not download them: copy them from %s)" % (
                train_dir, ", ".join(os.path.basename(p) for p in missing), ", ".join(FILES),
                source_url or DEFAULT_SOURCE_URL))
    with open(paths[0], "rb") as f:
        train_images = extract_images(f)
    with open(paths[1], "rb") as f:
        train_labels = extract_labels(f, one_hot=one_hot)
    with open(paths[2], "rb") as f:
        test_images = extract_images(f)
    with open(paths[3], "rb") as f:
        test_labels = extract_labels(f, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("Validation size should be between 0 and %d. Received: %d."
                         % (len(train_images), validation_size))
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size],
                           **options),
        test=DataSet(test_images, test_labels, **options))


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)
