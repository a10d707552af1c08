"""Hypothesis strategies for the cases kvaddr.check runs (needs Debian's python3-hypothesis).

    from hypothesis import given
    import kvaddr, kvaddr.strategies as ks

    @given(ks.cases("read_table", lanes=512))
    def test_my_read_table(case):
        res = kvaddr.check_case(my_kernel, case)          # device="cuda" for GPU kernels
        assert res.kind == "ok", res.first

Every part of a recipe (kvaddr.cases) is drawn from Hypothesis' own strategies (integers, lists,
sampled_from, booleans, composed per route family): page size, multiplier, the v2p table (live entries,
tombstones -1, the trailing sentinel -1), the ids (padding -1, negatives past padding, ids of the
sentinel page), lengths, rows, widths, the presentation flags (strided, aliased, padded, adjacent). So
Hypothesis shrinks a failing case's contents: fewer ids, fewer pages, page size 1, multiplier 1, values
toward 0, layouts toward separate buffers. The recipe is built by kvaddr.cases.build, as kvaddr.check
builds its own. seeds() still gives the harness's (seed, index) pairs, for kvaddr.cases.draw.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from . import _core
from . import adjacent
from . import check_args
from . import cases as C
from . import route_tables as _routes
from .conventions import reference

MAX_PAGES = 256  # the most virtual pages a drawn v2p table has (the harness's draws stay near the ids' need)
INT32_MAX = 2**31 - 1


def seeds():
    """(seed, index) pairs in the harness's seeding (numpy PCG64 of SeedSequence([seed, index]))."""
    return st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**20))


def _one_in(n):
    """True about once in n draws (the harness's rarer shapes), shrinking to False."""
    return st.integers(0, n - 1).map(lambda k: k == n - 1)


def _fixed(params, key, strategy):
    """params[key] when the caller fixed it (kvaddr.check's params), else `strategy`."""
    return st.just(params[key]) if key in params else strategy


def _v2p(draw, num_pages, bound=None, tombstones=True):
    """v2p int64 [num_pages + 1]: live entries in [0, bound] (default 2 * num_pages - 1, the pool the harness
    permutes), tombstones -1 and the trailing sentinel -1 (spec §2: v2p[num_virtual_ids] = -1)."""
    live = st.integers(0, max(0, 2 * num_pages - 1 if bound is None else bound))
    entries = draw(st.lists(live | st.just(-1) if tombstones else live, min_size=num_pages, max_size=num_pages))
    return np.array(entries + [-1], dtype=np.int64)


def _ids(num_pages, ps):
    """One token id: a live or sentinel-page id in [0, (num_pages + 1) * ps), padding -1, or a negative past
    the padding id down to -ps - 1 (the range of the harness recipes, gen::draw_ids)."""
    return st.integers(0, (num_pages + 1) * ps - 1) | st.just(-1) | st.integers(-ps - 1, -1)


def _page_size(draw, route, params, sizes=C.ODD_PAGE_SIZES):
    if not _routes.has_field(route, "page_size"):
        return 1
    return draw(_fixed(params, "page_size", st.sampled_from(sizes)))


