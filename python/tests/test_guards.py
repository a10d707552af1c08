"""Writes the harness could not see (#36 item 5): page-protected guards around every buffer of the isolated call
(kvaddr.guards) catch a store 200 lanes past or before an output, named by the output; a read past an input is a
fault; a kernel that leaves an in-place output untouched and returns a fresh array is `not_written`."""
import mmap

import kvaddr
from kvaddr import guards
import fault_kernels as F
import np_kernels as K

PATTERN = int.from_bytes(bytes([guards.FILL]) * 8, "little", signed=True)


def check(kernel, **kw):
    return kvaddr.check("token_translate", kernel, cases=30, seed=1, shrink_seconds=20, **kw)


def test_a_store_200_lanes_past_out_faults_on_the_guard_page_and_is_out_of_bounds():
    f = check(F.stores_200_past_out).failure
    assert (f.kind, f.case_index) == ("out_of_bounds", 0)
    assert f.detail == ("the kernel killed its process with SIGSEGV (signal 11) on a page-protected guard; re-run "
                        "with the guard pages open, it stored past out")
    assert [str(lane) for lane in f.first] == [f"out[199] (guard after the buffer): expected {PATTERN}, got 4242"]
    assert f.case.inputs["ids"].tolist() == [0, 0, 0]


def test_a_store_200_lanes_before_out_is_out_of_bounds():
    f = check(F.stores_200_before_out).failure
    assert f.kind == "out_of_bounds" and f.case.inputs["ids"].tolist() == [0, 0, 0]
    assert [str(lane) for lane in f.first] == [f"out[-200] (guard before the buffer): expected {PATTERN}, got 4242"]


def test_a_load_far_past_an_input_is_a_fault_that_names_the_read():
    f = check(F.reads_200_past_v2p).failure
    assert f.kind == "fault" and f.first == []
    assert f.detail == ("the kernel killed its process with SIGSEGV (signal 11); re-run once with the guard pages "
                        "open, it completed and stored nothing outside its buffers: a read past a buffer (into a "
                        "protected guard page), or a fault that does not repeat")


def test_guard_pages_are_protected_and_the_buffer_ends_next_to_them():
    b = guards.PagedBuffer(24)
    assert b.start % guards.ALIGN == 0 and b.start + 24 + 40 == b.inner[1]  # 24 bytes, then 40 bytes of slack
    assert guards.PAGE_GUARD == 16 * mmap.PAGESIZE and b.wild()[0] == []
    b.all[b.start + 24 + 3] = 1  # the slack after the buffer
    changed, _, _ = b.wild()
    assert changed == [(3, "after")]


def test_not_written_unless_the_route_returns_a_fresh_array():
    f = check(F.returns_fresh).failure
    assert (f.kind, f.case_index) == ("not_written", 0)
    assert kvaddr.check("token_translate", F.returns_fresh, cases=30, seed=1, isolate=False).failure.kind \
        == "not_written"

    assert kvaddr.check("eager_funnel", K.eager_funnel_fresh, cases=40, seed=4).ok  # the funnel returns its result


def test_a_kernel_writing_in_place_and_returning_nothing_still_passes():
    assert check(K.translate_v2p).ok
