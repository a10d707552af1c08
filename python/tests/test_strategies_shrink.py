"""kvaddr.strategies is built from Hypothesis' building blocks, so Hypothesis shrinks a failing case's contents
(skips without python3-hypothesis)."""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="python3-hypothesis is not installed")
from hypothesis import HealthCheck, find, given, settings  # noqa: E402

import kvaddr  # noqa: E402
import kvaddr.strategies as ks  # noqa: E402
import np_kernels as K  # noqa: E402
from kvaddr import cases as C  # noqa: E402
from kvaddr.conventions import host_kernel  # noqa: E402

# Deterministic examples, no speed health checks (CI machines are shared and slow).
# Which smallest values a search ends at is the shrinker's: the size of the falsifying case (one id, a two-entry
# v2p) is asserted on any Hypothesis, its exact values on Debian 12's (python3-hypothesis, what CI installs); a
# newer Hypothesis (the GPU machine's) stopped at page_size 100, ids [-101], v2p [0, -1]: as small, other values.
DEBIAN_12_HYPOTHESIS = "6.67.1"
CI = dict(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def translate_no_guard(virt, v2p, page_size, page_stride, out):
    """token_translate without the padding guard: every id, padding included, reads v2p[id // page_size]
    (numpy's floor division; an index before the table wraps to its end, as torch indexing does)."""
    t = np.asarray(virt).astype(np.int64)
    out[...] = np.maximum(v2p[t // page_size] * page_stride + t % page_size, 0)


def fails(kernel):
    # in process: the kernels here are numpy functions that cannot crash, and a worker forked per example
    # (isolate="auto" on the CPU) was most of this file's time; test_strategies.py runs drawn cases isolated
    return lambda case: kvaddr.check_case(kernel, case, isolate=False).kind == "mismatch"


@pytest.mark.parametrize("route", C.ROUTES)  # the route list of the binding (kvaddr.cases.ROUTES)
def test_every_route_draws_cases_its_host_route_passes(route):
    seen = []

    @settings(max_examples=12, **CI)
    @given(ks.cases(route, lanes=128))
    def prop(case):
        assert case.route == route
        res = kvaddr.check_case(host_kernel(route), case, isolate=False)
        assert res.kind == "ok", (res.kind, res.detail, res.first)
        seen.append(case)

    prop()
    assert len(seen) >= 12


@pytest.mark.parametrize("route", [r for r in C.ROUTES if r != "mamba_translate"])
def test_every_v2p_ends_with_the_trailing_sentinel(route):
    table = C.TOKEN_ROUTES[route][1] if route in C.TOKEN_ROUTES else "v2p"

    @settings(max_examples=10, **CI)
    @given(ks.recipes(route, lanes=64))
    def prop(r):
        assert r["v2p"].dtype == np.int64 and r["v2p"][-1] == -1
        assert C.build(route, r).inputs[table][-1] == -1

    prop()


def test_a_missing_padding_guard_shrinks_to_one_id_and_a_two_entry_v2p():
    case = find(ks.cases("token_translate", lanes=64), fails(translate_no_guard),
                settings=settings(max_examples=500, **CI))
    ps, m = case.scalars["page_size"], case.scalars["multiplier"]
    ids, v2p = case.inputs["ids"].tolist(), case.inputs["v2p"].tolist()
    # the smallest failing shape: one id below the padding id (-1 reads the sentinel and gives 0, as the guard
    # does), one live page whose entry the wrapped read picks up, the trailing sentinel
    assert len(ids) == 1 and len(v2p) == 2 and v2p[-1] == -1 and m == 1
    assert -2 * ps <= ids[0] < -1  # v2p[ids // ps] is v2p[-2]: the live page's entry
    if hypothesis.__version__ == DEBIAN_12_HYPOTHESIS:  # the shrinker CI runs reaches the very smallest values
        assert (ps, m, ids, v2p) == (1, 1, [-2], [1, -1])
    assert case.outputs["out"].shape == (1,) and (case.strided, case.alias, case.adjacent) == ((), (), ())
    # kvaddr.check's own shrinker on the same kernel: also one id and a two-entry v2p
    rep = kvaddr.check("token_translate", translate_no_guard, cases=200, seed=0, lanes=512)
    f = rep.failure
    assert f.kind == "mismatch"
    assert len(f.case.inputs["ids"].ravel()) == 1 and len(f.case.inputs["v2p"]) == 2


def test_a_guarded_kernel_has_no_falsifying_example():
    with pytest.raises(hypothesis.errors.NoSuchExample):
        find(ks.cases("token_translate", lanes=64), fails(K.translate_v2p), settings=settings(max_examples=150, **CI))


def test_a_table_route_shrinks_to_one_row_of_one_padding_token():
    case = find(ks.cases("canonical_page_table", lanes=64), fails(K.canonical_no_guard),
                settings=settings(max_examples=1000, **CI))
    ins = {k: v.tolist() for k, v in case.inputs.items()}
    # B09: a padding token reads v2p[-1 // page_size] = v2p[-1], the guard page before the table: one row of one
    # padding token, one page
    assert ins["req_to_token"] == [[-1]] and ins["req_pool_indices"] == [0] and ins["seq_lens"] == [1]
    assert case.scalars["max_pages"] == 1 and len(ins["v2p"]) == 2
    if hypothesis.__version__ == DEBIAN_12_HYPOTHESIS:
        assert case.scalars == {"page_size": 1, "multiplier": 1, "max_pages": 1}
        assert ins == {"req_to_token": [[-1]], "req_pool_indices": [0], "seq_lens": [1], "v2p": [-1, -1]}


def test_tombstones_padding_and_sentinel_page_ids_are_drawn():
    def rich(r):
        n, ps = len(r["v2p"]) - 1, r["page_size"]
        ids = r["ids"]
        return bool((r["v2p"][:-1] == -1).any() and (ids == -1).any() and (ids < -1).any()
                    and ((ids >= n * ps) & (ids < (n + 1) * ps)).any())

    r = find(ks.recipes("token_translate", lanes=64), rich, settings=settings(max_examples=2000, **CI))
    assert rich(r) and len(r["ids"]) == 3  # padding, a negative past it, an id of the sentinel page


def test_params_fix_the_drawn_values():
    @settings(max_examples=25, **CI)
    @given(ks.recipes("write_loc", lanes=64, params={"page_size": 7, "dcp_size": 2, "adjacent": False}))
    def prop(r):
        assert (r["page_size"], r["dcp_size"], r["adjacent"]) == (7, 2, None)
        assert 0 <= r["dcp_rank"] < 2

    prop()
    free = find(ks.recipes("write_loc", lanes=64), lambda r: r["page_size"] != 7, settings=settings(**CI))
    assert free["page_size"] == 1  # unfixed, the page size shrinks to the first of ODD_PAGE_SIZES


def test_upstream_kernel_names_and_bad_arguments():
    r = find(ks.recipes("translate_v2p", lanes=8), lambda r: True, settings=settings(**CI))
    assert C.build("token_translate", r).route == "token_translate"
    with pytest.raises(ValueError, match="route = 'nope'"):
        ks.recipes("nope")
    with pytest.raises(ValueError, match="params\\['adjacent'\\] = 'sometimes'"):
        ks.recipes("write_loc", params={"adjacent": "sometimes"})
