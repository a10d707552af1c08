"""Seeded cases for the differential harness, in each route's production calling convention.

A *recipe* is a dict of plain ints / bools and 1-D or 2-D numpy arrays that fixes one case completely;
``build(route, recipe)`` turns it into a :class:`Case` (the arrays named as in the replay manifest,
docs/replay.md, plus presentation: padded output rows, strided inputs, aliasing). Shrinking edits
recipes (kvaddr.harness), so every shrunk case is still a well-formed call.

Seeding (one RNG family): case ``i`` of seed ``s`` is drawn from
``numpy.random.Generator(numpy.random.PCG64(numpy.random.SeedSequence([s, i])))``;
``draw(route, s, i, lanes)`` regenerates it on its own.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from . import adjacent
from . import route_tables as _routes
# the guarded buffers (kvaddr.buffers) under their kvaddr.cases names, which the harness's modules use
from .buffers import (  # noqa: F401
    GUARD, GUARDED_TABLES, SENTINEL_BASE, TABLE_GUARD, TABLE_GUARD_PAGE, guarded_table, sentinel,
)

ODD_PAGE_SIZES = (1, 2, 3, 4, 5, 7, 16, 64, 100, 256)
POW2_PAGE_SIZES = (1, 2, 4, 16, 64, 256)
MULTIPLIERS = (1, 2, 3, 7)


@dataclasses.dataclass
class Case:
    """One call: arrays under their replay-manifest names (C-contiguous, contract dtypes)."""

    route: str
    scalars: dict
    inputs: dict  # name -> ndarray, or None for an absent optional input
    outputs: dict  # name -> ndarray: the whole buffer before the call
    widths: dict = dataclasses.field(default_factory=dict)  # 2-D output -> visible columns (row stride > width)
    strided: tuple = ()  # inputs presented as every other element of a twice-as-long buffer
    # (output, input[, offset]): the kernel gets the elements [offset, offset + input.size) of the output buffer
    # as that input (offset 0 and the same size: out == input; offset 0 and a longer output: out starts at the
    # input and is wider; offset > 0: a partial overlap, which validation rejects). The output's before-buffer
    # holds the input's values there.
    alias: tuple = ()
    # (names, shared): the arguments `names` (inputs and outputs, in order) presented as consecutive slices of
    # one allocation, each starting `shared` int32 lanes before the previous one's end (0: touching, admitted;
    # > 0: a partial overlap validation rejects). kvaddr.adjacent has the layout and the comparison.
    adjacent: tuple = ()
    # input -> the dtype it is presented in when that differs from the case's own (a contract's int32 index
    # arrays, kvaddr.contract); the reference runs on the case's arrays
    dtypes: dict = dataclasses.field(default_factory=dict)

    def sizes(self):
        """Summary sizes used in reports: rows, lanes, pages, largest id."""
        s = {}
        for k, v in self.inputs.items():
            if v is not None:
                s[k] = tuple(v.shape)
        for k, v in self.outputs.items():
            s[k] = tuple(v.shape)
        return s


def rng_for(seed, index):
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), int(index)])))


# ---- pool state ------------------------------------------------------------------------------
def draw_v2p(rng, num_pages, *, big=False, scale=1):
    """v2p int64 [num_pages + 1]: a permuted pool with tombstones (-1) and the trailing padding entry -1.

    big: physical pages placed so that page * scale passes 2^31 (int64 offset paths)."""
    phys = rng.permutation(max(num_pages * 2, 1))[:num_pages].astype(np.int64)
    if big:
        phys += (1 << 31) // max(scale, 1) + int(rng.integers(0, 1 << 20))
    tomb = rng.choice([0.0, 0.0, 0.1, 0.5])
    phys[rng.random(num_pages) < tomb] = -1
    return np.concatenate([phys, np.array([-1], dtype=np.int64)])


def draw_ids(rng, n, num_pages, ps, *, pad=0.05, tombstone_pages=True):
    """Virtual token ids in [-ps-1, (num_pages + 1) * ps): live, padding (-1) and a few other negatives."""
    ids = rng.integers(0, (num_pages + 1) * ps, size=n, dtype=np.int64)
    ids[rng.random(n) < pad] = -1
    ids[rng.random(n) < pad / 5] = -int(ps) - 1
    return ids


def page_major(vp, ps, cols):
    """req_to_token int32 [rows, cols] from the virtual pages vp int32 [rows, >= ceil(cols / ps)]: each run of ps
    columns holds the tokens of one page (page * ps + offset)."""
    rows = vp.shape[0]
    return (vp[:, :, None] * np.int32(ps) + np.arange(ps, dtype=np.int32)).reshape(rows, -1)[:, :cols]


def page_major_rows(rng, rows, cols, ps, num_pages, padding):
    """req_to_token int32 [rows, cols]: each run of ps columns holds the tokens of one random virtual page
    (page * ps + offset); a fraction `padding` of the page-start tokens (the ones the routes read) is -1."""
    vp = rng.integers(0, num_pages + 1, size=(rows, cols // ps + 1), dtype=np.int32)
    r2t = page_major(vp, ps, cols)
    if padding:
        starts = r2t[:, ::ps]
        starts[rng.random(starts.shape) < padding] = -1
    return np.ascontiguousarray(r2t)


def _size(rng, lanes):
    """A lane count, log-uniform in [1, lanes]."""
    return int(np.exp(rng.uniform(0, np.log(max(lanes, 1)))))


def _pick(params, key, default):
    return params[key] if key in params else default


# ---- token routes ------------------------------------------------------------------------------
# The per-id routes of the route list (one id input, one table, scalars, one output lane per id), each as
# (ids name, table name, multiplier name or None, other int64 scalars, output dtype), read off its field list
# (kvaddr.route_tables.token_row): a route added to the list is drawn, built and checked here with no edit.
TOKEN_ROUTES = {r: _routes.token_row(r) for r in _routes.per_id_routes()}
# Routes with an int32 output whose int32_wrap variant stores the low 32 bits where production raises Overflow.
WRAP_ROUTES = ("canonical_page_table", "read_table", "flashmla_block_table", "decode_metadata")
TABLE_ROUTES = ("canonical_page_table", "read_table", "full_prefill_table", "flashmla_block_table", "decode_metadata")
_OTHER_ROUTES = TABLE_ROUTES + ("write_loc", "kv_indices_inplace", "eager_funnel")
# The routes the harness draws, in list order (a route of the list of another shape needs its drawing here;
# python/tests/test_route_coverage.py asks for every route).
ROUTES = tuple(r for r in _routes.route_names() if r in TOKEN_ROUTES or r in _OTHER_ROUTES)
# Upstream kernel names accepted by kvaddr.check for the route they implement.
ALIASES = {
    "translate_v2p": "token_translate",
    "translate_kv_loc_for_kernel": "token_translate",
    "build_kernel_page_table": "canonical_page_table",
    "build_kv_read_table": "read_table",
    "create_flashmla_kv_indices_triton": "flashmla_block_table",
    "write_loc_to_kernel_ids": "write_loc",
    "normal_decode_set_metadata": "decode_metadata",
    "translate_kv_indices_inplace": "kv_indices_inplace",
}


def draw_token_recipe(route, rng, lanes, params):
    ids_name, _, mult_name, extra, out_dtype = TOKEN_ROUTES[route]
    ps = _pick(params, "page_size", int(rng.choice(ODD_PAGE_SIZES))) if _routes.has_field(route, "page_size") else 1
    m = _pick(params, mult_name, int(rng.choice(MULTIPLIERS))) if mult_name else 1
    n = _size(rng, lanes)
    num_pages = max(1, int(rng.integers(1, max(2, n // max(ps, 1) + 2))))
    big = out_dtype == np.int64 and mult_name is not None and rng.random() < 0.15  # entries scaled by ps * M
    r = {"page_size": ps, "multiplier": m, "v2p": draw_v2p(rng, num_pages, big=big, scale=ps * m)}
    ids = draw_ids(rng, n, num_pages, ps)
    if route == "dcp_read_translate":
        r["dcp_size"] = _pick(params, "dcp_size", int(rng.choice([1, 2, 4])))
    r["ids"], r["v2p"] = fit_token_values(route, ids, r["v2p"], r.get("dcp_size", 1))
    defaults = _routes.scalar_defaults(route)
    for k in extra:  # any other scalar: the caller's value, else the argument struct's default
        r.setdefault(k, _pick(params, k, defaults[k]))
    r["rank2"] = route == "token_translate" and n % 2 == 0 and rng.random() < 0.2
    r["strided"] = bool(rng.random() < 0.25)
    # out == ids (admitted) in about 1 case of 6, out overlapping ids at an offset (rejected) in 1 of 10
    aliasable = route != "mamba_translate" and not r["strided"]
    u = rng.random()
    r["alias"] = aliasable and u < 0.18
    r["overlap"] = int(rng.integers(1, n + 1)) if aliasable and n > 1 and 0.18 <= u < 0.28 else 0
    return r


def fit_token_values(route, ids, v2p, dcp_size=1):
    """(ids, v2p) of a per-id case as `route` takes them: mamba_translate's raw slot gather gets slots in
    [0, num_pages] and entries >= 0 (it has no tombstone semantics to test), dcp_read_translate's ids arrive
    widened by dcp_size (padding stays negative); the other routes take them as drawn."""
    if route == "mamba_translate":
        ids = np.where(ids < 0, 0, ids) % len(v2p)
        v2p = np.where(v2p < 0, 0, v2p)
    if route == "dcp_read_translate":
        ids = np.where(ids < 0, ids, ids * dcp_size)
    return ids, v2p


def build_token(route, r):
    ids_name, v2p_name, mult_name, extra, out_dtype = TOKEN_ROUTES[route]
    ids = np.ascontiguousarray(r["ids"], dtype=np.int64)
    if r.get("rank2") and ids.size % 2 == 0 and ids.size > 0:
        ids = ids.reshape(2, ids.size // 2)
    scalars = {"page_size": r["page_size"]} if _routes.has_field(route, "page_size") else {}
    if mult_name:
        scalars[mult_name] = r["multiplier"]
    for k in extra:
        scalars[k] = r[k]
    k = int(r.get("overlap", 0))
    alias = ()
    if r.get("alias"):
        out = ids.astype(out_dtype).copy()
        alias = ("out", ids_name)
    elif k and out_dtype == np.int64 and ids.ndim == 1 and 0 < k < ids.size:
        out = sentinel(ids.size + k, out_dtype)  # ids = out[k:k + n]: a partial overlap
        out[k:] = ids
        alias = ("out", ids_name, k)
    else:
        out = sentinel(ids.size, out_dtype).reshape(ids.shape)
    return Case(route, scalars, {ids_name: ids, v2p_name: np.asarray(r["v2p"], dtype=np.int64)}, {"out": out},
                strided=(ids_name,) if r.get("strided") and ids.ndim == 1 else (), alias=alias)


# ---- write_loc ---------------------------------------------------------------------------------
def draw_write_loc_recipe(rng, lanes, params):
    ps = _pick(params, "page_size", int(rng.choice(ODD_PAGE_SIZES)))
    m = _pick(params, "multiplier", int(rng.choice(MULTIPLIERS)))
    dcp = _pick(params, "dcp_size", int(rng.choice([1, 2, 4, 8])))
    rank = _pick(params, "dcp_rank", int(rng.integers(0, dcp)))
    n = _size(rng, lanes)
    num_pages = max(1, int(rng.integers(1, max(2, n // max(ps, 1) + 2))))
    v2p = draw_v2p(rng, num_pages, big=rng.random() < 0.15, scale=ps * m)
    loc = rng.integers(0, (num_pages + 1) * ps * dcp, size=n, dtype=np.int64)
    loc[rng.random(n) < 0.1] = 0  # padded rows write the sink
    tail = 0 if rng.random() < 0.5 else int(rng.integers(1, 64))
    strided = bool(rng.random() < 0.25)
    u = rng.random()
    # out starting at loc (same size or wider: admitted) in 1 case of 6; loc inside out at an offset (rejected)
    # in 1 of 10
    alias = not strided and u < 0.17
    overlap = int(rng.integers(1, n + 1)) if not strided and n > 1 and 0.17 <= u < 0.27 else 0
    return {"page_size": ps, "multiplier": m, "dcp_size": dcp, "dcp_rank": rank, "v2p": v2p, "loc": loc,
            "tail": tail, "strided": strided, "alias": alias, "overlap": overlap}


def build_write_loc(r):
    loc = np.ascontiguousarray(r["loc"], dtype=np.int64)
    k = int(r.get("overlap", 0)) if 0 < int(r.get("overlap", 0)) < loc.size else 0
    width = loc.size + r["tail"] + k
    scalars = {k: r[k] for k in ("page_size", "multiplier", "dcp_size", "dcp_rank")}
    out = sentinel(width, np.int64)
    alias = ()
    if r.get("alias") or k:
        out[k:k + loc.size] = loc
        alias = ("out", "loc", k) if k else ("out", "loc")
    return Case("write_loc", scalars, {"loc": loc, "v2p": np.asarray(r["v2p"], dtype=np.int64)}, {"out": out},
                strided=("loc",) if r.get("strided") else (), alias=alias)


# ---- kv_indices_inplace ------------------------------------------------------------------------
def draw_kv_indices_recipe(rng, lanes, params):
    ps = _pick(params, "page_size", int(rng.choice(ODD_PAGE_SIZES)))
    m = _pick(params, "multiplier", int(rng.choice(MULTIPLIERS)))
    b_max = max(1, min(300, lanes // 8))
    b = int(rng.choice([_size(rng, 8), _size(rng, b_max)]))
    if rng.random() < 0.2:
        b = min(b_max, int(rng.integers(129, 300)))  # more than one block of rows
    lens = rng.integers(0, max(2, lanes // max(b, 1)) + 1, size=b, dtype=np.int64)
    n = int(lens.sum())
    num_pages = max(1, int(rng.integers(1, max(2, n // max(ps, 1) + 2))))
    v2p = draw_v2p(rng, num_pages)
    v2p = np.where(v2p >= 0, v2p % max(1, (2**31 - 1) // (ps * m) - 1), v2p)  # kernel ids fit int32
    ids = draw_ids(rng, n, num_pages, ps)
    return {"page_size": ps, "multiplier": m, "v2p": v2p, "lens": lens, "ids": ids,
            "tail": 0 if rng.random() < 0.3 else int(rng.integers(1, 64)), "pad": int(rng.choice([0, 0, 1, 4]))}


def build_kv_indices(r):
    lens = np.asarray(r["lens"], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    n = int(indptr[-1])
    ids = np.zeros(n, np.int64)
    k = min(n, len(r["ids"]))
    ids[:k] = r["ids"][:k]
    stale = (2**31 - 1 - np.arange(r["tail"], dtype=np.int64)) if r["tail"] else np.zeros(0, np.int64)
    before = np.concatenate([ids, stale]).astype(np.int32)  # virtual ids, then stale ids past any table
    indptr = np.concatenate([indptr, np.full(r["pad"], indptr[-1], np.int32)])  # padded graph rows
    scalars = {"page_size": r["page_size"], "multiplier": r["multiplier"], "batch_size": int(lens.size)}
    return Case("kv_indices_inplace", scalars, {"kv_indptr": indptr, "v2p": np.asarray(r["v2p"], np.int64)},
                {"kv_indices": before})


# ---- eager_funnel -------------------------------------------------------------------------------
def draw_eager_recipe(rng, lanes, params):
    """§4.6: a [bs, max_pages] table of page-start tokens (padding -1, a few tokens inside a page), funnelled
    to v2p[p] * M. Page size 1 (the default configuration, where B02 crashed) is drawn in about 1 case of 4."""
    ps = _pick(params, "page_size", 1 if rng.random() < 0.25 else int(rng.choice(ODD_PAGE_SIZES)))
    m = _pick(params, "multiplier", int(rng.choice(MULTIPLIERS)))
    b_max = max(1, min(1024, lanes // 4))
    rows = int(rng.choice([_size(rng, min(b_max, 8)), _size(rng, b_max), min(b_max, int(rng.integers(129, 300)))]))
    cols = max(1, _size(rng, max(1, min(600, lanes // rows))))
    num_pages = max(1, int(rng.integers(1, max(2, rows * cols + 2))))
    v2p = draw_v2p(rng, num_pages, big=rng.random() < 0.15, scale=ps * m)
    table = rng.integers(0, num_pages + 1, size=(rows, cols), dtype=np.int64) * ps
    inside = rng.random(table.shape) < 0.05
    table[inside] += rng.integers(0, ps, size=int(inside.sum()), dtype=np.int64)
    table[rng.random(table.shape) < float(rng.choice([0.0, 0.05, 0.3]))] = -1
    u = rng.random()
    alias = bool(u < 0.2)
    overlap = bool(0.2 <= u < 0.25)  # out one row before page_table in the same buffer (rejected)
    return {"page_size": ps, "multiplier": m, "v2p": v2p, "page_table": table, "alias": alias, "overlap": overlap,
            "pad": 0 if alias or overlap else int(rng.choice([0, 0, 1, 5])),
            "strided": bool(not alias and not overlap and rng.random() < 0.25)}


def build_eager(r):
    table = np.ascontiguousarray(r["page_table"], dtype=np.int64)
    rows, cols = table.shape
    alias = ()
    if r.get("alias"):  # funnel(page_table, out=page_table): the buffer holds the tokens before the call
        out, widths, alias = table.copy(), {}, ("out", "page_table")
    elif r.get("overlap"):  # page_table = rows [1, rows] of out: a partial overlap
        out, widths = sentinel((rows + 1) * cols, np.int64).reshape(rows + 1, cols), {}
        out[1:] = table
        alias = ("out", "page_table", cols)
    else:
        out = sentinel(rows * (cols + r["pad"]), np.int64).reshape(rows, cols + r["pad"])
        widths = {"out": cols} if r["pad"] else {}
    return Case("eager_funnel", {"page_size": r["page_size"], "multiplier": r["multiplier"]},
                {"page_table": table, "v2p": np.asarray(r["v2p"], dtype=np.int64)}, {"out": out}, widths,
                strided=("page_table",) if r.get("strided") else (), alias=alias)


# ---- table routes ------------------------------------------------------------------------------
def draw_table_recipe(route, rng, lanes, params):
    pow2 = route == "decode_metadata"
    ps = _pick(params, "page_size", int(rng.choice(POW2_PAGE_SIZES if pow2 else ODD_PAGE_SIZES)))
    m = _pick(params, "multiplier", int(rng.choice(MULTIPLIERS)))
    # Batches: mostly small, regularly >= 129 rows (more than one block), sized to the lane budget.
    b_max = max(1, min(1024, lanes // 4))
    b = int(rng.choice([_size(rng, min(b_max, 8)), _size(rng, b_max), min(b_max, int(rng.integers(129, 300)))]))
    pages_per_row = max(1, min(lanes // max(b, 1), (8 * lanes) // (max(b, 1) * ps)))
    max_np = int(rng.integers(1, max(2, min(pages_per_row, 600))))
    lens = rng.integers(0, max_np * ps + 1, size=b, dtype=np.int64)
    lens[rng.random(b) < 0.1] = 0
    delta = int(_pick(params, "seq_len_delta", int(rng.choice([0, 0, 1, 3])))) if route in (
        "read_table", "decode_metadata") else 0
    need = int(((lens + delta + ps - 1) // ps).max()) if b else 0
    if route == "flashmla_block_table" or route == "decode_metadata" or rng.random() < 0.75:
        width = need + int(rng.integers(0, 3))
    else:
        width = int(rng.integers(0, max(need, 1)))  # narrower than some rows: the max_pages bound matters
    width = max(width, 1)
    if route == "decode_metadata" and rng.random() < 0.3:
        width = max(1, need - int(rng.integers(0, 2)))  # columns capped at max_seq_pages
    num_rows = b + int(rng.integers(0, 4))
    start = None
    if route == "flashmla_block_table" and _pick(params, "kv_start_idx", rng.random() < 0.3):
        start = rng.integers(0, 2 * ps + 1, size=b, dtype=np.int64)
    cols = max(width, need) * ps + int(rng.integers(0, ps + 1)) + (int(start.max()) if start is not None and b else 0)
    cols = max(cols, 1)
    num_pages = int(rng.integers(1, max(2, min(num_rows * (cols // ps + 1), 1 << 22))))
    v2p = draw_v2p(rng, num_pages)
    # int32 table entries: keep v2p[p] * M inside int32, except in about 1 case of 10 of the routes with an
    # int32_wrap variant, where a third of the live pages get entries v2p[p] * M >= 2^31 (production rejects
    # the store as Overflow; kvaddr.check runs them as overflow cases, docs/harness.md).
    v2p = np.where(v2p >= 0, v2p % max(1, (2**31 - 1) // m), v2p)
    r2t = page_major_rows(rng, num_rows, cols, ps, num_pages, float(rng.choice([0.0, 0.01, 0.05])))
    rows = rng.permutation(num_rows)[:b].astype(np.int64) if rng.random() < 0.8 else np.arange(b, dtype=np.int64)
    strided = bool(rng.random() < 0.25)
    # The edges below are drawn last, so that the draws above stay those of the same (seed, index).
    r2t_strided = bool(rng.random() < 0.2)
    if route in WRAP_ROUTES and _pick(params, "big_entries", rng.random() < 0.1):
        hit = (v2p[:-1] >= 0) & (rng.random(num_pages) < 0.33)
        v2p[:-1][hit] = (2**31 + m - 1) // m + rng.integers(0, 1 << 16, size=int(hit.sum()))
    # decode_metadata, about 1 case in 12: two to four rows of length near 2^31 (each fits int32, the prefix
    # sums cu_seqlens_k do not); their columns stay bounded by max_seq_pages, all inside req_to_token.
    if route == "decode_metadata" and b >= 2 and _pick(params, "long_rows", rng.random() < 0.08):
        k = int(rng.integers(2, min(b, 4) + 1))
        lens[rng.permutation(b)[:k]] = rng.integers(2**30, 2**31 - 1 - delta, size=k)
    return {"page_size": ps, "multiplier": m, "v2p": v2p, "req_to_token": r2t, "rows": rows,
            "lens": lens, "width": width, "pad": int(rng.choice([0, 0, 1, 5])), "extra_rows": int(rng.integers(0, 3)),
            "seq_len_delta": delta, "zero_tail": bool(_pick(params, "zero_tail", rng.random() < 0.3)),
            "kv_start_idx": start, "strided": strided, "r2t_strided": r2t_strided}


def build_table(route, r):
    rows = np.ascontiguousarray(r["rows"], dtype=np.int64)
    lens = np.ascontiguousarray(r["lens"], dtype=np.int64)
    b = rows.size
    width = int(r["width"])
    out = sentinel((b + r["extra_rows"]) * (width + r["pad"]), np.int32).reshape(b + r["extra_rows"], width + r["pad"])
    r2t = np.ascontiguousarray(r["req_to_token"], dtype=np.int32)
    v2p = np.asarray(r["v2p"], dtype=np.int64)
    ps, m = r["page_size"], r["multiplier"]
    strided = (("req_pool_indices",) if r.get("strided") else ()) + (("req_to_token",) if r.get("r2t_strided") else ())
    if route == "flashmla_block_table":
        inputs = {"req_to_token": r2t, "req_pool_indices": rows, "page_kernel_lens": lens, "v2p": v2p,
                  "kv_start_idx": None if r["kv_start_idx"] is None else np.asarray(r["kv_start_idx"], np.int64)}
        return Case(route, {"page_size": ps, "multiplier": m}, inputs, {"kv_indices": out}, {"kv_indices": width},
                    strided)
    inputs = {"req_to_token": r2t, "req_pool_indices": rows, "seq_lens": lens, "v2p": v2p}
    if route == "decode_metadata":
        scalars = {"max_seq_pages": width, "page_size": ps, "seq_len_delta": r["seq_len_delta"], "multiplier": m}
        outputs = {"cache_seqlens": sentinel(b, np.int32, 7), "cu_seqlens_k": sentinel(b + 1, np.int32, 11),
                   "page_table": out}
        return Case(route, scalars, inputs, outputs, {"page_table": width}, strided)
    scalars = {"page_size": ps, "multiplier": m, "max_pages": width}
    if route == "read_table":
        scalars.update(seq_len_delta=r["seq_len_delta"], zero_tail=bool(r["zero_tail"]))
    return Case(route, scalars, inputs, {"out": out}, {"out": width}, strided)


# ---- entry points ------------------------------------------------------------------------------
def draw_recipe(route, rng, lanes, params=None):
    params = params or {}
    if route in TOKEN_ROUTES:
        r = draw_token_recipe(route, rng, lanes, params)
    elif route == "write_loc":
        r = draw_write_loc_recipe(rng, lanes, params)
    elif route == "kv_indices_inplace":
        r = draw_kv_indices_recipe(rng, lanes, params)
    elif route in TABLE_ROUTES:
        r = draw_table_recipe(route, rng, lanes, params)
    elif route == "eager_funnel":
        r = draw_eager_recipe(rng, lanes, params)
    else:
        raise ValueError(f"route = {route!r}: the harness supports {', '.join(ROUTES)}")
    # adjacent slices of one allocation (kvaddr.adjacent), drawn after everything else; params "adjacent":
    # False never, "always" an admitted layout in every case that admits one
    got = adjacent.draw(route, rng, r, _build, params.get("adjacent", True))
    r["adjacent"] = None if got is None else got[0]
    if got is not None and got[1]:
        r["overlap"] = got[1]  # the shared int32 lanes of a rejected layout (adjacent.REJECTED routes)
    if params.get("contract") is not None:  # kvaddr.contract.Contract, set by kvaddr.check (applied by build)
        r["contract"] = params["contract"]
    return r


def build(route, recipe):
    contract = recipe.get("contract")  # a kvaddr.contract.Contract: the layouts the wrapper guarantees
    if contract is not None:
        recipe = contract.shape_recipe(route, recipe)
    case = _build(route, recipe)
    if recipe.get("adjacent"):
        case = adjacent.attach(case, recipe)
    if contract is not None:
        case.dtypes = contract.dtypes()
    return case


def _build(route, recipe):
    if route in TOKEN_ROUTES:
        return build_token(route, recipe)
    if route == "write_loc":
        return build_write_loc(recipe)
    if route == "kv_indices_inplace":
        return build_kv_indices(recipe)
    if route == "eager_funnel":
        return build_eager(recipe)
    return build_table(route, recipe)


def draw(route, seed, index, lanes=4096, params=None):
    """Case `index` of `seed` for `route` (the same case kvaddr.check runs as that case)."""
    return build(route, draw_recipe(route, rng_for(seed, index), lanes, params))


def lanes_of(case):
    """Lanes compared for a case: every element of every output buffer plus the guards."""
    return sum(int(v.size) + 2 * GUARD for v in case.outputs.values())
