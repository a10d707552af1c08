"""kvaddr.strategies draws the harness's cases for Hypothesis (skips without python3-hypothesis)."""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="python3-hypothesis is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402

import kvaddr  # noqa: E402

# Deterministic examples, no speed health checks (CI machines are shared and slow).
CI = dict(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
import kvaddr.strategies as ks  # noqa: E402
import np_kernels as K  # noqa: E402
from kvaddr import cases as C  # noqa: E402


@settings(max_examples=60, **CI)
@given(ks.cases("read_table", lanes=256))
def test_correct_read_table_on_drawn_cases(case):
    res = kvaddr.check_case(K.read_table, case)
    assert res.kind == "ok", res.first


@settings(max_examples=40, **CI)
@given(ks.cases("token_translate", lanes=64, admitted=False))
def test_unfiltered_cases_include_the_rejected_layouts(case):
    res = kvaddr.check_case(K.translate_v2p, case)
    if len(case.alias) == 3:  # a partial overlap of out and ids
        assert res.kind == "rejected" and res.detail.startswith("InvalidArgument: out = size ")
    else:
        assert res.kind == "ok", res.first


@settings(max_examples=40, **CI)
@given(ks.seeds())
def test_strategy_cases_are_the_check_cases(si):
    seed, index = si
    a = C.draw("write_loc", seed, index, 512)
    b = C.build("write_loc", C.draw_recipe("write_loc", C.rng_for(seed, index), 512))
    assert all(np.array_equal(a.inputs[k], b.inputs[k]) for k in a.inputs)


def test_planted_bug_is_found_by_hypothesis():
    @settings(max_examples=200, **CI)
    @given(ks.cases("write_loc", lanes=64))
    def prop(case):
        assert kvaddr.check_case(K.write_loc_stale_tail, case).kind == "ok"

    with pytest.raises(AssertionError):
        prop()


def test_unknown_route():
    with pytest.raises(ValueError, match="route = 'nope'"):
        ks.cases("nope")


@pytest.mark.parametrize("kw,name", [
    (dict(route="nope"), "route"), (dict(route=None), "route"), (dict(lanes=0), "lanes"), (dict(lanes="64"), "lanes"),
    (dict(lanes=True), "lanes"), (dict(params={"page_size": 0}), "params['page_size']"),
    (dict(params={"nope": 1}), "params['nope']"), (dict(params=[("page_size", 4)]), "params"),
    (dict(params={"adjacent": "sometimes"}), "params['adjacent']"), (dict(variant="b99_unknown"), "variant"),
    (dict(variant=None), "variant"), (dict(admitted="yes"), "admitted"),
])
def test_a_bad_strategy_argument_is_named_when_the_strategy_is_made(kw, name):
    args = {"route": "token_translate", **kw}
    with pytest.raises(kvaddr.InvalidArgument) as e:
        ks.cases(args.pop("route"), **args)
    assert e.value.argument == name


@settings(max_examples=5, **CI)
@given(ks.cases("translate_v2p", lanes=1, params={"page_size": 1 << 20}, variant="b17_doc_formula", admitted=False))
def test_the_good_side_of_each_strategy_argument(case):
    assert case.route == "token_translate" and case.scalars["page_size"] == 1 << 20 and case.inputs["ids"].size <= 1
