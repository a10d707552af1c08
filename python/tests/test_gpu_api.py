"""kvaddr.gpu without a device (CI): availability, the typed errors, and every argument rule checked before any
launch, on fake objects exposing __cuda_array_interface__ (kvaddr.gpu.marshal with the pointer check off)."""
import numpy as np
import pytest

import kvaddr
import kvaddr.gpu as G
from kvaddr.harness import check

PTR = 0x7F00_0000_0000


class Fake:
    """An object exposing only __cuda_array_interface__ (never dereferenced: marshal reads no contents)."""

    def __init__(self, shape, typestr="<i8", strides=None, ptr=PTR):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


def token_kwargs(**over):
    kw = dict(virt=Fake((10,)), v2p=Fake((5,), ptr=PTR + 4096), page_size=4, page_stride=12,
              out=Fake((10,), ptr=PTR + 8192))
    kw.update(over)
    return kw


def table_kwargs(**over):
    kw = dict(req_to_token=Fake((2, 3), "<i4"), req_pool_indices=Fake((2,)), seq_lens=Fake((2,)), v2p=Fake((4,)),
              page_size=1, multiplier=1, max_pages=3, out=Fake((2, 3), "<i4"))
    kw.update(over)
    return kw


def rejects(route, kw, name, value_part):
    with pytest.raises(kvaddr.InvalidArgument) as e:
        G.marshal(route, kw, check_pointers=False)
    assert e.value.argument == name, str(e.value)
    assert value_part in e.value.value, str(e.value)
    assert str(e.value).startswith(f"{name} = ")
    return e.value


needs_no_gpu = pytest.mark.skipif(G.available(), reason="this test is about a machine without a usable GPU")


@needs_no_gpu
def test_unavailable_with_a_reason():
    assert G.available() is False
    why = G.why_unavailable()
    assert why and isinstance(why, str)


@needs_no_gpu
def test_kernel_and_compare_raise_the_typed_error():
    with pytest.raises(G.Unavailable) as e:
        G.kernel("token_translate")
    assert isinstance(e.value, kvaddr.InvalidState) and isinstance(e.value, kvaddr.Error)
    assert e.value.argument == "kvaddr.gpu" and G.why_unavailable() in str(e.value)
    with pytest.raises(G.Unavailable):
        G.count_differences(Fake((3,)), Fake((3,)))


def test_unknown_route_and_variant_raise_before_the_device():
    with pytest.raises(ValueError, match="route = 'nope'"):
        G.kernel("nope")
    with pytest.raises(ValueError, match="variant = 'b10_no_max_pages_bound'"):
        G.kernel("token_translate", "b10_no_max_pages_bound")
    with pytest.raises(ValueError, match="mamba_translate has no variants"):
        G.kernel("mamba_translate", "b17_doc_formula")


def test_token_descriptors_exact():
    fields, temps = G.marshal("token_translate", token_kwargs(), check_pointers=False)
    assert fields == {"ids": ("vec", PTR, 10, 64), "v2p": ("vec", PTR + 4096, 5, 64), "page_size": 4,
                      "multiplier": 3, "out": ("vec", PTR + 8192, 10, 64)}
    assert temps == []
    # the upstream alias takes the same convention; rank-2 contiguous virt / out are flattened
    f2, _ = G.marshal("translate_v2p", token_kwargs(virt=Fake((2, 5)), out=Fake((2, 5), ptr=PTR + 8192)),
                      check_pointers=False)
    assert f2["ids"] == ("vec", PTR, 10, 64) and f2["out"] == ("vec", PTR + 8192, 10, 64)


def test_dtype_rule_both_sides():
    rejects("token_translate", token_kwargs(virt=Fake((10,), "<i4")), "virt", "typestr <i4")
    rejects("token_translate", token_kwargs(out=Fake((10,), "<f8")), "out", "typestr <f8")
    rejects("canonical_page_table", table_kwargs(req_to_token=Fake((2, 3), "<i8")), "req_to_token", "<i8")
    G.marshal("canonical_page_table", table_kwargs(), check_pointers=False)  # int32 table, int64 vectors
    rejects("kv_indices_inplace", dict(kv_indices=Fake((4,), "<i8"), kv_indptr=Fake((2,), "<i4"), batch_size=1,
                                       v2p=Fake((3,)), page_size=1, multiplier=1), "kv_indices", "<i8")


