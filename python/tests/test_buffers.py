"""The guarded buffers' patterns (kvaddr.buffers): the sentinel prefill, served from a cached pattern where the lanes
fit in two periods and computed past that, and the guarded v2p parent, with exact values on both sides of the cache's
bounds and a fresh, writable array every call."""
import numpy as np
import pytest

from kvaddr import buffers as B

BASE = B.SENTINEL_BASE


def _formula(n, dtype, offset):
    return np.array([BASE - (offset + k) % 65521 for k in range(n)], dtype=np.int64).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("offset", [0, 7, 65520, 65521, 65522, -3, 10**12, np.int64(5), np.int32(-2)])
def test_sentinel_lanes_are_base_minus_lane_mod_65521(dtype, offset):
    for n in (0, 1, 3, 65521):  # the cached path (n <= 65521) up to its bound, every offset
        got = B.sentinel(n, dtype, offset)
        assert got.dtype == np.dtype(dtype) and got.shape == (n,)
        assert np.array_equal(got, _formula(n, dtype, int(offset)))
    got = B.sentinel(65522, dtype, offset)  # one lane past the cache's bound: computed
    assert got.shape == (65522,) and np.array_equal(got, _formula(65522, dtype, int(offset)))


def test_sentinel_exact_lanes_around_the_period():
    assert B.sentinel(3, np.int32, 65520).tolist() == [BASE - 65520, BASE, BASE - 1]
    assert B.sentinel(2, np.int64, -1).tolist() == [BASE - 65520, BASE]
    assert B.sentinel(2, np.int64, np.int64(65521)).tolist() == [BASE, BASE - 1]  # a numpy offset: computed
    assert B.sentinel(65523, np.int64)[-3:].tolist() == [BASE - 65520, BASE, BASE - 1]  # computed


@pytest.mark.parametrize("n", [4, 65522])
def test_sentinel_is_a_fresh_writable_array(n):
    a = B.sentinel(n, np.int32, 9)
    assert a.flags.writeable and a.flags.c_contiguous and a.flags.owndata
    a[:] = 0
    assert np.array_equal(B.sentinel(n, np.int32, 9), _formula(n, np.int32, 9))  # the cache is not the array given


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_guarded_table_parent_and_view(dtype):
    table = np.array([[5, -1], [7, 2]], dtype=dtype)
    parent, view = B.guarded_table(table)
    guards = list(range(B.TABLE_GUARD_PAGE + B.TABLE_GUARD, B.TABLE_GUARD_PAGE, -1))
    assert parent.dtype == np.dtype(dtype) and parent.flags.writeable
    assert parent.tolist() == guards + [5, -1, 7, 2] + guards[::-1]
    assert view.tolist() == [5, -1, 7, 2] and np.shares_memory(view, parent)
    parent[:] = 0  # the guard pages of the next parent are not this one's
    assert B.guarded_table(np.zeros(0, dtype))[0].tolist() == guards + guards[::-1]
