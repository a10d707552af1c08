"""kvaddr's kernels under their upstream names, in every call mode an engine's own unit tests use: a static
pool (no v2p table), a dense (unified) pool with a page multiplier, the canonical-source mode of the decode
metadata kernel, int32 index arrays, and the token-level full -> SWA slot map.

Each case is a tiny batch written out by hand with its expected tensors. The same cases run twice:

* ``host``: kvaddr's host route through the same call form (kvaddr.upstream.host_kernel, numpy), everywhere;
* ``cuda``: kvaddr's CUDA kernel (kvaddr.gpu.kernel(name), torch CUDA tensors); skipped without torch, a
  CUDA device or the kvaddr._gpu extension.

The pool of every case (page size 2): req_to_token rows
    row 0: 4 5 10 11 2 3 0 0     page starts 4, 10, 2, 0
    row 1: 8 9 6 7 -1 -1 0 0     page starts 8, 6, -1 (a padding token), 0
and the batch reads rows [1, 0]. v2p maps virtual page p to physical page V2P[p] (V2P[6] is the trailing
sentinel).
"""
import numpy as np
import pytest

import kvaddr
import kvaddr.gpu
from kvaddr import route_tables, upstream

PS = 2
R2T = np.array([[4, 5, 10, 11, 2, 3, 0, 0],
                [8, 9, 6, 7, -1, -1, 0, 0]], dtype=np.int32)
ROWS = np.array([1, 0], dtype=np.int64)
V2P = np.array([0, 5, 4, 3, 2, 1, -1], dtype=np.int64)
TO_SWA = np.array([0, 0, 0, 0, 6, 7, 0, 0, 2, 3, 8, 9], dtype=np.int64)  # token -> SWA slot, 0 = unmapped
CANONICAL = np.array([[10, 11, 12, 13, 14, 15, 16, 17],
                      [20, 21, 22, 23, 24, 25, 26, 27]], dtype=np.int32)


class _Fake:
    """An object exposing only __cuda_array_interface__ (never dereferenced: marshal reads no contents)."""

    def __init__(self, shape, typestr="<i8", ptr=0x7F00_0000_0000):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
                                         "strides": None, "version": 3}


def filled(shape, value, dtype=np.int32):
    return np.full(shape, value, dtype=dtype)


def i32(*v):
    return np.array(v, dtype=np.int32)


def i64(*v):
    return np.array(v, dtype=np.int64)


