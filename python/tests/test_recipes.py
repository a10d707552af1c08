"""One drawing of a case (gen/recipe.hpp through kvaddr._core): the recipe C++ draws for (route, seed, index,
lanes) is the case kvaddr.cases.draw builds, byte for byte; the stream and the pieces graph mode and the huge
cases draw from; the binding's argument checks; no numpy random generator anywhere in the package."""
import collections
import hashlib
import pathlib
import re

import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import cases as C
from kvaddr import present

PACKAGE = pathlib.Path(C.__file__).parent
_TABLE = {"req_to_token": "req_to_token", "rows": "req_pool_indices", "lens": "seq_lens", "v2p": "v2p",
          "kv_start_idx": "kv_start_idx"}


def case_names(route):
    """{recipe array: the case input it becomes} of `route` (kv_indices_inplace's ids and lens are checked apart)."""
    if route in C.TOKEN_ROUTES:
        ids, table = C.TOKEN_ROUTES[route][:2]
        return {"ids": ids, "v2p": table}
    if route == "write_loc":
        return {"loc": "loc", "v2p": "v2p"}
    if route == "eager_funnel":
        return {"page_table": "page_table", "v2p": "v2p"}
    if route == "kv_indices_inplace":
        return {"v2p": "v2p"}
    if route == "flashmla_block_table":
        return {**_TABLE, "lens": "page_kernel_lens"}
    return {k: v for k, v in _TABLE.items() if k != "kv_start_idx"}


def same_bytes(case_array, recipe_array):
    a = np.ascontiguousarray(case_array)
    return a.dtype == recipe_array.dtype and a.tobytes() == np.ascontiguousarray(recipe_array).reshape(a.shape).tobytes()


@pytest.mark.parametrize("route", C.ROUTES)
def test_the_case_python_builds_is_the_recipe_cpp_draws(route):
    for seed, index, lanes in [(0, 0, 4096), (1, 5, 4096), (7, 123, 64), (2**40 + 3, 2**40, 512), (3, 9, 1)]:
        r = _core.draw_recipe(route, seed, index, lanes)
        case = C.draw(route, seed, index, lanes, {"adjacent": False})
        for key, name in case_names(route).items():
            if r[key] is None:
                assert case.inputs[name] is None, (route, key)
            else:
                assert same_bytes(case.inputs[name], r[key]), (route, seed, index, key)
        for k in ("page_size", "multiplier"):
            if k in case.scalars:
                assert case.scalars[k] == r[k], (route, k)
        if route == "kv_indices_inplace":
            n = int(r["lens"].sum())
            assert case.inputs["kv_indptr"][:r["lens"].size + 1].tolist() == [0, *np.cumsum(r["lens"]).tolist()]
            assert same_bytes(case.outputs["kv_indices"][:n], r["ids"].astype(np.int32))
            assert case.outputs["kv_indices"].size == n + r["tail"]


@pytest.mark.parametrize("route", C.ROUTES)
def test_the_stream_is_the_seed_and_index(route):
    a = C.draw_recipe(route, C.rng_for(5, 3), 512)
    b = _core.draw_recipe(route, 5, 3, 512)
    for k in set(a) | set(b):
        if k in ("adjacent", "adjacent_pool", "adjacent_pick"):
            continue
        if isinstance(b[k], np.ndarray):
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k] and type(a[k]) is type(b[k]), k
    other = _core.draw_recipe(route, 5, 4, 512)
    assert any(not np.array_equal(other[k], b[k]) if isinstance(b[k], np.ndarray) else other[k] != b[k] for k in b)


def test_the_recipe_fields_and_types():
    r = _core.draw_recipe("read_table", 1, 2, 1024)
    assert r["req_to_token"].dtype == np.int32 and r["req_to_token"].ndim == 2
    assert r["v2p"].dtype == np.int64 and r["v2p"][-1] == -1
    assert isinstance(r["zero_tail"], bool) and isinstance(r["width"], int)
    assert r["adjacent_pool"] in (0, 1, 2) and 0 <= r["adjacent_pick"] < 1 << 20
    e = _core.draw_recipe("eager_funnel", 1, 2, 1024)
    assert e["page_table"].ndim == 2 and e["page_table"].dtype == np.int64
    assert _core.recipe_routes() == [r for r in _core.routes() if r in C.ROUTES]


