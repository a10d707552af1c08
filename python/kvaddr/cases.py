"""Seeded cases for the differential harness, in each route's production calling convention.

A *recipe* is a dict of plain ints / bools and 1-D or 2-D numpy arrays that fixes one case completely;
``build(route, recipe)`` turns it into a :class:`Case` (the arrays named as in the replay manifest,
docs/replay.md, plus presentation: padded output rows, strided inputs, aliasing). Shrinking edits
recipes (kvaddr.harness), so every shrunk case is still a well-formed call.

Seeding (one generator, gen/): the recipe of case ``i`` of seed ``s`` is drawn in C++ by
``kvaddr._core.draw_recipe(route, s, i, lanes, params)`` (gen/recipe.hpp) from gen/'s SplitMix64 keyed by
``(s, i)``, the very recipe the C++ harness draws for the same arguments; ``draw(route, s, i, lanes)``
regenerates it on its own. Python draws no random number: graph mode's redraws and the huge cases use the
case's stream ``rng_for(s, i)`` (``kvaddr._core.Rng``).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from . import _core
from . import adjacent
from . import route_tables as _routes
# the guarded buffers (kvaddr.buffers) under their kvaddr.cases names, which the harness's modules use
from .buffers import (  # noqa: F401
    GUARD, GUARDED_TABLES, SENTINEL_BASE, TABLE_GUARD, TABLE_GUARD_PAGE, guarded_table, sentinel,
)

_DRAWN = _core.recipe_constants()  # the value lists the recipes draw from (gen/recipe.hpp)
ODD_PAGE_SIZES = tuple(_DRAWN["odd_page_sizes"])
POW2_PAGE_SIZES = tuple(_DRAWN["pow2_page_sizes"])
MULTIPLIERS = tuple(_DRAWN["multipliers"])


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
    """The SplitMix64 stream of case `index` of `seed` (kvaddr._core.Rng: the recipe pieces, integers, random,
    choice, permutation)."""
    return _core.Rng(seed, index)


def page_major(vp, ps, cols):
    """req_to_token int32 [rows, cols] from the virtual pages vp int32 [rows, >= ceil(cols / ps)]: each run of ps
    columns holds the tokens of one page (page * ps + offset)."""
    rows = vp.shape[0]
    return (vp[:, :, None] * np.int32(ps) + np.arange(ps, dtype=np.int32)).reshape(rows, -1)[:, :cols]


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
_RECIPE_ROUTES = frozenset(_core.recipe_routes())  # the routes gen/recipe.hpp draws by name
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


def _engine_params(params):
    """The generator parameters the C++ drawer takes (kvaddr.check's "adjacent" and "contract" are Python's)."""
    return {k: v for k, v in (params or {}).items() if k not in ("adjacent", "contract")}


def draw_token_recipe(route, rng, lanes, params):
    """A per-id route's recipe from `rng` (a route the C++ list does not hold is drawn from its shape here)."""
    shape = None
    if route not in _RECIPE_ROUTES:
        ids_name, v2p_name, mult_name, extra, out_dtype = TOKEN_ROUTES[route]
        defaults = _routes.scalar_defaults(route)
        shape = {"route": route, "ids": ids_name, "table": v2p_name, "multiplier": mult_name,
                 "extra": [(k, defaults[k]) for k in extra], "page_size": _routes.has_field(route, "page_size"),
                 "out32": out_dtype == np.int32}
    return rng.recipe(route, lanes, _engine_params(params), id_shape=shape)


def fit_token_values(route, ids, v2p, dcp_size=1):
    """(ids, v2p) of a per-id case as `route` takes them (gen::fit_token_values: mamba_translate's raw slot
    gather gets slots inside the table and entries >= 0, dcp_read_translate's ids arrive widened by dcp_size)."""
    return _core.fit_token_values(route, np.ascontiguousarray(ids, np.int64), np.ascontiguousarray(v2p, np.int64),
                                  int(dcp_size))


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
    """The recipe of the case whose stream is `rng` (rng_for(seed, index)): drawn by gen/recipe.hpp, the adjacent
    layout picked here (kvaddr.adjacent needs the built case)."""
    params = params or {}
    if route in TOKEN_ROUTES:
        r = draw_token_recipe(route, rng, lanes, params)
    elif route in ROUTES:
        r = rng.recipe(route, lanes, _engine_params(params))
    else:
        raise ValueError(f"route = {route!r}: the harness supports {', '.join(ROUTES)}")
    # adjacent slices of one allocation (kvaddr.adjacent), drawn after everything else; params "adjacent":
    # False never, "always" an admitted layout in every case that admits one
    # (chosen on the recipe as the contract presents it: a layout the contract's flags rule out is never picked)
    pool_kind, pick = r.pop("adjacent_pool"), r.pop("adjacent_pick")
    contract = params.get("contract")
    shaped = r if contract is None else contract.shape_recipe(route, r)
    got = adjacent.draw(route, pool_kind, pick, shaped, _build, params.get("adjacent", True))
    r["adjacent"] = None if got is None else got[0]
    if got is not None and got[1]:
        r["overlap"] = got[1]  # the shared int32 lanes of a rejected layout (adjacent.REJECTED routes)
    if contract is not None:  # kvaddr.contract.Contract, set by kvaddr.check (applied by build)
        r["contract"] = contract
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
