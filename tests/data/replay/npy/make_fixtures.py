#!/usr/bin/python3
"""Writes the .npy fixtures the replay npy tests compare against (numpy's own writer).

Run with the Debian interpreter from this folder:  /usr/bin/python3 make_fixtures.py
The files are committed; the C++ tests check their exact values and that kvaddr's writer
reproduces the int32 / int64 C-order ones byte for byte.
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def save(name, arr, version=None):
    path = os.path.join(here, name)
    if version is None:
        np.save(path, arr)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, arr, version=version)


save("i8_1d.npy", np.array([0, -1, 2**40, -(2**63), 2**63 - 1], dtype=np.int64))
save("i4_2d.npy", np.array([[1, -2, 3], [2**31 - 1, -(2**31), 0]], dtype=np.int32))
save("i8_scalar.npy", np.array(7, dtype=np.int64))
save("i4_empty.npy", np.zeros((0, 3), dtype=np.int32))
save("f4_1d.npy", np.array([1.5, 2.5], dtype=np.float32))
save("u8_1d.npy", np.array([1, 2], dtype=np.uint64))
save("i8_big_endian.npy", np.array([1, -2, 300], dtype=">i8"))
save("i4_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)))
save("i4_v2.npy", np.array([5, 6, 7], dtype=np.int32), version=(2, 0))