def test_params_replace_their_value_and_keep_the_draws_before():
    a = _core.draw_recipe("write_loc", 3, 4, 512)
    b = _core.draw_recipe("write_loc", 3, 4, 512, {"page_size": 13, "dcp_size": 2, "dcp_rank": 1})
    assert (b["page_size"], b["dcp_size"], b["dcp_rank"]) == (13, 2, 1)
    # the draws before the first one whose range depends on them: the multiplier, the size
    assert a["loc"].size == b["loc"].size and a["multiplier"] == b["multiplier"]
    assert _core.draw_recipe("swa_translate", 3, 4, 64, {"swa_multiplier": 5})["multiplier"] == 5
    assert _core.draw_recipe("flashmla_block_table", 3, 4, 64, {"kv_start_idx": False})["kv_start_idx"] is None
    assert _core.draw_recipe("flashmla_block_table", 3, 4, 64, {"kv_start_idx": True})["kv_start_idx"].size >= 1


def test_the_binding_checks_its_arguments():
    _core.draw_recipe("write_loc", 0, 0, 1)
    _core.draw_recipe("write_loc", 2**64 - 1, 2**64 - 1, 2**31)
    for kw, name in [(dict(lanes=0), "lanes"), (dict(lanes=2**31 + 1), "lanes"), (dict(seed=-1), "seed"),
                     (dict(seed=2**64), "seed"), (dict(index=-1), "index"), (dict(seed=1.5), "seed")]:
        args = {"route": "write_loc", "seed": 0, "index": 0, "lanes": 64, **kw}
        with pytest.raises(kvaddr.InvalidArgument, match=f"^{re.escape(name)} = "):
            _core.draw_recipe(**args)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^params\['nope'\] = 1: unknown generator parameter"):
        _core.draw_recipe("write_loc", 0, 0, 64, {"nope": 1})
    with pytest.raises(kvaddr.InvalidArgument, match=r"^params\['page_size'\] = 0: must be in \[1, 1048576\]"):
        _core.draw_recipe("write_loc", 0, 0, 64, {"page_size": 0})
    _core.draw_recipe("write_loc", 0, 0, 64, {"page_size": 1})
    with pytest.raises(kvaddr.InvalidArgument, match=r"^params\['dcp_rank'\] = 2: must be < dcp_size = 2"):
        _core.draw_recipe("write_loc", 0, 0, 64, {"dcp_size": 2, "dcp_rank": 2})
    with pytest.raises(kvaddr.InvalidArgument, match=r"^params\['page_size'\] = 'x': must be an integer"):
        _core.draw_recipe("write_loc", 0, 0, 64, {"page_size": "x"})
    with pytest.raises(kvaddr.InvalidArgument, match="^route = "):
        _core.draw_recipe("no_route", 0, 0, 64)


def test_the_stream_pieces():
    g = C.rng_for(1, 2)
    v = g.v2p(10)
    assert v.dtype == np.int64 and v.size == 11 and v[-1] == -1 and (v[:-1] < 20).all() and (v[:-1] >= -1).all()
    live = v[:-1][v[:-1] >= 0]
    assert len(set(live.tolist())) == live.size
    ids = g.ids(100, 4, 3)
    assert ids.dtype == np.int64 and set(ids[ids < 0].tolist()) <= {-1, -4} and (ids < 15).all()
    t = g.page_major_rows(2, 7, 3, 5, 0.0)
    assert t.dtype == np.int32 and t.shape == (2, 7)
    assert ((t - t[:, [0, 0, 0, 3, 3, 3, 6]]) == np.array([0, 1, 2, 0, 1, 2, 0])).all()
    x = g.integers(2, 5, size=(3, 4))
    assert x.shape == (3, 4) and x.dtype == np.int64 and x.min() >= 2 and x.max() <= 4
    assert isinstance(g.integers(0, 1), int) and g.integers(0, 1) == 0
    assert 0 <= g.random() < 1 and g.random(5).shape == (5,)
    assert g.choice([7]) == 7 and sorted(g.permutation(6).tolist()) == list(range(6))
    with pytest.raises(kvaddr.InvalidArgument, match="^hi = 3: must be > lo = 3"):
        g.integers(3, 3)
    with pytest.raises(kvaddr.InvalidArgument, match="^num_pages = "):
        g.v2p(-1)
    assert g.permutation(0).size == 0 and g.integers(0, 2, size=0).size == 0
    with pytest.raises(kvaddr.InvalidArgument, match=r"^n = 268435457: must be in \[0, 2\^28\]"):
        g.permutation(2**28 + 1)
    with pytest.raises(kvaddr.InvalidArgument, match="^size = "):
        g.integers(0, 2, size=(2**14, 2**14 + 1))
    with pytest.raises(kvaddr.InvalidArgument, match="^size = "):
        g.random(-1)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^choice = \[\]"):
        g.choice([])
    # numpy's 32 dimensions at most; a sequence longer than Py_ssize_t is typed (Python's len() overflows)
    assert g.integers(0, 2, size=(1,) * 32).shape == (1,) * 32 and g.random((1,) * 32).shape == (1,) * 32
    for draw in (lambda: g.integers(0, 2, size=(1,) * 33), lambda: g.random((1,) * 33)):
        with pytest.raises(kvaddr.InvalidArgument, match="^size = .*: at most 32 dimensions"):
            draw()
    assert 0 <= g.choice(range(2**62)) < 2**62
    with pytest.raises(kvaddr.InvalidArgument, match="^values = range: a sequence whose length fits"):
        g.choice(range(2**64))
    a, b = C.rng_for(9, 9), C.rng_for(9, 9)
    assert a.integers(0, 2**62) == b.integers(0, 2**62)