def test_rank_rule_both_sides():
    rejects("token_translate", token_kwargs(v2p=Fake((5, 1))), "v2p", "ndim 2")
    rejects("token_translate", token_kwargs(virt=Fake((2, 5, 1)), out=Fake((2, 5, 1))), "virt", "ndim 3")
    rejects("canonical_page_table", table_kwargs(req_to_token=Fake((6,), "<i4")), "req_to_token", "ndim 1")
    rejects("swa_translate", dict(ids=Fake((2, 5)), swa_v2p=Fake((4,)), page_size=1, swa_multiplier=1,
                                  out=Fake((2, 5))), "ids", "ndim 2")  # rank 2 only for token_translate's virt


def test_negative_stride_rejected_positive_accepted():
    rejects("canonical_page_table", table_kwargs(req_to_token=Fake((2, 3), "<i4", strides=(-12, 4))),
            "req_to_token", "stride -12 bytes")
    f, _ = G.marshal("canonical_page_table", table_kwargs(req_to_token=Fake((2, 3), "<i4", strides=(24, 4))),
                     check_pointers=False)
    assert f["req_to_token"] == ("mat", PTR, 2, 3, 6, 1, 32)  # element strides


def test_non_integral_stride_rejected_whole_elements_accepted():
    rejects("canonical_page_table", table_kwargs(req_to_token=Fake((2, 3), "<i4", strides=(14, 4))),
            "req_to_token", "stride 14 bytes")
    rejects("token_translate", token_kwargs(virt=Fake((10,), strides=(12,))), "virt", "stride 12 bytes")
    f, _ = G.marshal("canonical_page_table", table_kwargs(out=Fake((2, 3), "<i4", strides=(20, 4))),
                     check_pointers=False)
    assert f["out"] == ("mat", PTR, 2, 3, 5, 1, 32)


def test_strided_output_vector_rejected_contiguous_accepted():
    rejects("token_translate", token_kwargs(out=Fake((10,), strides=(16,))), "out", "strides [2]")
    G.marshal("token_translate", token_kwargs(out=Fake((10,), strides=(8,))), check_pointers=False)


def test_page_stride_must_be_a_multiple_of_page_size():
    rejects("token_translate", token_kwargs(page_stride=13), "page_stride", "13")
    assert G.marshal("token_translate", token_kwargs(page_stride=16), check_pointers=False)[0]["multiplier"] == 4
    wl = dict(loc=Fake((3,)), v2p=Fake((4,)), page_size=5, stride=11, dcp_size=1, dcp_rank=0, out=Fake((6,)),
              out_width=6)
    rejects("write_loc", wl, "stride", "11")
    assert G.marshal("write_loc", dict(wl, stride=10), check_pointers=False)[0]["multiplier"] == 2


def test_out_width_must_equal_out_size():
    wl = dict(loc=Fake((3,)), v2p=Fake((4,)), page_size=1, stride=1, dcp_size=1, dcp_rank=0, out=Fake((6,)))
    rejects("write_loc", dict(wl, out_width=5), "out_width", "5")
    f, _ = G.marshal("write_loc", dict(wl, out_width=6), check_pointers=False)
    assert f["out"] == ("vec", PTR, 6, 64) and f["dcp_rank"] == 0


def test_shape_of_out_must_be_that_of_virt():
    rejects("token_translate", token_kwargs(out=Fake((11,))), "out", "shape [11]")


