"""Adjacent slices of one allocation (kvaddr.adjacent): drawn for every route, presented as touching slices of one
backing, compared whole; a store past an output into its neighbour is reported as such; the partial overlaps
validation rejects are rejected; shrinking, replay directories and the device-reference flow keep the layout."""
import json

import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import adjacent as A
from kvaddr import cases as C
from kvaddr.conventions import host_kernel, reference

N = 200
_cache = {}


def draws(route, n=N, lanes=4096):
    key = (route, n, lanes)
    if key not in _cache:
        _cache[key] = [C.draw(route, 11, i, lanes) for i in range(n)]
    return _cache[key]


def claim(route):
    return "era_b_unclamped" if route == "flashmla_block_table" else "production"


def in_contract(c, route):
    """Whether the claimed variant's contract admits case c (a drawn case past an int32 precondition does not)."""
    try:
        reference(c, claim(route))
    except kvaddr.Error:
        return False
    return True


def addr(a):
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("route", C.ROUTES)
def test_admitted_layouts_are_drawn_regularly(route):
    got = [c for c in draws(route) if c.adjacent and not c.adjacent[1]]
    assert len(got) >= N // 15
    assert {c.adjacent[0] for c in got} <= set(A.ADMITTED[route])
    assert len({c.adjacent[0] for c in got}) >= 3  # several layouts per route


@pytest.mark.parametrize("route", sorted(A.REJECTED))
def test_rejected_overlaps_are_drawn_and_rejected(route):
    bad = [c for c in draws(route, 900, 256) if c.adjacent and c.adjacent[1]]
    assert len(bad) >= 6
    for c in bad:
        a, b = c.adjacent[0]
        # validation names the output (the second member; decode_metadata: the first of its two outputs) and
        # the argument it must be disjoint from
        first, second = (a, b) if (a, b) == ("cache_seqlens", "cu_seqlens_k") else (b, a)
        with pytest.raises(kvaddr.InvalidArgument, match=f"^{first} = overlapping buffer: must not overlap {second}$"):
            reference(c, claim(route))


def test_no_rejected_layout_where_the_route_has_its_own_overlap():
    for route in ("token_translate", "write_loc", "eager_funnel"):
        assert route not in A.REJECTED
        assert not any(c.adjacent and c.adjacent[1] for c in draws(route))


@pytest.mark.parametrize("route", C.ROUTES)
def test_correct_kernel_passes_every_drawn_layout(route):
    """Each drawn adjacent case passes; the first case of each distinct layout runs isolated (the default on the
    CPU: the group shipped to a worker as one allocation and written back), the rest in process (a worker forked
    per case cost about 10 CPU s of this suite for layouts already shipped once)."""
    k = host_kernel(route, claim(route))
    cases = [c for c in draws(route) if c.adjacent and not c.adjacent[1]]
    ran, shipped = 0, set()
    for c in cases:
        try:
            reference(c, claim(route))
        except kvaddr.Overflow:
            continue
        layout = repr(c.adjacent)
        res = kvaddr.check_case(k, c, variant=claim(route), isolate="auto" if layout not in shipped else False)
        shipped.add(layout)
        assert res.kind == "ok", (c.adjacent, res.kind, res.detail, [str(x) for x in res.first])
        ran += 1
    assert ran >= N // 20
    assert len(shipped) >= 2


@pytest.mark.parametrize("route", C.ROUTES)
def test_members_are_touching_slices_of_one_allocation(route):
    c = next(c for c in draws(route) if c.adjacent and not c.adjacent[1] and len(c.adjacent[0]) >= 2
             and all(A._arr(c, n).size for n in c.adjacent[0]) and in_contract(c, route))
    seen = {}

    def spy(**kw):
        seen.update({k: v for k, v in kw.items() if isinstance(v, np.ndarray)})
        host_kernel(route, claim(route))(**kw)

    assert kvaddr.check_case(spy, c, variant=claim(route), isolate=False).kind == "ok"
    names = c.adjacent[0]
    names_k = ["virt" if (route == "token_translate" and n == "ids") else n for n in names]
    base = [seen[n] for n in names_k]
    for a, b in zip(base, base[1:]):
        end = addr(a) + (a.strides[0] * a.shape[0] if a.ndim == 2 else a.nbytes)  # a 2-D view: its whole rows
        assert end == addr(b), names
    roots = {id(_root(x)) for x in base}
    assert len(roots) == 1  # one allocation


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


