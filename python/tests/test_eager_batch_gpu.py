"""GPU pytest: the batched eager loop (kvaddr.harness._EagerBatch: one device count per case, one wait per batch)
reports what the per-case loop reports: the same cases, lanes and rejections for a passing kernel, and the same first
failing case (index, kind, detail, first lanes, names, replay directory) for planted ones. The per-case loop is the
same campaign with _EagerBatch.applies patched to False. Skips without torch, CUDA or kvaddr._gpu."""
import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the batched eager loop runs on the GPU", allow_module_level=True)

import kvaddr  # noqa: E402
import kvaddr.gpu as G  # noqa: E402
from kvaddr import device_ref, harness  # noqa: E402
from test_eager_batch import ACTIONS, nth_call, same_report  # noqa: E402 - as on the CPU

if not G.available() or not device_ref.Counts.available():
    pytest.skip(f"kvaddr._gpu unavailable ({G.why_unavailable()})", allow_module_level=True)

ROUTES = ("read_table", "decode_metadata", "token_translate", "write_loc")
# catalogue mutants of kvaddr's own CUDA kernels, claimed as production (no Triton needed)
MUTANTS = {"read_table": "e10_batch_index_rows", "decode_metadata": "b09_no_padding_guard",
           "token_translate": "b17_doc_formula", "write_loc": "b06_stale_tail"}


def _both(monkeypatch, route, kernel, make=None, **kw):
    """(the batched report, the number of batch waits, the per-case report) of one campaign (isolate=False: the
    kernel in process, where the batched loop applies); make() gives a fresh kernel per campaign when given."""
    reads = []
    real = device_ref.Counts.read

    def spy(self):
        reads.append(1)
        return real(self)

    kw = {"device": "cuda", "isolate": False, "huge": False, **kw}
    with monkeypatch.context() as m:
        m.setattr(device_ref.Counts, "read", spy)
        batched = kvaddr.check(route, make() if make else kernel, **kw)
    with monkeypatch.context() as m:
        m.setattr(harness._EagerBatch, "applies", staticmethod(lambda *a: False))
        m.setattr(device_ref.Counts, "read", spy)
        n = len(reads)
        if kw.get("replay_dir") is not None:
            kw["replay_dir"] = kw["replay_dir"] + "_per_case"  # its own root: the same directory name under it
        per_case = kvaddr.check(route, make() if make else kernel, **kw)
        assert len(reads) == n  # the per-case loop never waits on a batch
    return batched, len(reads), per_case


