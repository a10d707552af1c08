"""Graph mode's fast loop on the host: the draws of kvaddr/kernels/graph_draw.hpp through kvaddr._core.graph_draw
(the values the device draws for the same (seed, case)), the plan per route, and the contract of the drawn cases.
The device side (device draw == host draw, the loop itself) is in test_gpu_kernels.py."""
import numpy as np
import pytest

import kvaddr
from kvaddr import _core, graph
from kvaddr import cases as C
from kvaddr import graph_fast as F
from kvaddr.conventions import reference

M64 = (1 << 64) - 1


# ---- a Python statement of the lane function, for exact values --------------------------------
def mix(z):
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def case_key(seed, k, tag):
    return mix(mix(mix(seed) ^ k) ^ tag)


def word(key, salt, lane):
    return mix(key ^ mix((lane * 16 + salt) & M64))


def hit(w, ppm):
    return (w >> 24) % 1000000 < ppm


def permute(key, m, i):
    import math

    if m <= 1:
        return 0
    a = 1 + word(key, 1, 0) % (m - 1)
    while math.gcd(a, m) != 1:
        a = 1 if a + 1 == m else a + 1
    return (a * i + word(key, 2, 0) % m) % m


def py_ids(seed, k, tag, pages, ps, mode, dcp, lane):
    key = case_key(seed, k, tag)
    v = word(key, 5, lane) % ((pages + 1) * ps)
    if hit(word(key, 6, lane), 50000):
        v = -1
    if hit(word(key, 7, lane), 10000):
        v = -ps - 1
    if mode == 1:
        v = max(v, 0) % (pages + 1)
    if mode == 2 and v >= 0:
        v *= dcp
    return v


def test_mix_is_splitmix64():
    assert mix(0) == 0xE220A8397B1DCDAF  # splitmix64's first output from state 0
    assert mix(1) != mix(0)


def test_ids_rows_lens_match_the_python_statement():
    ids = _core.graph_draw(F.IDS, 2, [37, 5, 0, 1], 11, 3, 1, 500)[0]
    assert ids.dtype == np.int64 and ids.shape == (500,)
    assert ids.tolist() == [py_ids(11, 3, 2, 37, 5, 0, 1, i) for i in range(500)]
    dcp = _core.graph_draw(F.IDS, 2, [37, 5, 2, 4], 11, 3, 1, 300)[0]
    assert dcp.tolist() == [py_ids(11, 3, 2, 37, 5, 2, 4, i) for i in range(300)]
    rows = _core.graph_draw(F.ROWS, 6, [1000], 5, 9, 1, 200)[0]
    assert rows.tolist() == [permute(case_key(5, 9, 6), 1000, i) for i in range(200)]
    lens = _core.graph_draw(F.LENS, 7, [77], 5, 9, 1, 50)[0]
    key = case_key(5, 9, 7)
    assert lens.tolist() == [word(key, 5, i) % 78 for i in range(50)]