# name -> (upstream kernel, keyword arguments, {output keyword: expected}); every output keyword is also an
# argument (written in place).
CASES = {
    # flashmla's static kernel: v2p_ptr None, PAGE_MULT 1 -> tok // ps; lanes past the pages keep -1.
    "flashmla_static": ("create_flashmla_kv_indices_triton",
                        dict(req_to_token=R2T, req_pool_indices=ROWS, page_kernel_lens=i64(5, 5),
                             kv_indices=filled((2, 4), -1), PAGED_SIZE=PS, v2p_ptr=None),
                        {"kv_indices": [[4, 3, 0, -1], [2, 5, 1, -1]]}),
    # the dense table: V2P[tok // ps] * PAGE_MULT; padding reads page 0.
    "flashmla_dense": ("create_flashmla_kv_indices_triton",
                       dict(req_to_token=R2T, req_pool_indices=ROWS, page_kernel_lens=i64(5, 5),
                            kv_indices=filled((2, 4), -1), PAGED_SIZE=PS, v2p_ptr=V2P, PAGE_MULT=3),
                       {"kv_indices": [[6, 9, 0, -1], [12, 3, 15, -1]]}),
    "canonical_static": ("build_kernel_page_table",
                         dict(req_to_token=R2T, req_pool_indices=ROWS, seq_lens=i64(5, 5), v2p=None, page_size=PS,
                              max_pages=4, out=filled((2, 4), -7)),
                         {"out": [[4, 3, 0, -7], [2, 5, 1, -7]]}),
    "canonical_dense": ("build_kernel_page_table",
                        dict(req_to_token=R2T, req_pool_indices=ROWS, seq_lens=i64(5, 5), v2p=V2P, page_size=PS,
                             kernel_page_multiplier=3, max_pages=4, out=filled((2, 4), -7)),
                        {"out": [[6, 9, 0, -7], [12, 3, 15, -7]]}),
    # SGLang often hands req_pool_indices and seq_lens over as int32: accepted as they are.
    "canonical_int32_indices": ("build_kernel_page_table",
                                dict(req_to_token=R2T, req_pool_indices=i32(1, 0), seq_lens=i32(5, 5), v2p=V2P,
                                     page_size=PS, kernel_page_multiplier=3, max_pages=4, out=filled((2, 4), -7)),
                                {"out": [[6, 9, 0, -7], [12, 3, 15, -7]]}),
    # seq_len_delta 1 widens the lengths to 3 and 5 (2 and 3 pages); zero_tail clears the rest and row 2.
    "read_table_static": ("build_kv_read_table",
                          dict(req_to_token=R2T, req_pool_indices=ROWS, seq_lens=i64(2, 4), v2p=None, page_size=PS,
                               max_pages=4, seq_len_delta=1, zero_tail=True, out=filled((3, 4), -7)),
                          {"out": [[4, 3, 0, 0], [2, 5, 1, 0], [0, 0, 0, 0]]}),
    "read_table_dense_int32": ("build_kv_read_table",
                               dict(req_to_token=R2T, req_pool_indices=i32(1, 0), seq_lens=i32(2, 4), v2p=V2P,
                                    page_size=PS, kernel_page_multiplier=1, max_pages=4, seq_len_delta=1,
                                    out=filled((2, 4), -7)),
                               {"out": [[2, 3, -7, -7], [4, 1, 5, -7]]}),
    # The decode metadata kernel's static call: cache_seqlens, cu_seqlens_k and page_table = tok >> log2(ps)
    # on the live prefix ((len + 1) >> 1 pages); the padding token shifts to -1; columns past it keep 777.
    "decode_static": ("normal_decode_set_metadata",
                      dict(cache_seqlens=filled(2, 0), cu_seqlens_k=filled(3, 0), page_table=filled((2, 5), 777),
                           seq_lens=i64(5, 4), req_to_token=R2T, req_pool_indices=ROWS, max_seq_pages=4,
                           page_size=PS),
                      {"cache_seqlens": [5, 4], "cu_seqlens_k": [0, 5, 9],
                       "page_table": [[4, 3, -1, 777, 777], [2, 5, 777, 777, 777]]}),
    # Era B: the page value remapped through the dense table, V2P[value] * M (padding -> page 0 -> 0).
    "decode_dense": ("normal_decode_set_metadata",
                     dict(cache_seqlens=filled(2, 0), cu_seqlens_k=filled(3, 0), page_table=filled((2, 5), 777),
                          seq_lens=i64(5, 4), req_to_token=R2T, req_pool_indices=ROWS, max_seq_pages=4, page_size=PS,
                          v2p_page_table=V2P, kernel_page_multiplier=3),
                     {"cache_seqlens": [5, 4], "cu_seqlens_k": [0, 5, 9],
                      "page_table": [[6, 9, 0, 777, 777], [12, 3, 777, 777, 777]]}),
    # Era C: the rows are the canonical kernel page table already; their live prefixes are copied (column c,
    # no shift, no remap), here with int32 req_pool_indices and seq_lens.
    "decode_canonical_source": ("normal_decode_set_metadata",
                                dict(cache_seqlens=filled(2, 0), cu_seqlens_k=filled(3, 0),
                                     page_table=filled((2, 5), 777), seq_lens=i32(3, 6), req_to_token=CANONICAL,
                                     req_pool_indices=i32(1, 0), max_seq_pages=4, page_size=PS,
                                     src_is_kernel_page_table=True),
                                {"cache_seqlens": [3, 6], "cu_seqlens_k": [0, 3, 9],
                                 "page_table": [[20, 21, 777, 777, 777], [10, 11, 12, 777, 777]]}),
    # The static SWA pool's token-level map: swa_page_table = TO_SWA[token] >> log2(ps); padding -> slot 0.
    "decode_swa_token_map": ("normal_decode_set_metadata",
                             dict(cache_seqlens=filled(2, 0), cu_seqlens_k=filled(3, 0),
                                  page_table=filled((2, 5), 777), swa_page_table=filled((2, 5), 777),
                                  seq_lens=i64(5, 4), req_to_token=R2T, req_pool_indices=ROWS, max_seq_pages=4,
                                  page_size=PS, full_to_swa_index_mapping=TO_SWA),
                             {"page_table": [[4, 3, -1, 777, 777], [2, 5, 777, 777, 777]],
                              "swa_page_table": [[1, 0, 0, 777, 777], [3, 4, 777, 777, 777]]}),
    # The fused token translate with int32 virtual ids: max(V2P[t // ps] * page_stride + t % ps, 0), -1 -> 0.
    # write_loc_to_kernel_ids with int32 locs and no out_width: keep loc > 0, d(loc) as above; 0 and -1 -> 0.
    "write_loc_int32": ("write_loc_to_kernel_ids",
                        dict(loc=i32(8, 0, -1, 3), v2p=V2P, page_size=PS, stride=PS * 3, out=filled(4, -5, np.int64)),
                        {"out": [12, 0, 0, 31]}),
    "translate_v2p_int32": ("translate_v2p",
                            dict(virt=i32(8, 9, -1, 3), v2p=V2P, page_size=PS, page_stride=PS * 3,
                                 out=filled(4, -5, np.int64)),
                            {"out": [12, 13, 0, 31]}),
}


