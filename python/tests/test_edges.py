"""Every edge class the contracts admit is drawn regularly by kvaddr.cases (counted over a fixed number of
cases per route), and the ones validation rejects are reported as such by kvaddr.check."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import cases as C
from kvaddr.conventions import reference

N = 200
TABLES = ("canonical_page_table", "read_table", "full_prefill_table", "flashmla_block_table", "decode_metadata")
IDS = ("token_translate", "swa_translate", "dcp_read_translate", "transfer_ids")
_cache = {}


def draws(route, n=N):
    if route not in _cache:
        _cache[route] = [C.draw(route, 11, i, 4096) for i in range(n)]
    return _cache[route]


def admitted_layout(c):
    """Not a rejected overlap of one allocation (those raise InvalidArgument before any other check)."""
    return not (c.adjacent and c.adjacent[1])


def count(route, pred):
    return sum(bool(pred(c)) for c in draws(route))


def batch(c):
    for k in ("req_pool_indices", "page_table"):
        if k in c.inputs:
            return c.inputs[k].shape[0]
    return c.scalars["batch_size"]


@pytest.mark.parametrize("route", TABLES + ("eager_funnel",))
def test_output_rows_wider_than_the_table(route):
    name = next(iter(C.build(route, C.draw_recipe(route, C.rng_for(0, 0), 64)).outputs)) if route != \
        "decode_metadata" else "page_table"
    assert count(route, lambda c: name in c.widths and c.outputs[name].shape[1] > c.widths[name]) >= N // 10


@pytest.mark.parametrize("route,name", [(r, "ids") for r in IDS] + [("mamba_translate", "slots"), ("write_loc", "loc")]
                         + [(r, "req_pool_indices") for r in TABLES] + [(r, "req_to_token") for r in TABLES]
                         + [("eager_funnel", "page_table")])
def test_strided_inputs(route, name):
    assert count(route, lambda c: name in c.strided) >= N // 10


def test_strided_inputs_are_presented_with_their_strides():
    case = next(c for c in draws("read_table") if "req_to_token" in c.strided and "req_pool_indices" in c.strided)
    seen = {}

    def spy(req_to_token, req_pool_indices, **kw):
        seen.update(r2t=(req_to_token.shape, req_to_token.strides), rows=req_pool_indices.strides)
        K.read_table(req_to_token=req_to_token, req_pool_indices=req_pool_indices, **kw)

    assert kvaddr.check_case(spy, case, isolate=False).kind == "ok"  # the spy records in this process
    rows, cols = case.inputs["req_to_token"].shape
    assert seen == {"r2t": ((rows, cols), (4 * (cols + 3), 4)), "rows": (16,)}


@pytest.mark.parametrize("route", IDS + ("eager_funnel",))
def test_out_is_the_input(route):
    exact = [c for c in draws(route) if c.alias and len(c.alias) == 2]
    assert len(exact) >= N // 15
    for c in exact[:10]:
        assert c.outputs["out"].shape == c.inputs[c.alias[1]].shape
        assert np.array_equal(c.outputs["out"], c.inputs[c.alias[1]])  # the buffer holds the input before the call


def test_write_loc_out_starts_at_loc_and_is_wider():
    wider = [c for c in draws("write_loc") if c.alias and len(c.alias) == 2 and c.outputs["out"].size > c.inputs["loc"].size]
    assert len(wider) >= N // 20
    c = wider[0]
    calls = []

    def spy(loc, out, **kw):
        calls.append(np.shares_memory(loc, out) and loc.__array_interface__["data"][0] == out.__array_interface__["data"][0])
        K.write_loc(loc=loc, out=out, **kw)

    assert kvaddr.check_case(spy, c, isolate=False).kind == "ok" and calls == [True]


def test_kv_indices_in_place_with_stale_tails_and_padded_rows():
    cs = draws("kv_indices_inplace")
    assert count("kv_indices_inplace", lambda c: c.outputs["kv_indices"].size > int(c.inputs["kv_indptr"][c.scalars["batch_size"]])) >= N // 2
    assert count("kv_indices_inplace", lambda c: c.inputs["kv_indptr"].size > c.scalars["batch_size"] + 1) >= N // 4
    assert all("kv_indices" not in c.inputs for c in cs)  # the one buffer is the output, translated in place


@pytest.mark.parametrize("route", IDS + ("write_loc", "eager_funnel"))
def test_partial_overlaps_are_drawn_and_rejected(route):
    bad = [c for c in draws(route) if len(c.alias) == 3]
    assert len(bad) >= N // 50
    for c in bad:
        with pytest.raises(kvaddr.InvalidArgument, match="partially overlaps"):
            reference(c)


def test_check_reports_rejected_overlaps_and_never_calls_the_kernel():
    calls = []

    def spy(virt, out, **kw):
        calls.append(np.shares_memory(virt, out) and virt.shape != out.shape)
        K.translate_v2p(virt=virt, out=out, **kw)

    rep = kvaddr.check("token_translate", spy, cases=N, seed=11, isolate=False)
    assert rep.ok and rep.rejections == {"InvalidArgument(out)": rep.rejected} and rep.rejected >= N // 50
    assert not any(calls) and len(calls) == rep.cases == N - rep.rejected
    assert f"{rep.rejected} drawn cases the claimed contract rejects: InvalidArgument(out) {rep.rejected}" in str(rep)


@pytest.mark.parametrize("route", TABLES + ("eager_funnel", "kv_indices_inplace"))
def test_batches_of_more_than_one_block(route):
    assert count(route, lambda c: batch(c) >= 129) >= N // 10


@pytest.mark.parametrize("route", IDS + TABLES[:-1] + ("write_loc", "eager_funnel", "kv_indices_inplace"))
def test_odd_and_non_power_of_two_page_sizes(route):
    seen = [c.scalars["page_size"] for c in draws(route)]
    assert {3, 5, 7, 100} <= set(seen)
    assert sum(ps & (ps - 1) != 0 for ps in seen) >= N // 4


def test_cu_seqlens_overflow_is_drawn_and_is_an_overflow_case():
    long = [c for c in draws("decode_metadata") if int(c.inputs["seq_lens"].sum()) + c.scalars["seq_len_delta"]
            * c.inputs["seq_lens"].size > 2**31 - 1 and admitted_layout(c)]
    assert len(long) >= N // 25
    for c in long:
        assert np.all(c.inputs["seq_lens"] + c.scalars["seq_len_delta"] <= 2**31 - 1)  # each length fits int32
        with pytest.raises(kvaddr.Overflow, match="cu_seqlens_k"):
            reference(c)
        wrapped = reference(c, "int32_wrap")["cu_seqlens_k"]
        sums = np.concatenate([[0], np.cumsum(c.inputs["seq_lens"] + c.scalars["seq_len_delta"])])
        assert wrapped.tolist() == [(int(x) + 2**31) % 2**32 - 2**31 for x in sums]


@pytest.mark.parametrize("route,out", [("canonical_page_table", "out"), ("read_table", "out"),
                                       ("flashmla_block_table", "kv_indices"), ("decode_metadata", "page_table")])
def test_table_entries_past_int32_are_drawn(route, out):
    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    big = []
    for c in filter(admitted_layout, draws(route)):
        try:
            reference(c, variant)
        except kvaddr.Overflow as e:
            if str(e).startswith(out + " = "):
                big.append(c)
    assert len(big) >= N // 30
    c = big[0]
    assert np.any(c.inputs["v2p"][:-1] * c.scalars["multiplier"] >= 2**31)


def test_overflow_cases_run_and_int32_wrap_is_named():
    rep = kvaddr.check("decode_metadata", K.decode_metadata, cases=N, seed=11)
    assert rep.ok
    o = rep.overflow
    assert o["cases"] >= N // 15 and o["behaves_like_wrap"] == o["cases"] and o["variant"] == "int32_wrap"
    assert sum(rep.rejections.values()) == rep.rejected and rep.cases + rep.rejected == N
    assert rep.rejections["Overflow(cu_seqlens_k)"] >= N // 25 and rep.rejections["Overflow(page_table)"] >= 1
    assert f"behaves like int32_wrap in {o['cases']}" in str(rep)
    rep = kvaddr.check("decode_metadata", K.decode_metadata, cases=N, seed=11, overflow="skip")
    assert rep.ok and rep.overflow == {}


def _saturating_decode(**kw):
    K.decode_metadata(**kw)
    cs = np.asarray(kw["seq_lens"]).astype(np.int64) + kw["seq_len_delta"]
    kw["cu_seqlens_k"][1:] = np.minimum(np.cumsum(cs), 2**31 - 1).astype(np.int32)


def test_a_saturating_kernel_differs_from_int32_wrap():
    rep = kvaddr.check("decode_metadata", _saturating_decode, cases=N, seed=11)
    o = rep.overflow
    assert rep.ok and o["differs"] >= N // 25 and o["first"]["reason"].startswith("cu_seqlens_k = ")
    assert o["first"]["detail"].endswith("got 2147483647")
    rep = kvaddr.check("decode_metadata", _saturating_decode, cases=N, seed=11, overflow="wrap")
    f = rep.failure
    assert f.kind == "mismatch" and f.first[0].output == "cu_seqlens_k" and f.first[0].actual == 2**31 - 1
    assert f.case.inputs["seq_lens"].size == 2  # shrunk to two long rows
    assert int(f.case.inputs["seq_lens"].sum()) + 2 * f.case.scalars["seq_len_delta"] == 2**31  # the smallest sum past int32
    assert f.first[0].expected == -2**31


def test_table_kernel_wrapping_entries_is_named_int32_wrap():
    rep = kvaddr.check("read_table", K.read_table, cases=N, seed=11)
    assert rep.ok and rep.overflow["cases"] == rep.overflow["behaves_like_wrap"] >= N // 30
    rep = kvaddr.check("flashmla_block_table", K.flashmla_block_table, variant="era_b_unclamped", cases=N, seed=11)
    assert rep.ok and rep.overflow["variant"] == "era_b_unclamped+int32_wrap" and rep.overflow["behaves_like_wrap"] >= 5


def test_overflow_mode_is_checked():
    with pytest.raises(ValueError, match="overflow = 'nope'"):
        kvaddr.check("read_table", K.read_table, overflow="nope")


def test_check_case_reports_a_rejected_layout_without_calling_the_kernel():
    case = next(c for c in draws("write_loc") if len(c.alias) == 3)
    calls = []
    res = kvaddr.check_case(lambda **kw: calls.append(kw), case)
    assert res.kind == "rejected" and calls == []
    assert res.detail.startswith("InvalidArgument: out = size ") and "partially overlaps loc" in res.detail


@pytest.mark.parametrize("route", C.ROUTES)
def test_graph_capture_cases_are_inside_the_contract(route):
    # graph mode captures on a case without overflow rows / entries and without a rejected layout
    from kvaddr import graph

    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    for seed in range(25):
        r = graph._capture_recipe(route, seed, 1 << 14, None)
        r["alias"], r["overlap"] = False, 0
        if "lens" in r:
            r["lens"] = r["lens"] // 2
        reference(C.build(route, r), variant)  # raises if the contract rejects it