def test_r2t_matches_the_python_statement_and_is_page_major():
    pages, ps = 50, 7
    t = _core.graph_draw(F.R2T, 5, [pages, ps, 100000], 2, 4, 6, 40)
    key = case_key(2, 4, 5)
    for r in range(6):
        for c in range(40):
            page = (r << 32) | (c // ps)
            want = -1 if c % ps == 0 and hit(word(key, 6, page), 100000) else word(key, 5, page) % (pages + 1) * ps + c % ps
            assert t[r, c] == want, (r, c)
    # every run of ps columns: page * ps + offset (the page start may be the padding -1)
    for r in range(6):
        for c0 in range(0, 40, ps):
            run = t[r, c0 + 1:c0 + ps]
            if run.size:
                assert run[0] % ps == 1 and np.all(np.diff(run) == 1)
                assert t[r, c0] in (-1, run[0] - 1)


def test_v2p_is_a_pool_with_tombstones_and_the_padding_entry():
    rates = set()
    for k in range(40):
        v = _core.graph_draw(F.V2P, 1, [300, 0, 0], 1, k, 1, 301)[0]
        assert v[-1] == -1
        live = v[:-1][v[:-1] >= 0]
        assert np.all(live < 600) and len(np.unique(live)) == live.size  # distinct physical pages
        assert np.all(v[:-1][v[:-1] < 0] == -1)
        rates.add(round(float(np.mean(v[:-1] < 0)), 1))
        mamba = _core.graph_draw(F.V2P, 1, [300, 1, 0], 1, k, 1, 301)[0]
        assert np.all(mamba[:-1] >= 0) and np.array_equal(mamba[:-1][v[:-1] >= 0], live)
        mod = _core.graph_draw(F.V2P, 1, [300, 2, 7], 1, k, 1, 301)[0]
        assert np.array_equal(mod[:-1][v[:-1] >= 0], live % 7)
    assert {0.0, 0.1, 0.5} <= rates  # per-case tombstone rates 0, 10 % and 50 % all drawn


def test_ids_loc_page_table_ranges():
    ids = _core.graph_draw(F.IDS, 2, [40, 16, 0, 1], 3, 1, 1, 20000)[0]
    assert set(ids[ids < 0].tolist()) == {-1, -17}
    assert ids.max() < 41 * 16 and ids.max() >= 41 * 16 - 40
    assert 0.03 < np.mean(ids == -1) < 0.07 and 0.005 < np.mean(ids == -17) < 0.015
    mamba = _core.graph_draw(F.IDS, 2, [40, 1, 1, 1], 3, 1, 1, 5000)[0]
    assert mamba.min() == 0 and mamba.max() == 40
    loc = _core.graph_draw(F.LOC, 3, [40, 16, 4], 3, 1, 1, 20000)[0]
    assert loc.min() == 0 and loc.max() < 41 * 16 * 4 and 0.08 < np.mean(loc == 0) < 0.12
    pt = _core.graph_draw(F.PAGE_TABLE, 4, [40, 16], 3, 1, 30, 30)
    assert pt.shape == (30, 30) and np.all(pt % 16 == 0) and pt.min() == 0 and pt.max() == 40 * 16


def test_draws_depend_on_seed_case_and_tag_only():
    a = _core.graph_draw(F.IDS, 2, [40, 16, 0, 1], 3, 5, 1, 64)
    assert np.array_equal(a, _core.graph_draw(F.IDS, 2, [40, 16, 0, 1], 3, 5, 1, 64))
    for other in ((3, 6, 2), (4, 5, 2), (3, 5, 3)):
        s, k, tag = other
        assert not np.array_equal(a, _core.graph_draw(F.IDS, tag, [40, 16, 0, 1], s, k, 1, 64))
    rows = [tuple(_core.graph_draw(F.ROWS, 6, [9], 1, k, 1, 9)[0]) for k in range(30)]
    assert all(sorted(r) == list(range(9)) for r in rows) and len(set(rows)) > 5  # permutations, varied


@pytest.mark.parametrize("bad, ok", [(dict(kind=0), dict(kind=1)), (dict(kind=8), dict(kind=7)),
                                     (dict(params=[1, 2, 3, 4, 5]), dict(params=[1, 2, 3, 4])),
                                     (dict(rows=-1), dict(rows=0)), (dict(cols=-1), dict(cols=0)),
                                     (dict(k=-1), dict(k=0))])
def test_graph_draw_validation(bad, ok):
    base = dict(kind=7, tag=1, params=[3], seed=1, k=1, rows=1, cols=4)
    with pytest.raises(kvaddr.InvalidArgument, match=next(iter(bad))):
        _core.graph_draw(**{**base, **bad})
    out = _core.graph_draw(**{**base, **ok})
    assert out.shape == ((base | ok)["rows"], (base | ok)["cols"])


@pytest.mark.parametrize("route", C.ROUTES)
def test_fast_loop_cases_are_inside_the_contract(route):
    # thousands of host-drawn fast-loop cases at many captured shapes: the claimed variant's reference accepts
    # every one (the device draws the same values, so the device loop never runs a case outside the contract)
    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    n = 0
    for seed in range(12):
        for lanes in (64, 1 << 12):
            r0 = graph.captured_recipe(route, seed, lanes, None)
            draws = F.plan(route, r0)
            shapes0 = C.build(route, r0).sizes()
            for k in range(1, 14):
                case = C.build(route, F.host_recipe(route, r0, draws, seed, k))
                assert case.sizes() == shapes0 and case.scalars == C.build(route, r0).scalars
                reference(case, variant)  # raises kvaddr.Error outside the contract
                n += 1
    assert n == 12 * 2 * 13


@pytest.mark.parametrize("route", ["decode_metadata", "read_table", "flashmla_block_table", "kv_indices_inplace"])
def test_fast_loop_varies_what_a_capture_bakes(route):
    # lengths (longer than the captured ones), row ids, v2p and ids change from case to case; on the first seed
    # from 3 whose captured pool has at least 8 pages (a 1-page pool has only a few distinct v2p tables to draw)
    seed = next(s for s in range(3, 40) if graph.captured_recipe(route, s, 1 << 14, None)["v2p"].size >= 8)
    r0 = graph.captured_recipe(route, seed, 1 << 14, None)
    draws = F.plan(route, r0)
    recs = [F.host_recipe(route, r0, draws, seed, k) for k in range(1, 40)]
    for field in {d.field for d in draws}:
        distinct = len({np.asarray(r[field]).tobytes() for r in recs})
        if field == "rows":
            # distinct rows of the pool: at least 2 choices unless the captured pool has 1 row (decode_metadata's
            # capture case here, the first of its draws that breaks no production precondition)
            assert distinct > 1 if r0["req_to_token"].shape[0] > 1 else distinct == 1, (field, distinct)
        else:
            assert distinct > 30, (field, distinct)
    if "rows" in r0:
        assert max(int(r["lens"].max()) for r in recs) > int(r0["lens"].max())


def test_graph_argument_is_checked():
    with pytest.raises(ValueError, match="graph = 'fastest'"):
        kvaddr.check("token_translate", lambda **kw: None, graph="fastest", cases=2)
    with pytest.raises(kvaddr.InvalidArgument, match="graph = 'fast': needs device='cuda'"):
        kvaddr.check("token_translate", lambda **kw: None, graph="fast", cases=2)


@pytest.mark.parametrize("route", C.ROUTES)
def test_captured_recipe_has_separate_allocations_unless_asked(route):
    # the fast loop runs on separate allocations: graph mode's captured case drops an adjacent layout unless the
    # caller forces one (params adjacent="always"), which then runs in the slow loop
    seen_dropped = 0
    for seed in range(40):
        free = C.draw_recipe(route, C.rng_for(seed, 0), 1 << 10, {"long_rows": False, "big_entries": False})
        r0 = graph.captured_recipe(route, seed, 1 << 10, None)
        assert not r0.get("adjacent") and not C.build(route, r0).adjacent
        seen_dropped += bool(free.get("adjacent"))
    assert seen_dropped > 0  # the eager draw of the same seeds does give adjacent layouts
    forced = [graph.captured_recipe(route, s, 1 << 10, {"adjacent": "always"}) for s in range(8)]
    assert any(r.get("adjacent") for r in forced)


# ---- _core.graph_draw's arguments: each range on both sides (graph_draw::job_error; no draw divides by zero or
# overflows: a page size of 0 was a SIGFPE) -----------------------------------------------------------------------
EDGES = [  # (kind, params index, lowest valid, highest valid, the other params)
    (F.V2P, 0, 0, 1 << 31, [5, 0, 0]), (F.V2P, 1, 0, 2, [5, 0, 0]), (F.V2P, 2, 0, 1 << 31, [5, 2, 3]),
    (F.IDS, 0, 0, 1 << 31, [5, 4, 0, 1]), (F.IDS, 1, 1, 1 << 20, [5, 4, 0, 1]), (F.IDS, 2, 0, 2, [5, 4, 0, 1]),
    (F.IDS, 3, 0, 1 << 10, [5, 4, 2, 1]),
    (F.LOC, 0, 0, 1 << 31, [5, 4, 1]), (F.LOC, 1, 0, 1 << 20, [5, 4, 1]), (F.LOC, 2, 0, 1 << 10, [5, 4, 1]),
    (F.PAGE_TABLE, 0, 0, 1 << 31, [5, 4]), (F.PAGE_TABLE, 1, 0, 1 << 20, [5, 4]),
    (F.R2T, 0, 0, 1 << 31, [5, 4, 10]), (F.R2T, 1, 1, 1 << 20, [5, 4, 10]), (F.R2T, 2, 0, 10 ** 6, [5, 4, 10]),
    (F.ROWS, 0, 0, 1 << 31, [5]), (F.LENS, 0, 0, 1 << 62, [5]),
]


@pytest.mark.parametrize("kind,i,lo,hi,params", EDGES)
def test_graph_draw_params_on_both_sides_of_each_range(kind, i, lo, hi, params):
    for v, ok in ((lo, True), (hi, True), (lo - 1, False), (hi + 1, False)):
        p = list(params)
        p[i] = v
        if ok:
            got = _core.graph_draw(kind, 1, p, 7, 0, 2, 8)
            assert got.shape == (2, 8) and got.dtype == np.int64
        else:
            with pytest.raises(kvaddr.InvalidArgument) as e:
                _core.graph_draw(kind, 1, p, 7, 0, 2, 8)
            assert e.value.argument == "params" and e.value.value == "[" + ", ".join(map(str, p)) + "]"


def test_graph_draw_kind_and_size_on_both_sides():
    for kind in (0, 8):
        with pytest.raises(kvaddr.InvalidArgument) as e:
            _core.graph_draw(kind, 1, [5], 7, 0, 1, 4)
        assert e.value.argument == "kind"
    assert _core.graph_draw(F.LENS, 1, [5], 7, 0, 0, 0).shape == (0, 0)
    for rows, cols, name in ((-1, 4, "rows"), (1, -1, "cols"), ((1 << 31) + 1, 0, "rows"), (0, (1 << 31) + 1, "cols"),
                             (1 << 16, (1 << 15) + 1, "cols")):
        with pytest.raises(kvaddr.InvalidArgument) as e:
            _core.graph_draw(F.LENS, 1, [5], 7, 0, rows, cols)
        assert e.value.argument == name
    assert _core.graph_draw(F.LENS, 1, [5], 7, 0, 1 << 31, 0).shape == (1 << 31, 0)
