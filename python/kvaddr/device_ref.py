"""The device reference of kvaddr.check on CUDA: kvaddr's own CUDA kernel (kvaddr.gpu.kernel(route, claimed
variant); or, in the batched eager loop under reference="auto", the host reference's outputs staged with the
case) run on device copies of the case's inputs into a device copy of every guarded output allocation
(the same sentinels, and for aliased layouts the same input values), then every lane of every allocation
(guards included) and every input compared on the device (torch: count_nonzero per allocation and one wait for
all counts; CuPy: kvaddr.gpu.count_differences); an adjacent layout (kvaddr.adjacent) is one allocation,
copied and compared whole. Nothing is copied to the host unless something differs; then
the host path of kvaddr.harness builds the report.
"""
from __future__ import annotations

import numpy as np

from . import adjacent
from . import cases as C
from . import gpu
from .conventions import alias_view, kernel_kwargs

REFERENCES = ("auto", "host", "cuda", "both")


class ReferenceDisagreement(AssertionError):
    """reference="both": kvaddr's CUDA kernel and its host route gave different outputs for one case (a bug in
    kvaddr, not in the kernel under test)."""


def resolve(reference, fam):
    """'host' or 'cuda' (or 'both') for a run on array family `fam`; ValueError for a choice that cannot run.
    "auto" resolves to 'cuda' on a device (compared there); kvaddr.harness's batched eager loop then takes the
    expected allocations from the host reference (DeviceExpected(expected=)) where an explicit "cuda" launches
    kvaddr's kernel."""
    if reference not in REFERENCES:
        raise ValueError(f"reference = {reference!r}: must be one of {', '.join(REFERENCES)}")
    on_device = fam.device != "cpu" and fam.name in ("torch", "cupy")
    if reference == "auto":
        return "cuda" if on_device and gpu.available() else "host"
    if reference in ("cuda", "both"):
        if not on_device:
            raise ValueError(f"reference = {reference!r}: needs device='cuda' with torch or CuPy arrays")
        if not gpu.available():
            raise ValueError(f"reference = {reference!r}: kvaddr.gpu is unavailable ({gpu.why_unavailable()})")
    return reference


def clone(fam, d):
    """A contiguous copy of array `d` in its family (torch or CuPy on the device; numpy for the CPU tests of
    this module's flow)."""
    if fam.name == "torch":
        return d.clone(memory_format=fam.torch.contiguous_format) if d.dim() else d.clone()
    if fam.name == "cupy":
        return fam.cp.ascontiguousarray(d).copy()
    return np.ascontiguousarray(d).copy()


_KERNELS = {}


def _reference_kernel(route, variant):
    """kvaddr.gpu.kernel(route, variant), built once per (route, variant) and process (the module attribute is
    looked up on every call, so a test that replaces kvaddr.gpu.kernel sees its replacement)."""
    key = (gpu.kernel, route, variant)
    if key not in _KERNELS:
        _KERNELS[key] = gpu.kernel(route, variant)
    return _KERNELS[key]


def _raw(staged, start, shape, strides=None):
    """A kvaddr.gpu.ArrayView of `shape` (C-contiguous, or element `strides`) at element `start` of a Staged
    array: the reference kernel's argument read through its pointer, with no torch view made."""
    if strides is None:
        strides = gpu.c_strides(shape)
    item = staged.dtype.itemsize
    return gpu.ArrayView(staged.ptr + start * item, tuple(shape), strides, 8 * item, None, False)


def _staged(x):
    """Whether `x` is a kvaddr.present.Staged twin (present is device_ref's layer: it is not imported here)."""
    return getattr(type(x), "STAGED", False) is True


def _tensor(x):
    """A device array: a Staged twin's view (made now), else `x`."""
    return x.tensor() if _staged(x) else x