# ---- hand-checked cases ----------------------------------------------------------------------------------
def _token_case(layout):
    # ps 4, M 1: ids 0 -> page 0 -> v2p[0] = 2 -> 2 * 4 + 0 = 8; ids 5 -> page 1 -> v2p[1] = 0 -> 0 * 4 + 1 = 1
    ids = np.array([0, 5], np.int64)
    v2p = np.array([2, 0, -1], np.int64)
    return C.Case("token_translate", {"page_size": 4, "multiplier": 1}, {"ids": ids, "v2p": v2p},
                  {"out": C.sentinel(2, np.int64)}, adjacent=(layout, 0))


def test_hand_checked_correct_kernel_and_layout():
    c = _token_case(("out", "ids"))
    spans, total = A.layout(c)
    assert spans == [("out", 128, 132), ("ids", 132, 136)] and total == 264  # GUARD int64 guards = 128 int32 lanes
    res = kvaddr.check_case(K.translate_v2p, c)
    assert res.kind == "ok" and res.actual["out"].tolist() == [8, 1]
    assert reference(c)["out"].tolist() == [8, 1]


def test_store_past_the_output_lands_in_the_next_input_and_is_named():
    res = kvaddr.check_case(K.translate_v2p_oob, _token_case(("out", "ids")))
    assert res.kind == "out_of_bounds"
    # the planted int32 store of 12345 hits the low half of ids[0] (0 before the call)
    assert [str(x) for x in res.first] == ["out[0] (past the buffer, in the adjacent ids[0]): expected 0, got 12345"]
    assert res.first[0].region == "neighbour_after" and res.first[0].neighbour == "ids[0]"
    assert res.detail == ("a store outside out landed in ids, the input adjacent to it in one allocation "
                          "(or the kernel wrote into ids there)")
    assert res.differing == 1
    # with ids first, the same store lands in the allocation's guard after out
    res = kvaddr.check_case(K.translate_v2p_oob, _token_case(("ids", "out")))
    assert res.kind == "out_of_bounds" and [x.region for x in res.first] == ["guard_after"]
    assert res.first[0].output == "out" and res.first[0].index == (0,)
    # v2p after out: the store reaches v2p[0] = 2
    res = kvaddr.check_case(K.translate_v2p_oob, _token_case(("out", "v2p")))
    assert [str(x) for x in res.first] == ["out[0] (past the buffer, in the adjacent v2p[0]): expected 2, got 12345"]


def test_store_before_the_output_lands_in_the_previous_input():
    def before(virt, out, **kw):
        K.translate_v2p(virt=virt, out=out, **kw)
        flat, off = K._flat(out)
        flat[off - 1] = 7  # the int32 lane just before out (off counts int32 lanes of the backing)

    res = kvaddr.check_case(before, _token_case(("ids", "out")))
    # the high half of ids[1] = 5 becomes 7: 7 * 2^32 + 5
    assert res.kind == "out_of_bounds"
    assert [str(x) for x in res.first] == [f"out[-1] (before the buffer, in the adjacent ids[1]): expected 5, got "
                                           f"{7 * 2**32 + 5}"]


def test_a_write_into_an_input_away_from_the_outputs_is_input_modified():
    ids = np.arange(0, 400, 3, dtype=np.int64)  # 134 ids: ids[0] is 134 elements before out
    v2p = np.arange(40, dtype=np.int64)[::-1].copy()
    c = C.Case("token_translate", {"page_size": 16, "multiplier": 1}, {"ids": ids, "v2p": v2p},
               {"out": C.sentinel(ids.size, np.int64)}, adjacent=(("ids", "out"), 0))

    def writes_ids(virt, out, **kw):
        K.translate_v2p(virt=virt, out=out, **kw)
        virt[0] = 99

    res = kvaddr.check_case(writes_ids, c)
    assert res.kind == "input_modified" and res.detail == "the kernel wrote into its input ids"
    assert [str(x) for x in res.first] == ["ids[0] (input): expected 0, got 99"]


