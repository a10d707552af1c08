"""Presenting a case to a kernel (kvaddr.harness): every output as a view into a guarded backing (a sentinel
guard before and after), strided inputs as views of spread backings, guarded tables with their guard pages,
aliased and adjacent layouts as views of one allocation, in any array family (kvaddr.arrays)."""
from __future__ import annotations

import numpy as np

from . import adjacent
from . import cases as C
from . import gpu
from .conventions import alias_view, kernel_kwargs


_GUARDS = {}  # dtype -> (the guard before, the guard after): the same sentinels for every buffer of that dtype


def guarded(buf):
    """The flat host backing of an output: guard, buffer, guard."""
    if buf.dtype not in _GUARDS:
        _GUARDS[buf.dtype] = (C.sentinel(C.GUARD, buf.dtype, 40000), C.sentinel(C.GUARD, buf.dtype, 50000))
    g0, g1 = _GUARDS[buf.dtype]
    return np.concatenate([g0, buf.ravel(), g1])


def window(a, start, size, shape):
    """Elements [start, start + size) of 1-D array `a` (any family) as `shape`: torch's narrow / view where `a` is
    a tensor (cheaper than slicing one), slicing and reshape otherwise."""
    if hasattr(a, "narrow"):
        v = a.narrow(0, start, size)
        return v if len(shape) == 1 else v.view(shape)
    return a[start:start + size].reshape(shape)


class Presented:
    """Device buffers of one case: guarded output backings and (possibly strided) inputs.

    twins=True (the batched eager loop, kvaddr.harness): every backing is put on the device twice, in one staged
    host-to-device copy (put_all): `twin` maps ("out", name), ("in", name) and ("group",) to the second copy (a
    Staged on CUDA, an array otherwise), which kvaddr.device_ref.DeviceExpected takes as its expected / pristine
    allocations instead of cloning. With `expected` (the host reference's outputs, {name: whole buffer}) as well,
    the output twins and the adjacent group's twin hold the expected allocations instead (guarded like the
    backings; the inputs' twins stay their pristine copies), carried by the same copy: DeviceExpected(expected=)
    then launches nothing."""

    def __init__(self, fam, case, twins=False, arena=None, expected=None):
        self.fam, self.case = fam, case
        self.out_backing, self.outs, self.in_backing, self.ins, self.twin = _Backings(), {}, _Backings(), {}, {}
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
        self.nbytes = sum(int(h.nbytes) for h in hosts.values())  # of the backings (each twin as much again)
        self.staged = {}  # key -> Staged: where each backing lies in stage()'s device buffer (torch on CUDA)
        if twins:
            devs = stage(fam, [hosts[k] for k in keys], twins=True if expected is None else
                         [_expected_host(case, k, expected) for k in keys], arena=arena)
            self.twin = dict(zip(keys, devs[len(keys):]))
            if devs and isinstance(devs[0], Staged):  # the backings stay Staged until read (_Backings)
                self.staged = dict(zip(keys, devs[:len(keys)]))
                devs = devs[:len(keys)]
        else:
            devs = [fam.put(hosts[k]) for k in keys]
        dev = dict(zip(keys, devs))
        self.group = dev.get(("group",))
        if isinstance(self.group, Staged):
            self.group = self.group.tensor()
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
                staged = self.staged.get(("in", name))
                if name in case.strided:
                    self.ins[name] = (strided_view(self.in_backing[name], arr) if staged is None else
                                      staged.window(0, arr.shape, (arr.shape[1] + STRIDE_PAD, 1) if arr.ndim == 2
                                                    else (2,)))
                elif name in C.GUARDED_TABLES and arr.ndim == 1:
                    self.ins[name] = (window(self.in_backing[name], C.TABLE_GUARD, arr.size, (arr.size,))
                                      if staged is None else staged.window(C.TABLE_GUARD, (arr.size,)))
                else:
                    self.ins[name] = self.in_backing[name]  # (a Staged backing's view made here)

    @property
    def row_pad(self):
        """How much wider than a 2-D strided input its backing's rows are (spread)."""
        return STRIDE_PAD

    def twin_view(self, name):
        """A callable giving strided input `name`'s view of its twin backing (made when called), the shape of
        self.ins[name]."""
        def view():
            t = self.twin[("in", name)]
            return strided_view(t.tensor() if type(t) is Staged else t, self.case.inputs[name])
        return view

    def _out_view(self, name):
        buf = self.case.outputs[name]
        staged = self.staged.get(("out", name))
        if staged is not None:  # one view of the staged buffer: rows cut to the visible width by their stride
            width = self.case.widths.get(name, buf.shape[-1] if buf.ndim == 2 else 0)
            return staged.window(C.GUARD, (buf.shape[0], width) if buf.ndim == 2 else buf.shape,
                                 (buf.shape[1], 1) if buf.ndim == 2 else None)
        v = window(self.out_backing[name], C.GUARD, buf.size, buf.shape)
        if name in self.case.widths and self.case.widths[name] != buf.shape[1]:
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


