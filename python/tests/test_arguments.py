"""Argument checks of the Python bindings (issue 13): sizes are bounded before anything is allocated,
every failure is a kvaddr.Error subclass naming the argument (never MemoryError, RuntimeError,
numpy's ValueError or UnicodeDecodeError), and a failing call leaves every caller array unchanged."""
import numpy as np
import pytest

import kvaddr

V2P = np.array([3, 2, 1, 0], dtype=np.int64)
R2T = np.array([[0, 1, 2, 3], [3, 2, 1, 0]], dtype=np.int32)
ROWS = np.array([0, 1], dtype=np.int64)
LENS = np.array([3, 2], dtype=np.int64)
INT32_MAX = 2**31 - 1


def raises_naming(exc, argument, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, kvaddr.Error)
    assert info.value.argument == argument, str(info.value)
    assert argument in str(info.value)
    return info.value


def test_error_hierarchy():
    for name in ["InvalidArgument", "OutOfRange", "Overflow", "BufferTooSmall", "InvalidState", "FormatError"]:
        assert issubclass(getattr(kvaddr, name), kvaddr.Error)
    assert issubclass(kvaddr.Error, Exception)


# ---- sizes bounded before allocation --------------------------------------------------------------
@pytest.mark.parametrize("width", [2**40, 2**62, INT32_MAX + 1])
def test_write_loc_huge_out_width(width):
    raises_naming(kvaddr.OutOfRange, "out_width", kvaddr.write_loc, np.array([1], dtype=np.int64), V2P, 1,
                  out_width=width)


def test_write_loc_negative_out_width():
    raises_naming(kvaddr.InvalidArgument, "out_width", kvaddr.write_loc, np.array([1], dtype=np.int64), V2P, 1,
                  out_width=-1)


def test_write_loc_out_width_boundary():
    loc = np.array([1, 2], dtype=np.int64)
    out = kvaddr.write_loc(loc, V2P, 1, out_width=2)
    np.testing.assert_array_equal(out, [2, 1])
    raises_naming(kvaddr.BufferTooSmall, "out_width", kvaddr.write_loc, loc, V2P, 1, out_width=1)


@pytest.mark.parametrize("pages", [2**40, INT32_MAX + 1])
def test_decode_metadata_huge_max_seq_pages(pages):
    raises_naming(kvaddr.OutOfRange, "max_seq_pages", kvaddr.decode_metadata, LENS, req_to_token=R2T,
                  req_pool_indices=ROWS, max_seq_pages=pages, page_size=1, v2p=V2P)


def test_decode_metadata_negative_max_seq_pages():
    raises_naming(kvaddr.InvalidArgument, "max_seq_pages", kvaddr.decode_metadata, LENS, req_to_token=R2T,
                  req_pool_indices=ROWS, max_seq_pages=-1, page_size=1, v2p=V2P)


@pytest.mark.parametrize("route", ["read_table", "canonical_page_table", "full_prefill_table"])
@pytest.mark.parametrize("pages,exc", [(2**62, kvaddr.OutOfRange), (INT32_MAX + 1, kvaddr.OutOfRange),
                                       (-1, kvaddr.InvalidArgument)])
def test_table_max_pages_bounds(route, pages, exc):
    raises_naming(exc, "max_pages", getattr(kvaddr, route), R2T, ROWS, LENS, V2P, page_size=1, max_pages=pages)


def test_fresh_table_over_the_byte_limit_names_its_size_argument():
    # Both dimensions fit, the product does not (2 rows x 2^31 - 1 int32 columns > 4 GiB).
    raises_naming(kvaddr.OutOfRange, "max_pages", kvaddr.read_table, R2T, ROWS, LENS, V2P, page_size=1,
                  max_pages=INT32_MAX)


def test_flashmla_width_from_huge_lengths():
    lens = np.array([2**40, 1], dtype=np.int64)
    raises_naming(kvaddr.OutOfRange, "page_kernel_lens", kvaddr.flashmla_block_table, R2T, ROWS, lens, V2P)


def test_read_stream_fresh_stream_from_indptr():
    table = np.zeros((1, 1), dtype=np.int32)
    indptr = np.array([0, INT32_MAX], dtype=np.int32)
    raises_naming(kvaddr.OutOfRange, "indptr", kvaddr.read_stream, table, indptr, 1)


# ---- typed errors only ----------------------------------------------------------------------------
def test_scalar_table_with_non_int_entries_is_invalid_argument():
    raises_naming(kvaddr.InvalidArgument, "v2p", kvaddr.model.kernel_id, [0, "x"], 1, 1, 0)
    raises_naming(kvaddr.InvalidArgument, "v2p", kvaddr.model.kernel_id, [0, 2**70], 1, 1, 0)


def test_errors_carry_their_fields():
    e = raises_naming(kvaddr.OutOfRange, "v2p", kvaddr.token_translate, np.array([9], dtype=np.int64), V2P, 1)
    assert e.kind == "out_of_range"
    assert e.value == "9"
    assert e.reason


# ---- a failing call leaves every caller array unchanged ---------------------------------------------
def test_failing_kv_indices_inplace_keeps_the_virtual_ids():
    kv = np.array([0, 1, 2, 99], dtype=np.int32)
    before = kv.copy()
    raises_naming(kvaddr.OutOfRange, "v2p", kvaddr.kv_indices_inplace, kv, np.array([0, 4], dtype=np.int32), 1, V2P,
                  1)
    np.testing.assert_array_equal(kv, before)


def test_failing_decode_metadata_keeps_the_lengths():
    cache = np.full(2, -7, dtype=np.int32)
    cu = np.full(3, -7, dtype=np.int32)
    table = np.full((2, 4), -7, dtype=np.int32)
    bad_rows = np.array([0, 5], dtype=np.int64)
    raises_naming(kvaddr.OutOfRange, "req_pool_indices", kvaddr.decode_metadata, LENS, req_to_token=R2T,
                  req_pool_indices=bad_rows, max_seq_pages=4, page_size=1, v2p=V2P, cache_seqlens=cache,
                  cu_seqlens_k=cu, page_table=table)
    assert (cache == -7).all() and (cu == -7).all() and (table == -7).all()


def test_failing_write_loc_keeps_out():
    out = np.full(4, -7, dtype=np.int64)
    raises_naming(kvaddr.OutOfRange, "v2p", kvaddr.write_loc, np.array([1, 2, 99], dtype=np.int64), V2P, 1,
                  out=out)
    assert (out == -7).all()


# ---- text that is not UTF-8 ---------------------------------------------------------------------------
def test_replay_of_a_non_utf8_directory_name(tmp_path, example_dir):
    import os
    import shutil

    bad = os.path.join(os.fsencode(str(tmp_path)), b"dir\xffname")
    shutil.copytree(os.fsencode(str(example_dir)), bad)
    report = kvaddr.replay(bad)
    assert report["summary"] == kvaddr.replay(example_dir)["summary"]
    assert "\ufffd" in report["dir"]  # the undecodable byte is replaced, the report kept
    assert kvaddr.replay_text(bad)


def test_replay_of_a_missing_directory_is_a_kvaddr_error(tmp_path):
    report_or_error = None
    try:
        report_or_error = kvaddr.replay(tmp_path / "missing")
    except kvaddr.Error:
        return
    assert report_or_error["ok"] is False
