"""The batched eager loop's bookkeeping on the CPU (kvaddr.harness._EagerBatch), over numpy stand-ins for the
device: kvaddr's CUDA reference is the host route (as in test_gpu_api.py's fake device), the per-case device count
(kvaddr.device_ref.Counts) is a numpy count over the allocations DeviceExpected.batch_pairs names (restated here for
numpy arrays), and its wait returns the counts. Each campaign runs twice, batched and case by case
(_EagerBatch.applies False), and the two reports must be the same: cases, lanes, rejections, the failure's index,
kind, detail, lanes, names and replay directory. test_eager_batch_gpu.py runs the same comparison on a GPU."""
import os

import numpy as np
import pytest

import kvaddr.device_ref as D
import kvaddr.harness as H
import np_kernels as K
from kvaddr.conventions import host_kernel

B = D.BATCH


class FakeCounts:
    """device_ref.Counts over numpy: add() counts the differing elements of each (expected, actual) pair now."""

    reads = 0
    stream = 0  # the batch's stream (the reference's, on the staged path)

    def __init__(self, torch, device):
        self.counts = [0] * B

    def add(self, pairs, j, stream=None):
        assert 0 <= j < B
        self.counts[j] += sum(int(np.count_nonzero(np.asarray(a).ravel() != np.asarray(b).ravel())) for a, b in pairs)

    def read(self):
        FakeCounts.reads += 1
        out, self.counts = self.counts, [0] * B
        return out


class FakeCallTimes:
    """device_ref.CallTimes without a device: start / stop are logged (LOG), slot j's call took TICK * (j + 1)."""

    TICK = 2.0 ** -10  # exact in binary: the sums below compare exactly
    LOG = []

    def __init__(self, torch):
        pass

    def start(self, j):
        FakeCallTimes.LOG.append(("start", j))

    def stop(self, j):
        FakeCallTimes.LOG.append(("stop", j))

    def seconds(self, n):
        return [FakeCallTimes.TICK * (j + 1) for j in range(n)]


def _pairs(dev, p):
    """DeviceExpected.batch_pairs for numpy arrays: every output backing and the adjacent group against the
    expectation, every input backing against its pristine copy (a strided input's whole backing against its twin)."""
    pairs = [(dev.backing[n], p.out_backing[n]) for n in dev.backing]
    if dev.group is not None:
        pairs.append((dev.group, p.group))
    pairs += [(p.twin[("in", n)] if n in dev.case.strided else dev.pristine[n], b) for n, b in p.in_backing.items()]
    return pairs


@pytest.fixture
def device(monkeypatch):
    def count(a, b):
        d = np.flatnonzero(np.asarray(a).ravel() != np.asarray(b).ravel())
        return int(d.size), int(d[0]) if d.size else int(np.asarray(a).size)

    monkeypatch.setattr(D.gpu, "kernel", lambda route, variant="production": host_kernel(route, variant))
    monkeypatch.setattr(D.gpu, "count_differences", count)
    monkeypatch.setattr(H, "resolve_reference", lambda ref, fam: "cuda" if ref == "auto" else ref)
    monkeypatch.setattr(H, "Counts", FakeCounts)
    monkeypatch.setattr(H, "CallTimes", FakeCallTimes)
    FakeCallTimes.LOG = []
    monkeypatch.setattr(D.DeviceExpected, "batch_pairs", _pairs)
    FakeCounts.reads = 0


def both(monkeypatch, route, make_kernel, **kw):
    """(the batched report, its number of batch waits, the per-case report); make_kernel() gives a fresh kernel per
    campaign (a kernel that counts its calls)."""
    kw = {"isolate": False, "huge": False, **kw}
    with monkeypatch.context() as m:
        m.setattr(H._EagerBatch, "applies", staticmethod(lambda *a: True))
        batched = H.check(route, make_kernel(), **kw)
    reads = FakeCounts.reads
    with monkeypatch.context() as m:
        m.setattr(H._EagerBatch, "applies", staticmethod(lambda *a: False))
        if kw.get("replay_dir") is not None:
            kw["replay_dir"] = kw["replay_dir"] + "_per_case"
        per_case = H.check(route, make_kernel(), **kw)
    assert FakeCounts.reads == reads  # the per-case loop never waits on a batch
    return batched, reads, per_case