class DeviceExpected:
    """The expected allocations of one presented case on the device: computed there by kvaddr's CUDA kernel before
    the kernel under test runs, or (`expected`) staged from the host reference's outputs."""

    def __init__(self, fam, case, presented, variant, stream=None, expected=None):
        """`stream`: the reference's stream on the staged path (default torch's current stream). `expected`: the
        host reference's outputs ({name: whole buffer}) that `presented` was staged with (Presented(expected=):
        its twins already hold every expected allocation); nothing is launched."""
        self.fam, self.case = fam, case
        self._expected = expected
        twin = presented.twin  # the presented backings' second device copies, when staged with twins (no clones)
        if expected is not None:
            self.group = _tensor(twin[("group",)]) if case.adjacent else None
            self._backing = {name: twin[("out", name)] for name in case.outputs if ("out", name) in twin}
            # the pristine inputs: the inputs' twins (a strided input's the view of its spread twin, made when read)
            self._pristine = {name: presented.twin_view(name) if name in case.strided else twin[("in", name)]
                              for name in presented.in_backing}
            return
        # twins staged on the device (present.Staged), no adjacent group, no alias: the reference reads them through
        # their pointers (kvaddr.gpu.ArrayView) and the torch views are made only if a comparison needs them
        raw = bool(twin) and not case.adjacent and not case.alias and all(
            _staged(t) for t in twin.values())

        def copy_of(key, d):  # d: the presented array, or a callable giving it (read only when there is no twin)
            if key not in twin:
                return clone(fam, d() if callable(d) else d)
            return twin[key] if raw else _tensor(twin[key])

        # an adjacent layout: one copy of the whole backing, the reference run on views of it (kvaddr.adjacent)
        self.group = copy_of(("group",), presented.group) if case.adjacent else None
        grouped = adjacent.views(fam, self.group, case) if case.adjacent else {}
        self._backing = {name: copy_of(("out", name), lambda: presented.out_backing[name]) for name in case.outputs
                         if name not in grouped}
        outs = {}
        for name, buf in case.outputs.items():
            if name in grouped:
                outs[name] = grouped[name]
            elif raw:
                outs[name] = _raw(self._backing[name], C.GUARD, buf.shape)
            else:
                outs[name] = self._backing[name][C.GUARD:C.GUARD + buf.size].reshape(buf.shape)
        self._pristine = {}  # input name -> device copy taken before the kernel (what is compared afterwards)
        ins = {}
        for name, arr in case.inputs.items():
            if arr is None:
                ins[name] = None
            elif name in grouped:
                ins[name] = grouped[name]
            elif case.alias and case.alias[1] == name:
                ins[name] = alias_view(outs[case.alias[0]], case)
            elif name in case.strided and raw and arr.ndim == 2:  # the spread twin read in place, rows strided
                self._pristine[name] = presented.twin_view(name)  # (a callable: the view made on first use)
                ins[name] = _raw(twin[("in", name)], 0, arr.shape, (arr.shape[1] + presented.row_pad, 1))
            elif name in case.strided:
                self._pristine[name] = clone(fam, presented.ins[name])
                ins[name] = self._pristine[name]
            elif name in C.GUARDED_TABLES and arr.ndim == 1:
                self._pristine[name] = t = copy_of(("in", name), lambda: presented.in_backing[name])
                # a standalone table
                ins[name] = _raw(t, C.TABLE_GUARD, (arr.size,)) if raw else t[C.TABLE_GUARD:C.TABLE_GUARD + arr.size]
            else:
                self._pristine[name] = t = copy_of(("in", name), lambda: presented.in_backing[name])
                # a 1-D int32 input may be an index array kvaddr.gpu widens into a copy: a tensor, not a raw view
                ins[name] = _raw(t, 0, t.shape) if raw and (len(t.shape) != 1 or t.dtype.itemsize == 8) else _tensor(t)
            if name in case.dtypes and ins[name] is not None:  # a contract's int32 indices: kvaddr's kernel takes int64
                ins[name] = fam.put(arr)
        launch = _reference_kernel(case.route, variant)
        kwargs = kernel_kwargs(case, ins, outs)
        if raw:  # its arguments are views of the staged buffer this process allocated: no pointer query
            getattr(launch, "on_own_memory", launch)(stream=stream, **kwargs)
        else:
            launch(**kwargs)

    @property
    def backing(self):
        """{output name: its expected guarded backing} (device arrays; a Staged twin's view made on first use)."""
        for name, t in self._backing.items():
            if _staged(t):
                self._backing[name] = t.tensor()
        return self._backing

    @property
    def pristine(self):
        """{input name: its device copy taken before the kernel} (a Staged twin's view made on first use)."""
        for name, t in self._pristine.items():
            if _staged(t):
                self._pristine[name] = t.tensor()
            elif callable(t):
                self._pristine[name] = t()
        return self._pristine

    def host(self):
        """{output: the expected buffer (no guards)} as host numpy arrays (the host reference's, when staged from it)."""
        if self._expected is not None:
            return {name: self._expected[name].copy() for name in self.case.outputs}
        grouped = adjacent.views(None, self.fam.get(self.group), self.case) if self.case.adjacent else {}
        return {name: grouped[name].copy() if name in grouped else
                self.fam.get(self.backing[name])[C.GUARD:C.GUARD + buf.size].reshape(buf.shape)
                for name, buf in self.case.outputs.items()}

    def compare(self, presented):
        """(whether any lane of any output allocation differs, the first input in the case's order the kernel
        changed or None), all compared on the device with one wait for the counts."""
        outs = list(self.backing)
        ins = [n for n in self.case.inputs if n in self.pristine]
        pairs = [(self.backing[n], presented.out_backing[n]) for n in outs]
        if self.group is not None:  # the adjacent layout's backing (outputs and inputs): counted as an output
            pairs.append((self.group, presented.group))
        k = len(pairs)
        for n in ins:
            now = presented.ins[n] if n in self.case.strided else presented.in_backing[n]
            pairs.append((self.pristine[n], now))
        counts = _counts(self.fam, pairs)
        modified = next((n for n, c in zip(ins, counts[k:]) if c), None)
        return any(counts[:k]), modified


    def batch_pairs(self, presented):
        """graph_compare's (expected ptr, actual ptr, elements, bits) of every allocation of the case, for the batched
        eager loop's device filter (kvaddr.harness): the output backings and the adjacent group against their
        expectations, each input backing against its pristine copy (a strided input's whole spread backing against
        its twin); None where an allocation is not a contiguous 32- or 64-bit array with a twin (the case then
        runs through compare())."""
        staged = presented.staged  # the backings' places in the staged buffer (present.Staged), when staged
        pairs = [(self._backing[n], staged.get(("out", n)) or presented.out_backing[n]) for n in self._backing]
        if self.group is not None:
            pairs.append((self.group, staged.get(("group",)) or presented.group))
        for n in presented.in_backing:
            pairs.append((presented.twin.get(("in", n)) if n in self.case.strided else self._pristine.get(n),
                          staged.get(("in", n)) or presented.in_backing[n]))
        out = []
        for a, b in pairs:
            if _staged(a) and _staged(b) and a.dtype.itemsize in (4, 8):  # both contiguous, the same host array
                out.append((a.ptr, b.ptr, a.size, 8 * a.dtype.itemsize))
                continue
            b = _tensor(b)
            if a is None or not b.is_contiguous() or b.element_size() not in (4, 8):
                return None
            if _staged(a):  # contiguous by construction, b's shape and dtype (the same host array)
                out.append((a.ptr, int(b.data_ptr()), a.size, 8 * a.dtype.itemsize))
                continue
            if not a.is_contiguous() or a.element_size() != b.element_size():
                return None
            out.append((int(a.data_ptr()), int(b.data_ptr()), a.numel(), 8 * a.element_size()))
        return out


