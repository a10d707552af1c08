"""The int32_lengths flow of tests/harness_subjects/int32_cases.py on the CPU (issue 33): kvaddr's host route under
int32_lengths stands in for the Triton subject decode_metadata_int32_lengths (run on a GPU by
tests/harness_subjects/test_int32_subjects.py); production's own host kernel is not named."""
import pathlib
import sys

import pytest

import kvaddr
from kvaddr.conventions import host_kernel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "harness_subjects"))
import int32_cases as E  # noqa: E402


def test_int32_lengths_stand_in_fails_as_production_and_is_named(tmp_path):
    rep = E.check_int32_lengths_subject(host_kernel("decode_metadata", "int32_lengths"), "cpu", tmp_path)
    assert rep["summary"] == {"calls": 1, "differs": 1, "equal": 0, "error": 0}


def test_production_writes_the_capped_row():
    res = kvaddr.check_case(host_kernel("decode_metadata"), E.int32_lengths_case(), device="cpu")
    assert res.kind == "ok"
    with pytest.raises(AssertionError):
        E.check_int32_lengths_subject(host_kernel("decode_metadata"), "cpu", None)


def test_drawn_decode_cases_reach_the_int32_page_count_edge():
    """kvaddr.check's own draws reach int32_lengths (issue 33): a quarter of the long-row decode cases hold one row
    within a page of 2^31 beside empty rows, so cu_seqlens_k fits and the case is compared. Production's host
    route passes the same seed; the int32_lengths stand-in fails on a row whose page count passes int32 and is
    named. (Before the edge draw, 3000 cases of seed 1 ran without a failure.)"""
    kw = dict(cases=3000, seed=1, device="cpu", isolate=False, replay_dir=None)
    assert kvaddr.check("decode_metadata", host_kernel("decode_metadata"), **kw).ok
    rep = kvaddr.check("decode_metadata", host_kernel("decode_metadata", "int32_lengths"), **kw)
    assert not rep.ok
    f = rep.failure
    assert f.kind == "mismatch" and "int32_lengths" in f.behaves_like
    ps = int(f.recipe["page_size"])
    seq = int(f.recipe["lens"].max()) + int(f.recipe["seq_len_delta"])
    assert seq <= 2**31 - 1 < seq + ps - 1  # the page count's int32 sum passes 2^31; the length itself fits
