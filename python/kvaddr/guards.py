"""Guards past the harness's 64-lane sentinel guards, for the isolated kernel call (kvaddr.isolate).

CPU: every buffer the kernel gets is copied into its own anonymous mapping laid out as

    PROT_NONE pages (PAGE_GUARD bytes) | slack (filled) | the buffer | slack (< 64 bytes, filled) | PROT_NONE pages

A store (or a load) past the slack touches a protected page and kills the isolated child with SIGSEGV; the call
is then re-run once with the pages readable and writable and filled with the slack's pattern, so that the lanes
a wild store wrote are found and reported (`out_of_bounds`, named by the buffer). A slack lane that changed is
reported the same way without a fault.

CUDA: every buffer is copied into a device allocation with DEVICE_GUARD bytes of the pattern on each side
(8192 int64 or 16384 int32 lanes: more than one 1024-thread block of a typical grid past the end), compared
after the call."""
from __future__ import annotations

import ctypes
import mmap

import numpy as np

PAGE = mmap.PAGESIZE
PAGE_GUARD = 16 * PAGE  # protected bytes on each side of a host buffer (64 KiB with 4 KiB pages)
DEVICE_GUARD = 64 * 1024  # pattern bytes on each side of a device buffer
ALIGN = 64
FILL = 0xA5  # the byte pattern of slack and guard bytes
PROT_NONE = 0  # <sys/mman.h>; the mmap module exports PROT_READ / PROT_WRITE only

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


def _round_up(n, k):
    return (n + k - 1) // k * k


class PagedBuffer:
    """`nbytes` bytes in a mapping between protected pages (open=False) or the same layout with the pages
    readable, writable and filled (open=True); `data` is the uint8 view of the buffer."""

    def __init__(self, nbytes, open_pages=False):
        self.nbytes = int(nbytes)
        body = _round_up(max(self.nbytes, 1), ALIGN)
        inner = _round_up(body, PAGE)
        self.map = mmap.mmap(-1, 2 * PAGE_GUARD + inner, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        self.all = np.frombuffer(self.map, dtype=np.uint8)
        self.start = PAGE_GUARD + inner - body  # the buffer ends within ALIGN bytes of the protected pages
        self.inner = (PAGE_GUARD, PAGE_GUARD + inner)
        if open_pages:
            self.all[:] = FILL
        else:  # only the slack around the buffer is ever read back
            self.all[self.inner[0]:self.start] = FILL
            self.all[self.start + self.nbytes:self.inner[1]] = FILL
        self.data = self.all[self.start:self.start + self.nbytes]
        self.open = open_pages
        if not open_pages:
            base = self.all.ctypes.data
            for off in (0, PAGE_GUARD + inner):
                if _libc.mprotect(ctypes.c_void_p(base + off), PAGE_GUARD, PROT_NONE) != 0:
                    raise OSError(ctypes.get_errno(), "mprotect failed")

    def root(self, dtype, shape):
        """The buffer as an array of `dtype` and `shape` whose base is the mapping itself."""
        n = self.nbytes // dtype.itemsize
        return np.frombuffer(self.map, dtype=dtype, count=n, offset=self.start).reshape(shape)

    def wild(self):
        """[(offset in bytes from the buffer's first byte (negative before it) or past its end, byte)] of the
        changed bytes outside the buffer (the slack; the pages too when open)."""
        lo, hi = (0, self.all.size) if self.open else self.inner
        end = self.start + self.nbytes
        before = self.all[lo:self.start]
        after = self.all[end:hi]
        out = [(int(k) + lo - self.start, "before") for k in np.flatnonzero(before != FILL)]
        out += [(int(k), "after") for k in np.flatnonzero(after != FILL)]
        return out, before, after


def device_guarded(torch, nbytes, device):
    """A uint8 device tensor of DEVICE_GUARD + nbytes + DEVICE_GUARD bytes, guards filled; (tensor, offset)."""
    t = torch.full((2 * DEVICE_GUARD + int(nbytes),), FILL, dtype=torch.uint8, device=device)
    return t, DEVICE_GUARD


def device_wild(torch, t, nbytes):
    """The changed guard bytes of a device_guarded tensor, as in PagedBuffer.wild (copied to the host only when
    something changed)."""
    g = DEVICE_GUARD
    before, after = t[:g], t[g + int(nbytes):]
    if int((before != FILL).sum() + (after != FILL).sum()) == 0:
        return [], None, None
    b, a = before.cpu().numpy(), after.cpu().numpy()
    out = [(int(k) - g, "before") for k in np.flatnonzero(b != FILL)]
    out += [(int(k), "after") for k in np.flatnonzero(a != FILL)]
    return out, b, a


def lanes(changed, itemsize, names):
    """Changed guard bytes grouped into lanes of `itemsize`: [(names, "guard_before" / "guard_after", lane)],
    lane 0 being the first lane past the allocation's end (or -1 the last one before its start)."""
    seen, out = set(), []
    for off, side in changed:
        lane = off // itemsize if side == "after" else -((-off + itemsize - 1) // itemsize)
        if (side, lane) not in seen:
            seen.add((side, lane))
            out.append((names, "guard_" + side, lane))
    return out
