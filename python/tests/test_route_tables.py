"""The harness's per-route tables come from the route list (kvaddr.route_tables over kvaddr._core.route_shape):
exact values for the routes of the list, and a route the list does not hold (a made-up field list) drawn,
built, marshalled and named with no table written for it."""
import numpy as np
import pytest

from kvaddr import _core
from kvaddr import cases as C
from kvaddr import conventions
from kvaddr import gpu as G
from kvaddr import route_tables as R


def test_route_shape_of_transfer_ids():
    assert _core.route_shape("transfer_ids") == {
        "per_id": True,
        "fields": [("ids", "vec_in", False, True, None), ("v2p", "vec_in", False, True, None),
                   ("page_size", "int64", False, True, 1), ("out", "vec_out", False, True, None),
                   ("variant", "variant", False, False, None)],
    }


def test_route_shape_of_mamba_and_a_table_route():
    m = _core.route_shape("mamba_translate")
    assert m["per_id"] is True
    assert m["fields"] == [("slots", "vec_in", False, True, None), ("v2p", "vec_in", False, True, None),
                           ("clamp", "bool", False, False, False), ("out", "vec_out", True, True, None)]
    t = _core.route_shape("read_table")
    assert t["per_id"] is False
    assert ("req_to_token", "mat_in", True, True, None) in t["fields"]
    with pytest.raises(_core.InvalidArgument):
        _core.route_shape("no_such_route")


def test_has_variant_is_read_off_the_field_list():
    assert R.has_variant("token_translate") and R.has_variant("transfer_ids") and R.has_variant("read_table")
    assert not R.has_variant("mamba_translate")
    assert "mamba_translate" in [r for r in R.route_names() if not R.has_variant(r)]


def test_per_id_routes_are_read_off_the_list():
    # In list order; a route added to the list (the test-only route of a KVADDR_TEST_ROUTE build) joins them.
    listed = ("token_translate", "swa_translate", "mamba_translate", "dcp_read_translate", "transfer_ids")
    assert tuple(r for r in R.per_id_routes() if r in listed) == listed
    assert not {"read_table", "write_loc", "decode_metadata"} & set(R.per_id_routes())
    assert set(C.TOKEN_ROUTES) == set(R.per_id_routes())


# The rows the harness drew from before they were derived, written by hand from the spec's field lists.
HAND_ROWS = {
    "token_translate": ("ids", "v2p", "multiplier", (), np.int64),
    "swa_translate": ("ids", "swa_v2p", "swa_multiplier", (), np.int64),
    "dcp_read_translate": ("ids", "v2p", "multiplier", ("dcp_size",), np.int64),
    "transfer_ids": ("ids", "v2p", None, (), np.int64),
    "mamba_translate": ("slots", "v2p", None, (), np.int32),
}


@pytest.mark.parametrize("route", sorted(HAND_ROWS))
def test_token_rows_equal_the_hand_written_ones(route):
    assert C.TOKEN_ROUTES[route] == HAND_ROWS[route]


def test_derived_conventions_of_the_per_id_routes():
    assert G.CONVENTIONS["swa_translate"] == [("ids", "ids", "in64"), ("swa_v2p", "swa_v2p", "in64"),
                                              ("page_size", "page_size", "int"),
                                              ("swa_multiplier", "swa_multiplier", "int"), ("out", "out", "out64")]
    assert G.CONVENTIONS["dcp_read_translate"] == [("ids", "ids", "in64"), ("v2p", "v2p", "in64"),
                                                   ("page_size", "page_size", "int"),
                                                   ("multiplier", "multiplier", "int"),
                                                   ("dcp_size", "dcp_size", "int"), ("out", "out", "out64")]
    assert G.CONVENTIONS["transfer_ids"] == [("ids", "ids", "in64"), ("v2p", "v2p", "in64"),
                                             ("page_size", "page_size", "int"), ("out", "out", "out64")]
    # upstream conventions of their own: the stride instead of M, no clamp flag
    assert G.CONVENTIONS["token_translate"][3] == ("page_stride", "multiplier", "stride")
    assert G.CONVENTIONS["mamba_translate"] == [("slots", "slots", "in64"), ("v2p", "v2p", "in64"),
                                                ("out", "out", "out32")]
    assert set(G.CONVENTIONS) == set(_core.routes())