def test_decode_workspace_store_past_cache_seqlens_hits_cu_seqlens_k():
    # b = 2 rows 3 and 5 tokens at ps 4: cache_seqlens [3, 5], cu_seqlens_k [0, 3, 8], page_table row pages
    r2t = np.arange(16, dtype=np.int32).reshape(2, 8)
    ins = {"seq_lens": np.array([3, 5], np.int64), "req_to_token": r2t, "req_pool_indices": np.array([1, 0], np.int64),
           "v2p": np.array([6, 4, 9, 1, -1], np.int64)}
    outs = {"cache_seqlens": C.sentinel(2, np.int32, 7), "cu_seqlens_k": C.sentinel(3, np.int32, 11),
            "page_table": C.sentinel(4, np.int32).reshape(2, 2)}
    c = C.Case("decode_metadata", {"max_seq_pages": 2, "page_size": 4, "seq_len_delta": 0, "multiplier": 1}, ins, outs,
               {"page_table": 2}, adjacent=(("cache_seqlens", "cu_seqlens_k", "page_table"), 0))
    exp = reference(c)
    # row 0 reads r2t row 1 (tokens 8..15): pages 2, 3 -> v2p 9, 1; row 1 reads row 0: page 0, (len 5) page 1
    assert exp["cache_seqlens"].tolist() == [3, 5] and exp["cu_seqlens_k"].tolist() == [0, 3, 8]
    assert exp["page_table"].tolist() == [[9, outs["page_table"][0, 1]], [6, 4]]
    assert kvaddr.check_case(K.decode_metadata, c).kind == "ok"
    res = kvaddr.check_case(K.decode_metadata_oob, c)
    # cu_seqlens_k[0] is an output lane: a mismatch there, with the neighbour it lies next to named
    assert res.kind == "mismatch"
    assert [str(x) for x in res.first] == ["cu_seqlens_k[0] (also cache_seqlens[+0] of the output adjacent to it in "
                                           "one allocation): expected 0, got 12345"]


def test_misaligned_layout_is_refused():
    c = C.Case("mamba_translate", {}, {"slots": np.array([0, 1], np.int64), "v2p": np.array([3, 4], np.int64)},
               {"out": C.sentinel(3, np.int32)}, adjacent=(("out", "slots"), 0))
    with pytest.raises(ValueError, match=r"slots \(int64\) would start at int32 lane 67"):
        A.layout(c)
    c.outputs["out"] = C.sentinel(4, np.int32)
    assert A.layout(c)[0] == [("out", 64, 68), ("slots", 68, 72)]


def test_rejected_shared_element_and_touching_boundary():
    # the same pair, touching (admitted) and sharing its first element (rejected)
    r = C.draw_recipe("canonical_page_table", C.rng_for(3, 1), 512, {"adjacent": False})
    r["strided"] = r["r2t_strided"] = False
    r["adjacent"] = ("req_to_token", "out")
    ok = C.build("canonical_page_table", r)
    assert ok.adjacent == (("req_to_token", "out"), 0)
    reference(ok)
    r["overlap"] = 1
    bad = C.build("canonical_page_table", r)
    assert bad.adjacent == (("req_to_token", "out"), 1)
    with pytest.raises(kvaddr.InvalidArgument, match="out = overlapping buffer: must not overlap req_to_token"):
        reference(bad)
    calls = []
    assert kvaddr.check_case(lambda **kw: calls.append(1), bad).kind == "rejected" and calls == []


def test_check_counts_rejected_layouts_and_never_calls_the_kernel():
    calls = []

    def spy(**kw):
        calls.append(1)
        K.canonical_page_table(**kw)

    rep = kvaddr.check("canonical_page_table", spy, cases=300, seed=2, lanes=512, isolate=False)
    assert rep.ok, str(rep)
    drawn = [C.draw("canonical_page_table", 2, i, 512) for i in range(300)]
    n_bad = sum(bool(c.adjacent and c.adjacent[1]) for c in drawn)
    assert n_bad >= 3 and rep.rejections.get("InvalidArgument(out)", 0) >= n_bad
    assert len(calls) == rep.cases + rep.overflow.get("cases", 0)


