"""Model formulas and Geometry, against hand-computed values (spec §2)."""
import numpy as np
import pytest

import kvaddr

# v2p over virtual pages 0..3 plus the trailing sentinel: page 2 is a tombstone.
V2P = np.array([0, 5, -1, 2, -1], dtype=np.int64)


def test_kernel_id_and_phys_hand_values():
    # t = 5, ps = 4: page 1 -> P = 5, o = 1; S = 12 -> 61; phys = 21.
    assert kvaddr.kernel_id(V2P, 4, 3, 5) == 61
    assert kvaddr.phys(V2P, 4, 5) == 21
    # tombstone (page 2) clamps to the sink; padding -1 -> 0
    assert kvaddr.kernel_id(V2P, 4, 3, 9) == 0
    assert kvaddr.kernel_id(V2P, 4, 3, -1) == 0
    # a plain list is accepted for the scalar formulas
    assert kvaddr.kernel_id([0, 5, -1, 2, -1], 4, 3, 13) == 2 * 12 + 1
    assert kvaddr.kernel_id_unclamped(V2P, 4, 3, 9) == -12 + 1


def test_block_entry_phi_and_identities():
    assert kvaddr.block_entry(V2P, 3, 1) == 15
    assert kvaddr.block_entry(V2P, 3, 2) == 0
    assert kvaddr.block_entry_unclamped(V2P, 3, 2) == -3
    assert kvaddr.phi(21, 4, 3) == 61  # I2: d = phi(phys)
    assert kvaddr.token_from_entry(15, 1, 4) == 61
    for t in range(0, 16):
        assert kvaddr.kernel_id(V2P, 4, 3, t) == kvaddr.phi(kvaddr.phys(V2P, 4, t), 4, 3)
        assert kvaddr.kernel_id(V2P, 4, 1, t) == kvaddr.phys(V2P, 4, t)  # I3


def test_division_helpers_and_variants():
    assert kvaddr.floor_div(-1, 4) == -1 and kvaddr.trunc_div(-1, 4) == 0
    assert kvaddr.floor_mod(-1, 4) == 3 and kvaddr.trunc_mod(-1, 4) == -1
    assert kvaddr.ceil_div(9, 4) == 3
    # I9: without the guard, trunc at ps = 1 reads v2p[-1] (B09)
    with pytest.raises(kvaddr.OutOfRange):
        kvaddr.model.kernel_id_variant(V2P, 1, 1, -1, div="trunc", padding_guard=False)
    assert kvaddr.model.kernel_id_variant(V2P, 1, 1, -1, div="floor", padding_guard=False) == 0


def test_write_loc_swa_mamba_formulas():
    assert kvaddr.write_loc_owned(5, 2, 1) and not kvaddr.write_loc_owned(4, 2, 1)
    assert kvaddr.model.write_loc(V2P, 2, 3, 2, 1, 5) == 5 * 6  # loc 5 -> t 2 -> page 1 -> P 5
    lanes = kvaddr.model.write_loc_lanes(V2P, 2, 3, 2, 1, [0, 5, 4], 5)
    np.testing.assert_array_equal(lanes, [0, 30, 0, 0, 0])
    assert kvaddr.swa_id(V2P, 4, 2, 5) == 5 * 8 + 1
    assert kvaddr.mamba_slot(V2P, 2) == -1
    assert kvaddr.mamba_slot(V2P, 2, clamp=True) == 0


def test_formula_errors_have_the_cpp_messages():
    with pytest.raises(kvaddr.InvalidArgument, match=r"^page_size = 0: ") as e:
        kvaddr.kernel_id(V2P, 0, 1, 3)
    assert isinstance(e.value, ValueError)
    assert e.value.argument == "page_size" and e.value.value == "0" and e.value.kind == "invalid_argument"
    with pytest.raises(kvaddr.OutOfRange) as e:
        kvaddr.kernel_id(V2P, 4, 3, 400)
    assert isinstance(e.value, IndexError)
    with pytest.raises(kvaddr.Overflow) as e:
        kvaddr.phi(2**62, 1, 4)
    assert isinstance(e.value, OverflowError)
    with pytest.raises(kvaddr.InvalidArgument, match="v2p = int32: dtype must be int64"):
        kvaddr.kernel_id(V2P.astype(np.int32), 4, 3, 5)


def test_geometry():
    g = kvaddr.Geometry(page_size=4, multiplier=3, num_pages=10, num_layers=3, row_width=8, item_bytes=2)
    assert g.stride == 12
    assert g.kernel_rows == 10 * 4 * 3
    assert g.num_slots == 40
    assert g.entry_bytes == 3 * 8 * 2
    assert g.page_bytes == 4 * 48
    assert g.layout == "page_major"
    assert g.kernel_ids_fit_int32()
    assert g.kernel_id(V2P, 5) == 61
    assert g == kvaddr.Geometry(4, 3, 10, 3, 8, 2)
    assert "multiplier=3" in repr(g)
    with pytest.raises(kvaddr.InvalidArgument, match="^multiplier = 0"):
        kvaddr.Geometry(4, 0, 10)
    with pytest.raises(kvaddr.InvalidArgument, match="layout"):
        kvaddr.Geometry(4, 1, 10, layout="diagonal")


def test_names():
    names = kvaddr.routes()
    assert len(set(names)) == len(names)  # the route list, once each, in enumerator order
    assert names[0] == "token_translate" and names.index("transfer_ids") == names.index("dcp_read_translate") + 1
    assert kvaddr.variants("write_loc")[0] == "production"
    assert "b06_stale_tail" in kvaddr.variants("write_loc")
    with pytest.raises(kvaddr.InvalidArgument, match="route = nope"):
        kvaddr.variants("nope")
