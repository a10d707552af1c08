"""Every route of the C++ route list (kvaddr._core.routes(), translate/route_list.hpp) is reachable from
kvaddr.check: it has a calling convention (signature and kwargs), drawn cases inside its contract, a host
reference, and an end-to-end check that compares its outputs. The list is read from _core, never written here."""
import re

import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import cases as C
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