def test_missing_unknown_and_non_array_arguments():
    kw = token_kwargs()
    del kw["v2p"]
    rejects("token_translate", kw, "v2p", "(missing)")
    rejects("token_translate", token_kwargs(ids=Fake((3,))), "ids", "(given)")
    # a numpy array: no __cuda_array_interface__, and DLPack says host memory (device type 1)
    e = rejects("token_translate", token_kwargs(virt=np.zeros(10, np.int64)), "virt", "ndarray")
    assert "expected a CUDA array" in e.reason and "device type 1" in e.reason
    e = rejects("token_translate", token_kwargs(virt=[1, 2]), "virt", "list")
    assert "__cuda_array_interface__" in e.reason
    rejects("token_translate", token_kwargs(page_size=4.0), "page_size", "4.0")
    rejects("token_translate", token_kwargs(page_size=True), "page_size", "True")
    rejects("read_table", table_kwargs(seq_len_delta=0, zero_tail=1), "zero_tail", "1")
    f, _ = G.marshal("read_table", table_kwargs(seq_len_delta=0, zero_tail=np.bool_(True)), check_pointers=False)
    assert f["zero_tail"] is True


def test_optional_kv_start_idx():
    kw = dict(req_to_token=Fake((2, 3), "<i4"), req_pool_indices=Fake((2,)), page_kernel_lens=Fake((2,)),
              v2p=Fake((4,)), kv_start_idx=None, page_size=1, multiplier=1, kv_indices=Fake((2, 3), "<i4"))
    f, _ = G.marshal("flashmla_block_table", kw, check_pointers=False)
    assert "kv_start_idx" not in f
    # the upstream name takes the upstream keywords (kvaddr.upstream.FORMS): v2p_ptr, PAGED_SIZE, PAGE_MULT
    up = dict(req_to_token=kw["req_to_token"], req_pool_indices=kw["req_pool_indices"],
              page_kernel_lens=kw["page_kernel_lens"], kv_indices=kw["kv_indices"], v2p_ptr=kw["v2p"], PAGED_SIZE=1,
              PAGE_MULT=1, kv_start_idx=Fake((2,), ptr=PTR + 64))
    f, _ = G.marshal("create_flashmla_kv_indices_triton", up, check_pointers=False)
    assert f["kv_start_idx"] == ("vec", PTR + 64, 2, 64)
    assert f["page_size"] == 1 and f["multiplier"] == 1 and f["v2p"][0] == "vec"


def test_every_route_has_a_convention():
    assert set(G.CONVENTIONS) == set(kvaddr.HARNESS_ROUTES)


def test_reference_choice_on_the_cpu():
    from np_kernels import translate_v2p

    rep = check("token_translate", translate_v2p, cases=3, seed=1)
    assert rep.reference == "host" and ", reference host): OK" in str(rep) and rep.to_dict()["reference"] == "host"
    assert rep.huge == {}
    for bad in ("cuda", "both"):
        with pytest.raises(ValueError, match=f"reference = '{bad}'"):
            check("token_translate", translate_v2p, cases=1, reference=bad)
    with pytest.raises(ValueError, match="reference = 'gpu'"):
        check("token_translate", translate_v2p, cases=1, reference="gpu")
    with pytest.raises(ValueError, match="huge = True"):
        check("token_translate", translate_v2p, cases=1, huge=True)


# ---- the device-reference flow of kvaddr.check, on the CPU -----------------------------------------
# kvaddr.gpu.kernel and count_differences replaced by numpy stand-ins (the host route as "kvaddr's kernel"), so
# that the order of the flow (reference on copies before the kernel, comparison of every allocation and input,
# the host report path on a difference) is tested without a device.
from kvaddr.conventions import host_kernel as _host_kernel  # noqa: E402


@pytest.fixture
def fake_device(monkeypatch):
    import kvaddr.device_ref as D
    import kvaddr.harness as H

    calls = {"kernel": [], "compare": 0}

    def kernel(route, variant="production"):
        calls["kernel"].append((route, variant))
        return _host_kernel(route, variant)

    def count(a, b):
        calls["compare"] += 1
        d = np.flatnonzero(np.asarray(a).ravel() != np.asarray(b).ravel())
        return int(d.size), int(d[0]) if d.size else int(np.asarray(a).size)

    monkeypatch.setattr(D.gpu, "kernel", kernel)
    monkeypatch.setattr(D.gpu, "count_differences", count)
    monkeypatch.setattr(H, "resolve_reference", lambda ref, fam: "cuda" if ref == "auto" else ref)
    return calls


