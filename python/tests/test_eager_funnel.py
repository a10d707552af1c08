"""kvaddr.check on eager_funnel (§4.6, the fa3 Era-B eager path): convention, reference, shrinking, B02."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import cases as C


def test_convention_and_reference_on_a_hand_case():
    assert kvaddr.conventions.signature("eager_funnel") == "kernel(page_table, v2p, page_size, multiplier, out)"
    r = {"page_size": 4, "multiplier": 3, "v2p": np.array([5, -1, 2, -1], np.int64),
         "page_table": np.array([[0, 4, -1], [8, 9, 12]], np.int64), "alias": False, "pad": 2, "strided": False}
    case = C.build("eager_funnel", r)
    assert case.outputs["out"].shape == (2, 5) and case.widths == {"out": 3}
    exp = kvaddr.conventions.reference(case)["out"]
    # v2p[p] * M for live pages, 0 for a tombstone, padding and the trailing entry; the padding columns keep the sentinel
    assert exp[:, :3].tolist() == [[15, 0, 0], [6, 6, 0]]
    assert np.array_equal(exp[:, 3:], case.outputs["out"][:, 3:])
    seen = {}

    def spy(page_table, v2p, page_size, multiplier, out):
        seen.update(shape=out.shape, strides=out.strides, ps=page_size, m=multiplier)
        K.eager_funnel(page_table, v2p, page_size, multiplier, out)

    assert kvaddr.check_case(spy, case, isolate=False).kind == "ok"  # the spy records in this process
    assert seen == {"shape": (2, 3), "strides": (40, 8), "ps": 4, "m": 3}  # a row stride of 5 lanes, width 3


def test_edges_are_drawn():
    cases = [C.draw("eager_funnel", 1, i) for i in range(200)]
    assert sum(c.scalars["page_size"] == 1 for c in cases) >= 30  # the B02 configuration
    assert {3, 5, 7, 100} <= {c.scalars["page_size"] for c in cases}
    assert sum(bool(c.alias) for c in cases) >= 20  # funnel(t, out=t)
    assert sum(bool(c.widths) for c in cases) >= 20  # out rows wider than the table
    assert sum("page_table" in c.strided for c in cases) >= 20  # a row stride larger than the width
    assert sum(c.inputs["page_table"].shape[0] >= 129 for c in cases) >= 20
    assert any(np.any(c.inputs["page_table"] == -1) for c in cases)
    admitted = [c for c in cases if len(c.alias) < 3]
    big = [c for c in admitted
           if np.any(kvaddr.conventions.reference(c)["out"] * c.scalars["page_size"] >= 2**31)]
    assert big  # d(t) past 2^31: the int64 translate path
    overlaps = [c for c in cases if len(c.alias) == 3]
    assert len(overlaps) >= 5  # out one row before page_table in one buffer: validation rejects it
    for c in overlaps:
        assert c.alias == ("out", "page_table", c.inputs["page_table"].shape[1])
        with pytest.raises(kvaddr.InvalidArgument, match="out = overlapping buffer: partially overlaps page_table"):
            kvaddr.conventions.reference(c)


def test_correct_kernels_pass():
    rep = kvaddr.assert_check("eager_funnel", K.eager_funnel, cases=150, seed=3, lanes=2048)
    assert rep.cases + rep.rejected == 150 and rep.cases >= 135
    assert rep.rejections == {"InvalidArgument(out)": rep.rejected}  # only the partially overlapping layouts
    assert kvaddr.check("eager_funnel", K.eager_funnel_fresh, cases=100, seed=4).ok  # a fresh returned tensor


def test_b02_is_caught_shrunk_and_named(tmp_path):
    rep = kvaddr.check("eager_funnel", K.eager_funnel_b02, cases=100, seed=1, replay_dir=tmp_path)
    f = rep.failure
    assert f.kind == "raised" and f.detail.startswith("IndexError: index_select()")
    assert f.behaves_like == ["b02_rank2_index_select"]
    assert f.case.scalars["page_size"] == 1 and f.case.inputs["page_table"].shape == (1, 1)
    assert "behaves like b02_rank2_index_select" in str(rep)
    # at ps > 1 the same kernel is right, and the b02 variant agrees with production there
    assert kvaddr.check("eager_funnel", K.eager_funnel_b02, cases=80, seed=1, params={"page_size": 2}).ok


def test_unclamped_entry_is_caught_with_its_lane(tmp_path):
    rep = kvaddr.check("eager_funnel", K.eager_funnel_unclamped, cases=100, seed=1, replay_dir=tmp_path)
    f = rep.failure
    assert f.kind == "mismatch" and f.behaves_like == [] and f.differing == 1
    t = f.case.inputs["page_table"]
    assert t.shape == (1, 1)
    p = int(t[0, 0]) // f.case.scalars["page_size"]
    assert int(f.case.inputs["v2p"][p]) == -1  # a tombstone
    lane = f.first[0]
    assert (lane.output, lane.index, lane.expected, lane.actual) == ("out", (0, 0), 0, -f.case.scalars["multiplier"])
    # the replay directory: the host replay sees the recorded lane differ, assert_replay re-runs the kernels
    call = kvaddr.replay(f.replay_dir)["calls"][0]
    assert call["route"] == "eager_funnel" and call["status"] == "differs"
    assert call["diffs"][0]["index"] == [0, 0] and call["diffs"][0]["recorded"] == lane.actual
    with pytest.raises(AssertionError, match=r"out\[0, 0\]: expected 0, got "):
        kvaddr.assert_replay(K.eager_funnel_unclamped, f.replay_dir)
    kvaddr.assert_replay(K.eager_funnel, f.replay_dir)


def test_a_kernel_assuming_contiguous_rows_is_caught():
    def flat(page_table, v2p, page_size, multiplier, out):
        t = np.ascontiguousarray(page_table).astype(np.int64)
        d = K.eager_funnel_fresh(t, v2p, page_size, multiplier, out)
        base = out
        while base.base is not None:
            base = base.base
        flat_out = base.reshape(-1)
        off = (out.__array_interface__["data"][0] - flat_out.__array_interface__["data"][0]) // 8
        flat_out[off:off + d.size] = d.ravel()  # packed rows into a padded buffer

    rep = kvaddr.check("eager_funnel", flat, cases=200, seed=2, isolate=False)  # walks .base to the numpy allocation
    f = rep.failure
    assert f.kind in ("mismatch", "out_of_bounds") and f.case.widths  # only padded outputs expose it
    assert f.case.inputs["page_table"].shape[0] == 2  # two rows: the second starts in the padding of the first


def test_graph_mode_needs_cuda():
    with pytest.raises(kvaddr.InvalidArgument, match="graph = True: needs device='cuda'"):
        kvaddr.check("eager_funnel", K.eager_funnel, graph=True, cases=2)
