"""Presenting a case to a kernel (kvaddr.harness): every output as a view into a guarded backing (a sentinel
guard before and after), strided inputs as views of spread backings, guarded tables with their guard pages,
aliased and adjacent layouts as views of one allocation, in any array family (kvaddr.arrays)."""
from __future__ import annotations

import numpy as np

from . import _core
from . import adjacent
from . import cases as C
from . import gpu
from .buffers import table_pieces
from .conventions import alias_view, kernel_kwargs


_GUARDS = {}  # dtype -> (the guard before, the guard after): the same sentinels for every buffer of that dtype


def guarded(buf):
    """The flat host backing of an output: guard, buffer, guard."""
    return np.concatenate(guarded_pieces(buf))


def guarded_pieces(buf):
    """guarded(buf) as its three pieces (the guard before, the buffer flat, the guard after), not joined."""
    guards = _GUARDS.get(buf.dtype)
    if guards is None:
        guards = _GUARDS[buf.dtype] = (C.sentinel(C.GUARD, buf.dtype, 40000), C.sentinel(C.GUARD, buf.dtype, 50000))
    return guards[0], buf.ravel(), guards[1]


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
        hosts = {}  # key -> the host array (or pieces, stage()) of every backing, put on the device together below
        if case.adjacent:  # an adjacent layout: one backing for its members (outputs and inputs), views by name
            hosts[("group",)] = adjacent.host_backing(case)
        members = adjacent.members(case)
        aliased = case.alias[1] if case.alias else None  # the input presented as part of an output
        for name, buf in case.outputs.items():
            if name not in members:
                hosts[("out", name)] = guarded_pieces(buf)
        for name, arr in case.inputs.items():
            if arr is None or name in members or name == aliased:
                continue
            if name in case.dtypes:  # presented in the contract's dtype (kvaddr.contract)
                arr = arr.astype(case.dtypes[name])
            if name in case.strided:
                hosts[("in", name)] = self._spread(arr)
            elif name in C.GUARDED_TABLES and arr.ndim == 1:
                hosts[("in", name)] = table_pieces(arr)
            else:
                hosts[("in", name)] = arr
        keys = list(hosts)
        self.nbytes = sum([_nbytes(h) for h in hosts.values()])  # of the backings (each twin as much again)
        self.staged = {}  # key -> Staged: where each backing lies in stage()'s device buffer (torch on CUDA)
        if twins:
            devs = stage(fam, [hosts[k] for k in keys], twins=True if expected is None else
                         [_expected_host(case, k, expected) for k in keys], arena=arena)
            self.twin = dict(zip(keys, devs[len(keys):]))
            if devs and isinstance(devs[0], Staged):  # the backings stay Staged until read (_Backings)
                self.staged = dict(zip(keys, devs[:len(keys)]))
                devs = devs[:len(keys)]
        else:
            devs = [fam.put(np.concatenate(hosts[k]) if type(hosts[k]) is tuple else hosts[k]) for k in keys]
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
            elif name == aliased:
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
        return guarded_pieces(expected[key[1]])
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

    def __init__(self, whole, ptr, start, dtype, shape, size):
        """An array of `dtype`, `shape` (a tuple; `size` elements) staged at element `start` of `whole` (a 1-D
        torch tensor of that dtype), device address `ptr`."""
        self.whole, self.start, self.ptr = whole, start, ptr
        self.dtype, self.shape, self.size = dtype, shape, size
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
    """Fresh device copies of host backings `arrays` (a list: each an array, or a tuple of pieces of one dtype that
    form one 1-D backing, never joined on the host), in order, then (`twins`) a second copy of each: of the same
    backings (twins=True), or as list `twins` gives them: a backing of its backing's dtype and size (the batched
    eager loop's expected allocations), or None for a copy of the backing itself. The layout, its checks and the
    host copies are kvaddr._core.stage_pack's (one pass of C++; InvalidArgument before anything is written): one host
    buffer holding them all (each at a 256-byte aligned offset), the backings whose twin is a copy (S), the others
    (D), their given twins (D'), then the copies' twins (S'). For torch on CUDA the buffer is pinned (part of `arena`
    when given, else a fresh one that torch's pinned-memory cache keeps until the copy has run); S, D and D' travel
    in one asynchronous host-to-device copy, S' (with an arena) is S copied again on the device; every copy a Staged
    of it (no view made; one typed view of the device buffer per dtype). Otherwise one fam.put per slice of the
    host buffer."""
    arrays = list(arrays)
    on_cuda = fam.name == "torch" and fam.device != "cpu"
    took = []

    def take(total):
        if not on_cuda:
            took.append(np.empty(total, np.uint8))
            return took[0], 0
        if arena is not None:
            chunk, start = arena.take(total)
            took.append((chunk, start))
            return chunk[0], start
        host = fam.torch.empty(total, dtype=fam.torch.uint8, pin_memory=True)
        took.append(host)
        return host.numpy(), 0

    at, twin_at, s, d, total, sizes = _core.stage_pack(arrays, twins, take)
    kinds = [(a[0].dtype, (n,), n) if type(a) is tuple else (a.dtype, a.shape, n) for a, n in zip(arrays, sizes)]
    if not (on_cuda and arena is not None):
        flat = took[0].numpy() if on_cuda else took[0]
        if twin_at is not None:  # S' on the host (with an arena, copied on the device)
            flat[s + 2 * d:2 * (s + d)] = flat[:s]
    if not on_cuda:
        return [fam.put(flat[o:o + n * dt.itemsize].view(dt).reshape(shape)) for places in (at, twin_at or ())
                for o, (dt, shape, n) in zip(places, kinds)]
    torch = fam.torch
    if arena is not None:
        (_, host_ptr, dev, dev_ptr, wholes, _), start = took[0]
        gpu._gpu.copy_to_device(dev_ptr + start, host_ptr + start, s + 2 * d, arena.stream, 1,
                                s if twin_at is not None else 0)
    else:
        host, start, wholes = took[0], 0, {}
        dev = host.to(fam.device, non_blocking=True)
        dev_ptr = int(dev.data_ptr())
    base = dev_ptr + start
    typed = []  # per array: (its dtype's view of the device buffer, its item size)
    for dtype, _, _ in kinds:
        whole = wholes.get(dtype)
        if whole is None:
            if dtype not in _TORCH_DTYPES:
                _TORCH_DTYPES[dtype] = torch.from_numpy(np.empty(0, dtype)).dtype
            whole = wholes[dtype] = dev.view(_TORCH_DTYPES[dtype])
        typed.append((whole, dtype.itemsize))
    out = [Staged(whole, base + o, (start + o) // item, dtype, shape, size)
           for o, (whole, item), (dtype, shape, size) in zip(at, typed, kinds)]
    if twin_at is not None:
        out += [Staged(whole, base + o, (start + o) // item, dtype, shape, size)
                for o, (whole, item), (dtype, shape, size) in zip(twin_at, typed, kinds)]
    return out


def _nbytes(backing):
    """The bytes of a backing: an array, or a tuple of pieces (stage())."""
    if type(backing) is tuple:
        n = 0
        for piece in backing:
            n += piece.nbytes
        return n
    return backing.nbytes


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
