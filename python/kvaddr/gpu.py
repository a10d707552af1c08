"""kvaddr's own CUDA kernels from Python, in the harness's calling convention (docs/harness.md, "kvaddr.gpu").

    import kvaddr.gpu
    if kvaddr.gpu.available():
        translate = kvaddr.gpu.kernel("token_translate")          # or "translate_v2p"
        translate(virt=ids, v2p=v2p, page_size=64, page_stride=64 * 2, out=out)   # torch / CuPy CUDA arrays
        count, first = kvaddr.gpu.count_differences(out, expected)

``kernel(route, variant)`` returns a callable taking the route's keyword arguments (the "Calling
conventions" table of docs/harness.md: names, dtypes, shapes, strides; outputs written in place; returns
None) plus ``stream=`` (an int cudaStream_t; default torch's current stream when torch is importable, else
0). Arrays are anything exposing ``__cuda_array_interface__`` (torch CUDA tensors, CuPy) or, through torch,
``__dlpack__``. Every argument is checked before anything is launched: a wrong dtype, a wrong rank, a
stride that is negative or not a whole number of elements, a host pointer, a missing argument raise a
kvaddr.InvalidArgument naming the argument and its value; the launcher then validates the contract
(kvaddr's typed errors). The launch is asynchronous on ``stream``.

An upstream kernel name of kvaddr.upstream.FORMS (``kernel("normal_decode_set_metadata")``,
``"build_kernel_page_table"``, ...) takes that kernel's own keywords in every call mode: a static pool (the v2p
keyword None), ``src_is_kernel_page_table``, ``full_to_swa_index_mapping``, int32 index arrays (widened into a
device copy before the launch).
"""
from __future__ import annotations

import sys

import numpy as np

from . import _core
from . import route_tables as _routes
from . import upstream as _upstream
from .cases import ALIASES, ROUTES

try:
    from . import _gpu
    _IMPORT_ERROR = ""
except ImportError as e:  # built without CUDA (no nvcc), or the extension is missing
    _gpu = None
    _IMPORT_ERROR = f"kvaddr._gpu is not built ({e}); configure with nvcc present (KVADDR_HAVE_CUDA)"


class Unavailable(_core.InvalidState):
    """kvaddr's CUDA kernels cannot run here: no extension, no device, or the CUDA runtime failed."""


CudaError = _gpu.CudaError if _gpu is not None else _core.InvalidState

_STATE = None  # (available, why), probed once


def _probe():
    global _STATE
    if _STATE is None:
        if _gpu is None:
            _STATE = (False, _IMPORT_ERROR)
        else:
            try:
                ok, why = _gpu.available()
            except Exception as e:  # noqa: BLE001 - a broken runtime is a reason, not a crash
                ok, why = False, f"{type(e).__name__}: {e}"
            _STATE = (bool(ok), "" if ok else (why or "no CUDA device"))
    return _STATE


def available():
    """True when kvaddr._gpu is built and the CUDA runtime sees a device."""
    return _probe()[0]


def why_unavailable():
    """'' when available(); otherwise why: no extension built, no device, or the CUDA error text."""
    return _probe()[1]


def _require():
    ok, why = _probe()
    if not ok:
        e = Unavailable(f"kvaddr.gpu = unavailable: {why}")
        e.kind, e.argument, e.value, e.reason = "invalid_state", "kvaddr.gpu", "unavailable", why
        raise e


def invalid(name, value, reason):
    """kvaddr.InvalidArgument('<name> = <value>: <reason>') with its fields set."""
    e = _core.InvalidArgument(f"{name} = {value}: {reason}")
    e.kind, e.argument, e.value, e.reason = "invalid_argument", name, str(value), reason
    return e


# ---- the calling conventions --------------------------------------------------------------------
# Per route: (harness name, contract field, what) in call order (kvaddr.route_tables.convention: the upstream
# convention where the route has one, else the per-id route's field list).
CONVENTIONS = {r: _routes.convention(r) for r in ROUTES}
# Inputs whose rank-2 C-contiguous form is flattened (token_translate's rank-2 virt, out of the same shape).
_RANK2_FLAT = {"token_translate": ("virt", "out")}
assert set(CONVENTIONS) == set(ROUTES)


