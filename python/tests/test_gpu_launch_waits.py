"""kvaddr.gpu.kernel's waits (a GPU with torch; skipped without): a strided input is copied contiguous on the
current stream and the launch on that stream needs no wait for the copy (torch's caching allocator orders the
copy's reuse by that stream), so the call returns without synchronising; a launch on another stream waits for
the copy before and after, as before. The batched eager loop (kvaddr.harness) calls kvaddr's kernel as the kernel
under test in python/bench/harness_speed.py: a wait there would charge the harness's queued device work (the
case's staging copy) to the kernel's time."""
import numpy as np
import pytest

import np_kernels as K

torch = pytest.importorskip("torch")
import kvaddr.gpu as G  # noqa: E402

pytestmark = pytest.mark.skipif(not (torch.cuda.is_available() and G.available()),
                                reason="needs a CUDA device with kvaddr._gpu and torch")


class Waits:
    """kvaddr._gpu with its synchronize() calls counted."""

    def __init__(self, real):
        self.real, self.n = real, 0

    def synchronize(self, stream):
        self.n += 1
        return self.real.synchronize(stream)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _strided_case():
    rng = np.random.default_rng(7)
    page_size, multiplier, pages = 4, 3, 64
    v2p = rng.permutation(pages).astype(np.int64)
    virt = rng.integers(0, pages * page_size, size=1001).astype(np.int64)
    spread = np.full(2 * virt.size, -7777, np.int64)
    spread[::2] = virt
    expected = np.zeros(virt.size, np.int64)
    K.translate_v2p(virt, v2p, page_size, page_size * multiplier, expected)
    dev = {"virt": torch.from_numpy(spread).cuda()[::2], "v2p": torch.from_numpy(v2p).cuda(),
           "page_size": page_size, "page_stride": page_size * multiplier,
           "out": torch.zeros(virt.size, dtype=torch.int64, device="cuda")}
    return dev, expected


@pytest.mark.parametrize("own_stream", [False, True])
def test_a_strided_input_waits_only_for_a_launch_on_another_stream(monkeypatch, own_stream):
    waits = Waits(G._gpu)
    monkeypatch.setattr(G, "_gpu", waits)
    kernel = G.kernel("token_translate")
    kw, expected = _strided_case()
    assert not kw["virt"].is_contiguous()  # the call makes a contiguous copy (a temporary)
    torch.cuda.synchronize()
    if own_stream:
        s = torch.cuda.Stream()
        kernel(stream=s.cuda_stream, **kw)
        assert waits.n == 2  # for the copy made on the current stream, and before the copy is freed
    else:
        kernel(**kw)
        assert waits.n == 0
    torch.cuda.synchronize()
    np.testing.assert_array_equal(kw["out"].cpu().numpy(), expected)


def test_a_contiguous_call_never_waits(monkeypatch):
    waits = Waits(G._gpu)
    monkeypatch.setattr(G, "_gpu", waits)
    kw, expected = _strided_case()
    kw["virt"] = kw["virt"].contiguous()
    torch.cuda.synchronize()
    G.kernel("token_translate")(**kw)
    assert waits.n == 0
    torch.cuda.synchronize()
    np.testing.assert_array_equal(kw["out"].cpu().numpy(), expected)
