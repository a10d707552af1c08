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


def sentinel(n, dtype, offset=0):
    """The prefill pattern of n lanes (lane k holds SENTINEL_BASE - ((offset + k) % 65521))."""
    return (SENTINEL_BASE - ((np.arange(n, dtype=np.int64) + offset) % 65521)).astype(dtype)


def guarded_table(table):
    """(parent, view): `table` in the middle of a parent with TABLE_GUARD guard pages on each side."""
    g = np.arange(TABLE_GUARD, 0, -1, dtype=table.dtype) + TABLE_GUARD_PAGE
    parent = np.concatenate([g, table.ravel(), g[::-1]])
    return parent, parent[TABLE_GUARD:TABLE_GUARD + table.size]


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