@pytest.mark.parametrize("overflow", ["skip", "observe"])
@pytest.mark.parametrize("route", ROUTES)
def test_a_passing_kernel_passes_with_the_same_counts(monkeypatch, route, overflow):
    # 600 drawn cases: two full batches and a partial one
    batched, reads, per_case = _both(monkeypatch, route, G.kernel(route), cases=600, seed=3, lanes=4096,
                                     overflow=overflow)
    assert batched.ok, str(batched)
    assert batched.cases + batched.rejected == 600
    if overflow == "skip":  # a skipped overflow case is a rejection noted in order: one wait per BATCH cases run
        assert reads == -(-batched.cases // device_ref.BATCH)
    else:  # an observed one runs on the per-case path after the cases before it are settled (one more wait)
        assert reads >= -(-batched.cases // device_ref.BATCH)
    same_report(batched, per_case)


@pytest.mark.parametrize("route", ROUTES)
def test_a_catalogue_mutant_fails_on_the_same_first_case(monkeypatch, tmp_path, route):
    kernel = G.kernel(route, MUTANTS[route])
    batched, reads, per_case = _both(monkeypatch, route, kernel, cases=2000, seed=1, lanes=4096,
                                     replay_dir=str(tmp_path / "b"), shrink_seconds=60.0)
    assert not batched.ok, str(batched)
    assert reads >= 1
    assert batched.failure.replay_dir is not None and os.path.isdir(batched.failure.replay_dir)
    same_report(batched, per_case)


def test_lanes_budget_stops_at_the_same_case(monkeypatch):
    route = "token_translate"
    batched, _, per_case = _both(monkeypatch, route, G.kernel(route), cases=10**6, seed=5, lanes=4096,
                                 lanes_budget=300_000)
    assert batched.ok and batched.lanes >= 300_000
    same_report(batched, per_case)


@pytest.mark.parametrize("action,kind", ACTIONS)
def test_a_planted_call_past_the_first_batch_is_reported_alike(monkeypatch, action, kind):
    n = device_ref.BATCH + 37
    batched, _, per_case = _both(monkeypatch, "write_loc", None, cases=700, seed=2, lanes=4096, shrink=False,
                                 overflow="skip", make=nth_call(n, action, G.kernel("write_loc")))
    if kind is None:
        assert batched.ok and batched.cases + batched.rejected == 700
    else:
        assert batched.failure.kind == kind, str(batched)
        assert batched.cases == n + 1  # the n-th call is the last case run
    same_report(batched, per_case)


def test_counts_add_rejects_a_slot_outside_the_batch():
    c = device_ref.Counts(torch, "cuda")
    for j in (-1, device_ref.BATCH):
        with pytest.raises(ValueError, match=f"j = {j}"):
            c.add([], j, 0)
    c.add([], 0, 0)
    c.add([], device_ref.BATCH - 1, 0)
    assert c.read() == [0] * device_ref.BATCH


def test_counts_add_counts_the_differing_elements_in_their_slot():
    c = device_ref.Counts(torch, "cuda")
    a = torch.arange(1000, dtype=torch.int64, device="cuda")
    b = a.clone()
    b[[3, 500, 999]] = -1
    x = torch.zeros(77, dtype=torch.int32, device="cuda")
    y = x.clone()
    y[76] = 5
    pairs = [(a.data_ptr(), b.data_ptr(), 1000, 64), (x.data_ptr(), y.data_ptr(), 77, 32)]
    stream = torch.cuda.current_stream().cuda_stream
    c.add(pairs, 5, stream)
    c.add(pairs[:1], 5, stream)
    c.add(pairs[1:], 9, stream)
    want = [0] * device_ref.BATCH
    want[5], want[9] = 7, 1
    assert c.read() == want
    assert c.read() == [0] * device_ref.BATCH  # read() zeroed them


def test_put_all_twins_are_staged_copies_of_every_array():
    import numpy as np

    from kvaddr import arrays, present

    fam = arrays.family("cuda", "torch")
    host = [np.arange(12, dtype=np.int32).reshape(3, 4) - 5, np.arange(7, dtype=np.int64) * 3, np.zeros(0, np.int64),
            np.array([9], dtype=np.int64)]
    out = present.put_all(fam, host, twins=True)
    assert len(out) == 2 * len(host)
    firsts, twins = out[:len(host)], out[len(host):]
    for a, d, t in zip(host, firsts, twins):
        assert isinstance(d, torch.Tensor) and tuple(d.shape) == a.shape and d.is_contiguous()
        assert isinstance(t, present.Staged) and t.shape == a.shape and t.size == a.size and t.dtype == a.dtype
        v = t.tensor()
        assert v is t.tensor()  # made once
        assert t.ptr != d.data_ptr()
        if a.size:
            assert v.data_ptr() == t.ptr
        assert (d.cpu().numpy() == a).all() and (v.cpu().numpy() == a).all()
    assert [t.ptr % 256 for t in twins] == [0] * len(host)
    plain = present.put_all(fam, host)  # no twins: the views alone
    assert len(plain) == len(host) and all(isinstance(d, torch.Tensor) for d in plain)
    assert (plain[0].cpu().numpy() == host[0]).all()


@pytest.mark.parametrize("route", ROUTES + ("eager_funnel", "flashmla_block_table"))
def test_staged_views_are_the_plain_presentations_views(route):
    # the batched loop's presentation (present.stage: one buffer, every view one as_strided of it) hands the kernel
    # views of the same shape, strides, offset in their backing and values as the per-case one (fam.put per backing)
    import numpy as np

    from kvaddr import arrays, cases, present

    fam = arrays.family("cuda", "torch")
    seen = 0
    for i in range(40):
        case = harness._build(route, cases.draw_recipe(route, cases.rng_for(7, i), 512, None))
        plain, staged = present.Presented(fam, case), present.Presented(fam, case, twins=True)
        assert staged.staged and staged.nbytes == plain.nbytes
        for kind, backing in (("outs", "out_backing"), ("ins", "in_backing")):
            a, b = getattr(plain, kind), getattr(staged, kind)
            assert a.keys() == b.keys()
            for name in a:
                if a[name] is None:
                    assert b[name] is None
                    continue
                assert (tuple(a[name].shape), a[name].stride(), a[name].dtype) == (
                    tuple(b[name].shape), b[name].stride(), b[name].dtype), (route, i, name)
                if name in getattr(plain, backing) and a[name].numel():
                    off = a[name].data_ptr() - getattr(plain, backing)[name].data_ptr()
                    assert b[name].data_ptr() - getattr(staged, backing)[name].data_ptr() == off
                assert np.array_equal(a[name].cpu().numpy(), b[name].cpu().numpy())
                seen += 1
        for key, s in staged.staged.items():
            t = staged.out_backing[key[1]] if key[0] == "out" else (
                staged.in_backing[key[1]] if key[0] == "in" else staged.group)
            assert s.ptr == t.data_ptr() or s.size == 0
            assert s.nbytes == t.numel() * t.element_size()
    assert seen > 40


def test_the_arena_stages_cases_and_reuses_its_memory_after_release():
    import numpy as np

    from kvaddr import arrays, present

    fam = arrays.family("cuda", "torch")
    arena = present.Arena(fam)
    arena.CHUNK = 4096  # small chunks: the third case below opens a second one, the large one a chunk of its own
    host = [np.arange(40, dtype=np.int64) - 7, np.arange(12, dtype=np.int32).reshape(3, 4)]  # 1536 bytes staged
    first = present.stage(fam, host, twins=True, arena=arena)
    second = present.stage(fam, host, twins=True, arena=arena)
    third = present.stage(fam, host, twins=True, arena=arena)
    big = present.stage(fam, [np.arange(1000, dtype=np.int64)], arena=arena)
    assert [len(arena.chunks), arena.chunks[-1][0].size] == [3, 8192]
    assert second[0].ptr - first[0].ptr == 1536 and third[0].ptr == arena.chunks[1][3]
    for out in (first, second, third):
        for a, s in zip(host + host, out):
            assert isinstance(s, present.Staged) and s.ptr % 256 == 0
            assert np.array_equal(s.tensor().cpu().numpy(), a) and s.tensor().data_ptr() == s.ptr
    assert np.array_equal(big[0].tensor().cpu().numpy(), np.arange(1000))
    torch.cuda.synchronize()
    arena.release()  # the large chunk is dropped, the others reused from the start
    assert len(arena.chunks) == 2 and not arena.dirty
    again = present.stage(fam, [np.full(5, 3, np.int64)], arena=arena)
    assert again[0].ptr == first[0].ptr and np.array_equal(again[0].tensor().cpu().numpy(), [3] * 5)
    arena.close()


@pytest.mark.parametrize("route", ROUTES)
def test_under_auto_no_device_reference_is_launched_and_a_mutant_is_caught(monkeypatch, tmp_path, route):
    # reference="auto": the expected allocations are the host reference's, staged with the case (no launch of
    # kvaddr's CUDA kernel in the batched loop); the report is the per-case loop's, which launches it per case
    launches = []
    real = device_ref._reference_kernel

    def counting(r, v):
        k = real(r, v)

        def launch(**kw):
            launches.append(r)
            return k(**kw)

        launch.on_own_memory = lambda **kw: (launches.append(r), k.on_own_memory(**kw))[1]
        return launch

    monkeypatch.setattr(device_ref, "_reference_kernel", counting)
    kernel = G.kernel(route, MUTANTS[route])
    with monkeypatch.context() as m:
        m.setattr(harness.DeviceExpected, "compare", lambda *a: pytest.fail("no flagged case expected"))
        ok = kvaddr.check(route, G.kernel(route), device="cuda", isolate=False, huge=False, cases=300, seed=3)
    assert ok.ok and ok.reference == "cuda" and launches == [], str(ok)
    batched, _, per_case = _both(monkeypatch, route, kernel, cases=2000, seed=1, lanes=4096, shrink=False,
                                 replay_dir=str(tmp_path / "a"))
    assert not batched.ok, str(batched)
    assert len(launches) == per_case.cases  # the per-case loop's, one per case; the batched loop launched none
    same_report(batched, per_case)


@pytest.mark.parametrize("route", ("read_table", "decode_metadata"))
def test_under_cuda_kvaddrs_kernel_stays_the_reference(monkeypatch, tmp_path, route):
    batched, _, per_case = _both(monkeypatch, route, G.kernel(route, MUTANTS[route]), cases=2000, seed=1,
                                 lanes=4096, shrink=False, replay_dir=str(tmp_path / "c"), reference="cuda")
    assert not batched.ok, str(batched)
    same_report(batched, per_case)


def test_stage_puts_given_twins_in_the_second_half_with_and_without_an_arena():
    import numpy as np

    from kvaddr import arrays, present

    fam = arrays.family("cuda", "torch")
    # a twin given (an expected allocation) or None (a copy of its array, made on the device with an arena)
    host = [np.arange(40, dtype=np.int64) - 7, np.arange(12, dtype=np.int32).reshape(3, 4), np.arange(300) * 3,
            np.arange(5, dtype=np.int32)]
    twins = [np.full(40, 5, np.int64), None, np.full(300, -2, np.int64), None]
    want = host + [t if t is not None else a for a, t in zip(host, twins)]
    arena = present.Arena(fam)
    for out in (present.stage(fam, host, twins=twins), present.stage(fam, host, twins=twins, arena=arena),
                present.stage(fam, host, twins=twins, arena=arena)):
        assert len(out) == 8 and len({s.ptr for s in out}) == 8
        for a, s in zip(want, out):
            assert isinstance(s, present.Staged) and s.ptr % 256 == 0
            assert np.array_equal(s.tensor().cpu().numpy(), a)
    arena.close()
