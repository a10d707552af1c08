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
