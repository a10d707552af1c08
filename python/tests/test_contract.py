"""kvaddr.check(..., contract=) (#35 item 2): the wrapper's guarantees per argument narrow what the generators
present; without one, a kernel that fails only on a strided presentation is named by re-running the same case
with that argument contiguous; a contract the route contradicts is InvalidArgument before any kernel runs."""
import numpy as np
import pytest

import kvaddr
from kvaddr.contract import ArgContract, Contract
import np_kernels as K


def packed_rows(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    """Indexes req_pool_indices as packed (as upstream's table wrapper does): element k read at byte k * 8."""
    rows = np.lib.stride_tricks.as_strided(req_pool_indices, strides=(req_pool_indices.itemsize,))
    rows = np.clip(rows, 0, req_to_token.shape[0] - 1)  # a load that stays inside the table: a wrong row, no crash
    K.canonical_page_table(req_to_token, rows, seq_lens, v2p, page_size, multiplier, max_pages, out)


def int32_rows_only(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    if req_pool_indices.dtype != np.int32 or seq_lens.dtype != np.int32:
        raise TypeError(f"expected int32 indices, got {req_pool_indices.dtype} / {seq_lens.dtype}")
    K.canonical_page_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out)


def packed_out(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    """Writes its rows packed: through a flat view when out is packed, into a copy (lost) when it is pitched."""
    tmp = out.reshape(-1).reshape(out.shape)
    K.canonical_page_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, tmp)


def zeroes_out_first(virt, v2p, page_size, page_stride, out):
    """Clears out before reading virt: wrong whenever out aliases virt."""
    out[...] = 0
    K.translate_v2p(virt, v2p, page_size, page_stride, out)


def test_a_strided_input_read_as_packed_is_named_and_the_kind_kept():
    f = kvaddr.check("canonical_page_table", packed_rows, cases=100, seed=1).failure
    assert f.kind == "mismatch" and f.case.strided == ("req_pool_indices",)
    assert f.behaviour == ["reads `req_pool_indices` as packed: ignores its stride 2 (the same case passes with "
                           "`req_pool_indices` contiguous)"]
    assert kvaddr.check("canonical_page_table", packed_rows, cases=100, seed=1).to_dict()["failure"]["behaviour"] \
        == f.behaviour


def rows_packed_unclamped(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    rows = np.lib.stride_tricks.as_strided(req_pool_indices, strides=(req_pool_indices.itemsize,))
    K.canonical_page_table(req_to_token, rows, seq_lens, v2p, page_size, multiplier, max_pages, out)


def test_a_crash_from_reading_a_strided_input_as_packed_is_named_too():
    rep = kvaddr.check("canonical_page_table", rows_packed_unclamped, cases=100, seed=1)
    f = rep.failure
    assert f.kind == "raised" and f.detail.startswith("IndexError: index -7777 is out of bounds")
    assert f.behaviour == ["reads `req_pool_indices` as packed: ignores its stride 2 (the same case passes with "
                           "`req_pool_indices` contiguous)"]
    assert "behaves like no catalogue variant" not in str(rep) and f.behaviour[0] in str(rep)


def test_the_contiguous_contract_presents_only_contiguous_inputs():
    rep = kvaddr.check("canonical_page_table", packed_rows, cases=100, seed=1,
                       contract={"req_pool_indices": "contiguous"})
    assert rep.ok and rep.contract == {"req_pool_indices": {"layout": "contiguous"}}
    assert "the wrapper's contract: req_pool_indices contiguous" in str(rep)


def test_a_correct_kernel_failing_nowhere_gets_no_behaviour_line():
    f = kvaddr.check("token_translate", K.translate_v2p_doc_formula, cases=50, seed=1).failure
    assert f.kind == "mismatch" and f.behaviour == []


def test_int32_index_arrays_are_presented_natively():
    rep = kvaddr.check("canonical_page_table", int32_rows_only, cases=60, seed=2,
                       contract={"req_pool_indices": ("contiguous", "int32"), "seq_lens": {"dtype": "int32"}})
    assert rep.ok and rep.cases > 40
    f = kvaddr.check("canonical_page_table", int32_rows_only, cases=60, seed=2).failure
    assert f.kind == "raised" and f.detail == "TypeError: expected int32 indices, got int64 / int64"


def test_packed_and_pitched_outputs():
    f = kvaddr.check("canonical_page_table", packed_out, cases=100, seed=3).failure
    assert f.kind == "mismatch" and f.case.outputs["out"].shape[1] > f.case.widths["out"]  # a pitched out
    assert kvaddr.check("canonical_page_table", packed_out, cases=100, seed=3, contract={"out": "packed"}).ok
    rep = kvaddr.check("canonical_page_table", packed_out, cases=10, seed=3, contract={"out": "pitched"},
                       shrink=False)
    f = rep.failure  # every case pitched: the first one with a live lane fails
    assert f.kind == "mismatch" and f.case.outputs["out"].shape[1] > f.case.widths["out"] and f.case_index <= 1


def test_no_alias():
    f = kvaddr.check("token_translate", zeroes_out_first, cases=60, seed=2).failure
    assert f.kind == "mismatch" and f.case.alias == ("out", "ids")
    assert kvaddr.check("token_translate", zeroes_out_first, cases=60, seed=2, contract={"out": "no_alias"}).ok
    assert kvaddr.check("token_translate", zeroes_out_first, cases=60, seed=2,
                        contract={"virt": ArgContract(alias="no_alias")}).ok


@pytest.mark.parametrize("route,spec,where,reason", [
    ("canonical_page_table", {"rows": "contiguous"}, "contract['rows']", "canonical_page_table has no array argument"),
    ("canonical_page_table", {"out": "strided"}, "contract['out']", "a strided output contradicts the route"),
    ("token_translate", {"out": "pitched"}, "contract['out']", "1-D output of token_translate: it has no row pitch"),
    ("canonical_page_table", {"v2p": "int32"}, "contract['v2p']", "canonical_page_table takes v2p as int64 only"),
    ("canonical_page_table", {"req_to_token": "int64"}, "contract['req_to_token']", "takes req_to_token as int32"),
    ("canonical_page_table", {"req_pool_indices": "may_alias"}, "contract['req_pool_indices']", "never presents"),
    ("canonical_page_table", {"req_pool_indices": "packed"}, "contract['req_pool_indices']", "is an input"),
    ("canonical_page_table", {"req_pool_indices": ("contiguous", "strided")}, "contract['req_pool_indices']",
     "two layouts"),
    ("canonical_page_table", {"req_pool_indices": "dense"}, "contract['req_pool_indices']", "unknown word"),
    ("canonical_page_table", {"req_pool_indices": {"stride": 1}}, "contract['req_pool_indices']", "unknown key"),
    ("canonical_page_table", {"req_pool_indices": 3}, "contract['req_pool_indices']", "must be a word"),
    ("mamba_translate", {"slots": "strided"}, "contract['slots']", "presents slots contiguous only"),
    ("canonical_page_table", ["req_pool_indices"], "contract", "must be a dict"),
])
def test_a_contract_the_route_contradicts_is_rejected_before_any_kernel_runs(route, spec, where, reason):
    def never(**kw):
        raise AssertionError("no kernel runs on a bad contract")

    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check(route, never, cases=3, seed=1, contract=spec)
    assert e.value.argument == where and reason in str(e.value)


@pytest.mark.parametrize("route,spec", [
    ("canonical_page_table", {"req_pool_indices": "strided", "req_to_token": "contiguous", "seq_lens": "int32"}),
    ("token_translate", {"virt": ("contiguous", "int64", "may_alias"), "out": ("packed", "may_alias")}),
    ("read_table", {"out": "pitched", "req_pool_indices": "int64"}),
    ("write_loc", {"loc": "no_alias"}),
    ("eager_funnel", {"page_table": "strided", "out": "contiguous"}),
])
def test_contracts_the_route_admits_are_accepted(route, spec):
    c = Contract.of(route, spec)
    assert c.route == route and len(c.args) == len(spec)
    assert kvaddr.check(route, kvaddr.conventions.host_kernel(route), cases=5, seed=1, lanes=256, contract=c).ok


def test_the_contract_is_not_a_generator_parameter():
    with pytest.raises(kvaddr.InvalidArgument, match="params = .*the wrapper's contract is the argument contract="):
        kvaddr.check("token_translate", K.translate_v2p, cases=2, params={"contract": {"out": "packed"}})
