"""Hypothesis strategies that draw the cases kvaddr.check runs (needs Debian's python3-hypothesis).

    from hypothesis import given
    import kvaddr, kvaddr.strategies as ks

    @given(ks.cases("read_table", lanes=512))
    def test_my_read_table(case):
        res = kvaddr.check_case(my_kernel, case)          # device="cuda" for GPU kernels
        assert res.kind == "ok", res.first

A case is drawn as (seed, index) -> kvaddr.cases.draw(route, seed, index, lanes, params), so every
example is one kvaddr.check would run for that seed; Hypothesis shrinks the pair toward (0, 0), not the
case's contents (kvaddr.check's own shrinker does that: use it to explain a failure).
"""
from hypothesis import strategies as st

from . import _core
from . import cases as C
from .conventions import reference


def seeds():
    """(seed, index) pairs in the harness's seeding (numpy PCG64 of SeedSequence([seed, index]))."""
    return st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**20))


def recipes(route, lanes=512, params=None):
    """Recipes (kvaddr.cases) for `route`; lanes bounds the case size as in kvaddr.check."""
    if route not in C.ROUTES:
        raise ValueError(f"route = {route!r}: the harness supports {', '.join(C.ROUTES)}")
    return seeds().map(lambda si: C.draw_recipe(route, C.rng_for(*si), lanes, params))


def cases(route, lanes=512, params=None, variant="production", admitted=True):
    """kvaddr.cases.Case objects for `route` (arrays under their manifest names, outputs' before buffers).

    With `admitted` (the default) only cases the route's contract admits under `variant` are drawn (the
    generators also draw rejected aliasing layouts and overflow cases, for which check_case returns kind
    "rejected"); admitted=False draws them all."""
    s = recipes(route, lanes, params).map(lambda r: C.build(route, r))
    return s.filter(lambda c: _admits(c, variant)) if admitted else s


def _admits(case, variant):
    try:
        reference(case, variant)
    except _core.Error:
        return False
    return True