def _expected_host(case, key, expected):
    """The expected host allocation of backing `key`: an output's guarded expected buffer, the adjacent group laid
    out with the expected outputs; None for an input (its twin is its pristine copy)."""
    if key[0] == "out":
        return guarded(expected[key[1]])
    if key[0] == "group":
        return adjacent.host_backing(case, outputs=expected)
    return None


class _Backings(dict):
    """{name: device backing}, where a Staged value becomes its torch view when first read (the batched eager loop
    reads most of them only for a flagged case)."""

    def __getitem__(self, name):
        v = dict.__getitem__(self, name)
        if type(v) is Staged:
            v = v.tensor()
            dict.__setitem__(self, name, v)
        return v

    def get(self, name, default=None):
        return self[name] if name in self else default

    def values(self):
        return [self[n] for n in self]

    def items(self):
        return [(n, self[n]) for n in self]


_TORCH_DTYPES = {}


class Staged:
    """An array staged in stage()'s device buffer with no torch view of its own yet: its device address `ptr`,
    `dtype`, `shape` and `size`; tensor() makes the view once, window() a view of part of it. The batched eager
    loop's twins are Staged: the device reference reads them through raw pointers (kvaddr.device_ref), so most
    cases never make their views; the presented backings are too, so that the kernel's views are one as_strided
    each and the device count takes their addresses without asking torch."""

    __slots__ = ("whole", "start", "ptr", "dtype", "shape", "size", "_view")
    STAGED = True  # how kvaddr.device_ref (same layer, no import) tells a Staged from an array

    def __init__(self, whole, ptr, start, array):
        """`array` staged at element `start` of `whole` (a 1-D torch tensor of its dtype), device address `ptr`."""
        self.whole, self.start, self.ptr = whole, start, ptr
        self.dtype, self.shape, self.size = array.dtype, tuple(array.shape), int(array.size)
        self._view = None

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def tensor(self):
        if self._view is None:
            self._view = self.whole.as_strided(self.shape, _c_strides(self.shape), self.start)
        return self._view

    def window(self, start, shape, strides=None):
        """The torch view of `shape` (C-contiguous, or element `strides`) from element `start` of this array."""
        return self.whole.as_strided(shape, _c_strides(shape) if strides is None else strides, self.start + start)


def _c_strides(shape):
    if len(shape) == 1:
        return (1,)
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


class Arena:
    """Pinned host and device memory that the batched eager loop (kvaddr.harness) stages its cases in, reused from
    the start once the device has run everything staged (release(), after the batch's wait): per case one
    cudaMemcpyAsync and no allocation. Chunks of CHUNK bytes (a larger case gets a chunk of its own size, dropped
    at the release); the device memory held is that of the pending cases, as with fresh allocations."""

    CHUNK = 64 << 20

    def __init__(self, fam):
        self.torch, self.device = fam.torch, fam.device
        self.stream = gpu.default_stream()  # torch's current stream when the batch began (the copies' stream)
        self.chunks = []  # [host numpy uint8 array, its address, device uint8 tensor, its address, {dtype: view}]
        self.i, self.used = 0, 0  # the chunk being filled and its bytes taken
        self.dirty = False  # whether a copy may still be in flight (staged since the last release)

    def take(self, nbytes):
        """(chunk, byte offset) of `nbytes` free bytes (a multiple of 256)."""
        self.dirty = True
        while self.i < len(self.chunks):
            chunk = self.chunks[self.i]
            if self.used + nbytes <= chunk[0].size:
                at, self.used = self.used, self.used + nbytes
                return chunk, at
            self.i, self.used = self.i + 1, 0
        torch = self.torch
        size = max(self.CHUNK, nbytes)
        host = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        dev = torch.empty(size, dtype=torch.uint8, device=self.device)
        chunk = [host.numpy(), int(host.data_ptr()), dev, int(dev.data_ptr()), {}, host]
        self.chunks.append(chunk)
        self.i, self.used = len(self.chunks) - 1, nbytes
        return chunk, 0

    def release(self):
        """Everything staged has run on the device (the caller waited): reuse the memory from the start."""
        self.chunks = [c for c in self.chunks if c[0].size == self.CHUNK]
        self.i, self.used, self.dirty = 0, 0, False

    def close(self):
        """Wait for the copies still in flight (the pinned memory goes back to torch's cache with the arena);
        a device error surfacing here was already reported by the case that caused it."""
        if self.dirty:
            try:
                self.torch.cuda.synchronize()
            except Exception:  # noqa: BLE001 - see above
                pass
        self.release()