class ArrayView:
    """An array's __cuda_array_interface__ read and checked: ptr, shape, element strides, bits."""

    __slots__ = ("ptr", "shape", "strides", "bits", "obj", "torch")

    def __init__(self, ptr, shape, strides, bits, obj, torch):
        self.ptr, self.shape, self.strides, self.bits, self.obj, self.torch = ptr, shape, strides, bits, obj, torch

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def contiguous(self):
        """C-contiguous (size-1 and empty dimensions place no constraint)."""
        want = 1
        for d, s in zip(reversed(self.shape), reversed(self.strides)):
            if d != 1 and s != want:
                return self.size == 0
            want *= d
        return True


_TYPESTR_BITS = {"i4": 32, "i8": 64}


def _torch():
    return sys.modules.get("torch")


def array_view(name, obj, bits, ranks, devices=None):
    """Reads `obj`'s __cuda_array_interface__ (or a torch tensor's, or torch.from_dlpack's) and checks it:
    integer dtype of `bits`, rank in `ranks`, non-negative strides that are whole elements. An ArrayView (a raw
    device pointer with its shape, element strides and bits: kvaddr's device reference passes its staged copies so)
    is checked the same way and taken as it is. `devices`: a dict that keeps the current device for the arrays of one
    call (marshal), read from torch once instead of per array."""
    if type(obj) is ArrayView:
        return _checked_view(name, obj, bits, ranks)
    torch = _torch()
    cai = None
    if torch is not None and isinstance(obj, torch.Tensor):
        if not obj.is_cuda:
            raise invalid(name, f"a {obj.device} tensor", "expected a CUDA array (device memory)")
        current = devices.get("current") if devices is not None else None
        if current is None:
            current = current_device(torch)
            if devices is not None:
                devices["current"] = current
        if obj.device.index is not None and obj.device.index != current:
            raise invalid(name, f"a {obj.device} tensor", f"kvaddr.gpu launches on the current device cuda:{current}; "
                                                          "move it there or call torch.cuda.set_device")
        layout = getattr(obj, "layout", None)  # (None for a stand-in of torch: the interface path below)
        tbits = _torch_int_bits(torch).get(obj.dtype) if layout is not None and layout is torch.strided else None
        if tbits is not None:  # the fields torch's __cuda_array_interface__ would give, read without building it
            if tbits != bits:
                raise invalid(name, f"typestr <i{tbits // 8}", f"dtype must be int{bits}")
            shape = tuple(obj.shape)
            _check_rank(name, shape, ranks)
            strides = c_strides(shape) if obj.is_contiguous() else tuple(obj.stride())
            return _aligned(name, ArrayView(obj.data_ptr() if obj.numel() > 0 else 0, shape, strides, bits, obj, True))
        cai = obj.__cuda_array_interface__ if not obj.requires_grad else obj.detach().__cuda_array_interface__
    else:
        try:
            cai = obj.__cuda_array_interface__
        except AttributeError:
            cai = None
        if cai is None and hasattr(obj, "__dlpack__"):
            try:
                dev_type = int(obj.__dlpack_device__()[0])
            except Exception:  # noqa: BLE001 - a producer without __dlpack_device__: torch decides below
                dev_type = None
            if dev_type in (1, 3):  # kDLCPU, kDLCUDAHost: host memory
                raise invalid(name, type(obj).__name__,
                              f"expected a CUDA array (device memory); DLPack device type {dev_type} is host memory")
            try:
                import torch as _t
                t = _t.from_dlpack(obj)
            except Exception as e:  # noqa: BLE001 - no torch, or a producer torch cannot read
                raise invalid(name, type(obj).__name__,
                              f"a DLPack array kvaddr.gpu cannot read without torch ({type(e).__name__}: {e})")
            return array_view(name, t, bits, ranks)
    if cai is None:
        raise invalid(name, type(obj).__name__,
                      "expected a CUDA array (__cuda_array_interface__, e.g. a torch CUDA tensor or a CuPy array)")
    try:
        typestr = str(cai["typestr"])
        shape = tuple(int(d) for d in cai["shape"])
        ptr = int(cai["data"][0])
        raw = cai.get("strides")
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise invalid(name, type(obj).__name__, f"a malformed __cuda_array_interface__ ({e})") from None
    kind = typestr.lstrip("<>|=")
    if _TYPESTR_BITS.get(kind) != bits or typestr[:1] == ">":
        raise invalid(name, f"typestr {typestr}", f"dtype must be int{bits}")
    _check_rank(name, shape, ranks)
    item = bits // 8
    if raw is None:
        strides = c_strides(shape)
    else:
        strides = []
        for s in raw:
            s = int(s)
            if s < 0:
                raise invalid(name, f"stride {s} bytes", "negative strides are not supported")
            if s % item:
                raise invalid(name, f"stride {s} bytes", f"not a whole number of {item}-byte elements")
            strides.append(s // item)
        strides = tuple(strides)
    return _aligned(name, ArrayView(ptr, shape, strides, bits, obj, torch is not None and isinstance(obj, torch.Tensor)))


def _aligned(name, v):
    """`v` when its pointer is a multiple of its element size (the kernels load int32 / int64 through typed
    pointers: a misaligned one faults on the device), else InvalidArgument naming `name`."""
    if v.ptr % (v.bits // 8):
        raise invalid(name, f"pointer {v.ptr:#x}", f"misaligned: int{v.bits} data must start at a multiple of "
                                                   f"{v.bits // 8} bytes")
    return v


def _check_rank(name, shape, ranks):
    if len(shape) not in ranks:
        want = " or ".join(f"{r}-D" for r in ranks)
        raise invalid(name, f"ndim {len(shape)}", f"expected a {want} array")


_TORCH_INT_BITS = {}


def _torch_int_bits(torch):
    """{torch.int32: 32, torch.int64: 64}: the dtypes whose interface array_view reads field by field."""
    if not _TORCH_INT_BITS:
        _TORCH_INT_BITS.update({torch.int32: 32, torch.int64: 64})
    return _TORCH_INT_BITS


def c_strides(shape):
    """The element strides of a C-contiguous array of `shape`."""
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def _checked_view(name, v, bits, ranks):
    """ArrayView `v` as array_view's argument `name`: an int pointer >= 0, int `bits` (32 or 64) equal to `bits`, a
    rank in `ranks`, shape and element strides of non-negative ints of that rank."""
    if v.bits != bits or type(v.bits) is not int:
        raise invalid(name, f"an ArrayView of int{v.bits}", f"dtype must be int{bits}")
    if type(v.ptr) is not int or v.ptr < 0:
        raise invalid(name, f"an ArrayView at {v.ptr!r}", "the pointer must be an int >= 0")
    if not isinstance(v.shape, tuple) or len(v.shape) not in ranks:
        want = " or ".join(f"{r}-D" for r in ranks)
        raise invalid(name, f"an ArrayView of shape {v.shape!r}", f"expected a {want} array")
    if not isinstance(v.strides, tuple) or len(v.strides) != len(v.shape):
        raise invalid(name, f"an ArrayView with strides {v.strides!r}", f"expected {len(v.shape)} element strides")
    for what, xs in (("shape", v.shape), ("strides", v.strides)):
        for x in xs:
            if type(x) is not int or x < 0:
                raise invalid(name, f"an ArrayView with {what} {xs!r}", f"{what} must be ints >= 0")
    return _aligned(name, v)


def _check_device_pointer(name, v, capturing=None):
    """A host pointer (pageable or pinned) is rejected before any launch (a torch CUDA tensor's memory is the
    device's: array_view checked is_cuda). `capturing`: whether the current stream captures (probed when None)."""
    if v.size == 0 or _gpu is None or v.torch:
        return
    if _capturing() if capturing is None else capturing:  # (checked on the eager call before any capture)
        return
    where = _gpu.memory_type(v.ptr)
    if where not in ("device", "managed"):
        raise invalid(name, f"{where} pointer {v.ptr:#x}", "expected device memory (a CUDA array)")


def _int(name, value):
    import numbers

    if type(value) is int and -(1 << 63) <= value < (1 << 63):  # the common case, without the ABC check
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise invalid(name, repr(value), "expected an int")
    v = int(value)
    if not -(1 << 63) <= v < (1 << 63):
        raise invalid(name, v, "outside int64")
    return v


def marshal(route, kwargs, check_pointers=True):
    """The descriptors kvaddr._gpu.launch takes for `route` (contract field -> value) from the keyword
    arguments (the harness calling convention of a route; an upstream name of kvaddr.upstream.FORMS takes its
    upstream form), and the temporaries (contiguous or int64 copies of strided or int32 index inputs) that must
    outlive the launch. Reads no array contents and needs no device when check_pointers is False (kvaddr.gpu's
    own tests)."""
    if route in _upstream.FORMS:
        conv, optional = _upstream.convention(route)
        form = route
        route = _upstream.route_of(route)
        upstream_names = {h for h, _, _ in conv}
        own_names = {h for h, _, _ in CONVENTIONS[route]}
        if not set(kwargs) <= upstream_names and set(kwargs) <= own_names:
            # called in the route's own convention (kvaddr.check hands every kernel its arguments under the
            # route's names, kvaddr.conventions.kernel_kwargs): kernel("build_kv_read_table") is then the route
            conv, optional, form = CONVENTIONS[route], frozenset(), None
    else:
        route = ALIASES.get(route, route)
        conv, optional, form = CONVENTIONS[route], frozenset(), None
    known = _NAMES.get((form, route))
    if known is None:  # the convention's harness names, made once per (upstream form, route)
        known = _NAMES[(form, route)] = frozenset(h for h, _, _ in conv)
    for k in kwargs:
        if k not in known:
            raise invalid(k, "(given)", f"not an argument of {form or route} ({', '.join(h for h, _, _ in conv)})")
    fields, temps, views = {}, [], {}
    devices = {}  # the current device, read once for all the arrays of this call (array_view)
    flat = _RANK2_FLAT.get(route, ())
    capturing = check_pointers and _capturing()  # probed once per call
    for hname, field, what in conv:
        val = kwargs.get(hname)
        if val is None and (what == "opt64" or hname in optional):
            if what == "int" and form is not None and _upstream.default(form, hname) is not None:
                fields[field] = _upstream.default(form, hname)
            continue
        if hname not in kwargs:
            raise invalid(hname, "(missing)", f"required by {form or route}")
        if what in ("int", "stride", "out_width"):
            views[hname] = _int(hname, val)
            if what == "int" and hname in optional:
                fields[field] = views[hname]
            continue
        if what == "bool":
            if not isinstance(val, (bool, np.bool_)):
                raise invalid(hname, repr(val), "expected a bool")
            fields[field] = bool(val)
            continue
        bits, two_d, is_out = _ARRAY_KINDS[what]
        ranks = (2,) if two_d else ((1, 2) if hname in flat else (1,))
        if what == "idx":  # an index array: int64, or int32 widened into a device copy
            v = _index_view(hname, val, ranks, devices)
        else:
            v = array_view(hname, val, bits, ranks, devices)
        if check_pointers:
            _check_device_pointer(hname, v, capturing)
        if v.bits == 32 and what == "idx":
            v = _device_copy(hname, v, 64)
            temps.append(v.obj)
        views[hname] = v
        if two_d:
            if v.shape[0] * v.shape[1] == 0:
                fields[field] = ("mat", v.ptr, v.shape[0], v.shape[1], max(v.shape[1], 1), 1, bits)
            else:
                fields[field] = ("mat", v.ptr, v.shape[0], v.shape[1], v.strides[0], v.strides[1], bits)
            continue
        if not v.contiguous():
            if is_out or len(v.shape) != 1:
                raise invalid(hname, f"strides {list(v.strides)} (elements) for shape {list(v.shape)}",
                              "must be contiguous" + (" (an output is written in place)" if is_out else ""))
            v = _device_copy(hname, v, v.bits)
            temps.append(v.obj)
        fields[field] = ("vec", v.ptr, v.size, v.bits)
    # scalar conversions
    if route in ("token_translate", "write_loc"):
        sname = "page_stride" if route == "token_translate" else "stride"
        ps, st = views["page_size"], views[sname]
        if ps < 1:
            raise invalid("page_size", ps, "must be >= 1")
        if st % ps:
            raise invalid(sname, st, f"must be page_size * multiplier (a multiple of page_size = {ps})")
        fields["multiplier"] = st // ps
        if route == "token_translate" and views["virt"].shape != views["out"].shape:
            raise invalid("out", f"shape {list(views['out'].shape)}", f"must be virt's shape {list(views['virt'].shape)}")
    if route == "write_loc" and "out_width" in views and views["out_width"] != views["out"].size:
        raise invalid("out_width", views["out_width"], f"must be out's size {views['out'].size}")
    for hname, field, what in conv:
        if what == "int" and hname in views:
            fields[field] = views[hname]
    return fields, temps


_NAMES = {}  # (upstream form or None, route) -> the names of its convention (marshal)


class _ArrayKinds(dict):
    """An array field's kind (route_tables' "in64", "omat32", "idx", ...) -> (bits, 2-D, an output), made once."""

    def __missing__(self, what):
        self[what] = v = (32 if what.endswith("32") else 64, what.startswith(("mat", "omat")), what.startswith("out"))
        return v


_ARRAY_KINDS = _ArrayKinds()


def _index_view(name, obj, ranks, devices=None):
    """array_view of an index array that may be int64 or int32."""
    torch = _torch()
    if torch is not None and isinstance(obj, torch.Tensor) and getattr(obj, "layout", None) is not None:
        bits = _torch_int_bits(torch).get(obj.dtype)  # a torch int32 / int64 tensor: its width read off its dtype
        if bits is not None:
            return array_view(name, obj, bits, ranks, devices)
    try:
        return array_view(name, obj, 64, ranks, devices)
    except _core.InvalidArgument as e:
        if "dtype must be" not in str(e):
            raise
    try:
        return array_view(name, obj, 32, ranks, devices)
    except _core.InvalidArgument as e:
        if "dtype must be" not in str(e):
            raise
        raise invalid(name, _typestr(obj), "dtype must be int32 or int64 (an index array)") from None


def _device_copy(name, v, bits):
    """A contiguous device copy of an input with `bits`-bit elements (a strided 1-D input made contiguous, an
    int32 index array widened to int64): torch .contiguous() / .to(int64), CuPy ascontiguousarray, else a torch
    view of the interface. The copy is made on torch's (or CuPy's) current stream."""
    obj = v.obj
    if obj is None:  # a raw ArrayView: no array to copy from
        what = f"strides {list(v.strides)}" if bits == v.bits else f"int{v.bits}"
        raise invalid(name, f"an ArrayView with {what}", "needs a contiguous or widened copy, which a raw pointer "
                                                          "cannot give: pass the array itself")
    if v.torch:
        c = obj.contiguous() if bits == v.bits else obj.contiguous().to(_torch().int64)
    elif type(obj).__module__.split(".")[0] == "cupy":
        import cupy

        c = cupy.ascontiguousarray(obj, dtype=cupy.int64 if bits == 64 else cupy.int32)
    else:
        try:
            import torch

            c = torch.as_tensor(obj, device="cuda").contiguous()
            if bits != v.bits:
                c = c.to(torch.int64)
        except Exception as e:  # noqa: BLE001
            what = f"strides {list(v.strides)}" if bits == v.bits else _typestr(obj)
            raise invalid(name, what, f"a strided or int32 input needs torch or CuPy to copy ({e})") from None
    return array_view(name, c, bits, tuple(range(1, 3)))


_CUDA_TORCH = None  # torch once torch.cuda.is_available() has said True (a device does not vanish mid-process)


def _cuda_torch():
    """torch when it is imported and sees a CUDA device, else None; the availability probe (an NVML / driver
    query, tens of microseconds) runs until it first says True, and not on every launch after that."""
    global _CUDA_TORCH
    if _CUDA_TORCH is None:
        torch = _torch()
        if torch is None or not torch.cuda.is_available():
            return None
        _CUDA_TORCH = torch
    return _CUDA_TORCH


def default_stream():
    """torch.cuda.current_stream().cuda_stream when torch is importable, else 0 (the legacy default stream)."""
    if _torch() is None:
        try:
            import torch as _imported  # noqa: F401 - imported here, then found by _torch()
        except ImportError:
            return 0
    torch = _cuda_torch()
    if torch is None:
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the handle without a Stream object (torch >= 1.x)
    if raw is not None:
        return int(raw(current_device(torch)))
    return int(torch.cuda.current_stream().cuda_stream)


def current_device(torch):
    """torch.cuda.current_device(), read straight from torch's C binding once CUDA is initialised (the public call
    re-checks the lazy initialisation and costs microseconds per array on every launch)."""
    get = getattr(getattr(torch, "_C", None), "_cuda_getDevice", None)
    ready = getattr(torch.cuda, "is_initialized", None)
    if get is not None and ready is not None and ready():
        return int(get())
    return torch.cuda.current_device()


def is_torch(obj):
    """Whether `obj` is a torch tensor (False without importing torch when torch is not loaded)."""
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor)


def _capturing():
    torch = _cuda_torch()
    return torch is not None and torch.cuda.is_current_stream_capturing()


def kernel(route, variant="production"):
    """kvaddr's CUDA kernel for `route` (a harness route or an upstream alias) under `variant`, as a callable
    in the harness's calling convention (an upstream name of kvaddr.upstream.FORMS: in its upstream form);
    raises Unavailable without a device, kvaddr.InvalidArgument (a ValueError) naming `route` or `variant` for an
    unknown route or a variant the route does not have."""
    name = ALIASES.get(route, route) if isinstance(route, str) else route
    if name not in ROUTES:
        raise invalid("route", repr(route), f"kvaddr.gpu has {', '.join(ROUTES)} (and the aliases {', '.join(ALIASES)})")
    if not _routes.has_variant(name):
        if variant != "production":
            raise invalid("variant", repr(variant), f"{name} has no variants")
    elif variant not in _core.variants(name):
        raise invalid("variant", repr(variant), f"{name} accepts {', '.join(_core.variants(name))}")
    _require()

    def run(stream, kwargs, check_pointers):
        fields, temps = marshal(route if route in _upstream.FORMS else name, kwargs, check_pointers)
        if _routes.has_variant(name):
            fields["variant"] = variant
        current = default_stream()
        s = current if stream is None else _int("stream", stream)
        # the temporaries (contiguous / widened copies) are made on the current stream and freed when this call
        # returns: a launch on that stream of torch copies needs no wait (torch's caching allocator reuses freed
        # memory in the order of the stream it was allocated on); another stream, or CuPy's pool, waits for them
        wait = bool(temps) and not (s == current and all(is_torch(t) for t in temps)) and not _capturing()
        if wait:
            _gpu.synchronize(current)  # the copies were made on the current stream
        _gpu.launch(name, fields, s)
        if wait:
            _gpu.synchronize(s)  # the contiguous copies are released when this call returns
        return None

    def launch(stream=None, **kwargs):
        return run(stream, kwargs, True)

    def on_own_memory(stream=None, **kwargs):
        """launch() for arguments the caller allocated on the current device itself (kvaddr's device reference:
        ArrayViews into its staged buffer): every check but the CUDA runtime's answer where each pointer lies."""
        return run(stream, kwargs, False)

    launch.__name__ = f"kvaddr_gpu_{name}"
    launch.__qualname__ = launch.__name__
    launch.route, launch.variant, launch.on_own_memory = name, variant, on_own_memory
    return launch


def count_differences(a, b, stream=None):
    """(count, first flat index) of the elements where equal-shape, contiguous int32 / int64 CUDA arrays a
    and b differ (first = the size when they are equal); waits for the result on `stream`."""
    _require()
    va = _compare_view("a", a)
    vb = _compare_view("b", b)
    if va.bits != vb.bits:
        raise invalid("b", f"int{vb.bits}", f"must be a's dtype int{va.bits}")
    if va.shape != vb.shape:
        raise invalid("b", f"shape {list(vb.shape)}", f"must be a's shape {list(va.shape)}")
    for nm, v in (("a", va), ("b", vb)):
        if not v.contiguous():
            raise invalid(nm, f"strides {list(v.strides)}", "must be contiguous")
        _check_device_pointer(nm, v)
    s = default_stream() if stream is None else _int("stream", stream)
    count, first = _gpu.count_differences(va.ptr, vb.ptr, va.size, va.bits, s)
    return int(count), int(first)


def _compare_view(name, obj):
    for bits in (64, 32):
        try:
            return array_view(name, obj, bits, tuple(range(0, 9)))
        except _core.InvalidArgument as e:
            if "dtype must be" not in str(e):
                raise
    raise invalid(name, _typestr(obj), "dtype must be int32 or int64")


def _typestr(obj):
    try:
        return f"typestr {obj.__cuda_array_interface__['typestr']}"
    except Exception:  # noqa: BLE001
        return type(obj).__name__
