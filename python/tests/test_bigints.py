"""A Python int outside int64 passed to a binding raises kvaddr.OutOfRange naming the argument (kvaddr.scalars),
for every scalar argument of read_table and write_loc and a few others; the boundary values inside int64 reach
the route's own validation."""
import numpy as np
import pytest

import kvaddr
from kvaddr import scalars

V2P = np.array([3, 2, 1, 0], dtype=np.int64)
R2T = np.array([[0, 1, 2, 3], [3, 2, 1, 0]], dtype=np.int32)
ROWS = np.array([0, 1], dtype=np.int64)
LENS = np.array([3, 2], dtype=np.int64)
READ_TABLE = dict(page_size=1, multiplier=1, max_pages=4, seq_len_delta=0)
WRITE_LOC = dict(page_size=1, multiplier=1, dcp_size=1, dcp_rank=0, out_width=3)
TOO_BIG = (2**63, -(2**63) - 1, 2**64, 10**30)


def read_table(**scalars_):
    return kvaddr.read_table(R2T, ROWS, LENS, V2P, out=np.zeros((2, 4), np.int32), **scalars_)


def write_loc(**scalars_):
    return kvaddr.write_loc(np.array([1, 2, 3]), V2P, out=np.zeros(3, np.int64), **scalars_)


def assert_named(fn, name, value):
    with pytest.raises(kvaddr.OutOfRange) as info:
        fn()
    e = info.value
    assert isinstance(e, kvaddr.Error)
    assert (e.kind, e.argument, e.value) == ("out_of_range", name, str(value))
    assert str(e) == f"{name} = {value}: {scalars.REASON}"


@pytest.mark.parametrize("name", list(READ_TABLE))
@pytest.mark.parametrize("value", TOO_BIG)
def test_read_table_scalars(name, value):
    assert_named(lambda: read_table(**{**READ_TABLE, name: value}), name, value)


@pytest.mark.parametrize("name", list(WRITE_LOC))
@pytest.mark.parametrize("value", TOO_BIG)
def test_write_loc_scalars(name, value):
    assert_named(lambda: write_loc(**{**WRITE_LOC, name: value}), name, value)


def test_positional_arguments_are_named_too():
    assert_named(lambda: kvaddr.read_table(R2T, ROWS, LENS, V2P, 1, 1, 2**63), "max_pages", 2**63)
    assert_named(lambda: kvaddr.translate_v2p(np.array([1]), V2P, 1, -(2**63) - 1), "page_stride", -(2**63) - 1)
    assert_named(lambda: kvaddr.model.kernel_id([1, 2], 1, 1, 2**63), "t", 2**63)
    assert_named(lambda: kvaddr.phys([1, 2], 2**64, 0), "page_size", 2**64)
    assert_named(lambda: kvaddr.Geometry(4, 1, 2**63), "num_pages", 2**63)
    assert_named(lambda: kvaddr.Geometry(4, 1, 8).kernel_id([1, 2], 2**63), "t", 2**63)


def test_the_boundary_inside_int64_reaches_the_route():
    # 2^63 - 1 and -2^63 are int64 values: the route's own checks see them (and name the argument)
    with pytest.raises(kvaddr.Error) as info:
        read_table(**{**READ_TABLE, "max_pages": 2**63 - 1})
    assert info.value.argument == "max_pages" and scalars.REASON not in str(info.value)
    with pytest.raises(kvaddr.Error) as info:
        write_loc(**{**WRITE_LOC, "dcp_rank": -(2**63)})
    assert info.value.argument == "dcp_rank" and scalars.REASON not in str(info.value)
    assert read_table(**READ_TABLE).tolist() == [[3, 2, 1, 0], [0, 1, 0, 0]]


def test_other_type_errors_pass_through():
    with pytest.raises(TypeError, match="incompatible function arguments"):
        read_table(**{**READ_TABLE, "page_size": "7"})
    with pytest.raises(TypeError):
        kvaddr.Geometry("x", 1, 1)
    assert isinstance(kvaddr.Geometry(4, 1, 8), kvaddr._core.Geometry)