def _big(draw, v2p, ps, m):
    """In about 1 case of 7, every live entry moved past 2^31 / (ps * M) (int64 offset paths)."""
    if draw(_one_in(7)):
        return np.where(v2p >= 0, v2p + (1 << 31) // max(ps * m, 1), v2p)
    return v2p


def _presentation(draw, n, lanes, aliasable):
    """(strided, alias, overlap) of a 1-D id input: strided, out == input (admitted), or out overlapping the input
    from element `overlap` on (rejected), each shrinking to separate buffers. Every choice is drawn whether
    it applies or not, so that a shrink of one leaves the draws after it in place."""
    strided = draw(st.booleans())
    how = draw(st.sampled_from(("separate", "alias", "overlap")))
    at = draw(st.integers(1, max(1, lanes)))
    if strided or not aliasable:
        how = "separate"
    return strided, how == "alias", min(at, n) if how == "overlap" and n > 1 else 0


@st.composite
def _token(draw, route, lanes, params):
    _, _, mult_name, extra, out_dtype = C.TOKEN_ROUTES[route]
    ps = _page_size(draw, route, params)
    m = draw(_fixed(params, mult_name, st.sampled_from(C.MULTIPLIERS))) if mult_name else 1
    num_pages = draw(st.integers(1, max(1, min(MAX_PAGES, lanes // ps + 1))))
    v2p = _v2p(draw, num_pages)
    if out_dtype == np.int64 and mult_name is not None:
        v2p = _big(draw, v2p, ps, m)
    r = {"page_size": ps, "multiplier": m}
    if "dcp_size" in extra:
        r["dcp_size"] = draw(_fixed(params, "dcp_size", st.sampled_from((1, 2, 4))))
    ids = np.array(draw(st.lists(_ids(num_pages, ps), min_size=1, max_size=max(1, lanes))), dtype=np.int64)
    r["ids"], r["v2p"] = C.fit_token_values(route, ids, v2p, r.get("dcp_size", 1))
    defaults = _routes.scalar_defaults(route)
    for k in extra:
        r.setdefault(k, params.get(k, defaults[k]))
    n = ids.size
    rank2 = draw(st.booleans())
    r["rank2"] = route == "token_translate" and n % 2 == 0 and rank2
    r["strided"], r["alias"], r["overlap"] = _presentation(draw, n, lanes, route != "mamba_translate")
    return r


@st.composite
def _write_loc(draw, route, lanes, params):
    ps = _page_size(draw, route, params)
    m = draw(_fixed(params, "multiplier", st.sampled_from(C.MULTIPLIERS)))
    dcp = draw(_fixed(params, "dcp_size", st.sampled_from((1, 2, 4, 8))))
    rank = draw(_fixed(params, "dcp_rank", st.integers(0, dcp - 1)))
    num_pages = draw(st.integers(1, max(1, min(MAX_PAGES, lanes // ps + 1))))
    v2p = _big(draw, _v2p(draw, num_pages), ps, m)
    loc = draw(st.lists(st.integers(0, (num_pages + 1) * ps * dcp - 1), min_size=1, max_size=max(1, lanes)))
    strided, alias, overlap = _presentation(draw, len(loc), lanes, True)
    return {"page_size": ps, "multiplier": m, "dcp_size": dcp, "dcp_rank": rank, "v2p": v2p,
            "loc": np.array(loc, dtype=np.int64), "tail": draw(st.integers(0, 63)), "strided": strided,
            "alias": alias, "overlap": overlap}


@st.composite
def _kv_indices(draw, route, lanes, params):
    ps = _page_size(draw, route, params)
    m = draw(_fixed(params, "multiplier", st.sampled_from(C.MULTIPLIERS)))
    b = draw(st.integers(1, max(1, min(300, lanes // 8))))
    lens = draw(st.lists(st.integers(0, max(2, lanes // b)), min_size=b, max_size=b))
    n = sum(lens)
    num_pages = draw(st.integers(1, max(1, min(MAX_PAGES, n // ps + 1))))
    v2p = _v2p(draw, num_pages, bound=min(2 * num_pages - 1, INT32_MAX // (ps * m) - 2))  # kernel ids fit int32
    ids = draw(st.lists(_ids(num_pages, ps), min_size=n, max_size=n))
    return {"page_size": ps, "multiplier": m, "v2p": v2p, "lens": np.array(lens, dtype=np.int64),
            "ids": np.array(ids, dtype=np.int64), "tail": draw(st.integers(0, 63)),
            "pad": draw(st.sampled_from((0, 1, 4)))}


@st.composite
def _eager(draw, route, lanes, params):
    ps = _page_size(draw, route, params)
    m = draw(_fixed(params, "multiplier", st.sampled_from(C.MULTIPLIERS)))
    rows = draw(st.integers(1, max(1, min(300, lanes // 4))))
    cols = draw(st.integers(1, max(1, min(600, lanes // rows))))
    num_pages = draw(st.integers(1, max(1, min(MAX_PAGES, rows * cols + 1))))
    v2p = _big(draw, _v2p(draw, num_pages), ps, m)
    # page-start tokens, tokens inside a page, padding -1 (§4.6)
    token = st.integers(0, num_pages).map(lambda p: p * ps) | st.integers(0, (num_pages + 1) * ps - 1) | st.just(-1)
    table = np.array(draw(st.lists(token, min_size=rows * cols, max_size=rows * cols)), dtype=np.int64)
    how = draw(st.sampled_from(("separate", "alias", "overlap")))
    pad, strided = draw(st.sampled_from((0, 1, 5))), draw(st.booleans())
    separate = how == "separate"
    return {"page_size": ps, "multiplier": m, "v2p": v2p, "page_table": table.reshape(rows, cols),
            "alias": how == "alias", "overlap": how == "overlap", "pad": pad if separate else 0,
            "strided": separate and strided}


@st.composite
def _table(draw, route, lanes, params):
    ps = _page_size(draw, route, params, C.POW2_PAGE_SIZES if route == "decode_metadata" else C.ODD_PAGE_SIZES)
    m = draw(_fixed(params, "multiplier", st.sampled_from(C.MULTIPLIERS)))
    b = draw(st.integers(1, max(1, min(300, lanes // 4))))
    pages_per_row = max(1, min(lanes // b, (8 * lanes) // (b * ps)))
    lens = np.array(draw(st.lists(st.integers(0, min(pages_per_row, 600) * ps), min_size=b, max_size=b)), np.int64)
    has_delta = _routes.has_field(route, "seq_len_delta")
    delta = int(draw(_fixed(params, "seq_len_delta", st.sampled_from((0, 1, 3))))) if has_delta else 0
    need = int(((lens + delta + ps - 1) // ps).max())
    # flashmla's and decode_metadata's tables are as wide as the rows need (decode_metadata's may be capped one
    # column short by max_seq_pages); the others may be narrower (the max_pages bound) or wider
    low = {"flashmla_block_table": 0, "decode_metadata": -1}.get(route, -need)
    width = max(1, need + draw(st.integers(low, 2)))
    num_rows = b + draw(st.integers(0, 3))
    start = None
    if _routes.has_field(route, "kv_start_idx") and draw(_fixed(params, "kv_start_idx", st.booleans())):
        start = np.array(draw(st.lists(st.integers(0, 2 * ps), min_size=b, max_size=b)), np.int64)
    cols = max(1, max(width, need) * ps + draw(st.integers(0, ps)) + (int(start.max()) if start is not None else 0))
    num_pages = draw(st.integers(1, max(1, min(MAX_PAGES, num_rows * (cols // ps + 1)))))
    v2p = _v2p(draw, num_pages, bound=min(2 * num_pages - 1, INT32_MAX // m - 1))  # entries * M fit int32
    # req_to_token page-major: each run of ps columns one virtual page, -1 a padding page start
    vp = np.array(draw(st.lists(st.integers(0, num_pages) | st.just(-1), min_size=num_rows * (cols // ps + 1),
                                max_size=num_rows * (cols // ps + 1))), np.int32).reshape(num_rows, -1)
    r2t = np.ascontiguousarray(C.page_major(np.maximum(vp, 0), ps, cols))
    r2t[:, ::ps][vp[:, :r2t[:, ::ps].shape[1]] < 0] = -1
    rows = np.array(draw(st.permutations(range(num_rows)))[:b], np.int64)  # distinct rows, shrinking to 0, 1, ...
    if route in C.WRAP_ROUTES and draw(_fixed(params, "big_entries", _one_in(10))) and (v2p[:-1] >= 0).any():
        v2p[int(np.flatnonzero(v2p[:-1] >= 0)[0])] = (2**31 + m - 1) // m  # entry * M past int32: an overflow case
    if route == "decode_metadata" and b >= 2 and draw(_fixed(params, "long_rows", _one_in(12))):
        # two rows near 2^31 tokens: each fits int32, the prefix sums cu_seqlens_k do not
        lens[:2] = [2**30 + draw(st.integers(0, 2**30 - 2 - delta)) for _ in range(2)]
    return {"page_size": ps, "multiplier": m, "v2p": v2p, "req_to_token": r2t, "rows": rows, "lens": lens,
            "width": width, "pad": draw(st.sampled_from((0, 1, 5))), "extra_rows": draw(st.integers(0, 2)),
            "seq_len_delta": delta, "zero_tail": bool(draw(_fixed(params, "zero_tail", st.booleans()))),
            "kv_start_idx": start, "strided": draw(st.booleans()), "r2t_strided": draw(st.booleans())}


def _family(route):
    """The recipe strategy of `route`'s family (the families of kvaddr.cases.draw_recipe)."""
    if route in C.TOKEN_ROUTES:
        return _token
    if route in C.TABLE_ROUTES:
        return _table
    return {"write_loc": _write_loc, "kv_indices_inplace": _kv_indices, "eager_funnel": _eager}[route]


@st.composite
def _with_layout(draw, route, recipe, mode):
    """The recipe with an adjacent layout (kvaddr.adjacent) drawn last: none, an admitted (touching) one or a
    rejected (overlapping) one, shrinking to none; mode as params["adjacent"]."""
    r = dict(recipe, adjacent=None)
    # none in 7 cases of 10, admitted (touching) in 2, rejected (overlapping) in 1; drawn whether used or not
    kind = draw(st.integers(0, 9).map(lambda k: "none" if k < 7 else "admitted" if k < 9 else "rejected"))
    k = draw(st.integers(0, 63))
    if not mode or r.get("alias") or r.get("overlap"):
        return r
    kind = "admitted" if mode == "always" else kind
    candidates = adjacent.pool(route, admitted=kind == "admitted") if kind != "none" else ()
    if candidates:
        got = adjacent.choose(C.build(route, r), candidates, k % len(candidates))
        if got is not None:
            r["adjacent"] = got[0]
            if got[1]:
                r["overlap"] = got[1]  # the shared int32 lanes of a rejected layout
    return r


def recipes(route, lanes=512, params=None):
    """Recipes (kvaddr.cases) for `route` or an upstream kernel name; lanes bounds the case size as in
    kvaddr.check, params fixes values as kvaddr.check's params do (page_size, multiplier, dcp_size, ...)."""
    route = check_args.route(route)
    lanes = check_args.integer("lanes", lanes, 1, check_args.MAX_LANES)
    params = dict(check_args.params(route, params) or {})
    mode = check_args.typed(adjacent.check_mode, params.get("adjacent", True))
    return _family(route)(route, lanes, params).flatmap(lambda r: _with_layout(route, r, mode))


def cases(route, lanes=512, params=None, variant="production", admitted=True):
    """kvaddr.cases.Case objects for `route` (arrays under their manifest names, outputs' before buffers).

    With `admitted` (the default) only cases the route's contract admits under `variant` are drawn (the
    strategies also draw rejected aliasing layouts and overflow cases, for which check_case returns kind
    "rejected"); admitted=False draws them all."""
    route = check_args.route(route)
    s = recipes(route, lanes, params).map(lambda r: C.build(route, r))
    if _routes.has_variant(route):
        check_args.variant(route, variant)
    if not isinstance(admitted, bool):
        raise check_args.invalid("admitted", repr(admitted), "must be True or False")
    return s.filter(lambda c: _admits(c, variant)) if admitted else s


def _admits(case, variant):
    try:
        reference(case, variant)
    except _core.Error:
        return False
    return True