BATCH = 256  # cases per host wait: graph mode's fast loop and the batched eager loop


class Counts:
    """The per-case counts of one batch of BATCH cases on the device (torch), shared by graph mode's fast loop
    (kvaddr.graph_fast: its post graph adds case k's differing elements to slot k % BATCH through a device counter)
    and the batched eager loop (kvaddr.harness: add() puts case j of the batch in slot j); read() is the batch's
    one wait."""

    def __init__(self, torch, device):
        self.torch = torch
        self.counts = torch.zeros(BATCH, dtype=torch.int64, device=device)
        self._slots = None  # slot j's own index j, read by graph_compare as its counter (add)
        self.stream = gpu.default_stream()  # torch's current stream when the batch began: add()'s default

    @staticmethod
    def available():
        """Whether kvaddr._gpu has the comparison kernel (graph_compare)."""
        return gpu._gpu is not None and hasattr(gpu._gpu, "graph_compare") and gpu.available()

    def add(self, pairs, j, stream=None):
        """counts[j] += the number of differing elements of every (a, b, n, bits) pair (one kernel on `stream`, by
        default self.stream; no wait)."""
        if not 0 <= j < BATCH:
            raise ValueError(f"j = {j}: a batch has slots 0..{BATCH - 1}")
        if self._slots is None:
            self._slots = self.torch.arange(BATCH, dtype=self.torch.int64, device=self.counts.device)
            self._ptrs = (int(self._slots.data_ptr()), int(self.counts.data_ptr()))  # both kept for the batch's life
        slot = self._ptrs[0] + 8 * j  # the address of slot j's index
        gpu._gpu.graph_compare(pairs, slot, self._ptrs[1], BATCH, self.stream if stream is None else stream)

    def read(self):
        """Wait for the device (every stream: a kernel may have used its own), return the counts as ints and zero
        them for the next batch."""
        self.torch.cuda.synchronize()
        out = self.counts.tolist()
        self.counts.zero_()
        return out