@pytest.mark.parametrize("route", ["token_translate", "write_loc", "read_table", "decode_metadata",
                                   "kv_indices_inplace", "eager_funnel", "flashmla_block_table"])
def test_device_flow_passes_a_correct_kernel(fake_device, route):
    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    rep = check(route, _host_kernel(route, variant), cases=60, seed=4, variant=variant)
    assert rep.ok and rep.reference == "cuda", str(rep)
    assert fake_device["kernel"] and all(c == (route, variant) for c in fake_device["kernel"])
    assert fake_device["compare"] >= rep.cases  # at least one on-device comparison per case


def test_device_flow_reports_like_the_host_path(fake_device):
    from np_kernels import read_table_no_bound

    dev = check("read_table", read_table_no_bound, cases=100, seed=2)
    host = check("read_table", read_table_no_bound, cases=100, seed=2, reference="host")
    assert not dev.ok and dev.reference == "cuda" and host.reference == "host"
    assert dev.failure.case_index == host.failure.case_index and dev.failure.kind == host.failure.kind
    assert [str(x) for x in dev.failure.first] == [str(x) for x in host.failure.first]
    assert dev.failure.behaves_like == host.failure.behaves_like and "b10_no_max_pages_bound" in dev.failure.behaves_like


def test_device_flow_input_writer_and_both(fake_device):
    from np_kernels import translate_v2p, translate_v2p_writes_input

    rep = check("token_translate", translate_v2p_writes_input, cases=30, seed=1, shrink=False)
    assert not rep.ok and rep.failure.kind == "input_modified"
    assert check("token_translate", translate_v2p, cases=30, seed=1, reference="both").ok


def test_both_fails_loudly_when_the_references_disagree(fake_device, monkeypatch):
    import kvaddr.device_ref as D
    from np_kernels import translate_v2p

    monkeypatch.setattr(D.gpu, "kernel", lambda route, variant="production": _host_kernel(route, "b17_doc_formula"))
    with pytest.raises(D.ReferenceDisagreement, match="disagree on"):
        check("token_translate", translate_v2p, cases=30, seed=1, reference="both")


def test_an_upstream_form_also_takes_the_routes_own_convention():
    # kvaddr.check hands kernel("build_kv_read_table") its arguments under read_table's names (multiplier,
    # zero_tail, ...): the same descriptors as kernel("read_table"); the upstream names still select the upstream form
    own = table_kwargs(seq_len_delta=0, zero_tail=False)
    f_up, _ = G.marshal("build_kv_read_table", own, check_pointers=False)
    f_own, _ = G.marshal("read_table", own, check_pointers=False)
    assert f_up == f_own
    upstream = dict(own)
    upstream["kernel_page_multiplier"] = upstream.pop("multiplier")
    f_named, _ = G.marshal("build_kv_read_table", upstream, check_pointers=False)
    assert f_named == f_own
    # a name of neither convention is still named against the upstream form
    bad = dict(upstream, multiplier=1)
    rejects("build_kv_read_table", bad, "multiplier", "(given)")


def raw(shape, bits=64, strides=None, ptr=PTR):
    """A kvaddr.gpu.ArrayView (a raw device pointer; element strides, C-contiguous when None)."""
    if strides is None:
        strides = (shape[1], 1) if len(shape) == 2 else (1,) * len(shape)
    return G.ArrayView(ptr, tuple(shape), tuple(strides), bits, None, False)


