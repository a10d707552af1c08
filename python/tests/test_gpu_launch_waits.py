"""kvaddr.gpu.kernel's waits (a GPU with torch; skipped without): a strided input is copied contiguous on the
current stream and the launch on that stream needs no wait for the copy (torch's caching allocator orders the
copy's reuse by that stream), so the call returns without synchronising; a launch on another stream waits for
the copy before and after, as before. The batched eager loop (kvaddr.harness) calls kvaddr's kernel as the kernel
under test in python/bench/harness_speed.py: a wait there would charge the harness's queued device work (the
case's staging copy) to the kernel's time."""
import sys
import types

import numpy as np
import pytest

import kvaddr.gpu as G
import np_kernels as K

try:
    import torch
except ImportError:
    torch = None

on_gpu = pytest.mark.skipif(torch is None or not torch.cuda.is_available() or not G.available(),
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


@on_gpu
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


@on_gpu
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


class _Log:
    """kvaddr._gpu stand-in: logs synchronize(stream) and launch(route, fields, stream)."""

    def __init__(self):
        self.calls = []

    def synchronize(self, stream):
        self.calls.append(("sync", stream))

    def launch(self, route, fields, stream):
        self.calls.append(("launch", stream))


@pytest.mark.parametrize("temps,stream,want", [
    ([], None, [("launch", 5)]),  # nothing copied: no wait
    (["torch"], None, [("launch", 5)]),  # a torch copy, launched on the current stream (5): no wait
    (["torch"], 5, [("launch", 5)]),  # the same stream given by number
    (["torch"], 9, [("sync", 5), ("launch", 9), ("sync", 9)]),  # another stream: before and after
    (["torch", "cupy"], None, [("sync", 5), ("launch", 5), ("sync", 5)]),  # a CuPy copy: its pool, not torch's
    (["cupy"], None, [("sync", 5), ("launch", 5), ("sync", 5)]),
])
def test_the_launch_waits_for_its_copies_only_off_the_current_stream_or_without_torch(monkeypatch, temps, stream,
                                                                                       want):
    # kvaddr.gpu.kernel's launch with the device calls replaced: the current stream is 5, marshal returns the
    # temporaries (the contiguous / widened copies it made) as given
    class Tensor:
        pass

    fake_torch = types.SimpleNamespace(Tensor=Tensor)
    log = _Log()
    made = {"torch": Tensor, "cupy": object}
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    monkeypatch.setattr(G, "_gpu", log)
    monkeypatch.setattr(G, "_require", lambda: None)
    monkeypatch.setattr(G, "default_stream", lambda: 5)
    monkeypatch.setattr(G, "_capturing", lambda: False)
    monkeypatch.setattr(G, "marshal", lambda route, kwargs, check: ({}, [made[t]() for t in temps]))
    k = G.kernel("token_translate")
    assert k(**({} if stream is None else {"stream": stream})) is None
    assert log.calls == want


def test_no_wait_while_capturing(monkeypatch):
    log = _Log()
    monkeypatch.setattr(G, "_gpu", log)
    monkeypatch.setattr(G, "_require", lambda: None)
    monkeypatch.setattr(G, "default_stream", lambda: 5)
    monkeypatch.setattr(G, "_capturing", lambda: True)
    monkeypatch.setattr(G, "marshal", lambda route, kwargs, check: ({}, [object()]))
    G.kernel("token_translate")(stream=9)
    assert log.calls == [("launch", 9)]
