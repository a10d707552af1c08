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
refused with kvaddr.InvalidArgument, a ValueError (the draw picks only aligned layouts; shrinking skips
candidates that misalign).

The arithmetic - the layout, the attribution of differing lanes, each route's candidate layouts - is
kvaddr/harness/adjacent.hpp, through kvaddr._core (the C++ harness's own); this module keeps the array glue
(views, dtypes, the host backing) and the choice of a layout for a case.

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

from . import _core
from .buffers import GUARD, Lane, sentinel


def _candidates(admitted):
    """{route: its candidate layouts}, read off the route specs (RouteSpec::adjacent_admitted / adjacent_rejected,
    or the per-id rule; kvaddr/harness/adjacent.hpp): admitted as tuples of names, rejected as (names, shared)."""
    got = {r: tuple((names, shared) for names, shared in _core.adjacent_candidates(r, admitted)) for r in _core.routes()}
    if admitted:
        return {r: tuple(names for names, _ in c) for r, c in got.items() if c}
    return {r: c for r, c in got.items() if c}


# Candidate layouts per route, in backing order (admitted: touching). A candidate whose member is absent
# (kv_start_idx None), strided, or part of an alias is skipped; one that would misalign an int64 member too.
ADMITTED = _candidates(True)
# Partial overlaps validation rejects: (names, shared int32 lanes); the output always second, so that the
# shared lanes are its first element (inside what validation spans) and the input's last ones. The routes
# listed here carry `shared` in the recipe's "overlap" (graph mode clears it: a captured case is touching);
# the id routes, write_loc and eager_funnel use "overlap" for their own rejected layouts (out overlapping
# its input at an offset, cases.py) and declare none.
REJECTED = _candidates(False)
# The shares of cases drawn with an admitted (touching) and a rejected (overlapping) layout are gen/recipe.hpp's
# kAdjacentAdmitted (1/6) and kAdjacentRejected (1/30): the recipe's adjacent_pool says which pool a case draws.


def _arr(case, name):
    a = case.outputs.get(name)
    return a if a is not None else case.inputs.get(name)


def _member(case, n):
    """Array `n` of the case as kvaddr._core takes a member: (name, int32 lanes per element, shape, output, width)."""
    a = _arr(case, n)
    is_out = n in case.outputs
    return (n, a.itemsize // 4, list(a.shape), is_out, case.widths.get(n) if is_out else None)


def _members(case):
    """The layout's members, in backing order."""
    for n in case.adjacent[0]:
        if _arr(case, n) is None:
            raise ValueError(f"adjacent: {n} is not an array of the {case.route} case")
    return [_member(case, n) for n in case.adjacent[0]]


def layout(case):
    """([(name, lo, hi)] in int32 lanes of the backing, total lanes). kvaddr.InvalidArgument (a ValueError) for a
    misaligned int64 member."""
    spans, total = _core.adjacent_layout(_members(case), int(case.adjacent[1]), GUARD)
    return [tuple(s) for s in spans], total


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
    """Compare two backings (host int32 arrays) and attribute every differing lane (kvaddr/harness/adjacent.hpp).

    Returns (lanes, differing, out_of_bounds, inputs_changed): `lanes` the first `limit` differing output and
    window elements and the first `limit` written input elements, as kvaddr.harness.Lane in backing order;
    the number of differing elements that are output, window or guard lanes; whether any of them lies
    outside the outputs' visible lanes; the inputs with a changed lane outside every output's window."""
    lanes, count, oob, changed = _core.adjacent_attribute(
        _members(case), int(case.adjacent[1]), GUARD, np.ascontiguousarray(expected, np.int32),
        np.ascontiguousarray(got, np.int32), limit)
    return [Lane(*x) for x in lanes], count, oob, list(changed)


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
    shared); None when none fits (kvaddr/harness/adjacent.hpp adjacent_choose, over the case's arrays that are
    present, not strided and not aliased)."""
    arrays = [_member(case, n) for n in dict.fromkeys([*case.outputs, *case.inputs]) if _usable(case, (n,))]
    got = _core.adjacent_choose([(list(names), int(sh)) for names, sh in candidates], int(k), arrays, GUARD)
    return None if got is None else (tuple(got[0]), int(got[1]))


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
