"""Every route of the C++ route list (kvaddr._core.routes(), translate/route_list.hpp) is reachable from
kvaddr.check: it has a calling convention (signature and kwargs), drawn cases inside its contract, a host
reference, and an end-to-end check that compares its outputs. It is also a binding of kvaddr whose Python
parameters fill its C++ field list, checked with one hand-computed call. The list is read from _core, never
written here."""
import re

import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import cases as C
from kvaddr import scalars
from kvaddr.conventions import kernel_kwargs, output_dtypes, reference, signature

ROUTES = _core.routes()
DRAWS = 40


def test_the_harness_routes_are_the_route_list():
    assert len(ROUTES) >= 1 and len(set(ROUTES)) == len(ROUTES)
    assert sorted(C.ROUTES) == sorted(ROUTES)
    assert set(C.ALIASES.values()) <= set(ROUTES)
    assert kvaddr.HARNESS_ROUTES == C.ROUTES


def _inside(route):
    """(case, expected) for the drawn cases the production contract admits."""
    out = []
    for i in range(DRAWS):
        case = C.draw(route, 7, i, 1024)
        try:
            out.append((case, reference(case)))
        except kvaddr.Error:
            continue
    return out


def _writer(case, expected):
    """A kernel that stores the reference's visible lanes into the outputs it is handed."""
    def kernel(**kw):
        for name, full in expected.items():
            w = case.widths.get(name)
            kw[name][...] = full[:, :w] if w is not None else full
    return kernel


@pytest.mark.parametrize("route", ROUTES)
def test_route_is_reachable_from_check(route):
    params = re.fullmatch(r"kernel\((.*)\)", signature(route)).group(1).split(", ")
    inside = _inside(route)
    assert len(inside) >= DRAWS // 2  # drawn regularly inside the contract
    changed = 0
    for case, expected in inside[:8]:
        assert sorted(kernel_kwargs(case, case.inputs, case.outputs)) == sorted(params)
        dtypes = output_dtypes(route)
        assert sorted(dtypes) == sorted(case.outputs)
        assert all(case.outputs[k].dtype == dt and expected[k].dtype == dt for k, dt in dtypes.items())
        assert kvaddr.check_case(_writer(case, expected), case).kind == "ok"
        changed += any(not np.array_equal(expected[k], case.outputs[k]) for k in case.outputs)
    assert changed >= 1
    # End to end: a kernel that stores nothing is caught on the route's own comparison.
    rep = kvaddr.check(route, lambda **kw: None, cases=DRAWS, seed=7, lanes=1024, shrink=False)
    assert rep.route == route and not rep.ok and rep.failure.kind == "mismatch"


