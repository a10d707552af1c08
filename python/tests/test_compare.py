"""One output's guarded comparison, kvaddr.check's and the C++ harness's (kvaddr/harness/compare.hpp), through
kvaddr._core.compare_guarded: every region, both dtypes, the argument rules."""
import numpy as np
import pytest

import kvaddr
from kvaddr import _core


def test_the_guarded_comparison_is_the_cpp_harness_one():
    # harness/tests/harness_compare_test.cpp compares the same buffers (kvaddr/harness/compare.hpp)
    exp = np.array([-1, -2, 10, 11, 12, 20, 21, 22, -3, -4], np.int64)
    got = np.array([-1, 7, 10, 99, 98, 20, 21, 22, -3, 5], np.int64)
    assert _core.compare_guarded("out", exp, got, (2, 3), 2, guard=2) == (4, True, [
        ("guard_before", (-1,), -2, 7), ("out", (0, 1), 11, 99), ("past_width", (0, 2), 12, 98),
        ("guard_after", (1,), -4, 5)])
    e32, g32 = np.array([0, 5, 6, 7, 0], np.int32), np.array([0, 5, 8, 7, 0], np.int32)
    assert _core.compare_guarded("kv_indices", e32, g32, (3,), guard=1) == (1, False, [("out", (1,), 6, 8)])
    assert _core.compare_guarded("kv_indices", e32, e32, (3,), guard=1) == (0, False, [])
    assert _core.compare_guarded("out", exp, got, (2, 3), 3, guard=2)[1] is True  # width 3: only the guards outside
    assert _core.compare_guarded("out", exp, got, (2, 3), 0, guard=2)[0] == 4
    with pytest.raises(kvaddr.InvalidArgument, match="actual"):
        _core.compare_guarded("out", exp, got[:-1], (2, 3), 2, guard=2)
    with pytest.raises(kvaddr.InvalidArgument, match="width"):
        _core.compare_guarded("out", exp, got, (2, 3), 4, guard=2)
    with pytest.raises(kvaddr.InvalidArgument, match="width"):
        _core.compare_guarded("out", exp, got, (2, 3), -1, guard=2)
    with pytest.raises(kvaddr.InvalidArgument, match="width"):
        _core.compare_guarded("kv_indices", e32, g32, (3,), 2, guard=1)
    with pytest.raises(kvaddr.InvalidArgument, match="shape"):
        _core.compare_guarded("out", exp, got, (2, 3, 1), guard=2)
    with pytest.raises(kvaddr.InvalidArgument, match="guard"):
        _core.compare_guarded("kv_indices", e32, g32, (3,), guard=-1)
