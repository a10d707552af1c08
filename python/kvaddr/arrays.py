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


def family(device="cpu", array=None):
    """The array family for `device` ('cpu' or 'cuda'); `array` picks 'numpy', 'torch' or 'cupy'."""
    if device not in ("cpu", "cuda") and not str(device).startswith("cuda:"):
        raise ValueError(f"device = {device!r}: must be 'cpu' or 'cuda'")
    if array is None:
        if device == "cpu":
            return Family()
        try:
            import torch  # noqa: F401

            array = "torch"
        except ImportError:
            array = "cupy"
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