# ---- every route of the route list is a Python binding -------------------------------------------
# One hand-computed call per route (v2p [1, 0, 2, -1]: page 3 is a tombstone; page_size 2). The keys
# must be the route list itself, so a route added to translate/route_list.hpp fails here until it has
# a case (its binding comes with its PyRoute table, python/src/route_bindings.hpp).
V = np.array([1, 0, 2, -1], dtype=np.int64)
R2T = np.array([[2, 3, 0, 1, 4, 5], [4, 5, 0, 1, -1, -1]], dtype=np.int32)
ROWS = np.array([0, 1], dtype=np.int64)
LENS = np.array([6, 3], dtype=np.int64)
IDS = np.array([0, 1, 2, 5, 6, -1], dtype=np.int64)
TABLE = [[0, 1, 2], [2, 1, 0]]  # row 0: tokens 2, 0, 4 -> pages 1, 0, 2 -> 0, 1, 2; row 1 (2 pages): 4, 0 -> 2, 1
BINDING_CASES = {
    # t -> v2p[t // 2] * 2 * M + t % 2, clamped at 0; t < 0 -> 0
    "token_translate": (lambda: kvaddr.token_translate(IDS, V, 2, 3), [6, 7, 0, 13, 0, 0]),
    "swa_translate": (lambda: kvaddr.swa_translate(IDS, V, 2, swa_multiplier=3), [6, 7, 0, 13, 0, 0]),
    "transfer_ids": (lambda: kvaddr.transfer_ids(IDS, V, 2), [2, 3, 0, 5, 0, 0]),
    # w // dcp_size first: 0, 1, 2, 5, padding
    "dcp_read_translate": (lambda: kvaddr.dcp_read_translate(np.array([0, 3, 5, 10, -1]), V, 2, dcp_size=2),
                           [2, 3, 0, 5, 0]),
    "mamba_translate": (lambda: kvaddr.mamba_translate(np.array([0, 2, 3, 1]), V), [1, 2, -1, 0]),
    # the translated token divided by page_size
    "eager_funnel": (lambda: kvaddr.eager_funnel(np.array([[0, 2], [5, -1]]), V, 2), [[1, 0], [2, 0]]),
    # loc 1, 2, 5 translated, loc 0 and the tail lanes [4, 6) zero
    "write_loc": (lambda: kvaddr.write_loc(np.array([1, 2, 5, 0]), V, 2, out_width=6), [3, 0, 5, 0, 0, 0]),
    "kv_indices_inplace": (lambda: kvaddr.kv_indices_inplace(np.array([0, 2, 5, 1], np.int32),
                                                             np.array([0, 2, 4], np.int32), 2, V, 2), [2, 0, 5, 3]),
    "canonical_page_table": (lambda: kvaddr.canonical_page_table(R2T, ROWS, LENS, V, 2, max_pages=3), TABLE),
    "full_prefill_table": (lambda: kvaddr.full_prefill_table(R2T, ROWS, LENS, V, 2, max_pages=3), TABLE),
    "read_table": (lambda: kvaddr.read_table(R2T, ROWS, LENS, V, 2, max_pages=3), TABLE),
    # a fresh table of -1: row 1's third column is untouched
    "flashmla_block_table": (lambda: kvaddr.flashmla_block_table(R2T, ROWS, LENS, V, page_size=2),
                             [[0, 1, 2], [2, 1, -1]]),
    "decode_metadata": (lambda: {k: None if v is None else v.tolist() for k, v in kvaddr.decode_metadata(
        LENS, R2T, ROWS, max_seq_pages=3, page_size=2, v2p=V).items()},
        {"cache_seqlens": [6, 3], "cu_seqlens_k": [0, 6, 9], "page_table": TABLE, "swa_page_table": None}),
}


PER_ID = tuple(r for r in ROUTES if _core.route_shape(r)["per_id"])


def test_every_route_of_the_list_has_a_binding_case():
    # a per-id route is also checked from its field list against the model (test_per_id_binding_is_the_model),
    # so a route added to the list reaches Python's checks with no case written here
    assert set(BINDING_CASES) <= set(ROUTES)
    assert set(ROUTES) - set(BINDING_CASES) <= set(PER_ID)


@pytest.mark.parametrize("route", ROUTES)
def test_route_is_reachable_from_python(route):
    binding = getattr(_core, route)
    assert getattr(kvaddr, route).__wrapped__ is binding  # the package's int64-naming wrapper of it
    assert binding.__doc__.startswith(route + "(")
    if route not in BINDING_CASES:
        pytest.skip(f"{route}: checked from its field list (test_per_id_binding_is_the_model)")
    call, expected = BINDING_CASES[route]
    got = call()
    assert (got if isinstance(got, dict) else got.tolist()) == expected


# A pool for the per-id routes: page 0 -> 3, page 1 tombstoned, page 2 -> 0 (the sink), page 3 -> 2, padding row.
PER_ID_TABLE = [3, -1, 0, 2, -1]
PER_ID_IDS = [0, 1, 2, 3, 4, 5, 6, 7, -1, 0]