SIGNATURES = {
    "token_translate": "kernel(virt, v2p, page_size, page_stride, out)",
    "swa_translate": "kernel(ids, swa_v2p, page_size, swa_multiplier, out)",
    "dcp_read_translate": "kernel(ids, v2p, page_size, multiplier, dcp_size, out)",
    "transfer_ids": "kernel(ids, v2p, page_size, out)",
    "mamba_translate": "kernel(slots, v2p, out)",
    "write_loc": "kernel(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width)",
    "canonical_page_table": "kernel(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, "
                            "out)",
    "full_prefill_table": "kernel(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, "
                          "out)",
    "read_table": "kernel(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, "
                  "seq_len_delta, zero_tail, out)",
    "flashmla_block_table": "kernel(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size, "
                            "multiplier, kv_indices)",
    "kv_indices_inplace": "kernel(kv_indices, kv_indptr, batch_size, v2p, page_size, multiplier)",
    "eager_funnel": "kernel(page_table, v2p, page_size, multiplier, out)",
    "decode_metadata": "kernel(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, "
                       "seq_len_delta, multiplier, cache_seqlens, cu_seqlens_k, page_table)",
}


@pytest.mark.parametrize("route", sorted(SIGNATURES))
def test_signatures(route):
    assert conventions.signature(route) == SIGNATURES[route]


def test_kernel_names():
    assert R.kernel_names("token_translate") == {"ids": "virt"}
    for r in _core.routes():
        if r != "token_translate":
            assert R.kernel_names(r) == {}, r


# ---- a route the list does not hold ---------------------------------------------------------------------
NEW_SHAPE = {
    "per_id": True,
    "fields": [("tok", "vec_in", False, True, None), ("tbl", "vec_in", False, True, None),
               ("page_size", "int64", False, True, 1), ("my_multiplier", "int64", False, False, 1),
               ("k", "int64", False, False, 3), ("flip", "bool", False, False, False),
               ("out", "vec_out", True, True, None), ("variant", "variant", False, False, None)],
}


@pytest.fixture
def new_route(monkeypatch):
    monkeypatch.setitem(R._SHAPES, "my_route", NEW_SHAPE)
    return "my_route"


def test_a_new_per_id_route_gets_its_tables(new_route):
    assert R.token_row(new_route) == ("tok", "tbl", "my_multiplier", ("k",), np.int32)
    assert R.scalar_defaults(new_route) == {"page_size": 1, "my_multiplier": 1, "k": 3}
    assert R.convention(new_route) == [("tok", "tok", "in64"), ("tbl", "tbl", "in64"), ("page_size", "page_size", "int"),
                                       ("my_multiplier", "my_multiplier", "int"), ("k", "k", "int"),
                                       ("flip", "flip", "bool"), ("out", "out", "out32")]
    assert R.signature(new_route) == "kernel(tok, tbl, page_size, my_multiplier, k, flip, out)"
    assert R.kernel_names(new_route) == {}


def test_a_new_per_id_route_is_drawn_and_built(new_route, monkeypatch):
    monkeypatch.setitem(C.TOKEN_ROUTES, new_route, R.token_row(new_route))
    rng = C.rng_for(5, 0)
    r = C.draw_token_recipe(new_route, rng, 64, {"page_size": 4, "my_multiplier": 2})
    assert r["page_size"] == 4 and r["multiplier"] == 2 and r["k"] == 3  # k: the struct's default
    r2 = C.draw_token_recipe(new_route, C.rng_for(5, 0), 64, {"page_size": 4, "my_multiplier": 2, "k": 9})
    assert r2["k"] == 9
    case = C.build_token(new_route, r)
    assert case.scalars == {"page_size": 4, "my_multiplier": 2, "k": 3}
    assert set(case.inputs) == {"tok", "tbl"}
    assert case.outputs["out"].dtype == np.int32 and case.outputs["out"].size == case.inputs["tok"].size


def test_a_route_of_another_shape_without_a_convention_is_refused(monkeypatch):
    monkeypatch.setitem(R._SHAPES, "my_table", {"per_id": False, "fields": [("out", "mat_out", True, True, None)]})
    with pytest.raises(ValueError, match="UPSTREAM_CONVENTIONS"):
        R.convention("my_table")
