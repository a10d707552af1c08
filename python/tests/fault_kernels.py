"""Numpy / ctypes subjects that fault, hang, raise, interrupt or store far past their output, for the isolation
and guard tests (test_isolate.py, test_guards.py). Each runs the correct translate_v2p on small cases (up to two
ids) and misbehaves from three ids on, so shrinking ends at exactly three ids."""
import ctypes
import os
import time

import numpy as np

import np_kernels as K


def _big(virt):
    return np.asarray(virt).size > 2


def reads_address_zero(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        ctypes.string_at(0)  # a read of address 0: SIGSEGV
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def aborts(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        os.abort()
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def sleeps(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        time.sleep(60)
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def raises(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        raise RuntimeError("launch failed: grid too large")
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def interrupts(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        raise KeyboardInterrupt("stopped inside the kernel")
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def exits(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        raise SystemExit(3)
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def stores_200_past_out(virt, v2p, page_size, page_stride, out):
    """Correct lanes, then one store 200 lanes past the end of out (through a pointer, not numpy's bounds)."""
    K.translate_v2p(virt, v2p, page_size, page_stride, out)
    if _big(virt):
        end = out.__array_interface__["data"][0] + out.nbytes  # out is contiguous
        ctypes.c_int64.from_address(end + 199 * 8).value = 4242


def stores_200_before_out(virt, v2p, page_size, page_stride, out):
    K.translate_v2p(virt, v2p, page_size, page_stride, out)
    if _big(virt):
        start = out.__array_interface__["data"][0]
        ctypes.c_int64.from_address(start - 200 * 8).value = 4242


def reads_200_past_v2p(virt, v2p, page_size, page_stride, out):
    """Correct lanes, and a load 8192 lanes past the v2p table (its value unused)."""
    K.translate_v2p(virt, v2p, page_size, page_stride, out)
    if _big(virt):
        end = v2p.__array_interface__["data"][0] + v2p.nbytes
        ctypes.c_int64.from_address(end + 8192 * 8).value  # noqa: B018 - the load is the point


def returns_out(virt, v2p, page_size, page_stride, out):
    K.translate_v2p(virt, v2p, page_size, page_stride, out)
    return out


def returns_fresh(virt, v2p, page_size, page_stride, out):
    res = np.empty(np.asarray(virt).shape, np.int64)
    K.translate_v2p(virt, v2p, page_size, page_stride, res)
    return res


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("no text")


def raises_unprintable(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        raise Unprintable()
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def exits_quietly(virt, v2p, page_size, page_stride, out):
    if _big(virt):
        os._exit(0)
    K.translate_v2p(virt, v2p, page_size, page_stride, out)
