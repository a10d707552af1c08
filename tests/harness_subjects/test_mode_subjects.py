"""GPU pytest: the Triton subjects of the upstream call modes (mode_subjects.py) against kvaddr, per mode
(skips without torch, CUDA or Triton).

* dense pool, int32 indices, canonical-source mode: through kvaddr.check (the harness's cases), as compositions in
  the harness calling convention of their route: the int32 wrapper of build_kernel_page_table as
  canonical_page_table; Era C's build_kernel_page_table + normal_decode_set_metadata(src_is_kernel_page_table=True)
  as decode_metadata; kvaddr's own kernel called with int32 indices likewise.
* static pool and the token-level SWA map (calls the harness convention has no argument for): the subject, kvaddr's
  CUDA kernel (kvaddr.gpu.kernel(upstream name)) and kvaddr's host route (kvaddr.upstream.host_kernel) on the
  same cases, drawn by kvaddr's own generator (kvaddr.cases.draw), must write the same tensors.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the Triton subjects need a GPU", allow_module_level=True)

import kvaddr  # noqa: E402
import kvaddr.cases  # noqa: E402
import kvaddr.gpu  # noqa: E402
import mode_subjects as M  # noqa: E402
from kvaddr import upstream  # noqa: E402

CASES = 40


def test_dense_pool_with_int32_indices_passes_check():
    kvaddr.assert_check("canonical_page_table", M.canonical_page_table_int32, device="cuda", cases=60, seed=21,
                        lanes=1 << 12)


def test_era_c_canonical_source_composition_passes_check():
    kvaddr.assert_check("decode_metadata", M.era_c_decode_metadata, device="cuda", cases=60, seed=22, lanes=1 << 12)


def test_kvaddr_kernel_with_int32_indices_passes_check():
    if not kvaddr.gpu.available():
        pytest.skip(f"kvaddr.gpu unavailable: {kvaddr.gpu.why_unavailable()}")
    k = kvaddr.gpu.kernel("build_kernel_page_table")

    def int32_indices(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
        k(req_to_token=req_to_token, req_pool_indices=req_pool_indices.to(torch.int32),
          seq_lens=seq_lens.to(torch.int32), v2p=v2p, page_size=page_size, kernel_page_multiplier=multiplier,
          max_pages=max_pages, out=out)

    kvaddr.assert_check("canonical_page_table", int32_indices, device="cuda", cases=60, seed=23, lanes=1 << 12)


@pytest.mark.parametrize("mode", ["static", "canonical_source", "swa_token_map"])
def test_decode_subject_passes_check_in_each_call_mode(mode):
    """kvaddr.check draws the cases in the call mode (kvaddr.contract.apply_mode) and compares with the host route."""
    rep = kvaddr.assert_check("decode_metadata", M.decode_metadata_any_mode, device="cuda", cases=60, seed=24,
                              lanes=1 << 12, mode=mode)
    assert rep.campaign["mode"] == mode and rep.reference == "host"


def test_static_page_table_subject_passes_check():
    kvaddr.assert_check("canonical_page_table", M.canonical_page_table_any_mode, device="cuda", cases=60, seed=25,
                        lanes=1 << 12, mode="static")


def _three_ways(name, subject, kwargs):
    """Runs `name` on the host (numpy), kvaddr's CUDA kernel and the subject (torch) on copies of kwargs; returns
    the three sets of outputs (keyword -> numpy array)."""
    outs = [k for k, f, w in upstream.convention(name)[0] if w.startswith("o") and kwargs.get(k) is not None]
    host = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    upstream.host_kernel(name)(**host)
    results = [{k: host[k] for k in outs}]
    for fn in (kvaddr.gpu.kernel(name), subject):
        dev = {k: (torch.from_numpy(v.copy()).cuda() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        fn(**dev)
        torch.cuda.synchronize()
        results.append({k: dev[k].cpu().numpy() for k in outs})
    return results


def _assert_same(results, what):
    host, gpu, subject = results
    for k in host:
        np.testing.assert_array_equal(gpu[k], host[k], err_msg=f"{what}: kvaddr.gpu vs host, {k}")
        np.testing.assert_array_equal(subject[k], host[k], err_msg=f"{what}: subject vs host, {k}")


def _table_case(route, i):
    c = kvaddr.cases.draw(route, 31, i, lanes=1 << 10)
    return c, {k: np.ascontiguousarray(v) for k, v in c.inputs.items() if v is not None}


@pytest.mark.parametrize("i", range(CASES))
def test_static_page_table(i):
    if not kvaddr.gpu.available():
        pytest.skip(f"kvaddr.gpu unavailable: {kvaddr.gpu.why_unavailable()}")
    c, ins = _table_case("canonical_page_table", i)
    out = np.ascontiguousarray(c.outputs["out"])
    max_pages = c.scalars["max_pages"]
    if max_pages * c.scalars["page_size"] > ins["req_to_token"].shape[1]:
        pytest.skip("the drawn table is wider than req_to_token")
    kw = dict(req_to_token=ins["req_to_token"], req_pool_indices=ins["req_pool_indices"], seq_lens=ins["seq_lens"],
              v2p=None, page_size=c.scalars["page_size"], max_pages=max_pages, out=out)
    _assert_same(_three_ways("build_kernel_page_table", M.build_kernel_page_table, kw), f"static case {i}")


def _decode_kwargs(c, ins, **mode):
    b = ins["seq_lens"].size
    s = c.scalars
    return dict(cache_seqlens=np.zeros(b, np.int32), cu_seqlens_k=np.zeros(b + 1, np.int32),
                page_table=np.ascontiguousarray(c.outputs["page_table"]), seq_lens=ins["seq_lens"],
                req_pool_indices=ins["req_pool_indices"], max_seq_pages=s["max_seq_pages"], page_size=s["page_size"],
                seq_len_delta=s["seq_len_delta"], **mode)


def _decode_case(i):
    """Decode case i of kvaddr's generator, skipped without kvaddr.gpu or when it is an overflow case (rows
    near 2^31)."""
    if not kvaddr.gpu.available():
        pytest.skip(f"kvaddr.gpu unavailable: {kvaddr.gpu.why_unavailable()}")
    c, ins = _table_case("decode_metadata", i)
    if int(ins["seq_lens"].max(initial=0)) >= (1 << 30):
        pytest.skip("an overflow case")
    return c, ins


@pytest.mark.parametrize("i", range(CASES))
def test_decode_token_level_swa_map(i):
    c, ins = _decode_case(i)
    rng = np.random.default_rng(i)
    r2t = ins["req_to_token"]
    to_swa = rng.integers(0, 1 << 20, size=int(r2t.max(initial=0)) + 1).astype(np.int64)
    to_swa[rng.random(to_swa.size) < 0.2] = 0
    to_swa[0] = 0
    kw = _decode_kwargs(c, ins, req_to_token=r2t, swa_page_table=np.ascontiguousarray(c.outputs["page_table"]),
                        full_to_swa_index_mapping=to_swa)
    _assert_same(_three_ways("normal_decode_set_metadata", M.normal_decode_set_metadata, kw), f"SWA map case {i}")


@pytest.mark.parametrize("i", range(CASES))
def test_decode_canonical_source_with_int32_indices(i):
    c, ins = _decode_case(i)
    rng = np.random.default_rng(100 + i)
    rows = ins["req_to_token"].shape[0]
    canonical = rng.integers(0, 1 << 20, size=(rows, max(c.scalars["max_seq_pages"], 1))).astype(np.int32)
    kw = _decode_kwargs(c, ins, req_to_token=canonical, src_is_kernel_page_table=True)
    kw["req_pool_indices"] = kw["req_pool_indices"].astype(np.int32)
    kw["seq_lens"] = kw["seq_lens"].astype(np.int32)
    _assert_same(_three_ways("normal_decode_set_metadata", M.normal_decode_set_metadata, kw), f"Era C case {i}")