def test_params_adjacent_modes():
    assert all(C.draw("write_loc", 1, i, 256, {"adjacent": False}).adjacent == () for i in range(60))
    always = [C.draw("write_loc", 1, i, 256, {"adjacent": "always"}) for i in range(60)]
    assert all(c.adjacent or c.alias for c in always)
    with pytest.raises(ValueError, match="params\\['adjacent'\\] = 'sometimes'"):
        C.draw("write_loc", 1, 0, 256, {"adjacent": "sometimes"})
    # the draws before the layout are those of the same (seed, index)
    a, b = (C.draw_recipe("read_table", C.rng_for(4, 7), 512, {"adjacent": m}) for m in (False, "always"))
    assert all(np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k]
               for k in a if k != "adjacent")


# ---- check: shrinking, report, replay ---------------------------------------------------------------------
def test_check_shrinks_keeping_the_neighbour_and_writes_a_replay(tmp_path):
    # seed 10: its first case is laid out out | v2p (at seed 0 an aliasing or strided draw leaves it separate)
    rep = kvaddr.check("token_translate", K.translate_v2p_oob, cases=20, seed=10, params={"adjacent": "always"},
                       replay_dir=tmp_path)
    f = rep.failure
    assert f.kind == "out_of_bounds" and f.case.adjacent == (("out", "v2p"), 0)
    assert f.case.inputs["ids"].tolist() == [0] and f.case.inputs["v2p"].tolist() == [0, 1]
    assert [str(x) for x in f.first] == ["out[0] (past the buffer, in the adjacent v2p[0]): expected 0, got 12345"]
    text = str(rep)
    assert "adjacent slices of one allocation: out | v2p" in text and "landed in v2p" in text
    call = json.loads((tmp_path / "token_translate-seed10-case0" / "manifest.json").read_text())["calls"][0]
    assert call["presented"]["adjacent"] == [["out", "v2p"], 0]
    assert "layout: adjacent slices of one allocation: out | v2p" in call["note"]
    case, _ = kvaddr.record.load_case(f.replay_dir)
    assert case.adjacent == (("out", "v2p"), 0)
    with pytest.raises(AssertionError, match=r"past the buffer, in the adjacent v2p\[0\]"):
        kvaddr.assert_replay(K.translate_v2p_oob, f.replay_dir)
    kvaddr.assert_replay(K.translate_v2p, f.replay_dir)


# ---- the device-reference flow with numpy stand-ins (as test_gpu_api's fake_device) --------------------------
@pytest.fixture
def fake_device(monkeypatch):
    import kvaddr.device_ref as D
    import kvaddr.harness as H

    calls = {"compare": 0}

    def count(a, b):
        calls["compare"] += 1
        d = np.flatnonzero(np.asarray(a).ravel() != np.asarray(b).ravel())
        return int(d.size), int(d[0]) if d.size else int(np.asarray(a).size)

    monkeypatch.setattr(D.gpu, "kernel", lambda route, variant="production": host_kernel(route, variant))
    monkeypatch.setattr(D.gpu, "count_differences", count)
    monkeypatch.setattr(H, "resolve_reference", lambda ref, fam: "cuda" if ref == "auto" else ref)
    return calls


@pytest.mark.parametrize("route", ["token_translate", "decode_metadata", "kv_indices_inplace", "flashmla_block_table",
                                   "mamba_translate", "eager_funnel"])
def test_device_flow_with_adjacent_layouts(fake_device, route):
    rep = kvaddr.check(route, host_kernel(route, claim(route)), variant=claim(route), cases=40, seed=3,
                       params={"adjacent": "always"})
    assert rep.ok and rep.reference == "cuda", str(rep)
    assert fake_device["compare"] >= rep.cases


def test_device_flow_reports_the_neighbour_like_the_host_path(fake_device):
    dev = kvaddr.check("token_translate", K.translate_v2p_oob, cases=20, seed=10, params={"adjacent": "always"})
    host = kvaddr.check("token_translate", K.translate_v2p_oob, cases=20, seed=10, params={"adjacent": "always"},
                        reference="host")
    assert dev.reference == "cuda" and [str(x) for x in dev.failure.first] == [str(x) for x in host.failure.first]
    assert dev.failure.first[0].neighbour == "v2p[0]"