def test_fit_token_values_is_the_recipe_s():
    ids, v2p = C.fit_token_values("mamba_translate", np.array([-1, 3, 9]), np.array([5, -1, 2]))
    assert ids.tolist() == [0, 0, 0] and v2p.tolist() == [5, 0, 2]
    ids, _ = C.fit_token_values("dcp_read_translate", np.array([-1, 3]), np.array([0, -1]), 4)
    assert ids.tolist() == [-1, 12]


def test_a_new_per_id_shape_is_drawn_from_the_shape_given():
    shape = {"route": "my_route", "ids": "tok", "table": "tbl", "multiplier": "my_multiplier", "extra": [("k", 3)],
             "page_size": True, "out32": True}
    r = _core.draw_recipe("my_route", 1, 0, 64, {"my_multiplier": 2, "k": 9}, id_shape=shape)
    assert r["multiplier"] == 2 and r["k"] == 9 and r["ids"].size >= 1
    with pytest.raises(kvaddr.InvalidArgument, match="^id_shape = "):
        _core.draw_recipe("my_route", 1, 0, 64, id_shape={"route": "my_route"})
    # extra: a list of (name, default) pairs (a pair may be a list); anything else names id_shape['extra']
    assert _core.draw_recipe("my_route", 1, 0, 64, id_shape=dict(shape, extra=[["k", 3]]))["k"] == 3
    assert "k" not in _core.draw_recipe("my_route", 1, 0, 64, id_shape=dict(shape, extra=[]))
    for extra in (5, "k3", [5], [("k",)], [("k", 3, 4)], [(3, "k")], [("k", 2**63)]):
        with pytest.raises(kvaddr.InvalidArgument, match=r"^id_shape\['extra'\] = "):
            _core.draw_recipe("my_route", 1, 0, 64, id_shape=dict(shape, extra=extra))


def test_the_package_draws_no_random_number_of_its_own():
    for f in PACKAGE.glob("*.py"):
        text = f.read_text()
        assert "np.random" not in text and "numpy.random" not in text, f.name


@pytest.mark.parametrize("route", C.ROUTES)
def test_graph_redraw_keeps_the_shapes_and_scalars_and_draws_new_values(route):
    from kvaddr import graph

    r0 = C.draw_recipe(route, C.rng_for(3, 0), 1024, {"long_rows": False, "big_entries": False, "adjacent": False})
    a, b = graph.redraw(route, r0, C.rng_for(3, 1)), graph.redraw(route, r0, C.rng_for(3, 1))
    other = graph.redraw(route, r0, C.rng_for(3, 2))
    assert set(a) == set(r0)
    for k, v in r0.items():
        if isinstance(v, np.ndarray):
            assert a[k].shape == v.shape and a[k].dtype == v.dtype, k
            assert np.array_equal(a[k], b[k]), k  # the stream of (seed, index)
        else:
            assert a[k] == v, k  # scalars and flags stay the capture's
    assert not np.array_equal(a["v2p"], other["v2p"]) or a["v2p"].size < 3
    case = C.build(route, a)  # a well-formed call at the capture's shapes
    assert {k: v.shape for k, v in case.outputs.items()} == {k: v.shape for k, v in C.build(route, r0).outputs.items()}


def test_graph_redraw_checks_its_recipe():
    with pytest.raises(kvaddr.InvalidArgument, match=r"^recipe = ids: missing array"):
        _core.redraw_recipe("token_translate", {"page_size": 1, "multiplier": 1, "v2p": np.zeros(3, np.int64)},
                            C.rng_for(0, 0))
    with pytest.raises(kvaddr.InvalidArgument, match=r"^recipe = page_size: missing integer"):
        _core.redraw_recipe("write_loc", {"multiplier": 1}, C.rng_for(0, 0))


# ---- the C++ harness's case and its presentation (kvaddr::harness::detail::drawn_case) ----------------------------
_CXX_PARAMS = {"big_entries": False, "long_rows": False}  # the C++ harness's recipe parameters (its own overflow cases)


