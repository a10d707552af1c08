"""Greedy shrinking of a failing recipe: fewest rows, shortest lengths, fewest pages, smallest ids.

Each candidate is a smaller recipe; a candidate is kept when the route's contract admits it (the host
reference runs) and the kernel still fails the same way. Candidates are tried in order from the
largest cut to the smallest, and the search restarts after every accepted step.
"""
from __future__ import annotations

import time

import numpy as np

from .cases import TOKEN_ROUTES

_FLAGS = {"strided": False, "r2t_strided": False, "alias": False, "overlap": 0, "rank2": False, "pad": 0,
          "adjacent": None,
          "extra_rows": 0, "tail": 0,
          "seq_len_delta": 0, "kv_start_idx": None, "zero_tail": False}


def _batch_fields(route, r):
    if route in TOKEN_ROUTES:
        return ["ids"]
    if route == "write_loc":
        return ["loc"]
    if route == "kv_indices_inplace":
        return ["lens"]
    if route == "eager_funnel":
        return ["page_table"]
    f = ["rows", "lens"]
    if r.get("kv_start_idx") is not None:
        f.append("kv_start_idx")
    return f


def _with(r, **kw):
    c = dict(r)
    c.update(kw)
    return c


def _cuts(n):
    """Index ranges to delete from a batch of n: halves, then eighths, then single elements."""
    if n <= 1:
        return
    yield (n // 2, n)
    yield (0, n // 2)
    if n > 16:
        step = max(1, n // 8)
        for a in range(0, n, step):
            yield (a, min(n, a + step))
    else:
        for a in range(n):
            yield (a, a + 1)


def candidates(route, r):
    fields = _batch_fields(route, r)
    n = len(r[fields[0]])
    for a, b in _cuts(n):
        cut = {f: np.delete(r[f], np.s_[a:b], axis=0) for f in fields}
        yield _with(r, **cut)
        if "extra_rows" in r:  # the same output rows: the removed rows' lanes stay as rows past the batch
            yield _with(r, extra_rows=r["extra_rows"] + (b - a), **cut)
    if route == "kv_indices_inplace" and len(r["ids"]) > int(np.sum(r["lens"])):
        yield _with(r, ids=r["ids"][:int(np.sum(r["lens"]))])  # ids past kv_indptr[batch_size] are never read
    for k, v in _FLAGS.items():
        if k in r and not _is(r[k], v):
            yield _with(r, **{k: v})
    for k in ("tail", "pad", "extra_rows", "seq_len_delta"):
        if isinstance(r.get(k), int) and r[k] > 1:
            yield _with(r, **{k: r[k] // 2})
            yield _with(r, **{k: r[k] - 1})
    if "multiplier" in r and r["multiplier"] != 1:
        yield _with(r, multiplier=1)
    yield from _table_cuts(route, r)
    yield from _funnel_cuts(route, r)
    c = _compact_pages(route, r)
    if c is not None:
        yield c
    yield from _v2p_cuts(r)
    if n <= 16 and route != "eager_funnel":  # smallest values
        value_fields = fields + (["ids"] if route == "kv_indices_inplace" and len(r["ids"]) <= 16 else [])
        for f in value_fields:  # first every value of a field at 0 at once: one attempt where a failure does
            arr = r[f]           # not depend on the values (each attempt may cost a fresh worker after a fault)
            if arr.ndim == 1 and np.any(arr != 0):
                yield _with(r, **{f: np.zeros_like(arr)})
        for f in value_fields:
            arr = r[f]
            for i in range(len(arr)):
                x, ps = int(arr[i]), int(r["page_size"])
                # then x lowered by halving steps (a bisection toward the smallest failing value)
                steps = [x - (1 << k) for k in range(min(x.bit_length(), 62) - 1, 0, -1)]
                for smaller in [0, x // 2, x % ps, x % ps + ps] + steps + [x - ps, x - 1]:
                    if 0 <= smaller < int(arr[i]) or (int(arr[i]) < 0 and smaller == 0):
                        c = arr.copy()
                        c[i] = smaller
                        yield _with(r, **{f: c})


def _is(a, b):
    if a is None or b is None:
        return a is b
    return isinstance(a, (bool, int, np.integer)) and a == b


def _table_cuts(route, r):
    if "req_to_token" not in r:
        return
    if r["width"] > 1:
        yield _with(r, width=r["width"] // 2)
        yield _with(r, width=r["width"] - 1)
    r2t, rows = r["req_to_token"], r["rows"]
    used = np.unique(rows) if len(rows) else np.zeros(0, np.int64)
    if len(used) and used.max() + 1 < r2t.shape[0]:  # drop the rows past the last one read
        yield _with(r, req_to_token=r2t[:used.max() + 1])
    if len(used) < r2t.shape[0] and len(used) and used.max() < r2t.shape[0]:
        remap = np.full(r2t.shape[0], -1, np.int64)
        remap[used] = np.arange(len(used))
        yield _with(r, req_to_token=r2t[used], rows=remap[rows])
    ps = r["page_size"]
    need = int(max(r["width"], int(((r["lens"] + r.get("seq_len_delta", 0) + ps - 1) // ps).max()) if len(rows) else 1))
    start = 0 if r.get("kv_start_idx") is None or not len(rows) else int(np.max(r["kv_start_idx"]))
    # every column a length names (what a kernel without the column bound reads too); for decode_metadata,
    # whose every variant bounds the columns by max_seq_pages, the columns up to max_seq_pages (the long
    # rows of the cu_seqlens_k cases name far more)
    cuts = [need * ps + start] + ([r["width"] * ps] if route == "decode_metadata" else [])
    for cols in cuts:
        if 0 < cols < r2t.shape[1]:
            yield _with(r, req_to_token=r2t[:, :cols])


def _funnel_cuts(route, r):
    """eager_funnel: fewer columns, then smaller tokens (page starts of lower pages, -1 to 0)."""
    if route != "eager_funnel":
        return
    t = r["page_table"]
    for k in (t.shape[1] // 2, t.shape[1] - 1):
        if 0 < k < t.shape[1]:
            yield _with(r, page_table=t[:, :k])
            yield _with(r, page_table=t[:, t.shape[1] - k:])
    if t.size <= 16:
        ps = int(r["page_size"])
        for i in range(t.size):
            x = int(t.flat[i])
            for smaller in (0, (x // 2) - (x // 2) % ps, x - x % ps, x - ps):
                if 0 <= smaller < x or (x < 0 and smaller == 0):
                    c = t.copy()
                    c.flat[i] = smaller
                    yield _with(r, page_table=c)


def _renumber(tokens, ps, used):
    """Tokens (>= 0) moved to the pages of their page's rank in `used`; negatives unchanged."""
    live = tokens >= 0
    page = np.where(live, tokens // ps, 0)
    return np.where(live, np.searchsorted(used, page) * ps + tokens % ps, tokens)


def _compact_pages(route, r):
    """Only the virtual pages the case reads, renumbered 0, 1, ... in order (fewest pages, smallest ids)."""
    ps, v2p = r["page_size"], r["v2p"]
    dcp = r.get("dcp_size", 1) if route in ("write_loc", "dcp_read_translate") else 1
    if "req_to_token" in r:
        toks = r["req_to_token"].astype(np.int64)
    elif route == "eager_funnel":
        toks = r["page_table"]
    elif route == "kv_indices_inplace":
        return None
    else:
        vals = r["loc" if route == "write_loc" else "ids"]
        toks = np.where(vals > 0 if route == "write_loc" else vals >= 0, vals // dcp, -1)
    pages = toks[toks >= 0] // ps
    used = np.unique(pages)
    if used.size == 0 or used.max() >= len(v2p) or (used.size == len(v2p) - 1 and used[-1] == used.size - 1):
        return None
    new_v2p = np.concatenate([v2p[used], v2p[-1:]])
    if "req_to_token" in r:
        return _with(r, v2p=new_v2p, req_to_token=_renumber(toks, ps, used).astype(np.int32))
    if route == "eager_funnel":
        return _with(r, v2p=new_v2p, page_table=_renumber(toks, ps, used))
    key = "loc" if route == "write_loc" else "ids"
    vals = r[key]
    moved = _renumber(toks, ps, used)
    return _with(r, v2p=new_v2p, **{key: np.where(toks >= 0, moved * dcp + vals % dcp, vals)})


def _v2p_cuts(r):
    v2p = r["v2p"]
    n = len(v2p) - 1
    for k in (n // 2, n - 1):
        if 0 < k < n:
            yield _with(r, v2p=np.concatenate([v2p[:k], v2p[-1:]]))
    if n <= 16:
        for p in range(n + 1):
            if v2p[p] < 0:  # a tombstone (or the padding entry) made live: its own page id
                c = v2p.copy()
                c[p] = p
                yield _with(r, v2p=c)
            for smaller in (p, 0):
                if p < n and v2p[p] > smaller:
                    c = v2p.copy()
                    c[p] = smaller
                    yield _with(r, v2p=c)


def _key(r):
    """A hashable fingerprint of a recipe (visited recipes are not tried again)."""
    parts = []
    for k in sorted(r):
        v = r[k]
        parts.append((k, (v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else v))
    return hash(tuple(parts))


def shrink_recipe(route, recipe, result, still_fails, seconds, max_steps=5000):
    """Shrink `recipe` while `still_fails(candidate)` returns a result; returns (recipe, result, steps)."""
    deadline = time.perf_counter() + seconds
    steps = 0
    improved = True
    seen = {_key(recipe)}
    while improved and time.perf_counter() < deadline and steps < max_steps:
        improved = False
        for cand in candidates(route, recipe):
            if time.perf_counter() >= deadline:
                break
            k = _key(cand)
            if k in seen:
                continue
            seen.add(k)
            try:
                res = still_fails(cand)
            except (ValueError, IndexError):
                res = None
            if res is not None:
                recipe, result, steps, improved = cand, res, steps + 1, True
                break
    return recipe, result, steps
