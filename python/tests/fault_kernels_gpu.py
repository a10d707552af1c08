"""CUDA subjects (torch; Triton where installed) that fault, store far past their output, hang or raise, for
test_isolate_gpu.py. Module-level functions, so that the spawned worker imports them by reference. Each is the
correct translate_v2p (torch ops) on up to two ids and misbehaves from three on."""
import time

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # the Triton subjects are skipped by the test
    triton = None


def translate_v2p(virt, v2p, page_size, page_stride, out):
    t = virt.reshape(-1).to(torch.int64)
    neg = t < 0
    tt = torch.where(neg, torch.zeros_like(t), t)
    d = torch.clamp(v2p[tt // page_size] * page_stride + tt % page_size, min=0)
    out.view(-1).copy_(torch.where(neg, torch.zeros_like(d), d))


if triton is not None:
    @triton.jit
    def _load_at(src_ptr, dst_ptr, OFF: tl.constexpr):
        tl.store(dst_ptr, tl.load(src_ptr + OFF))  # no mask: a load at src + OFF whatever it is

    @triton.jit
    def _store_at(dst_ptr, OFF: tl.constexpr):
        tl.store(dst_ptr + OFF, 4242)


def illegal_address(virt, v2p, page_size, page_stride, out):
    """An unmasked Triton load 2^40 elements past v2p: CUDA illegal address, the context is lost."""
    translate_v2p(virt, v2p, page_size, page_stride, out)
    if virt.numel() > 2:
        _load_at[(1,)](v2p, out, OFF=1 << 40)


def stores_2000_past_out(virt, v2p, page_size, page_stride, out):
    """One store 2000 lanes past the end of out (inside the 64 KiB device guard)."""
    translate_v2p(virt, v2p, page_size, page_stride, out)
    if virt.numel() > 2:
        _store_at[(1,)](out.view(-1)[out.numel() - 1:], OFF=2000)


def sleeps(virt, v2p, page_size, page_stride, out):
    if virt.numel() > 2:
        time.sleep(60)
    translate_v2p(virt, v2p, page_size, page_stride, out)


def raises(virt, v2p, page_size, page_stride, out):
    if virt.numel() > 2:
        raise RuntimeError("launch failed: grid too large")
    translate_v2p(virt, v2p, page_size, page_stride, out)