def test_an_array_view_argument_is_taken_as_it_is():
    f, temps = G.marshal("canonical_page_table", table_kwargs(req_to_token=raw((2, 3), 32, (5, 1), PTR + 64),
                                                              v2p=raw((4,), ptr=PTR + 128)), check_pointers=False)
    assert f["req_to_token"] == ("mat", PTR + 64, 2, 3, 5, 1, 32)
    assert f["v2p"] == ("vec", PTR + 128, 4, 64)
    assert temps == []
    f, _ = G.marshal("token_translate", token_kwargs(virt=raw((10,)), out=raw((10,), ptr=PTR + 8192)),
                     check_pointers=False)
    assert f["ids"] == ("vec", PTR, 10, 64) and f["out"] == ("vec", PTR + 8192, 10, 64)
    f, _ = G.marshal("token_translate", token_kwargs(virt=raw((0,)), out=raw((0,))), check_pointers=False)
    assert f["ids"] == ("vec", PTR, 0, 64)  # empty
    f, _ = G.marshal("token_translate", token_kwargs(virt=raw((1,), ptr=0), out=raw((1,))), check_pointers=False)
    assert f["ids"] == ("vec", 0, 1, 64)  # pointer 0: the lowest the rule admits


def test_an_array_view_argument_is_checked_on_both_sides():
    rejects("token_translate", token_kwargs(virt=raw((10,), 32)), "virt", "an ArrayView of int32")
    rejects("canonical_page_table", table_kwargs(req_to_token=raw((2, 3), 64)), "req_to_token", "of int64")
    rejects("token_translate", token_kwargs(v2p=raw((5, 1))), "v2p", "shape (5, 1)")
    rejects("token_translate", token_kwargs(v2p=raw((5,), ptr=-1)), "v2p", "at -1")
    rejects("token_translate", token_kwargs(v2p=raw((5,), ptr=1.0)), "v2p", "at 1.0")
    rejects("token_translate", token_kwargs(v2p=raw((5,), strides=(1, 1))), "v2p", "strides (1, 1)")
    rejects("token_translate", token_kwargs(v2p=raw((5,), strides=(-1,))), "v2p", "strides (-1,)")
    rejects("token_translate", token_kwargs(v2p=G.ArrayView(PTR, (-5,), (1,), 64, None, False)), "v2p", "shape (-5,)")
    rejects("token_translate", token_kwargs(v2p=G.ArrayView(PTR, [5], (1,), 64, None, False)), "v2p", "shape [5]")
    # an int32 index array (widened) or a strided input vector (made contiguous) needs a copy a raw view cannot give
    rejects("translate_v2p", dict(virt=raw((10,), 32), v2p=raw((5,)), page_size=4, page_stride=4, out=raw((10,))),
            "virt", "ArrayView with int32")
    f, _ = G.marshal("translate_v2p", dict(virt=raw((10,)), v2p=raw((5,)), page_size=4, page_stride=4,
                                           out=raw((10,))), check_pointers=False)  # int64 indices: no copy
    assert f["ids"] == ("vec", PTR, 10, 64)
    rejects("token_translate", token_kwargs(virt=raw((10,), strides=(2,))), "virt", "ArrayView with strides [2]")
    # a pointer off the element size (the kernels load through typed pointers): int64 at +4 and int32 at +2 refused,
    # int64 at +8 and int32 at +4 taken
    e = rejects("token_translate", token_kwargs(v2p=raw((5,), ptr=PTR + 4)), "v2p", "pointer 0x7f0000000004")
    assert "misaligned: int64 data must start at a multiple of 8 bytes" in str(e)
    e = rejects("canonical_page_table", table_kwargs(req_to_token=raw((2, 3), 32, ptr=PTR + 2)), "req_to_token",
                "pointer 0x7f0000000002")
    assert "misaligned: int32 data must start at a multiple of 4 bytes" in str(e)
    f, _ = G.marshal("canonical_page_table", table_kwargs(req_to_token=raw((2, 3), 32, ptr=PTR + 4),
                                                          v2p=raw((4,), ptr=PTR + 8)), check_pointers=False)
    assert f["req_to_token"][1] == PTR + 4 and f["v2p"][1] == PTR + 8