def _presented(case):
    """kvaddr.check's presentation of `case` in the terms of the C++ harness's drawn_case: the adjacent layout (members,
    shared), req_to_token's row stride, the aliased input and its offset in the output, the strided 1-D inputs (which
    the C++ harness presents packed: a Vec has no stride)."""
    r2t = case.inputs.get("req_to_token")
    return {"adjacent": list(case.adjacent[0]) if case.adjacent else [],
            "shared": int(case.adjacent[1]) if case.adjacent else 0,
            "req_to_token_stride": 0 if r2t is None else r2t.shape[1] + (present.STRIDE_PAD if "req_to_token" in
                                                                          case.strided else 0),
            "alias": case.alias[1] if case.alias else None,
            "alias_offset": int(case.alias[2]) if len(case.alias) > 2 else 0,
            "packed": [n for n in case.strided if case.inputs[n].ndim == 1]}


def test_the_cpp_harness_presents_each_case_as_kvaddr_check_does():
    """Case i of seed s from the C++ harness and from kvaddr.cases: the same layout (adjacent members in the same
    order with the same shared lanes, the strided req_to_token's stride, the alias and its offset, the strided 1-D
    inputs) and the same output buffers before the call, byte for byte, for 150 (seed, index) per route."""
    seen = collections.Counter()
    for route in C.ROUTES:
        for seed in (0, 5, 2**40 + 3):
            for index in range(50):
                lanes = (4096, 64, 512)[index % 3]
                cxx = _core.harness_drawn_case(route, seed, index, lanes)
                case = C.draw(route, seed, index, lanes, _CXX_PARAMS)
                got, want = cxx["presented"], _presented(case)
                assert got == want, (route, seed, index, got, want)
                assert sorted(cxx["befores"]) == sorted(case.outputs), (route, seed, index)
                for name, before in case.outputs.items():
                    assert cxx["befores"][name].tolist() == before.ravel().astype(np.int64).tolist(), (route, name)
                r2t = case.inputs.get("req_to_token")
                if r2t is not None:
                    assert cxx["arrays"]["req_to_token"].tolist() == r2t.ravel().tolist(), (route, seed, index)
                seen["adjacent" if want["adjacent"] and not want["shared"] else "none"] += 1
                seen["adjacent overlap"] += bool(want["shared"])
                seen["req_to_token strided"] += want["req_to_token_stride"] > (0 if r2t is None else r2t.shape[1])
                seen["alias"] += want["alias"] is not None and want["alias_offset"] == 0
                seen["alias overlap"] += want["alias_offset"] > 0
                seen["packed"] += bool(want["packed"])
    for kind in ("adjacent", "adjacent overlap", "req_to_token strided", "alias", "alias overlap", "packed"):
        assert seen[kind] >= 10, (kind, seen)


def test_harness_drawn_case_checks_its_arguments():
    d = _core.harness_drawn_case("write_loc", 0, 0, 1)
    assert set(d) == {"arrays", "befores", "scalars", "presented"} and d["arrays"]["loc"].size == 1
    with pytest.raises(kvaddr.InvalidArgument, match="^index = -1"):
        _core.harness_drawn_case("write_loc", 0, -1, 64)
    with pytest.raises(kvaddr.InvalidArgument, match="^lanes = 0"):
        _core.harness_drawn_case("write_loc", 0, 0, 0)
    with pytest.raises(kvaddr.InvalidArgument, match="^route = "):
        _core.harness_drawn_case("no_route", 0, 0, 64)


def recipes_digest(route, params):
    """sha256 of every field (name, type, dtype, shape, bytes) of the recipes of cases 0..29 of seed 11 at 64 and 4096
    lanes, as kvaddr.cases.draw_recipe returns them (the C++ draw, its conversion, the adjacent pick)."""
    h = hashlib.sha256()
    for lanes in (64, 4096):
        for i in range(30):
            r = C.draw_recipe(route, C.rng_for(11, i), lanes, params)
            for k in sorted(r):
                v = r[k]
                h.update(f"{k}:{type(v).__name__}:".encode())
                if isinstance(v, np.ndarray):
                    h.update(f"{v.dtype.str}{v.shape}".encode() + np.ascontiguousarray(v).tobytes())
                else:
                    h.update(repr(v).encode())
    return h.hexdigest()[:16]


# The recipes are the project's fixed ground truth (replay recordings, the kill matrix): a speed-up of the drawing or
# of its conversion must keep every value (gen/tests/recipe_pins_test.cpp pins the C++ side).
@pytest.mark.parametrize("route, params, digest", [
    ("read_table", None, "c307ce302bfbd756"),
    ("decode_metadata", {"adjacent": "always"}, "8da0c5993285a564"),
    ("flashmla_block_table", {"kv_start_idx": 1}, "1244a762331f4b01"),
    ("token_translate", {"adjacent": "always"}, "cba571a1a1115f6b"),
    ("write_loc", None, "e4111365137a4516"),
])
def test_drawn_recipes_keep_every_value(route, params, digest):
    assert recipes_digest(route, params) == digest
