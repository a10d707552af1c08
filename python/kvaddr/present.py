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
    """Device buffers of one case: guarded output backings and (possibly strided) inputs.

    twins=True (the batched eager loop, kvaddr.harness): every backing is put on the device twice, in one staged
    host-to-device copy (put_all): `twin` maps ("out", name), ("in", name) and ("group",) to the second copy, which
    kvaddr.device_ref.DeviceExpected takes as its expected / pristine allocations instead of cloning."""

    def __init__(self, fam, case, twins=False):
        self.fam, self.case = fam, case
        self.out_backing, self.outs, self.in_backing, self.ins, self.twin = {}, {}, {}, {}, {}
        hosts = {}  # key -> the host array of every backing, put on the device together below
        if case.adjacent:  # an adjacent layout: one backing for its members (outputs and inputs), views by name
            hosts[("group",)] = adjacent.host_backing(case)
        for name, buf in case.outputs.items():
            if name not in adjacent.members(case):
                hosts[("out", name)] = guarded(buf)
        for name, arr in case.inputs.items():
            if arr is None or name in adjacent.members(case) or (case.alias and case.alias[1] == name):
                continue
            if name in case.dtypes:  # presented in the contract's dtype (kvaddr.contract)
                arr = arr.astype(case.dtypes[name])
            if name in case.strided:
                hosts[("in", name)] = self._spread(arr)
            elif name in C.GUARDED_TABLES and arr.ndim == 1:
                hosts[("in", name)] = C.guarded_table(arr)[0]
            else:
                hosts[("in", name)] = arr
        keys = list(hosts)
        if twins:
            devs = put_all(fam, [hosts[k] for k in keys] * 2)
            self.twin = dict(zip(keys, devs[len(keys):]))
        else:
            devs = [fam.put(hosts[k]) for k in keys]
        dev = dict(zip(keys, devs))
        self.group = dev.get(("group",))
        grouped = adjacent.views(fam, self.group, case) if case.adjacent else {}
        for name, buf in case.outputs.items():
            if name in grouped:
                v = grouped[name]
                self.outs[name] = v[:, :case.widths[name]] if name in case.widths else v
                continue
            self.out_backing[name] = dev[("out", name)]
            self.outs[name] = self._out_view(name)
        for name, arr in case.inputs.items():
            if arr is None:
                self.ins[name] = None
            elif name in grouped:
                self.ins[name] = grouped[name]
            elif case.alias and case.alias[1] == name:
                self.ins[name] = alias_view(self.outs[case.alias[0]], case)
            else:
                self.in_backing[name] = dev[("in", name)]
                if name in case.strided:
                    self.ins[name] = strided_view(self.in_backing[name], arr)
                elif name in C.GUARDED_TABLES and arr.ndim == 1:
                    self.ins[name] = self.in_backing[name][C.TABLE_GUARD:C.TABLE_GUARD + arr.size]
                else:
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


_TORCH_DTYPES = {}


def put_all(fam, arrays):
    """Fresh device copies of host arrays `arrays` (a list), in order. For torch on CUDA: one pinned host buffer
    holding them all (each at a 256-byte aligned offset), one asynchronous host-to-device copy and views of the
    device buffer (torch's pinned-memory cache keeps the host buffer until the copy has run); otherwise one
    fam.put per array."""
    if fam.name != "torch" or fam.device == "cpu":
        return [fam.put(a) for a in arrays]
    torch = fam.torch
    arrays = [np.ascontiguousarray(a) for a in arrays]
    offsets, total = [], 0
    for a in arrays:
        offsets.append(total)
        total += -(-a.nbytes // 256) * 256
    host = torch.empty(max(total, 1), dtype=torch.uint8, pin_memory=True)
    flat = host.numpy()
    for a, o in zip(arrays, offsets):
        flat[o:o + a.nbytes] = a.reshape(-1).view(np.uint8)
    dev = host.to(fam.device, non_blocking=True)
    out = []
    for a, o in zip(arrays, offsets):
        if a.dtype not in _TORCH_DTYPES:
            _TORCH_DTYPES[a.dtype] = torch.from_numpy(np.empty(0, a.dtype)).dtype
        out.append(dev[o:o + a.nbytes].view(_TORCH_DTYPES[a.dtype]).reshape(a.shape))
    return out


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