def same_report(a, b):
    """The batched report `a` is the per-case report `b` (the time-dependent fields aside)."""
    assert (a.cases, a.lanes, a.rejected, a.rejections, a.overflow) == (b.cases, b.lanes, b.rejected, b.rejections,
                                                                        b.overflow)
    assert a.ok == b.ok and (a.failure is None) == (b.failure is None)
    if a.failure is None:
        return
    fa, fb = a.failure, b.failure
    assert (fa.kind, fa.case_index, fa.detail, fa.differing, fa.shrink_steps) == (fb.kind, fb.case_index, fb.detail,
                                                                                  fb.differing, fb.shrink_steps)
    assert [str(x) for x in fa.first] == [str(x) for x in fb.first]
    assert (fa.behaves_like, fa.inferred, fa.not_explained) == (fb.behaves_like, fb.inferred, fb.not_explained)
    assert (fa.replay_dir is None) == (fb.replay_dir is None)
    if fa.replay_dir is not None:
        assert os.path.basename(fa.replay_dir) == os.path.basename(fb.replay_dir)
        assert sorted(os.listdir(fa.replay_dir)) == sorted(os.listdir(fb.replay_dir))


PASSING = {"token_translate": K.translate_v2p, "write_loc": K.write_loc, "read_table": K.read_table,
           "decode_metadata": K.decode_metadata}


