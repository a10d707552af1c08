"""Guarded buffers: what every output and every v2p table is surrounded by when a kernel gets it, and the
lane of such a buffer a report names (kvaddr.cases builds cases over them, kvaddr.adjacent lays them out in one
allocation, kvaddr.harness compares them)."""
from __future__ import annotations

import dataclasses

import numpy as np

# Output buffers are prefilled with this pattern (distinct per lane, far from any route value),
# and the guard regions around every output hold it too: a lane the route must not touch keeps it.
SENTINEL_BASE = -0x2A2A0000
GUARD = 64  # guard elements before and after every output buffer

# v2p tables (and the token-level full -> SWA slot map of decode's swa_token_map call mode) are handed to kernels
# (and to the host routes) as slices of a parent with TABLE_GUARD elements on each side; the element k places
# before the table (or after its end) holds TABLE_GUARD_PAGE + k, a positive page id no case draws, so a load
# outside the table (b09 reads v2p[-1], swa_no_padding_guard map[-1]) gives the same value on the device and on
# the host.
TABLE_GUARD = 8
TABLE_GUARD_PAGE = 9000
GUARDED_TABLES = ("v2p", "swa_v2p", "full_to_swa_index_mapping")


_PERIOD = 65521  # the prefill pattern repeats every _PERIOD lanes
_PATTERNS = {}  # dtype -> two periods of the pattern (lane k: SENTINEL_BASE - k % _PERIOD), read-only
_TABLE_GUARDS = {}  # dtype -> (the guard pages before a table, those after it), read-only


def sentinel(n, dtype, offset=0):
    """The prefill pattern of n lanes (lane k holds SENTINEL_BASE - ((offset + k) % 65521)), a fresh array: a copy
    of a slice of the dtype's cached two periods where the lanes fit in them, else computed."""
    dtype = np.dtype(dtype)
    pattern = _PATTERNS.get(dtype)
    if pattern is None:
        pattern = _PATTERNS[dtype] = _pattern(np.arange(2 * _PERIOD, dtype=np.int64), dtype)
        pattern.flags.writeable = False
    if type(offset) is int and type(n) is int and 0 <= n <= _PERIOD:
        start = offset % _PERIOD
        return pattern[start:start + n].copy()
    return _pattern(np.arange(n, dtype=np.int64) + offset, dtype)


def _pattern(lanes, dtype):
    return (SENTINEL_BASE - lanes % _PERIOD).astype(dtype)


def guarded_table(table):
    """(parent, view): `table` in the middle of a parent with TABLE_GUARD guard pages on each side."""
    parent = np.concatenate(table_pieces(table))
    return parent, parent[TABLE_GUARD:TABLE_GUARD + table.size]


def table_pieces(table):
    """guarded_table(table)'s parent as its three pieces (the guard pages before, the table flat, those after)."""
    guards = _TABLE_GUARDS.get(table.dtype)
    if guards is None:
        g = np.arange(TABLE_GUARD, 0, -1, dtype=table.dtype) + TABLE_GUARD_PAGE
        guards = _TABLE_GUARDS[table.dtype] = (g, g[::-1].copy())
        for a in guards:
            a.flags.writeable = False
    return guards[0], table.ravel(), guards[1]


@dataclasses.dataclass
class Lane:
    output: str
    index: tuple  # index in the output buffer (for guard lanes: offset from the buffer's first / last lane)
    # "out", "past_width" (a column past the visible width), "guard_before", "guard_after"; in an adjacent layout
    # (kvaddr.adjacent) also "neighbour_before" / "neighbour_after" (a lane of the argument next to the output in
    # the same allocation, `neighbour` names it; index as for the guards) and "input" (a written lane of the
    # input `output` away from every output)
    region: str
    expected: int
    actual: int
    neighbour: str = ""

    def __str__(self):
        near = f" (also {self.neighbour} of the output adjacent to it in one allocation)" if self.neighbour else ""
        where = {"out": near, "past_width": " (past the visible width)" + near, "guard_before": " (guard before the buffer)",
                 "guard_after": " (guard after the buffer)", "input": " (input)",
                 "neighbour_before": f" (before the buffer, in the adjacent {self.neighbour})",
                 "neighbour_after": f" (past the buffer, in the adjacent {self.neighbour})"}[self.region]
        idx = ", ".join(str(i) for i in self.index)
        return f"{self.output}[{idx}]{where}: expected {self.expected}, got {self.actual}"
