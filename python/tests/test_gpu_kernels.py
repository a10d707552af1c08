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