class CallTimes:
    """The device time of the kernel under test's call in each slot of a batch: two CUDA events on torch's current
    stream (the batch's), recorded just before and just after the call, read after the batch's wait. Graph mode's
    fast loop times each user replay so; the batched eager loop each user call. What the stream ran before the
    first event (the case's staging copy, earlier cases' work) is not in it."""

    def __init__(self, torch, slots=BATCH):
        event = torch.cuda.Event
        self.events = [(event(enable_timing=True), event(enable_timing=True)) for _ in range(slots)]
        # the batch's stream, taken once: Event.record() without one builds a Stream object per call
        self.stream = torch.cuda.current_stream()

    def start(self, j):
        self.events[j][0].record(self.stream)

    def stop(self, j):
        self.events[j][1].record(self.stream)

    def seconds(self, n):
        """Slots 0..n-1's times in seconds (after a wait for the device)."""
        return [a.elapsed_time(b) / 1e3 for a, b in self.events[:n]]


def _counts(fam, pairs):
    """The number of differing elements of each (expected, actual) pair of equal-shape device arrays: for torch
    one count_nonzero per pair and a single wait for all of them; otherwise kvaddr.gpu.count_differences per
    pair (contiguous copies of strided views)."""
    if fam.name == "torch":
        t = fam.torch
        return t.stack([t.count_nonzero(a.reshape(-1) != b.reshape(-1)) for a, b in pairs]).tolist()
    return [gpu.count_differences(a, clone(fam, b) if fam.name == "cupy" else b)[0] for a, b in pairs]


def assert_agree(case, variant, host_expected, dev):
    """reference="both": the device expectation must equal the host route's, lane for lane."""
    got = dev.host()
    for name in case.outputs:
        diff = np.flatnonzero(host_expected[name].ravel() != got[name].ravel())
        if diff.size:
            k = int(diff[0])
            raise ReferenceDisagreement(
                f"kvaddr's CUDA {case.route} (variant {variant}) and its host route disagree on {diff.size} lanes of "
                f"{name}; first at flat index {k}: host {int(host_expected[name].ravel()[k])}, "
                f"cuda {int(got[name].ravel()[k])}")
