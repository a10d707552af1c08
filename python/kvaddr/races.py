"""Racing writes of the spilling page-table variants (docs/replay.md, "Races").

Under grid_spill@G, b10_no_max_pages_bound and e01_no_column_bound a row of canonical_page_table or
read_table writes past its own columns, into the next rows of a packed table; two rows' programs can
then store to the same lane, and on the device either store may land last. The host route runs the
rows in order, which is one of the possible outputs only. `race(case, variant, actual)` computes,
for every lane, the stores of each program (batch row b, or -1 for read_table's zero_tail fill of
the padded rows) by running the host route on one program's part of the call on two prefills that
differ in every lane (a lane holds the same value after both runs exactly when the part stores to
it), and says whether `actual` is one of the variant's possible outputs.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from . import _core
from .conventions import reference

ROUTES = ("canonical_page_table", "read_table")
SPILLING = ("grid_spill", "b10_no_max_pages_bound", "e01_no_column_bound")


def _behaviours(variant):
    return {part.split("@")[0] for part in str(variant).split("+")}


def spills(route, variant):
    """Whether `variant` of `route` can make two rows store to the same lane."""
    return route in ROUTES and bool(_behaviours(variant) & set(SPILLING))


def _part(case, variant, table_guards, row0, b0, b1, zero_tail, prefill):
    """The whole buffer after the host route ran batch rows [b0, b1) on the table rows [row0, R) of `prefill`."""
    ins = dict(case.inputs)
    ins["req_pool_indices"] = ins["req_pool_indices"][b0:b1]
    ins["seq_lens"] = ins["seq_lens"][b0:b1]
    if "e10_batch_index_rows" in _behaviours(variant) and b1 > b0:
        ins["req_to_token"] = ins["req_to_token"][b0:]  # E10 reads row b for batch lane b
    scalars = dict(case.scalars)
    if case.route == "read_table":
        scalars["zero_tail"] = zero_tail
    buf = np.array(prefill, copy=True)
    # one program's part on separate buffers (an adjacent layout of the whole call does not carry over to a part)
    sub = dataclasses.replace(case, scalars=scalars, inputs=ins, outputs={"out": buf[row0:]}, adjacent=())
    buf[row0:] = reference(sub, variant, table_guards)["out"]
    return buf


def _stored(case, variant, table_guards, row0, b0, b1, zero_tail):
    """{flat lane: value} of the lanes one part stores to."""
    before = case.outputs["out"]
    a = _part(case, variant, table_guards, row0, b0, b1, zero_tail, before).ravel()
    b = _part(case, variant, table_guards, row0, b0, b1, zero_tail, before ^ 1).ravel()
    return {int(i): int(a[i]) for i in np.flatnonzero(a == b)}


def writes(case, variant, table_guards=True):
    """Every store of the variant's grid per flat lane of case.outputs["out"], in the host's order:
    {lane: [(row, value), ...]}; None when the variant does not spill or the split by row does not
    reproduce the whole call. Raises kvaddr.Error when the route rejects the call under `variant`."""
    if not spills(case.route, variant):
        return None
    before = case.outputs["out"]
    stride = before.shape[1] if before.ndim == 2 else 1
    batch = len(case.inputs["req_pool_indices"])
    zero_tail = bool(case.scalars.get("zero_tail", False))
    # A row stores outside its own row only when it has more pages than lanes per row.
    ps = int(case.scalars["page_size"])
    kv = np.asarray(case.inputs["seq_lens"][:batch], dtype=np.int64) + int(case.scalars.get("seq_len_delta", 0))
    if ps >= 1 and not np.any(-(-kv // ps) > stride):
        return None
    lanes = {}
    for b in range(batch):
        stored = _stored(case, variant, table_guards, b, b, b + 1, zero_tail)
        if zero_tail:  # a one-row part fills rows [b + 1, R) as its padded rows: take its spill from a run without
            own = {i: v for i, v in stored.items() if i // stride == b}
            spill = {i: v for i, v in _stored(case, variant, table_guards, b, b, b + 1, False).items() if i // stride != b}
            stored = {**own, **spill}
        for i in sorted(stored):
            lanes.setdefault(i, []).append((b, stored[i]))
    if zero_tail and case.route == "read_table" and batch < before.shape[0]:
        stored = _stored(case, variant, table_guards, batch, batch, batch, True)
        for i in sorted(stored):
            lanes.setdefault(i, []).append((-1, stored[i]))
    host = reference(case, variant, table_guards)["out"].ravel()
    replayed = before.ravel().copy()
    for i, ws in lanes.items():
        replayed[i] = ws[-1][1]
    if not np.array_equal(replayed, host):
        return None
    return lanes


def race(case, variant, actual, table_guards=True):
    """The race of `variant` on `case` against the kernel's buffer `actual` (the whole "out" buffer):
    None when no lane gets stores of two different values, else {"variant", "consistent",
    "cells": [{"index", "writes": [(row, value)], "possible", "recorded"}]}. consistent: `actual` is
    one of the variant's possible outputs (each contested lane holds one of its values, every other
    lane equals the host route's output). Raises kvaddr.Error as `writes` does."""
    lanes = writes(case, variant, table_guards)
    if lanes is None:
        return None
    actual = np.asarray(actual)
    shape = case.outputs["out"].shape
    host = reference(case, variant, table_guards)["out"].ravel()
    got = actual.ravel()
    if got.size != host.size:
        return None
    contested = {i: ws for i, ws in lanes.items() if len({v for _, v in ws}) >= 2}
    if not contested:
        return None
    cells, consistent = [], True
    for i in sorted(contested):
        possible = sorted({v for _, v in contested[i]})
        ok = int(got[i]) in possible
        consistent = consistent and ok
        cells.append({"index": tuple(int(x) for x in np.unravel_index(i, shape)), "writes": contested[i],
                      "possible": possible, "recorded": int(got[i])})
    others = np.ones(host.size, dtype=bool)
    others[list(contested)] = False
    consistent = consistent and bool(np.array_equal(got[others], host[others]))
    return {"variant": variant, "consistent": consistent, "cells": cells}


def matches_up_to_race(case, variant, actual, table_guards=True):
    """Whether `actual` (dict of output buffers, or the "out" buffer) is one of the outputs that the
    racing rows of `variant` can leave; False when the variant does not race here or rejects the call."""
    if not spills(case.route, variant):
        return False
    out = actual["out"] if isinstance(actual, dict) else actual
    try:
        r = race(case, variant, out, table_guards)
    except _core.Error:
        return False
    return bool(r and r["consistent"])
