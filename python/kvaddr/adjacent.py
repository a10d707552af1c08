"""Adjacent slices of one allocation: chosen arguments of a case presented back to back in one buffer.

``case.adjacent = (names, shared)``: the arguments ``names`` (inputs and outputs, in that order) are
consecutive slices of ONE int32 backing (int64 arguments are int64 views of it):

    GUARD elements of names[0]'s dtype | names[0] | names[1] | ... | GUARD elements of names[-1]'s dtype

Each argument is its whole contiguous buffer (an output with a row stride larger than its width is the
whole ``[rows, stride]`` buffer, the kernel sees its ``[:, :width]`` view). ``shared`` counts int32 lanes:

* ``shared == 0``: every argument starts right where the previous one ends (touching, not overlapping) -
  the layout engines use when they carve graph-capture buffers out of one workspace. A store one element
  past an output's end lands in the next argument, not in a guard region.
* ``shared > 0``: every argument starts ``shared`` int32 lanes before the previous one's end - a partial
  overlap, drawn only for pairs validation must reject (an output and an argument it must be disjoint
  from; REJECTED below). The later argument's values are in the shared lanes.

An int64 argument starts at an even int32 lane (8-byte aligned); a layout that would misalign one is
refused with ValueError (the draw picks only aligned layouts; shrinking skips candidates that misalign).

The whole backing is compared after the call. A differing lane is attributed (:func:`attribute`) to

* an output's own lanes (``out`` / ``past_width``, as for a separate output);
* an output's window - the GUARD elements (of the output's dtype) before its first and after its last lane
  - when it lies in a neighbouring *input* or in the backing's guard region: an out-of-bounds store of that
  output (region ``neighbour_before`` / ``neighbour_after`` naming the neighbour's lane, or
  ``guard_before`` / ``guard_after``); the nearest output is blamed;
* any other lane of an input: the kernel wrote into that input (``input``).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from . import route_tables as _routes
from .buffers import GUARD, Lane, sentinel

# Candidate layouts per route, in backing order (admitted: touching). A candidate whose member is absent
# (kv_start_idx None), strided, or part of an alias is skipped; one that would misalign an int64 member too.
# (mamba's int32 out before an int64 argument needs an even out size: the alignment rule decides.)
_TOKEN = {r: ((i, "out"), ("out", i), (v, "out"), ("out", v), (i, v, "out"))
          for r, (i, v, *_rest) in ((r, _routes.token_row(r)) for r in _routes.per_id_routes())}
_TABLE = (("out", "req_to_token"), ("req_to_token", "out"), ("seq_lens", "out"), ("out", "seq_lens"),
          ("req_pool_indices", "seq_lens", "out"), ("out", "v2p"))
ADMITTED = dict(_TOKEN)
ADMITTED.update({
    "write_loc": (("loc", "out"), ("out", "loc"), ("v2p", "out"), ("out", "v2p")),
    "eager_funnel": (("page_table", "out"), ("out", "page_table"), ("v2p", "out"), ("out", "v2p")),
    "canonical_page_table": _TABLE,
    "full_prefill_table": _TABLE,
    "read_table": _TABLE,
    "flashmla_block_table": (("kv_indices", "req_to_token"), ("req_to_token", "kv_indices"),
                             ("page_kernel_lens", "kv_indices"), ("kv_indices", "page_kernel_lens"),
                             ("req_pool_indices", "page_kernel_lens", "kv_start_idx", "kv_indices")),
    # the fa3 metadata workspace: cache_seqlens | cu_seqlens_k | page_table carved from one buffer
    "decode_metadata": (("cache_seqlens", "cu_seqlens_k", "page_table"), ("page_table", "cache_seqlens", "cu_seqlens_k"),
                        ("cu_seqlens_k", "cache_seqlens"), ("seq_lens", "cache_seqlens", "cu_seqlens_k"),
                        ("page_table", "req_to_token"), ("cu_seqlens_k", "page_table")),
    "kv_indices_inplace": (("kv_indices", "kv_indptr"), ("kv_indptr", "kv_indices"), ("v2p", "kv_indices"),
                           ("kv_indices", "v2p")),
})
# Partial overlaps validation rejects: (names, shared int32 lanes); the output always second, so that the
# shared lanes are its first element (inside what validation spans) and the input's last ones. The routes
# listed here carry `shared` in the recipe's "overlap" (graph mode clears it: a captured case is touching);
# the id routes, write_loc and eager_funnel use "overlap" for their own rejected layouts (out overlapping
# its input at an offset, cases.py) and get no entry.
REJECTED = {
    "mamba_translate": ((("slots", "out"), 2), (("v2p", "out"), 2)),
    "canonical_page_table": ((("req_to_token", "out"), 1),),
    "full_prefill_table": ((("req_to_token", "out"), 1),),
    "read_table": ((("req_to_token", "out"), 1),),
    "flashmla_block_table": ((("req_to_token", "kv_indices"), 1),),
    "decode_metadata": ((("cache_seqlens", "cu_seqlens_k"), 1), (("req_to_token", "page_table"), 1),
                        (("cu_seqlens_k", "page_table"), 1)),
    "kv_indices_inplace": ((("kv_indptr", "kv_indices"), 1), (("v2p", "kv_indices"), 2)),
}
# The shares of cases drawn with an admitted (touching) and a rejected (overlapping) layout are gen/recipe.hpp's
# kAdjacentAdmitted (1/6) and kAdjacentRejected (1/30): the recipe's adjacent_pool says which pool a case draws.


def _arr(case, name):
    a = case.outputs.get(name)
    return a if a is not None else case.inputs.get(name)


def layout(case):
    """([(name, lo, hi)] in int32 lanes of the backing, total lanes). ValueError for a misaligned int64 member."""
    names, shared = case.adjacent
    arrs = [_arr(case, n) for n in names]
    for n, a in zip(names, arrs):
        if a is None:
            raise ValueError(f"adjacent: {n} is not an array of the {case.route} case")
    pos = GUARD * (arrs[0].itemsize // 4)
    spans, prev = [], None
    for n, a in zip(names, arrs):
        u = a.itemsize // 4
        if prev is not None:
            pos -= int(shared)
        if pos % u:
            raise ValueError(f"adjacent: {n} ({a.dtype}) would start at int32 lane {pos}, not on an element boundary")
        spans.append((n, pos, pos + a.size * u))
        pos += a.size * u
        prev = u
    return spans, pos + GUARD * (arrs[-1].itemsize // 4)


def host_backing(case, outputs=None):
    """The backing as a host int32 array: the guards' sentinels, every member's values in order (an output's
    from `outputs` when given, else its before-buffer)."""
    spans, total = layout(case)
    names = case.adjacent[0]
    b = np.empty(total, np.int32)
    b[:spans[0][1]] = sentinel(GUARD, _arr(case, names[0]).dtype, 40000).view(np.int32)
    b[spans[-1][2]:] = sentinel(GUARD, _arr(case, names[-1]).dtype, 50000).view(np.int32)
    for n, lo, hi in spans:
        a = _arr(case, n)
        src = outputs[n] if outputs is not None and n in outputs else a
        b[lo:hi] = np.ascontiguousarray(src, dtype=a.dtype).reshape(-1).view(np.int32)
    return b


def _as_dtype(fam, x, dtype):
    """The int32 slice `x` of a family's array reinterpreted as `dtype` (no copy)."""
    if np.dtype(dtype) == np.int32:
        return x
    name = getattr(fam, "name", "numpy")
    if name == "torch":
        return x.view(fam.torch.int64)
    if name == "cupy":
        return x.view(fam.cp.int64)
    return x.view(np.int64)


