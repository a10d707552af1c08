"""Array families the harness hands to kernels: numpy (CPU), torch (CPU or CUDA), CuPy (CUDA).

Host arrays enter a family through DLPack (``torch.from_dlpack``, ``cupy.from_dlpack``) and come back
through DLPack on the CPU (``numpy.from_dlpack``) or the family's device-to-host copy on CUDA.
"""
from __future__ import annotations

import numpy as np


class Family:
    name = "numpy"
    device = "cpu"

    def put(self, a):
        """A fresh array of this family holding a copy of host array `a`."""
        return np.array(a, copy=True)

    def get(self, d):
        """A host numpy copy of `d`."""
        return np.array(d, copy=True)

    def sync(self):
        pass

    def same_buffer(self, x, y):
        return np.shares_memory(x, y)

    def copy_into(self, dst, host):
        """Overwrite device array `dst` (same shape) with host array `host`."""
        dst[...] = host


class TorchFamily(Family):
    name = "torch"

    def __init__(self, device):
        import torch

        self.torch = torch
        self.device = device

    def put(self, a):
        t = self.torch.from_dlpack(np.ascontiguousarray(a).copy())
        return t.to(self.device) if self.device != "cpu" else t

    def get(self, d):
        if not isinstance(d, self.torch.Tensor):
            return host_copy(d)
        return np.from_dlpack(d.detach().cpu()).copy()

    def sync(self):
        if self.device != "cpu":
            self.torch.cuda.synchronize()

    def same_buffer(self, x, y):
        return isinstance(y, self.torch.Tensor) and x.data_ptr() == y.data_ptr()

    def copy_into(self, dst, host):
        dst.copy_(self.torch.from_dlpack(np.ascontiguousarray(host)).to(dst.device), non_blocking=False)


class CupyFamily(Family):
    name = "cupy"
    device = "cuda"

    def __init__(self):
        import cupy

        self.cp = cupy

    def put(self, a):
        return self.cp.asarray(np.ascontiguousarray(a))

    def get(self, d):
        if isinstance(d, self.cp.ndarray):
            return self.cp.asnumpy(d)
        return host_copy(d)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def same_buffer(self, x, y):
        return isinstance(y, self.cp.ndarray) and x.data.ptr == y.data.ptr

    def copy_into(self, dst, host):
        dst[...] = self.cp.asarray(np.ascontiguousarray(host))


def host_copy(x):
    """Any array-like (numpy, DLPack producer on the CPU, torch / CuPy on CUDA) as a host numpy copy."""
    if isinstance(x, np.ndarray):
        return x.copy()
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return np.from_dlpack(x.detach().cpu()).copy()
    if mod == "cupy":
        return x.get()
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x).copy()
    return np.asarray(x).copy()


def _cuda_index(device):
    """The GPU index of a CUDA device string ('cuda' -> 0, 'cuda:N' -> N); ValueError naming `device` for any other
    value (a str 'cuda:' followed by anything but a decimal index, or not a str at all)."""
    if device == "cuda":
        return 0
    if isinstance(device, str) and device.startswith("cuda:"):
        n = device[len("cuda:"):]
        if n.isascii() and n.isdecimal() and len(n) <= 4:
            return int(n)
    raise ValueError(f"device = {device!r}: must be 'cpu', 'cuda' or 'cuda:N'")


def _require_gpu(device, array):
    """ValueError naming `device` unless `array`'s library ('torch' or 'cupy') imports, sees a GPU and has the one
    `device` names: the check fails on its argument instead of inside the first array it makes."""
    index = _cuda_index(device)
    try:
        if array == "torch":
            import torch

            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        else:
            import cupy

            count = cupy.cuda.runtime.getDeviceCount()
    except ImportError as e:
        raise ValueError(f"device = {device!r}: needs torch built with CUDA or CuPy ({e})") from None
    except Exception as e:  # the library is there, the driver or the runtime is not (cupy raises its own types)
        raise ValueError(f"device = {device!r}: {array} sees no CUDA device ({type(e).__name__}: {e})") from None
    if index >= count:
        raise ValueError(f"device = {device!r}: {array} sees {count} CUDA device(s)")


def family(device="cpu", array=None):
    """The array family for `device` ('cpu', 'cuda' or 'cuda:N'); `array` picks 'numpy', 'torch' or 'cupy'. A CUDA
    device that the array library cannot reach (not importable, no GPU, no GPU N) is a ValueError naming device."""
    if device != "cpu":
        _cuda_index(device)
    if array is None:
        if device == "cpu":
            return Family()
        try:
            import torch  # noqa: F401

            array = "torch"
        except ImportError:
            array = "cupy"
    if array in ("torch", "cupy") and device != "cpu":
        _require_gpu(device, array)
    if array == "numpy":
        if device != "cpu":
            raise ValueError("array = 'numpy': numpy arrays live on the CPU (device='cpu')")
        return Family()
    if array == "torch":
        return TorchFamily(device)
    if array == "cupy":
        if device == "cpu":
            raise ValueError("array = 'cupy': CuPy arrays live on the GPU (device='cuda')")
        return CupyFamily()
    raise ValueError(f"array = {array!r}: must be 'numpy', 'torch' or 'cupy'")
