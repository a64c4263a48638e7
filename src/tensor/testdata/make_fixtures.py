#!/usr/bin/python3
"""Regenerates the numpy-written fixtures that npy_test.cc and npz_test.cc read.

Run with Debian's interpreter (it has python3-numpy): /usr/bin/python3 make_fixtures.py
The files are committed, so the C++ tests never need Python; rerun this only to change them, and update the
expected values in the tests to match.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def main():
    a = np.array([[1.5, -2.0, 3.25], [0.0, 4.0, -0.5]], dtype=np.float32)
    b = np.array([1, -2, 3, 1 << 40], dtype=np.int64)
    # np.savez stores entries uncompressed (method 0); numpy writes them with zip64 extra fields.
    np.savez(path("numpy_stored.npz"), a=a, b=b)
    # np.savez_compressed deflates them (method 8).
    np.savez_compressed(path("numpy_compressed.npz"), a=a, b=b)

    # A plain version 1.0 file of float64.
    np.save(path("numpy_f8_v1.npy"), np.array([0.1, -2.5, 1e300], dtype="<f8"))
    # Column-major: the bytes on disk are the transpose of the logical [2,3] array.
    np.save(path("numpy_fortran.npy"), np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3)))
    # Big-endian bytes on disk.
    np.save(path("numpy_big_endian.npy"), np.array([1, 256, -2], dtype=">i4"))
    # Version 2.0 header (numpy picks it only for huge headers, so force it).
    with open(path("numpy_u2_v2.npy"), "wb") as f:
        arr = np.array([[1, 2], [65535, 0]], dtype="<u2")
        np.lib.format.write_array(f, arr, version=(2, 0))
    # FP16 and a scalar bool.
    np.save(path("numpy_f2.npy"), np.array([1.0, -0.5, 65504.0], dtype="<f2"))
    np.save(path("numpy_bool_scalar.npy"), np.array(True))


if __name__ == "__main__":
    main()
