"""kvaddr.gpu on a GPU: kvaddr checking its own CUDA kernels through kvaddr.check with the device reference, a
planted variant caught and named, reference="both" agreeing, the huge (> 2^31 elements) case, the argument
rules that need a device. Skips without torch or a CUDA device."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import kvaddr  # noqa: E402
import kvaddr.gpu as G  # noqa: E402

if not torch.cuda.is_available() or not G.available():
    pytest.skip(f"no usable CUDA device for kvaddr.gpu: {G.why_unavailable() or 'torch sees no CUDA device'}",
                allow_module_level=True)


@pytest.mark.parametrize("route", kvaddr.HARNESS_ROUTES)
def test_kvaddr_kernel_passes_its_own_check(route):
    rep = kvaddr.check(route, G.kernel(route), device="cuda", cases=80, seed=5, lanes=1 << 12)
    assert rep.ok and rep.reference == "cuda", str(rep)
    assert rep.cases > 40 and ", reference cuda): OK" in str(rep)


@pytest.mark.parametrize("route", kvaddr.HARNESS_ROUTES)
def test_reference_both_agrees(route):
    rep = kvaddr.check(route, G.kernel(route), device="cuda", cases=40, seed=6, lanes=1 << 11, reference="both")
    assert rep.ok and rep.reference == "both", str(rep)


def test_cupy_arrays_with_the_device_reference():
    pytest.importorskip("cupy")
    rep = kvaddr.check("read_table", G.kernel("build_kv_read_table"), device="cuda", array="cupy", cases=40, seed=2)
    assert rep.ok and rep.reference == "cuda" and rep.array == "cupy", str(rep)


@pytest.mark.parametrize("route,planted", [("read_table", "b10_no_max_pages_bound"),
                                           ("token_translate", "b17_doc_formula"),
                                           ("canonical_page_table", "e10_batch_index_rows"),
                                           ("write_loc", "b06_stale_tail")])
def test_planted_variant_is_caught_and_named(route, planted, tmp_path):
    rep = kvaddr.check(route, G.kernel(route, planted), device="cuda", cases=2000, seed=2, replay_dir=tmp_path,
                       shrink_seconds=10)
    assert not rep.ok and rep.reference == "cuda", str(rep)
    assert planted in rep.failure.behaves_like, str(rep)
    assert rep.failure.first and rep.failure.kind in ("mismatch", "out_of_bounds")


def test_device_reference_equals_host_reference_on_the_failure():
    # the same planted kernel gives the same first lanes with either reference
    k = G.kernel("token_translate", "b17_doc_formula")
    a = kvaddr.check("token_translate", k, device="cuda", cases=50, seed=3, shrink=False)
    b = kvaddr.check("token_translate", k, device="cuda", cases=50, seed=3, shrink=False, reference="host")
    assert not a.ok and not b.ok
    assert a.failure.case_index == b.failure.case_index and [str(x) for x in a.failure.first] == [
        str(x) for x in b.failure.first]


def test_input_writer_is_caught_on_the_device():
    base = G.kernel("write_loc")

    def writes_v2p(**kw):
        base(**kw)
        kw["v2p"][0] += 1

    rep = kvaddr.check("write_loc", writes_v2p, device="cuda", cases=20, seed=1, shrink=False)
    assert not rep.ok and rep.failure.kind == "input_modified" and "v2p" in rep.failure.detail, str(rep)


def test_graph_mode_with_the_device_reference():
    rep = kvaddr.check("token_translate", G.kernel("token_translate"), device="cuda", graph=True, cases=60, seed=3)
    assert rep.ok and rep.reference == "cuda", str(rep)
    rep = kvaddr.check("decode_metadata", G.kernel("decode_metadata"), device="cuda", graph=True, cases=60, seed=3)
    assert rep.ok, str(rep)


def test_huge_token_case_runs_and_catches_a_truncating_kernel():
    k = G.kernel("token_translate")
    rep = kvaddr.check("token_translate", k, device="cuda", cases=4, seed=1, huge=True)
    assert rep.ok and rep.huge["ran"] and rep.huge["kind"] == "ok", str(rep)
    assert rep.huge["shapes"]["out"] == [(1 << 31) + 4099]

    def first_2_31_only(virt, out, **kw):  # an int32 launch grid: lanes past 2^31 never written
        k(virt=virt[:1 << 31], out=out[:1 << 31], **kw)

    rep = kvaddr.check("token_translate", first_2_31_only, device="cuda", cases=1, seed=1, huge=True)
    assert not rep.ok and rep.failure.kind == "mismatch", str(rep)
    assert rep.failure.first[0].index == (1 << 31,) and rep.failure.differing == 4099


# write_loc: an earlier kvaddr write_loc kernel capped its grid at 2^20 blocks of 256 threads without a grid-stride
# loop, so lanes past 2^28 were never written; this huge case found it on the H200 (docs/harness.md).
@pytest.mark.parametrize("route", ["read_table", "canonical_page_table", "write_loc"])
def test_huge_case_other_routes(route):
    rep = kvaddr.check(route, G.kernel(route), device="cuda", cases=2, seed=4, huge=True)
    assert rep.ok and rep.huge["ran"], str(rep)


def test_huge_auto_only_for_campaign_sized_runs():
    rep = kvaddr.check("transfer_ids", G.kernel("transfer_ids"), device="cuda", cases=5, seed=1)
    assert rep.huge == {"ran": False, "why": "a run of 5 < 1000 cases"}


def test_host_pointer_rejected_before_launch():
    host = np.zeros(8, np.int64)

    class HostCai:
        __cuda_array_interface__ = {"shape": (8,), "typestr": "<i8", "data": (host.ctypes.data, False),
                                    "strides": None, "version": 3}

    out = torch.zeros(8, dtype=torch.int64, device="cuda")
    v2p = torch.arange(3, dtype=torch.int64, device="cuda")
    with pytest.raises(kvaddr.InvalidArgument) as e:
        G.kernel("transfer_ids")(ids=HostCai(), v2p=v2p, page_size=1, out=out)
    assert e.value.argument == "ids" and "pointer" in e.value.value
    with pytest.raises(kvaddr.InvalidArgument) as e:
        G.kernel("transfer_ids")(ids=torch.zeros(8, dtype=torch.int64), v2p=v2p, page_size=1, out=out)
    assert e.value.argument == "ids" and "cpu" in e.value.value
    assert int(out.abs().sum()) == 0  # nothing launched


def test_values_strided_inputs_streams_and_dlpack():
    ids = torch.tensor([0, 99, 5, 99, -1, 99, 9, 99], dtype=torch.int64, device="cuda")[::2]  # [0, 5, -1, 9]
    v2p = torch.tensor([3, -1, 7, -1], dtype=torch.int64, device="cuda")
    out = torch.full((4,), -5, dtype=torch.int64, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        G.kernel("token_translate")(virt=ids, v2p=v2p, page_size=4, page_stride=8, out=out)
    s.synchronize()
    # page 0 -> 3 * 8 + 0, page 1 tombstone -> 0, padding -> 0, page 2 -> 7 * 8 + 1
    assert out.tolist() == [24, 0, 0, 57]

    class OnlyDlpack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kw):
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    out2 = torch.zeros(4, dtype=torch.int64, device="cuda")
    G.kernel("translate_v2p")(virt=OnlyDlpack(ids.contiguous()), v2p=v2p, page_size=4, page_stride=8,
                              out=out2, stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    assert out2.tolist() == [24, 0, 0, 57]


def test_contract_errors_are_typed():
    out = torch.zeros(4, dtype=torch.int64, device="cuda")
    v2p = torch.zeros(3, dtype=torch.int64, device="cuda")
    with pytest.raises(kvaddr.InvalidArgument) as e:
        G.kernel("transfer_ids")(ids=out.clone(), v2p=v2p, page_size=0, out=out)
    assert e.value.argument == "page_size"


def test_count_differences_exact():
    a = torch.arange(10, dtype=torch.int32, device="cuda")
    b = a.clone()
    b[7] = -1
    b[3] = 100
    b[9] = 0
    assert G.count_differences(a, b) == (3, 3)
    assert G.count_differences(a, a.clone()) == (0, 10)
    with pytest.raises(kvaddr.InvalidArgument) as e:
        G.count_differences(a, b.to(torch.int64))
    assert e.value.argument == "b"
    with pytest.raises(kvaddr.InvalidArgument):
        G.count_differences(a[::2], b[::2])


# ---- graph mode's fast loop (kvaddr.graph_fast) ---------------------------------------------------
def _stream():
    return int(torch.cuda.current_stream().cuda_stream)


@pytest.mark.parametrize("kind, params, rows, cols, bits", [
    (1, [300, 0, 0], 1, 301, 64), (1, [300, 2, 7], 1, 301, 64), (2, [40, 16, 0, 1], 1, 5000, 64),
    (2, [40, 1, 1, 1], 1, 777, 64), (2, [40, 5, 2, 4], 1, 999, 32), (3, [40, 16, 4], 1, 4096, 64),
    (4, [40, 16], 33, 17, 64), (5, [90, 7, 10000], 19, 130, 32), (6, [1000], 1, 257, 64), (7, [77], 1, 300, 64)])
@pytest.mark.parametrize("strided", [False, True])
def test_device_draw_equals_host_draw(kind, params, rows, cols, bits, strided):
    from kvaddr import _core

    dt = torch.int32 if bits == 32 else torch.int64
    pad = 3 if strided else 0
    if rows == 1:  # a 1-D target: every other element of a longer buffer when strided
        backing = torch.full(((2 if strided else 1) * cols,), -7777, dtype=dt, device="cuda")
        view = backing[::2] if strided else backing
        rs, cs = 0, view.stride(0)
    else:
        backing = torch.full((rows, cols + pad), -7777, dtype=dt, device="cuda")
        view = backing[:, :cols]
        rs, cs = view.stride()
    for k in (0, 1, 12345):
        counter = torch.tensor([k], dtype=torch.int64, device="cuda")
        G._gpu.graph_draw([(kind, 3, params, view.data_ptr(), rows, cols, rs, cs, bits)], 99, counter.data_ptr(),
                          _stream())
        torch.cuda.synchronize()
        want = _core.graph_draw(kind, 3, params, 99, k, rows, cols).astype(np.int32 if bits == 32 else np.int64)
        assert np.array_equal(view.cpu().numpy().reshape(rows, cols), want), k
        if strided:
            rest = backing[1::2] if rows == 1 else backing[:, cols:]
            assert bool((rest == -7777).all())


@pytest.mark.parametrize("route", kvaddr.HARNESS_ROUTES)
def test_fast_loop_pre_graph_work_equals_the_host_case(route):
    # the fast loop's reset + draw + CUDA reference for case k equal the host-built case k: every input backing,
    # every output backing before the call, and the expected backings = the host route's outputs
    from kvaddr import cases as C
    from kvaddr import graph, graph_fast
    from kvaddr.arrays import family
    from kvaddr.conventions import reference
    from kvaddr.harness import Presented, guarded

    fam = family("cuda", None)
    for seed in (1, 2):
        r0 = graph.captured_recipe(route, seed, 1 << 10, None)
        case0 = C.build(route, r0)
        p = Presented(fam, case0)
        fast = graph_fast.FastLoop(fam, route, r0, case0, p, "production", seed)
        for k in (1, 7, 500):
            fast.draw_now(k)
            torch.cuda.synchronize()
            case = C.build(route, fast.recipe(k))
            host = Presented(fam, case)
            for n in host.in_backing:
                assert torch.equal(p.in_backing[n], host.in_backing[n]), (seed, k, n)
                assert torch.equal(fast.snap[n], host.in_backing[n]), (seed, k, n)
            exp = reference(case, "production")
            for n in case.outputs:
                assert np.array_equal(p.out_backing[n].cpu().numpy(), guarded(case.outputs[n])), (seed, k, n)
                assert np.array_equal(fast.exp[n].cpu().numpy(), guarded(exp[n])), (seed, k, n)


@pytest.mark.parametrize("route", kvaddr.HARNESS_ROUTES)
def test_fast_loop_checks_kvaddr_kernels(route):
    rep = kvaddr.check(route, G.kernel(route), device="cuda", graph=True, cases=700, seed=3, lanes=64)
    assert rep.ok and rep.graph_loop == "fast" and rep.cases == 700 and rep.graph_unconfirmed == 0, str(rep)
    assert "(fast loop)" in str(rep) and rep.to_dict()["graph_loop"] == "fast"
    assert 0 < rep.kernel_seconds < rep.seconds


def test_slow_loop_on_request_and_for_the_host_reference():
    rep = kvaddr.check("read_table", G.kernel("read_table"), device="cuda", graph="slow", cases=30, seed=3)
    assert rep.ok and rep.graph_loop == "slow" and rep.cases == 30, str(rep)
    rep = kvaddr.check("read_table", G.kernel("read_table"), device="cuda", graph=True, cases=30, seed=3,
                       reference="host")
    assert rep.ok and rep.graph_loop == "slow" and "reference 'host'" in rep.graph_note, str(rep)
    with pytest.raises(ValueError, match="fast graph loop cannot run"):
        kvaddr.check("read_table", G.kernel("read_table"), device="cuda", graph="fast", cases=3, reference="host")


class _BakedV2p:
    """A wrapper that copies v2p on its eager call and reads that copy under capture (a table baked into the
    graph)."""

    def __init__(self):
        self.k, self.v2p = G.kernel("token_translate"), None

    def __call__(self, virt, v2p, page_size, page_stride, out):
        if not torch.cuda.is_current_stream_capturing():
            self.v2p = v2p.clone()
        self.k(virt=virt, v2p=self.v2p, page_size=page_size, page_stride=page_stride, out=out)


def test_fast_loop_catches_a_baked_table_with_the_full_report(tmp_path):
    rep = kvaddr.check("token_translate", _BakedV2p(), device="cuda", graph=True, cases=300, seed=3,
                       replay_dir=tmp_path)
    f = rep.failure
    assert not rep.ok and rep.graph_loop == "fast" and f.kind == "mismatch" and f.case_index > 0, str(rep)
    assert f.first and f.replay_dir and "assert_replay" in f.snippet
    assert rep.cases == f.case_index + 1  # cases 0 .. case_index ran, the last one failed


def test_fast_loop_catches_a_write_into_an_input_under_capture():
    base = G.kernel("write_loc")

    def writes_v2p_in_graph(**kw):
        base(**kw)
        if torch.cuda.is_current_stream_capturing():
            kw["v2p"][0] += 1

    rep = kvaddr.check("write_loc", writes_v2p_in_graph, device="cuda", graph=True, cases=50, seed=1)
    assert not rep.ok and rep.failure.kind == "input_modified" and rep.failure.case_index == 1, str(rep)


def test_fast_loop_reports_a_slow_replay_as_a_timeout():
    base = G.kernel("token_translate")

    def slow_in_graph(**kw):
        base(**kw)
        if torch.cuda.is_current_stream_capturing():
            torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time per replay

    # the eager warm-up call (wrapper, launch, wait) stays well under 0.02 s; every replay exceeds it
    rep = kvaddr.check("token_translate", slow_in_graph, device="cuda", graph=True, cases=20, seed=1,
                       case_timeout=0.02)
    assert not rep.ok and rep.graph_loop == "fast" and rep.failure.kind == "timeout", str(rep)
    assert rep.failure.case_index == 1, str(rep)


def test_device_draw_refuses_a_job_the_host_refuses():
    """kvaddr._gpu.graph_draw checks every job with the host's rule (graph_draw::job_error) before launching."""
    from kvaddr import graph_fast as F

    target = torch.zeros(4, dtype=torch.int64, device="cuda")
    counter = torch.zeros(1, dtype=torch.int64, device="cuda")
    with pytest.raises(kvaddr.InvalidArgument) as e:  # page size 0: the draw would divide by it
        G._gpu.graph_draw([(F.R2T, 3, [5, 0, 10], target.data_ptr(), 1, 4, 0, 1, 64)], 99, counter.data_ptr(),
                          _stream())
    assert (e.value.argument, e.value.value) == ("params", "[5, 0, 10]")
    torch.cuda.synchronize()
    assert target.tolist() == [0, 0, 0, 0]  # nothing drawn