def views(fam, backing, case):
    """{member: its whole buffer as a view of `backing` (an int32 array of family `fam`; numpy when fam is
    None), with the member's dtype and shape}."""
    spans, _ = layout(case)
    out = {}
    for n, lo, hi in spans:
        a = _arr(case, n)
        out[n] = _as_dtype(fam, backing[lo:hi], a.dtype).reshape(a.shape)
    return out


def members(case):
    return tuple(case.adjacent[0]) if case.adjacent else ()


def describe(case):
    names, shared = case.adjacent
    how = "adjacent slices of one allocation" if not shared else f"one allocation, each {shared} int32 lanes " \
        "inside the previous (a partial overlap)"
    return f"{how}: {' | '.join(names)}"


# ---- attributing differing lanes -------------------------------------------------------------------
def attribute(case, expected, got, limit=8):
    """Compare two backings (host int32 arrays) and attribute every differing lane.

    Returns (lanes, differing, out_of_bounds, inputs_changed): `lanes` the first `limit` differing output and
    window elements and the first `limit` written input elements, as kvaddr.harness.Lane in backing order;
    the number of differing elements that are output, window or guard lanes; whether any of them lies
    outside the outputs' visible lanes; the inputs with a changed lane outside every output's window."""
    spans, _ = layout(case)
    outs = [s for s in spans if s[0] in case.outputs]
    diff = np.flatnonzero(expected != got)
    lanes, seen = [], set()
    count, oob = 0, False
    changed = []
    for p in diff:
        p = int(p)
        kind, member, elem, name, region, index, neighbour = _classify(case, spans, outs, p)
        if (member, elem) in seen:
            continue
        seen.add((member, elem))
        if kind == "input":
            if member not in changed:
                changed.append(member)
        else:
            count += 1
            oob = oob or region != "out"
        if sum((lane.region == "input") == (kind == "input") for lane in lanes) < limit:
            a = _arr(case, member) if member is not None else None
            exp_v, got_v = _element(case, spans, member, elem, expected, got, p, a)
            lanes.append(Lane(name, index, region, exp_v, got_v, neighbour))
    return lanes, count, oob, changed


