"""Presenting a case to a kernel (kvaddr.harness): every output as a view into a guarded backing (a sentinel
guard before and after), strided inputs as views of spread backings, guarded tables with their guard pages,
aliased and adjacent layouts as views of one allocation, in any array family (kvaddr.arrays)."""
from __future__ import annotations

import numpy as np

from . import adjacent
from . import cases as C
from .conventions import alias_view, kernel_kwargs


def guarded(buf):
    """The flat host backing of an output: guard, buffer, guard."""
    g0 = C.sentinel(C.GUARD, buf.dtype, 40000)
    g1 = C.sentinel(C.GUARD, buf.dtype, 50000)
    return np.concatenate([g0, buf.ravel(), g1])


class Presented:
    """Device buffers of one case: guarded output backings and (possibly strided) inputs."""

    def __init__(self, fam, case):
        self.fam, self.case = fam, case
        self.out_backing, self.outs, self.in_backing, self.ins = {}, {}, {}, {}
        # an adjacent layout: one backing for its members (outputs and inputs), views by name
        self.group = fam.put(adjacent.host_backing(case)) if case.adjacent else None
        grouped = adjacent.views(fam, self.group, case) if case.adjacent else {}
        for name, buf in case.outputs.items():
            if name in grouped:
                v = grouped[name]
                self.outs[name] = v[:, :case.widths[name]] if name in case.widths else v
                continue
            self.out_backing[name] = fam.put(guarded(buf))
            self.outs[name] = self._out_view(name)
        for name, arr in case.inputs.items():
            if arr is not None and name in case.dtypes:  # presented in the contract's dtype (kvaddr.contract)
                arr = arr.astype(case.dtypes[name])
            if arr is None:
                self.ins[name] = None
            elif name in grouped:
                self.ins[name] = grouped[name]
            elif case.alias and case.alias[1] == name:
                self.ins[name] = alias_view(self.outs[case.alias[0]], case)
            elif name in case.strided:
                self.in_backing[name] = fam.put(self._spread(arr))
                self.ins[name] = strided_view(self.in_backing[name], arr)
            elif name in C.GUARDED_TABLES and arr.ndim == 1:
                self.in_backing[name] = fam.put(C.guarded_table(arr)[0])
                self.ins[name] = self.in_backing[name][C.TABLE_GUARD:C.TABLE_GUARD + arr.size]
            else:
                self.in_backing[name] = fam.put(arr)
                self.ins[name] = self.in_backing[name]

    def _out_view(self, name):
        buf = self.case.outputs[name]
        v = self.out_backing[name][C.GUARD:C.GUARD + buf.size].reshape(buf.shape)
        if name in self.case.widths:
            v = v[:, :self.case.widths[name]]
        return v

    @staticmethod
    def _spread(arr):
        return spread(arr)

    def load(self, case):
        """Write `case` (same shapes) into the same device buffers (graph mode)."""
        self.case = case
        if self.group is not None:
            self.fam.copy_into(self.group, adjacent.host_backing(case))
        for name, buf in case.outputs.items():
            if name in self.out_backing:
                self.fam.copy_into(self.out_backing[name], guarded(buf))
        for name, arr in case.inputs.items():
            if arr is None or name in adjacent.members(case):
                continue
            if name in case.dtypes:
                arr = arr.astype(case.dtypes[name])
            if name in case.strided:
                self.fam.copy_into(self.in_backing[name], self._spread(arr))
            elif name in C.GUARDED_TABLES and arr.ndim == 1:
                self.fam.copy_into(self.in_backing[name], C.guarded_table(arr)[0])
            elif name in self.in_backing:
                self.fam.copy_into(self.in_backing[name], arr)

    def kwargs(self):
        return kernel_kwargs(self.case, self.ins, self.outs)


def spread(arr):
    """The backing of a strided input: a 1-D array as every other element of a twice-as-long buffer, a 2-D
    one as the first columns of rows STRIDE_PAD elements wider (a row stride larger than the width); the
    other lanes hold -7777."""
    if arr.ndim == 2:
        b = np.full((arr.shape[0], arr.shape[1] + STRIDE_PAD), -7777, dtype=arr.dtype)
        b[:, :arr.shape[1]] = arr
        return b
    b = np.full(arr.size * 2, -7777, dtype=arr.dtype)
    b[::2] = arr.ravel()
    return b


STRIDE_PAD = 3


def strided_view(backing, arr):
    """The view of `backing` (spread(arr), in any array family) that holds `arr`."""
    return backing[:, :arr.shape[1]] if arr.ndim == 2 else backing[::2]
