"""The harness generators reach the edges the contracts admit (kvaddr.cases)."""
import numpy as np

import kvaddr
from kvaddr import cases as C


def _draws(route, n, lanes=4096):
    return [C.draw(route, 1, i, lanes) for i in range(n)]


def test_draw_is_deterministic_and_seeded():
    a, b = C.draw("read_table", 4, 17), C.draw("read_table", 4, 17)
    for k in a.inputs:
        assert np.array_equal(a.inputs[k], b.inputs[k])
    c = C.draw("read_table", 5, 17)
    assert any(not np.array_equal(a.inputs[k], c.inputs[k]) for k in a.inputs)


def test_table_edges_are_drawn():
    cases = _draws("read_table", 300)
    assert any(c.outputs["out"].shape[1] > c.widths["out"] for c in cases)  # row stride > width
    assert any(c.outputs["out"].shape[0] > c.inputs["req_pool_indices"].size for c in cases)  # rows past the batch
    assert any("req_pool_indices" in c.strided for c in cases)  # strided input
    assert any(c.inputs["req_pool_indices"].size >= 129 for c in cases)  # more than one block of rows
    ps = [c.scalars["page_size"] for c in cases]
    assert {3, 5, 7, 100} <= set(ps)  # odd and non-power-of-two page sizes
    assert any(c.scalars["seq_len_delta"] > 0 for c in cases)
    narrower = [c for c in cases
                if np.any(-(-(c.inputs["seq_lens"] + c.scalars["seq_len_delta"]) // c.scalars["page_size"])
                          > c.scalars["max_pages"])]
    assert narrower  # rows longer than max_pages
    assert any(np.any(c.inputs["v2p"][:-1] == -1) for c in cases)  # tombstones
    assert any(np.any(c.inputs["req_to_token"] == -1) for c in cases)  # padding ids


def test_decode_metadata_page_sizes_are_powers_of_two():
    for c in _draws("decode_metadata", 100):
        ps = c.scalars["page_size"]
        assert ps & (ps - 1) == 0


def test_token_edges_are_drawn():
    cases = _draws("token_translate", 300)
    big = [c for c in cases if np.any(kvaddr.token_translate(c.inputs["ids"], c.inputs["v2p"], c.scalars["page_size"],
                                                             c.scalars["multiplier"]) >= 2**31)]
    assert big  # kernel ids past 2^31 (int64 offset paths)
    assert any(c.alias for c in cases)  # out is the ids buffer
    assert any(c.strided for c in cases)
    assert any(c.inputs["ids"].ndim == 2 for c in cases)
    assert any(np.any(c.inputs["ids"] == -1) for c in cases)


def test_write_loc_edges_are_drawn():
    cases = _draws("write_loc", 200)
    assert any(c.outputs["out"].size > c.inputs["loc"].size for c in cases)  # stale tails to clear
    assert {1, 2, 4, 8} <= {c.scalars["dcp_size"] for c in cases}
    assert any(np.any(c.inputs["loc"] == 0) for c in cases)


def test_params_pin_scalars():
    for i in range(20):
        c = C.draw("write_loc", 2, i, params={"page_size": 64, "dcp_size": 2, "dcp_rank": 1})
        assert (c.scalars["page_size"], c.scalars["dcp_size"], c.scalars["dcp_rank"]) == (64, 2, 1)