@pytest.mark.parametrize("overflow", ["skip", "observe"])
@pytest.mark.parametrize("route", sorted(PASSING))
def test_a_passing_kernel_passes_with_the_same_counts(device, monkeypatch, route, overflow):
    n = 2 * B + 40  # two full batches and a partial one
    batched, reads, per_case = both(monkeypatch, route, lambda: PASSING[route], cases=n, seed=3, lanes=256,
                                    overflow=overflow)
    assert batched.ok and batched.reference == "cuda", str(batched)
    assert batched.cases + batched.rejected == n
    if overflow == "skip":  # a skipped overflow case is noted in order, without a wait
        assert reads == -(-batched.cases // B)
    else:  # an observed one runs on the per-case path after the pending cases are settled
        assert reads >= -(-batched.cases // B)
    same_report(batched, per_case)


@pytest.mark.parametrize("route,kernel", [("read_table", K.read_table_no_bound),
                                          ("token_translate", K.translate_v2p_doc_formula),
                                          ("write_loc", K.write_loc_stale_tail),
                                          ("decode_metadata", K.decode_metadata_batch_rows)])
def test_a_planted_kernel_fails_on_the_same_case_with_the_same_report(device, monkeypatch, tmp_path, route, kernel):
    batched, reads, per_case = both(monkeypatch, route, lambda: kernel, cases=2 * B + 40, seed=1, lanes=256,
                                    replay_dir=str(tmp_path / "r"))
    assert not batched.ok and reads >= 1, str(batched)
    same_report(batched, per_case)


def nth_call(n, action, inner=K.write_loc):
    """A kernel factory: write_loc's kernel `inner` (the host one by default) that does action(kwargs) after its
    n-th call (0-based)."""
    def make():
        calls = []

        def kernel(**kw):
            calls.append(1)
            inner(**kw)
            return action(kw) if len(calls) == n + 1 else None

        return kernel

    return make


def _raise(kw):
    raise RuntimeError("planted raise")


def _write_input(kw):
    kw["v2p"][0] += 1


def _store_wrong(kw):
    kw["out"].reshape(-1)[0] ^= 1


def _fresh_return(kw):
    return kw["out"] * 1  # a fresh array equal to the output (numpy or torch): accepted, compared as returned


# (what the kernel does after one call, the failure kind it makes or None)
ACTIONS = [(_raise, "raised"), (_write_input, "input_modified"), (_store_wrong, "mismatch"), (_fresh_return, None)]


@pytest.mark.parametrize("action,kind", ACTIONS)
@pytest.mark.parametrize("n", [0, B - 1, B, B + 37])
def test_a_planted_call_is_reported_alike_wherever_it_falls_in_a_batch(device, monkeypatch, action, kind, n):
    batched, _, per_case = both(monkeypatch, "write_loc", nth_call(n, action), cases=2 * B + 40, seed=2, lanes=256,
                                shrink=False, overflow="skip")  # every call a counted case
    if kind is None:
        assert batched.ok, str(batched)
    else:
        assert batched.failure.kind == kind, str(batched)
        assert batched.cases == n + 1  # the n-th call is the last case run
    same_report(batched, per_case)


def test_the_lanes_budget_stops_at_the_same_case(device, monkeypatch):
    batched, _, per_case = both(monkeypatch, "token_translate", lambda: K.translate_v2p, cases=10**6, seed=5,
                                lanes=256, lanes_budget=50_000)
    assert batched.ok and batched.lanes >= 50_000
    same_report(batched, per_case)


def test_each_batched_call_is_timed_between_two_events_and_its_device_time_reported(device, monkeypatch):
    def kernel(**kw):
        FakeCallTimes.LOG.append(("call",))
        return K.write_loc(**kw)

    n = 2 * B + 40
    with monkeypatch.context() as m:
        m.setattr(H._EagerBatch, "applies", staticmethod(lambda *a: True))
        rep = H.check("write_loc", kernel, cases=n, seed=2, lanes=256, isolate=False, huge=False, overflow="skip")
    assert rep.ok and rep.cases == 518 and rep.rejected == n - 518, str(rep)  # the rejected cases call nothing
    # every call between the events of its slot: run case k of a batch in slot k, the slots from 0 again per batch
    slots = [k % B for k in range(rep.cases)]
    assert FakeCallTimes.LOG == [e for j in slots for e in (("start", j), ("call",), ("stop", j))]
    # the device time is the events' (two full batches and one of 6), apart from the host time of the calls
    per_batch = [sum(FakeCallTimes.TICK * (j + 1) for j in range(b)) for b in (B, B, 6)]
    assert rep.kernel_device_seconds == sum(per_batch)
    assert rep.kernel_seconds != rep.kernel_device_seconds
    with monkeypatch.context() as m:  # case by case: no events, no device time
        m.setattr(H._EagerBatch, "applies", staticmethod(lambda *a: False))
        FakeCallTimes.LOG = []
        per_case = H.check("write_loc", kernel, cases=n, seed=2, lanes=256, isolate=False, huge=False,
                           overflow="skip")
    assert per_case.ok and per_case.kernel_device_seconds == 0.0 and FakeCallTimes.LOG == [("call",)] * 518


@pytest.mark.parametrize("cap", [1, 10**12])
def test_a_batch_is_settled_early_once_its_kept_buffers_reach_the_byte_bound(device, monkeypatch, cap):
    # every case keeps its backings and their twins on the device until the wait: large cases must not pile up
    # 256 deep; a bound of one byte settles after every run case, one far above the run once, after the last
    monkeypatch.setattr(H, "PENDING_BYTES", cap)
    batched, reads, per_case = both(monkeypatch, "token_translate", lambda: K.translate_v2p, cases=60, seed=4,
                                    lanes=256, overflow="skip")
    assert batched.ok and batched.cases + batched.rejected == 60 and batched.cases == 57, str(batched)
    assert reads == (57 if cap == 1 else 1)
    same_report(batched, per_case)


def test_the_batched_loop_applies_only_where_it_can():
    class Rep:
        reference = "cuda"

    class Fam:
        name, device = "torch", "cuda"

    applies = H._EagerBatch.applies
    assert not applies(Rep, type("F", (), {"name": "numpy", "device": "cpu"}), len, None)
    assert not applies(Rep, Fam, len, 1.0)  # a case_timeout: timed per case
    Rep.reference = "host"
    assert not applies(Rep, Fam, len, None)


def test_copy_to_device_checks_its_arguments_before_any_copy():
    # kvaddr._gpu.copy_to_device (the arena's staging copy): each rule on both sides, checked before CUDA is called
    gpu_ext = pytest.importorskip("kvaddr._gpu", reason="kvaddr._gpu is not built (no nvcc)")
    from kvaddr import _core

    for args, argument, value in [((8, 8, -1, 0), "bytes", "-1"), ((0, 8, 1, 0), "dst", "0"),
                                  ((8, 0, 1, 0), "src", "0"), ((8, 8, 0, 0, 0), "copies", "0"),
                                  ((8, 8, 0, 0, 17), "copies", "17"),
                                  ((8, 8, (2**63 - 1) // 16 + 1, 0, 16), "bytes", str((2**63 - 1) // 16 + 1))]:
        with pytest.raises(_core.InvalidArgument) as e:
            gpu_ext.copy_to_device(*args)
        assert (e.value.argument, e.value.value) == (argument, value)
    for copies in (1, 16):  # 0 bytes: nothing to copy, null addresses allowed
        assert gpu_ext.copy_to_device(0, 0, 0, 0, copies) is None
    with pytest.raises(_core.InvalidArgument) as e:  # (2**63 - 1) // 16 bytes 16 times fits int64: the next rule
        gpu_ext.copy_to_device(0, 8, (2**63 - 1) // 16, 0, 16)
    assert e.value.argument == "dst"
    # head (the first bytes copied once more after the copies): 0 to bytes, and the end must fit int64
    big = (2**63 - 1) // 16  # 16 * big = 2**63 - 16
    for args, value in [((8, 8, 4, 0, 1, -1), "-1"), ((8, 8, 4, 0, 1, 5), "5"), ((8, 8, 0, 0, 1, 1), "1"),
                        ((8, 8, big, 0, 16, 16), "16")]:
        with pytest.raises(_core.InvalidArgument) as e:
            gpu_ext.copy_to_device(*args)
        assert (e.value.argument, e.value.value) == ("head", value)
    assert gpu_ext.copy_to_device(0, 0, 0, 0, 1, 0) is None
    for args in [(0, 8, 4, 0, 1, 4), (0, 8, 4, 0, 1, 0), (0, 8, big, 0, 16, 15)]:  # head accepted: the next rule
        with pytest.raises(_core.InvalidArgument) as e:
            gpu_ext.copy_to_device(*args)
        assert e.value.argument == "dst"


def counting_reference(monkeypatch):
    """Patch kvaddr's CUDA reference (kvaddr.gpu.kernel, the host route here) with one that counts its launches;
    returns the list of launches (one entry per call, the route)."""
    launches = []

    def make(route, variant="production"):
        inner = host_kernel(route, variant)

        def launch(**kw):
            launches.append(route)
            return inner(**kw)

        return launch

    monkeypatch.setattr(D.gpu, "kernel", make)
    D._KERNELS.clear()  # built once per (kvaddr.gpu.kernel, route, variant): the new factory's launches
    return launches


@pytest.mark.parametrize("route,kernel", [("read_table", K.read_table_no_bound),
                                          ("decode_metadata", K.decode_metadata_batch_rows),
                                          ("write_loc", K.write_loc_stale_tail)])
def test_under_auto_the_batched_loop_launches_no_device_reference_and_flags_a_wrong_kernel(device, monkeypatch,
                                                                                        tmp_path, route, kernel):
    # reference="auto": every case's expected allocations are the host reference's outputs, staged as the twins;
    # kvaddr's CUDA kernel is never launched, and the failure is the per-case loop's (which does launch it)
    launches = counting_reference(monkeypatch)
    kw = {"isolate": False, "huge": False, "cases": 2 * B + 40, "seed": 1, "lanes": 256, "shrink": False}
    with monkeypatch.context() as m:
        m.setattr(H._EagerBatch, "applies", staticmethod(lambda *a: True))
        batched = H.check(route, kernel, replay_dir=str(tmp_path / "b"), **kw)
        assert launches == []
        batched_ok = H.check(route, PASSING[route], **kw)
        assert launches == []
    assert not batched.ok and batched.reference == "cuda" and batched_ok.ok, str(batched)
    with monkeypatch.context() as m:
        m.setattr(H._EagerBatch, "applies", staticmethod(lambda *a: False))
        per_case = H.check(route, kernel, replay_dir=str(tmp_path / "p"), **kw)
    assert len(launches) == per_case.cases  # the per-case loop's device reference: once per case run
    same_report(batched, per_case)


@pytest.mark.parametrize("route", ["read_table", "token_translate"])
def test_under_cuda_the_batched_loop_launches_kvaddrs_kernel_per_case(device, monkeypatch, route):
    # reference="cuda" keeps kvaddr's CUDA kernel as the reference: one launch per case run, batched or not
    launches = counting_reference(monkeypatch)
    batched, _, per_case = both(monkeypatch, route, lambda: PASSING[route], cases=B + 40, seed=1, lanes=256,
                                reference="cuda")
    assert batched.ok and batched.cases > B, str(batched)
    assert len(launches) == batched.cases + per_case.cases
    same_report(batched, per_case)


@pytest.mark.parametrize("route,kernel", [("read_table", K.read_table_no_bound),
                                          ("decode_metadata", K.decode_metadata_batch_rows)])
def test_under_cuda_a_planted_kernel_fails_on_the_same_case_with_the_same_report(device, monkeypatch, tmp_path,
                                                                                route, kernel):
    batched, reads, per_case = both(monkeypatch, route, lambda: kernel, cases=2 * B + 40, seed=1, lanes=256,
                                    replay_dir=str(tmp_path / "r"), reference="cuda")
    assert not batched.ok and reads >= 1, str(batched)
    same_report(batched, per_case)


def test_stage_with_given_twins_checks_them_and_puts_them_second():
    from kvaddr import arrays, present

    fam = arrays.family("cpu")
    host = [np.arange(6, dtype=np.int32), np.arange(4, dtype=np.int64)]
    twins = [np.full(6, 7, np.int32), np.full(4, -1, np.int64)]
    out = present.stage(fam, host, twins=twins)
    assert [o.tolist() for o in out] == [list(range(6)), list(range(4)), [7] * 6, [-1] * 4]
    assert [o.tolist() for o in present.stage(fam, host, twins=True)[2:]] == [list(range(6)), list(range(4))]
    assert [o.tolist() for o in present.stage(fam, host, twins=[None, twins[1]])[2:]] == [list(range(6)), [-1] * 4]
    pieces = [(np.arange(2, dtype=np.int32), np.arange(4, dtype=np.int32) + 2), np.arange(4, dtype=np.int64)]
    assert [o.tolist() for o in present.stage(fam, pieces, twins=[None, (twins[1][:1], twins[1][1:])])] == \
        [list(range(6)), list(range(4)), list(range(6)), [-1] * 4]  # a backing's pieces back to back, a twin's too
    for bad, why in [(twins[:1], "twins = 1 arrays: one per array: 2"),
                     ([twins[0], np.full(4, -1, np.int32)],
                      "twins\\[1\\] = int32\\[4\\]: a twin has its array's dtype and size: int64\\[4\\]"),
                     ([twins[0], np.full(5, -1, np.int64)],
                      "twins\\[1\\] = int64\\[5\\]: a twin has its array's dtype and size: int64\\[4\\]"),
                     ([twins[0], np.full(3, -1, np.int64)],
                      "twins\\[1\\] = int64\\[3\\]: a twin has its array's dtype and size: int64\\[4\\]"),
                     ([twins[0], (np.zeros(2, np.int64), np.zeros(2, np.int32))],
                      "twins\\[1\\]\\[1\\] = int32: every piece of a backing has its first piece's dtype int64"),
                     ([twins[0], ()], "twins\\[1\\] = \\(\\): a backing has at least one piece"),
                     ([twins[0], (1, 2)], "twins\\[1\\]\\[0\\] = int: a numpy array"),
                     ([twins[0], [twins[1][:1], twins[1][1:]]], "twins\\[1\\] = list: a numpy array"),
                     ([twins[0], np.array([None] * 4, dtype=object)],
                      "twins\\[1\\] = object: must be a numeric"),
                     ("all", "twins = 'all': must be None, a bool or a list")]:
        with pytest.raises(ValueError, match=why):
            present.stage(fam, host, twins=bad)


def test_presented_twins_hold_the_expected_allocations_when_given():
    from kvaddr import arrays, cases, conventions, present

    fam = arrays.family("cpu")
    for route in ("read_table", "decode_metadata", "token_translate"):
        for i in range(30):
            case = H._build(route, cases.draw_recipe(route, cases.rng_for(5, i), 128, None))
            try:
                exp = conventions.reference(case, table_guards=True)
            except H._core.Error:
                continue
            p = present.Presented(fam, case, twins=True, expected=exp)
            for name in p.out_backing:
                assert np.array_equal(p.twin[("out", name)], present.guarded(exp[name]))
                assert np.array_equal(p.out_backing[name], present.guarded(case.outputs[name]))
            for name in p.in_backing:  # an input's twin: its pristine copy
                assert np.array_equal(p.twin[("in", name)], p.in_backing[name])
            if case.adjacent:
                assert np.array_equal(p.twin[("group",)], H.adjacent.host_backing(case, outputs=exp))


def test_stage_layout_on_a_fake_device():
    # present.stage's staging path (torch on CUDA) over numpy stand-ins: pinned host and device memory are numpy
    # buffers, kvaddr._gpu.copy_to_device is emulated with its documented semantics (the host-to-device copy of
    # `bytes`, copies - 1 repeats, then the first `head` bytes once more after them); every Staged's address must
    # then hold its array, or its twin (given, or a copy of the array)
    import ctypes
    import types

    from kvaddr import present

    def copy_to_device(dst, src, nbytes, stream, copies=1, head=0):
        assert 0 <= head <= nbytes and 1 <= copies <= 16
        ctypes.memmove(dst, src, nbytes)
        for k in range(1, copies):
            ctypes.memmove(dst + k * nbytes, dst, nbytes)
        if head:
            ctypes.memmove(dst + copies * nbytes, dst, head)

    def aligned(buf):  # 1 << 16 bytes of `buf` from a 256-byte aligned address (as torch's allocations)
        at = -buf.ctypes.data % 256
        return buf[at:at + (1 << 16)]

    class FakeArena:
        stream = 0

        def __init__(self):
            self.host, self.dev = aligned(np.zeros(1 << 17, np.uint8)), aligned(np.full(1 << 17, 0xAB, np.uint8))
            self.used = 0

        def take(self, nbytes):
            at, self.used = self.used, self.used + nbytes
            return (self.host, self.host.ctypes.data, self.dev, self.dev.ctypes.data, {}, None), at

    fake_torch = types.SimpleNamespace(from_numpy=lambda a: a)
    fam = types.SimpleNamespace(name="torch", device="cuda", torch=fake_torch)
    host = [np.arange(40, dtype=np.int64) - 7, np.arange(12, dtype=np.int32).reshape(3, 4), np.arange(300) * 3,
            np.arange(5, dtype=np.int32), np.zeros(0, np.int32)]
    given = [np.full(40, 5, np.int64), None, np.full(300, -2, np.int64), None, None]
    arena = FakeArena()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(present.gpu, "_gpu", types.SimpleNamespace(copy_to_device=copy_to_device))
        m.setattr(present, "_TORCH_DTYPES", {})  # the cache of numpy -> torch dtypes: a real torch's, after other tests
        for twins, want in [(given, host + [t if t is not None else a for a, t in zip(host, given)]),
                            (True, host + host), (False, host), ([None] * 5, host + host),
                            ([np.full(a.shape, 9, a.dtype) for a in host], host + [np.full(a.shape, 9, a.dtype)
                                                                                  for a in host])]:
            out = present.stage(fam, host, twins=twins, arena=arena)
            assert len(out) == len(want)
            ends = []
            for a, s in zip(want, out):
                assert s.ptr % 256 == 0 and s.shape == a.shape and s.dtype == a.dtype
                off = s.ptr - arena.dev.ctypes.data
                got = arena.dev[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
                assert np.array_equal(got, a), (twins is True, twins is False, off)
                ends.append((off, off + a.nbytes))
            spans = sorted(e for e in ends if e[1] > e[0])
            assert all(x[1] <= y[0] for x, y in zip(spans, spans[1:]))  # no two copies overlap


def test_stage_pack_checks_the_buffer_take_returns_and_writes_nothing_into_a_bad_one():
    from kvaddr import _core

    arrays = [np.arange(6, dtype=np.int32), (np.arange(2, dtype=np.int64), np.arange(3, dtype=np.int64))]
    # S: arrays[1] (40 bytes, slot 256) after arrays[0] (24 bytes, slot 256); D = 0; S' after S: 1024 bytes in all
    buf = np.full(1024 + 16, 0x5A, np.uint8)
    at, twin_at, s, d, total, sizes = _core.stage_pack(arrays, True, lambda n: (buf, 16))
    assert (at, twin_at, s, d, total, sizes) == ([0, 256], [512, 768], 512, 0, 1024, [6, 5])
    assert buf[16:40].view(np.int32).tolist() == list(range(6))
    assert buf[16 + 256:16 + 296].view(np.int64).tolist() == [0, 1, 0, 1, 2]
    assert (buf[:16] == 0x5A).all() and (buf[16 + 296:] == 0x5A).all()  # nothing past the pieces (S' is the device's)
    assert _core.stage_pack([np.zeros(1, np.int8)], False, lambda n: (np.zeros(n, np.uint8), 0))[4] == 256  # at least
    for take, why in [(lambda n: (np.zeros(n - 1, np.uint8), 0), "must leave room for 1024"),
                      (lambda n: (np.zeros(n + 8, np.uint8), 9), "must leave room for 1024"),
                      (lambda n: (np.zeros(n, np.uint8), -1), "must leave room for 1024"),
                      (lambda n: (np.zeros(n, np.int8), 0), "a writable contiguous 1-D uint8 array"),
                      (lambda n: (np.zeros((n, 2), np.uint8)[:, 0], 0), "a writable contiguous 1-D uint8 array"),
                      (lambda n: (np.zeros(n, np.uint8),), "must return \\(buffer, start\\)"),
                      (lambda n: [np.zeros(n, np.uint8), 0], "take = list: must return \\(buffer, start\\)"),
                      (lambda n: (np.zeros(n, np.uint8), 0.0), "must return \\(buffer, start\\)"),
                      (lambda n: None, "take = NoneType: must return"),
                      (lambda n: (np.zeros(n, np.uint8), 1 << 64), "take = start 18446744073709551616: must fit int64")]:
        with pytest.raises(_core.InvalidArgument, match=why):
            _core.stage_pack(arrays, True, take)
    frozen = np.full(1024, 3, np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(_core.InvalidArgument, match="writable"):
        _core.stage_pack(arrays, True, lambda n: (frozen, 0))
    exact = np.full(1024, 3, np.uint8)
    _core.stage_pack(arrays, True, lambda n: (exact, 0))  # room for exactly `total` is enough
    called = []
    with pytest.raises(_core.InvalidArgument, match="arrays\\[1\\]\\[1\\] = int32"):  # checked before take is called
        _core.stage_pack([arrays[0], (np.zeros(2, np.int64), np.zeros(2, np.int32))], True,
                         lambda n: called.append(n) or (np.zeros(n, np.uint8), 0))
    assert called == []


def test_stage_pack_refuses_arrays_take_changed_and_a_buffer_over_its_sources():
    """take() is Python: an array it resizes (numpy's resize(refcheck=False) moves the data) would be copied with its
    new size into the slot planned for the old one, and a buffer overlapping a source would be copied over itself:
    both are an InvalidArgument and nothing is written."""
    from kvaddr import _core

    a = np.arange(4, dtype=np.int64)
    buf = np.full(4096, 0x5A, np.uint8)

    def resize(n):
        a.resize(100000, refcheck=False)
        return buf, 0

    with pytest.raises(_core.InvalidArgument, match="arrays\\[0\\] = 32 bytes when planned: changed"):
        _core.stage_pack([a], None, resize)
    assert (buf == 0x5A).all()
    piece = np.arange(3, dtype=np.int64)
    twin = np.zeros(3, np.int64)
    with pytest.raises(_core.InvalidArgument, match="twins\\[0\\]\\[1\\] = 24 bytes when planned"):
        _core.stage_pack([piece], [(np.zeros(0, np.int64), twin)], lambda n: (twin.resize(50, refcheck=False), (buf, 0))[1])
    assert (buf == 0x5A).all()
    # the source is bytes [0, 32) of the buffer: a buffer starting at its last byte overlaps it, one just past it not
    mem = np.zeros(32 + 512, np.uint8)
    src = mem[:32].view(np.int64)
    src[:] = [7, 8, 9, 10]
    with pytest.raises(_core.InvalidArgument, match="take = its buffer: overlaps arrays\\[0\\]"):
        _core.stage_pack([src], None, lambda n: (mem, 31))
    assert src.tolist() == [7, 8, 9, 10] and (mem[32:] == 0).all()
    assert _core.stage_pack([src], None, lambda n: (mem, 32))[0] == [0]
    assert mem[32:64].view(np.int64).tolist() == [7, 8, 9, 10]