@pytest.mark.parametrize("route", PER_ID)
@pytest.mark.parametrize("page_size, multiplier", [(2, 1), (2, 3), (1, 2)])
def test_per_id_binding_is_the_model(route, page_size, multiplier):
    """The binding of a per-id route, called by its field names, equals the model (its spec's id_model over
    model/formulas.hpp) lane by lane; the scalars a route does not have are left out."""
    fields = {f[0]: f for f in _core.route_shape(route)["fields"]}
    ids_name, table_name = [n for n, f in fields.items() if f[1] == "vec_in"][:2]
    scalars = {}
    if "page_size" in fields:
        scalars["page_size"] = page_size
    for name in fields:
        if name.endswith("multiplier"):
            scalars[name] = multiplier
    pages = len(PER_ID_TABLE) - 1
    table = np.array(PER_ID_TABLE, np.int64)

    def call(ids):
        return getattr(kvaddr, route)(**{ids_name: np.array(ids, np.int64), table_name: table}, **scalars).tolist()

    # the ids the route's contract admits (mamba's raw slot gather rejects the padding id -1 without clamp)
    ids = []
    for i in PER_ID_IDS:
        if i >= pages * scalars.get("page_size", 1):
            continue
        try:
            call([i])
            ids.append(i)
        except kvaddr.Error:
            continue
    expected = _core.id_model(route, PER_ID_TABLE, ids, scalars)
    assert call(ids) == expected
    assert len(ids) >= 4 and any(v > 0 for v in expected)  # live lanes, not only the sink


def test_id_model_by_example():
    # transfer_ids, ps 2: ids 0, 1 -> 6, 7 (page 0 -> 3); 2, 3 -> 0 (tombstone); 4 -> 0 (page 2 -> 0); 5 -> 1; -1 -> 0
    assert _core.id_model("transfer_ids", PER_ID_TABLE, [0, 1, 2, 3, 4, 5, -1], {"page_size": 2}) == [6, 7, 0, 0, 0, 1, 0]
    # token_translate, ps 2, M 3: S = 6, id 1 -> 3 * 6 + 1 = 19, id 6 -> 2 * 6 + 0 = 12
    assert _core.id_model("token_translate", PER_ID_TABLE, [1, 6], {"page_size": 2, "multiplier": 3}) == [19, 12]
    assert _core.id_model("transfer_ids", PER_ID_TABLE, [0, 1], {}) == [3, 0]  # page_size at its default 1
    with pytest.raises(kvaddr.InvalidArgument):
        _core.id_model("read_table", PER_ID_TABLE, [0], {})
    with pytest.raises(kvaddr.InvalidArgument):
        _core.id_model("transfer_ids", PER_ID_TABLE, [0], {"no_such": 1})
    # the scalars under the route's own contract: the boundary of each rule on both sides
    for route, name, ok, bad in [("token_translate", "page_size", 1, 0), ("token_translate", "multiplier", 1, 0),
                                 ("dcp_read_translate", "dcp_size", 1, 0), ("dcp_read_translate", "dcp_size", 1, -1)]:
        assert len(_core.id_model(route, PER_ID_TABLE, [0, 1], {name: ok})) == 2
        with pytest.raises(kvaddr.InvalidArgument, match=f"^{name} = {bad}: "):
            _core.id_model(route, PER_ID_TABLE, [0, 1], {name: bad})


@pytest.mark.parametrize("route", ROUTES)
def test_binding_parameters_fill_the_field_list(route):
    params = _core.route_parameters(route)
    # the binding's Python signature is the parameter list, in order
    assert scalars.parameter_names(getattr(_core, route)) == [name for name, _ in params]
    filled = [field for _, field in params if field is not None]
    # every field of the route's field list is filled by exactly one parameter
    assert sorted(filled) == sorted(_core.route_fields(route))
    # a parameter fills the field of its own name, except an output named `out` and a tail width
    for name, field in params:
        assert field == name or name == "out" or (field is None and name == "out_width")


def test_field_list_and_parameters_by_example():
    assert _core.route_fields("transfer_ids") == ["ids", "v2p", "page_size", "out", "variant"]
    assert _core.route_parameters("flashmla_block_table")[-2:] == [("out", "kv_indices"), ("variant", "variant")]
    assert ("out_width", None) in _core.route_parameters("write_loc")
    with pytest.raises(kvaddr.InvalidArgument):
        _core.route_fields("no_such_route")