def run_host(name, kwargs):
    upstream.host_kernel(name)(**kwargs)


def run_cuda(name, kwargs):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    if not kvaddr.gpu.available():
        pytest.skip(f"kvaddr.gpu unavailable: {kvaddr.gpu.why_unavailable()}")
    dev = {k: (torch.from_numpy(v).cuda() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    kvaddr.gpu.kernel(name)(**dev)
    torch.cuda.synchronize()
    for k, v in dev.items():
        if isinstance(v, torch.Tensor):
            kwargs[k][...] = v.cpu().numpy()


@pytest.mark.parametrize("backend", ["host", "cuda"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_upstream_call_mode(case, backend):
    name, kwargs, expected = CASES[case]
    kwargs = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    outputs = {k for k, _, what in upstream.convention(name)[0] if what.startswith("o")}
    inputs = {k: v.copy() for k, v in kwargs.items() if isinstance(v, np.ndarray) and k not in outputs}
    (run_host if backend == "host" else run_cuda)(name, kwargs)
    for k, want in expected.items():
        got = kwargs[k]
        np.testing.assert_array_equal(got, np.array(want, dtype=got.dtype), err_msg=f"{case}: {k}")
    for k, v in inputs.items():  # inputs unchanged
        np.testing.assert_array_equal(kwargs[k], v, err_msg=f"{case}: input {k} changed")


def test_static_pool_equals_identity_table():
    """The byte-identical-to-static promise: a static call equals the dense call over an identity table at
    multiplier 1, on every table kernel."""
    ident = np.array([0, 1, 2, 3, 4, 5, -1], dtype=np.int64)
    for name, table_kw, extra in (("create_flashmla_kv_indices_triton", "v2p_ptr",
                                   dict(page_kernel_lens=i64(5, 5), kv_indices=filled((2, 4), -1), PAGED_SIZE=PS)),
                                  ("build_kernel_page_table", "v2p",
                                   dict(seq_lens=i64(5, 5), page_size=PS, max_pages=4, out=filled((2, 4), -7))),
                                  ("build_kv_read_table", "v2p",
                                   dict(seq_lens=i64(5, 5), page_size=PS, max_pages=4, out=filled((2, 4), -7)))):
        out = "kv_indices" if "kv_indices" in extra else "out"
        static = dict(extra, req_to_token=R2T, req_pool_indices=ROWS, **{out: extra[out].copy()})
        dense = dict(extra, req_to_token=R2T, req_pool_indices=ROWS, **{table_kw: ident, out: extra[out].copy()})
        upstream.host_kernel(name)(**static)
        upstream.host_kernel(name)(**dense)
        np.testing.assert_array_equal(static[out], dense[out], err_msg=name)


def test_static_pool_rejects_a_multiplier():
    kw = dict(req_to_token=R2T, req_pool_indices=ROWS, seq_lens=i64(5, 5), page_size=PS, kernel_page_multiplier=2,
              max_pages=4, out=filled((2, 4), -7))
    with pytest.raises(kvaddr.InvalidArgument) as e:
        upstream.host_kernel("build_kernel_page_table")(**kw)
    assert e.value.argument == "multiplier"
    np.testing.assert_array_equal(kw["out"], filled((2, 4), -7))  # nothing written


def test_canonical_source_excludes_the_remap():
    kw = dict(cache_seqlens=filled(2, 0), cu_seqlens_k=filled(3, 0), page_table=filled((2, 5), 777),
              seq_lens=i64(3, 6), req_to_token=CANONICAL, req_pool_indices=ROWS, max_seq_pages=4, page_size=PS,
              src_is_kernel_page_table=True, v2p_page_table=V2P)
    with pytest.raises(kvaddr.InvalidArgument) as e:
        upstream.host_kernel("normal_decode_set_metadata")(**kw)
    assert e.value.argument == "src_is_kernel_page_table"


def test_forms_name_only_contract_fields():
    """Every upstream form fills fields of its route (a form cannot drift from the route's field list)."""
    for name, (route, args) in upstream.FORMS.items():
        fields = {f[0] for f in route_tables.shape(route)["fields"]}
        for kw, field, what, _ in args:
            assert field is None or field in fields, (name, kw, field)


def test_unknown_and_missing_keywords_are_named():
    with pytest.raises(ValueError, match="PAGE_SIZE"):
        upstream.fields_of("create_flashmla_kv_indices_triton", {"PAGE_SIZE": 64})
    with pytest.raises(ValueError, match="req_to_token: required"):
        upstream.fields_of("build_kernel_page_table", {})


def test_gpu_marshal_of_the_upstream_forms():
    """The device descriptors of the upstream forms, without a device (kvaddr.gpu.marshal, pointers unchecked)."""

    Fake = _Fake

    fields, temps = kvaddr.gpu.marshal("normal_decode_set_metadata", dict(
        cache_seqlens=Fake((2,), "<i4"), cu_seqlens_k=Fake((3,), "<i4"), page_table=Fake((2, 5), "<i4"),
        seq_lens=Fake((2,)), req_to_token=Fake((2, 8), "<i4"), req_pool_indices=Fake((2,)), max_seq_pages=4,
        page_size=2, src_is_kernel_page_table=True, v2p_page_table=None), check_pointers=False)
    assert temps == []
    assert fields["src_is_kernel_page_table"] is True
    assert "v2p" not in fields and "multiplier" not in fields
    assert fields["req_to_token"][0] == "mat" and fields["page_table"][2:4] == (2, 5)
    fields, _ = kvaddr.gpu.marshal("create_flashmla_kv_indices_triton", dict(
        req_to_token=Fake((2, 8), "<i4"), req_pool_indices=Fake((2,)), page_kernel_lens=Fake((2,)),
        kv_indices=Fake((2, 4), "<i4")), check_pointers=False)
    assert fields["page_size"] == 64 and "v2p" not in fields  # PAGED_SIZE's default; the static kernel
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.gpu.marshal("build_kernel_page_table", dict(
            req_to_token=Fake((2, 8), "<i4"), req_pool_indices=Fake((2,), "<i2"), seq_lens=Fake((2,)), page_size=2,
            max_pages=4, out=Fake((2, 4), "<i4")), check_pointers=False)
    assert e.value.argument == "req_pool_indices" and "int32 or int64" in e.value.reason


# ---- kvaddr.check in each call mode (mode=), on the CPU with the numpy subjects of np_mode_kernels ---------------
@pytest.mark.parametrize("route,mode,subject", [
    ("canonical_page_table", "static", "canonical_static"), ("decode_metadata", "static", "decode_modes"),
    ("decode_metadata", "canonical_source", "decode_modes"), ("decode_metadata", "swa_token_map", "decode_modes")])
def test_check_in_each_call_mode_passes_a_correct_subject(route, mode, subject):
    import np_mode_kernels as M

    seen = []

    def spy(**kw):  # the mode's arguments reach the kernel
        seen.append({k: (None if v is None else type(v).__name__) for k, v in kw.items()
                     if k in ("v2p", "src_is_kernel_page_table", "full_to_swa_index_mapping", "swa_page_table")})
        getattr(M, subject)(**kw)

    rep = kvaddr.check(route, spy, cases=30, seed=5, mode=mode, isolate=False)
    assert rep.ok and rep.cases >= 20, str(rep)
    assert rep.campaign["mode"] == mode
    want = {"static": {"v2p": None}, "canonical_source": {"v2p": None, "src_is_kernel_page_table": "bool"},
            "swa_token_map": {"v2p": "ndarray", "full_to_swa_index_mapping": "ndarray",
                              "swa_page_table": "ndarray"}}[mode]
    assert all(s == want for s in seen), seen[:2]


def test_a_dense_kernel_fails_the_static_mode():
    import np_kernels as K

    rep = kvaddr.check("canonical_page_table", K.canonical_page_table, cases=5, seed=5, mode="static")
    assert rep.failure is not None and rep.failure.kind == "raised"  # it indexes v2p = None


@pytest.mark.parametrize("route,mode,kw,reason", [
    ("canonical_page_table", "dense", {}, "must be None or one of static, canonical_source, swa_token_map"),
    ("canonical_page_table", 3, {}, "must be None or one of"),
    ("canonical_page_table", "canonical_source", {}, "canonical_page_table has no canonical_source call mode"),
    ("token_translate", "static", {}, "token_translate has no static call mode"),
    ("read_table", "swa_token_map", {}, "read_table has no swa_token_map call mode"),
    ("decode_metadata", "static", {"graph": True}, "graph mode captures the harness's dense call only"),
    ("decode_metadata", "static", {"huge": True}, "the huge case is drawn in the dense call only"),
])
def test_a_call_mode_the_route_lacks_is_rejected_before_any_kernel_runs(route, mode, kw, reason):
    def never(**kw):
        raise AssertionError("no kernel runs on a bad mode")

    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check(route, never, cases=3, seed=1, mode=mode, **kw)
    assert e.value.argument == "mode" and reason in str(e.value)


@pytest.mark.parametrize("route,mode", [(r, m) for m, routes in
                                        (("static", ("flashmla_block_table", "read_table", "full_prefill_table")),
                                         ("canonical_source", ("decode_metadata",))) for r in routes])
def test_every_route_of_a_call_mode_accepts_it(route, mode):
    rep = kvaddr.check(route, kvaddr.conventions.host_kernel(route), cases=5, seed=2, lanes=256, mode=mode)
    assert rep.ok, str(rep)


# ---- kvaddr.gpu.kernel(upstream name): every argument rule of the mode arguments, both sides, before any launch ---
def _decode_form(**over):
    p = 0x7F00_0000_0000
    kw = dict(cache_seqlens=_Fake((2,), "<i4", p), cu_seqlens_k=_Fake((3,), "<i4", p + 256),
              page_table=_Fake((2, 5), "<i4", p + 512), seq_lens=_Fake((2,), ptr=p + 1024),
              req_to_token=_Fake((2, 8), "<i4", p + 2048), req_pool_indices=_Fake((2,), ptr=p + 4096), max_seq_pages=4,
              page_size=2)
    kw.update(over)
    return kw


_MAP_OUT = dict(swa_page_table=_Fake((2, 5), "<i4", 0x7F00_0000_9000))


@pytest.mark.parametrize("bad,good,name,value", [
    (dict(full_to_swa_index_mapping=_Fake((12,), "<i4"), **_MAP_OUT),
     dict(full_to_swa_index_mapping=_Fake((12,), "<i8"), **_MAP_OUT), "full_to_swa_index_mapping", "typestr <i4"),
    (dict(full_to_swa_index_mapping=_Fake((3, 4)), **_MAP_OUT),
     dict(full_to_swa_index_mapping=_Fake((12,)), **_MAP_OUT), "full_to_swa_index_mapping", "ndim 2"),
    (dict(src_is_kernel_page_table=1), dict(src_is_kernel_page_table=True), "src_is_kernel_page_table", "1"),
    (dict(v2p_page_table=_Fake((4,), "<i4")), dict(v2p_page_table=_Fake((4,), "<i8")), "v2p_page_table",
     "typestr <i4"),
    (dict(seq_lens=_Fake((2,), "<i2")), dict(seq_lens=_Fake((2,), "<i8")), "seq_lens", "typestr <i2"),
    (dict(seq_lens=_Fake((2, 1))), dict(seq_lens=_Fake((2,))), "seq_lens", "ndim 2"),
    (dict(seq_lens=np.zeros(2, np.int64)), dict(seq_lens=_Fake((2,))), "seq_lens", "ndarray"),
    (dict(page_table=_Fake((2, 5), "<i8")), dict(page_table=_Fake((2, 5), "<i4")), "page_table", "typestr <i8"),
    (dict(swa_kernel_page_multiplier=2.0), dict(swa_kernel_page_multiplier=2), "swa_kernel_page_multiplier", "2.0"),
])
def test_upstream_decode_form_rules_both_sides(bad, good, name, value):
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.gpu.marshal("normal_decode_set_metadata", _decode_form(**bad), check_pointers=False)
    assert e.value.argument == name and value in e.value.value, str(e.value)
    kvaddr.gpu.marshal("normal_decode_set_metadata", _decode_form(**good), check_pointers=False)


def test_an_int32_index_array_that_cannot_be_copied_names_its_dtype():
    """Without torch or CuPy an int32 index array cannot be widened on the device: the error names the argument
    and its dtype (not its strides); with torch the copy is made (test_upstream_call_mode's cuda leg)."""
    try:
        import torch  # noqa: F401
        pytest.skip("torch is importable: the int32 array is copied")
    except ImportError:
        pass
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.gpu.marshal("normal_decode_set_metadata", _decode_form(seq_lens=_Fake((2,), "<i4", 0x7F00_0000_0400)),
                           check_pointers=False)
    assert e.value.argument == "seq_lens" and e.value.value == "typestr <i4"


def test_a_tensor_on_another_device_than_the_current_one_is_rejected(monkeypatch):
    """A torch CUDA tensor on cuda:1 while cuda:0 is current: InvalidArgument naming the argument and its device
    (kvaddr.gpu launches on the current device); the same tensor on cuda:0 is accepted. torch is stood in for by a
    module with the attributes kvaddr.gpu reads, so the rule is checked without a device."""
    import sys
    import types

    class Tensor:
        requires_grad = False
        is_cuda = True

        def __init__(self, index, shape, typestr="<i8", ptr=0x7F00_0000_0000):
            self.device = type("Device", (), {"index": index, "__str__": lambda s: f"cuda:{s.index}"})()
            self.__cuda_array_interface__ = _Fake(shape, typestr, ptr).__cuda_array_interface__

    fake = types.ModuleType("torch")
    fake.Tensor = Tensor
    fake.cuda = types.SimpleNamespace(current_device=lambda: 0)
    monkeypatch.setitem(sys.modules, "torch", fake)
    kw = dict(virt=Tensor(1, (4,)), v2p=Tensor(0, (3,), ptr=0x7F00_0000_1000), page_size=1, page_stride=1,
              out=Tensor(0, (4,), ptr=0x7F00_0000_2000))
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.gpu.marshal("translate_v2p", kw, check_pointers=False)
    assert e.value.argument == "virt" and e.value.value == "a cuda:1 tensor"
    assert "current device cuda:0" in e.value.reason
    kw["virt"] = Tensor(0, (4,))
    fields, _ = kvaddr.gpu.marshal("translate_v2p", kw, check_pointers=False)
    assert fields["ids"] == ("vec", 0x7F00_0000_0000, 4, 64)


def test_an_unknown_kernel_name_or_variant_is_named():
    for route, variant, name in (("nope", "production", "route"), (["x"], "production", "route"),
                                 ("build_kernel_page_table", "b17_doc_formula", "variant"),
                                 ("mamba_translate", "b17_doc_formula", "variant")):
        with pytest.raises(kvaddr.InvalidArgument) as e:
            kvaddr.gpu.kernel(route, variant)
        assert e.value.argument == name


@pytest.mark.parametrize("route,mode,spec,where,reason", [
    ("canonical_page_table", "static", {"v2p": "contiguous"}, "contract['v2p']", "the static call passes v2p=None"),
    ("decode_metadata", "canonical_source", {"v2p": "int64"}, "contract['v2p']", "canonical_source call passes"),
    ("decode_metadata", "swa_token_map", {"swa_page_table": "packed"}, "contract['swa_page_table']",
     "presented like page_table"),
    ("decode_metadata", "swa_token_map", {"full_to_swa_index_mapping": "contiguous"},
     "contract['full_to_swa_index_mapping']", "always a contiguous int64 array"),
])
def test_a_contract_on_an_argument_the_mode_leaves_out_or_adds_is_rejected(route, mode, spec, where, reason):
    def never(**kw):
        raise AssertionError("no kernel runs on a bad contract")

    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check(route, never, cases=3, seed=1, mode=mode, contract=spec)
    assert e.value.argument == where and reason in str(e.value)


@pytest.mark.parametrize("route,mode,spec", [
    ("canonical_page_table", "static", {"req_pool_indices": ("contiguous", "int32"), "out": "packed"}),
    ("decode_metadata", "canonical_source", {"seq_lens": "int32", "page_table": "pitched"}),
    ("decode_metadata", "swa_token_map", {"v2p": "contiguous", "page_table": "packed"}),
    # the host kernel writes swa_page_table into the pitched view it was handed (conventions.host_kernel)
    ("decode_metadata", "swa_token_map", {"page_table": "pitched"}),
])
def test_a_contract_with_a_call_mode_is_applied(route, mode, spec):
    rep = kvaddr.check(route, kvaddr.conventions.host_kernel(route), cases=8, seed=6, lanes=256, mode=mode,
                       contract=spec)
    assert rep.ok and rep.campaign["mode"] == mode, str(rep)


def test_a_call_mode_is_checked_against_the_host_route():
    def never(**kw):
        raise AssertionError("no kernel runs")

    for reference in ("cuda", "both"):
        with pytest.raises(kvaddr.InvalidArgument) as e:
            kvaddr.check("decode_metadata", never, cases=2, mode="static", reference=reference)
        assert e.value.argument == "reference" and "a call mode is checked against the host route" in e.value.reason
    rep = kvaddr.check("decode_metadata", kvaddr.conventions.host_kernel("decode_metadata"), cases=4, seed=1,
                       mode="static", reference="host")
    assert rep.ok and rep.reference == "host"


@pytest.mark.parametrize("mode,params,ok", [
    ("static", {"multiplier": 3}, False), ("static", {"multiplier": 1}, True),
    ("canonical_source", {"big_entries": True}, False), ("canonical_source", {"big_entries": False}, True),
    ("swa_token_map", {"multiplier": 3}, True),  # the SWA map keeps the dense page table and its multiplier
])
def test_a_generator_parameter_the_call_mode_fixes_must_agree(mode, params, ok):
    host = kvaddr.conventions.host_kernel("decode_metadata")
    if ok:
        assert kvaddr.check("decode_metadata", host, cases=4, seed=1, lanes=256, mode=mode, params=params).ok
        return
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check("decode_metadata", host, cases=4, seed=1, mode=mode, params=params)
    (key,) = params
    assert e.value.argument == f"params[{key!r}]" and f"the {mode} call mode has {key}" in e.value.reason