def stage(fam, arrays, twins=False, arena=None):
    """Fresh device copies of host arrays `arrays` (a list), in order, then (`twins`) a second copy of each: of the
    same arrays (twins=True), or as list `twins` gives them: a host array of its array's dtype and size (the
    batched eager loop's expected allocations), or None for a copy of the array itself. For torch on CUDA: one
    pinned host buffer holding them all (each at a 256-byte aligned offset; part of `arena` when given, else a
    fresh one that torch's pinned-memory cache keeps until the copy has run), laid out as the arrays whose twin is
    a copy (S), the others (D), their given twins (D'), then the copies' twins (S'); S, D and D' travel in one
    asynchronous host-to-device copy, S' (with an arena) is S copied again on the device; every copy a Staged of
    it (no view made; one typed view of the device buffer per dtype); otherwise one fam.put per array and twin."""
    n = len(arrays)
    if twins is True or twins is False:
        given = [None] * n if twins else None
    else:
        given = list(twins)
        if len(given) != n:
            raise ValueError(f"twins: {len(given)} arrays for {n}")
        for a, t in zip(arrays, given):
            if t is not None and (t.dtype != a.dtype or t.size != a.size):
                raise ValueError(f"twins: a {t.dtype}[{t.size}] twin of a {a.dtype}[{a.size}] array")
    if fam.name != "torch" or fam.device == "cpu":
        return [fam.put(a) for a in arrays] + ([fam.put(a if t is None else t) for a, t in zip(arrays, given)]
                                               if given is not None else [])
    torch = fam.torch
    arrays = [np.ascontiguousarray(a) for a in arrays]
    # where each array and its twin lie: S, D, D', S' (above)
    at, twin_at, s = [0] * n, [0] * n, 0
    for k, a in enumerate(arrays):
        if a.dtype not in _TORCH_DTYPES:
            _TORCH_DTYPES[a.dtype] = torch.from_numpy(np.empty(0, a.dtype)).dtype
        if given is None or given[k] is None:
            at[k] = s
            s += -(-a.nbytes // 256) * 256
    d = 0
    diff = [] if given is None else [k for k in range(n) if given[k] is not None]
    for k in diff:
        at[k] = d
        d += -(-arrays[k].nbytes // 256) * 256
    for k in range(n):
        if given is not None and given[k] is not None:
            at[k], twin_at[k] = s + at[k], s + d + at[k]
        else:
            twin_at[k] = s + 2 * d + at[k]
    total = max(2 * (s + d) if given is not None else s, 256)  # a whole number of 8-byte elements
    if arena is not None:
        (flat, host_ptr, dev, dev_ptr, wholes, _), start = arena.take(total)
        flat = flat[start:start + total]
    else:
        host = torch.empty(total, dtype=torch.uint8, pin_memory=True)
        flat, start, wholes = host.numpy(), 0, {}
    for a, o in zip(arrays, at):
        flat[o:o + a.nbytes] = a.reshape(-1).view(np.uint8)
    for k in diff:
        t = given[k]
        flat[twin_at[k]:twin_at[k] + t.nbytes] = np.ascontiguousarray(t).reshape(-1).view(np.uint8)
    if arena is not None:  # S' a device-to-device copy of S
        gpu._gpu.copy_to_device(dev_ptr + start, host_ptr + start, s + 2 * d, arena.stream, 1,
                                s if given is not None else 0)
    else:
        if given is not None:
            flat[s + 2 * d:2 * (s + d)] = flat[:s]
        dev = host.to(fam.device, non_blocking=True)
        dev_ptr = int(dev.data_ptr())
    out = []
    for places in ((at, twin_at) if given is not None else (at,)):
        for a, o in zip(arrays, places):
            if a.dtype not in wholes:
                wholes[a.dtype] = dev.view(_TORCH_DTYPES[a.dtype])
            out.append(Staged(wholes[a.dtype], dev_ptr + start + o, (start + o) // a.dtype.itemsize, a))
    return out


def put_all(fam, arrays, twins=False):
    """stage() with the first copies as arrays (torch views) and the twins as Staged (torch on CUDA)."""
    out = stage(fam, arrays, twins)
    n = len(arrays)
    return [d.tensor() if isinstance(d, Staged) else d for d in out[:n]] + out[n:]


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