def _element(case, spans, member, elem, expected, got, p, a):
    """(expected, actual) of the element holding int32 lane p: the member's element, or the guard's."""
    if member is None:  # a guard lane: an element of the guard's dtype (its neighbouring member's)
        first, last = spans[0], spans[-1]
        dt = _arr(case, first[0] if p < first[1] else last[0]).dtype
        u = np.dtype(dt).itemsize // 4
        base = 0 if p < first[1] else last[2]
        lo = base + ((p - base) // u) * u
        return (int(expected[lo:lo + u].view(dt)[0]), int(got[lo:lo + u].view(dt)[0]))
    lo = dict((s[0], s[1]) for s in spans)[member]
    u = a.itemsize // 4
    k = lo + elem * u
    return int(expected[k:k + u].view(a.dtype)[0]), int(got[k:k + u].view(a.dtype)[0])


def _classify(case, spans, outs, p):
    """(kind, member, element, lane name, region, index, neighbour) of int32 lane p of the backing.

    A guard lane is named after the member next to it (guard_before: index g - GUARD for guard element g, as
    for a separate buffer; guard_after: g)."""
    if p < spans[0][1] or p >= spans[-1][2]:
        before = p < spans[0][1]
        n = spans[0][0] if before else spans[-1][0]
        u = _arr(case, n).itemsize // 4
        g = p // u if before else (p - spans[-1][2]) // u
        side = "before" if before else "after"
        return ("guard", None, (side, g), n, f"guard_{side}", (g - GUARD if before else g,), "")
    member, elem = None, None
    for n, lo, hi in spans:
        if lo <= p < hi:
            member, elem = n, (p - lo) // (_arr(case, n).itemsize // 4)
    if member in case.outputs:
        buf = case.outputs[member]
        idx = tuple(int(i) for i in np.unravel_index(elem, buf.shape))
        region = "past_width" if member in case.widths and idx[1] >= case.widths[member] else "out"
        near = _window(case, outs, p, member)  # a lane next to another output: a hint, the lane is this output's
        hint = "" if near is None else f"{near[1]}[{'+' if near[2] == 'after' else ''}{near[3]}]"
        return ("output", member, elem, member, region, idx, hint)
    # a lane of an input: in the window of the nearest output, or a write into the input itself
    best = _window(case, outs, p)
    if best is None:
        return ("input", member, elem, member, "input", _index(case, member, elem), "")
    _, n, side, off = best
    return ("output", member, elem, n, f"neighbour_{side}", (off,),
            f"{member}[{', '.join(str(i) for i in _index(case, member, elem))}]")


def _window(case, outs, p, exclude=None):
    """(distance, output, "before" / "after", element offset) of the nearest output (other than `exclude`)
    whose window of GUARD elements holds int32 lane p, or None."""
    best = None
    for n, lo, hi in outs:
        if n == exclude:
            continue
        u = _arr(case, n).itemsize // 4
        if lo - GUARD * u <= p < lo:
            d, side, off = lo - p, "before", -((lo - p + u - 1) // u)
        elif hi <= p < hi + GUARD * u:
            d, side, off = p - hi + 1, "after", (p - hi) // u
        else:
            continue
        if best is None or d < best[0]:
            best = (d, n, side, off)
    return best


def _index(case, name, elem):
    return tuple(int(i) for i in np.unravel_index(elem, _arr(case, name).shape))


# ---- drawing ---------------------------------------------------------------------------------------------
def _usable(case, names):
    for n in names:
        a = _arr(case, n)
        if a is None or n in case.strided or (case.alias and n in case.alias[:2]):
            return False
    return True


def attach(case, recipe):
    """`case` with the layout of recipe["adjacent"] (the shared lanes from recipe["overlap"] for the routes of
    REJECTED); ValueError when it cannot be laid out (a member missing or strided, an int64 one misaligned)."""
    names = tuple(recipe["adjacent"])
    shared = int(recipe.get("overlap", 0) or 0) if case.route in REJECTED else 0
    if not _usable(case, names):
        raise ValueError(f"adjacent: {names} cannot be laid out in one allocation for this {case.route} case")
    case = dataclasses.replace(case, adjacent=(names, shared))
    layout(case)
    return case


def check_mode(mode):
    """params["adjacent"]: True (drawn in some cases), False (never) or "always" (whenever one fits)."""
    if mode not in (True, False, "always"):
        raise ValueError(f"params['adjacent'] = {mode!r}: must be True, False or 'always'")
    return mode


def pool(route, admitted=True):
    """The candidate layouts ((names, shared) pairs) of `route`: the admitted (touching) ones, or the rejected
    (partially overlapping) ones."""
    if admitted:
        return tuple((names, 0) for names in ADMITTED.get(route, ()))
    return tuple(REJECTED.get(route, ()))


def choose(case, candidates, k):
    """The first of `candidates`, from the k-th on (cyclically), that `case` can be laid out in, as (names,
    shared); None when none fits."""
    for j in range(len(candidates)):
        names, sh = candidates[(k + j) % len(candidates)]
        if not _usable(case, names):
            continue
        cand = dataclasses.replace(case, adjacent=(tuple(names), sh))
        try:
            layout(cand)
        except ValueError:
            continue
        if sh and any(_arr(case, n).size == 0 or case.widths.get(n, 1) == 0 for n in names):
            continue  # an empty member overlaps nothing
        return (tuple(names), int(sh))
    return None


def draw(route, pool_kind, k, recipe, build, mode=True):
    """(names, shared) or None for a recipe just drawn, from its drawn adjacent_pool `pool_kind` (0 none, 1 an
    admitted layout, 2 a rejected one; gen/recipe.hpp) and adjacent_pick `k` (the candidate to start from): only
    cases whose recipe has no aliasing layout get one. mode False: None; "always": an admitted layout whenever
    one fits. build(route, recipe) is kvaddr.cases' builder (the layer above passes it)."""
    check_mode(mode)
    if not mode or recipe.get("alias") or recipe.get("overlap"):
        return None
    if mode == "always":
        pool_kind = 1
    if pool_kind not in (1, 2):
        return None
    candidates = pool(route, admitted=pool_kind == 1)
    if not candidates:
        return None
    return choose(build(route, recipe), candidates, k)
