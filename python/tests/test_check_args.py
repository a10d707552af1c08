"""kvaddr.check validates every argument before anything runs (#36 item 4): kvaddr.InvalidArgument naming the
argument and its value; each rule on both sides of its boundary. A run that compared nothing is not ok."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K


def calls_nothing(**kw):
    raise AssertionError("the kernel must not run on a bad argument")


def check(**kw):
    args = {"cases": 2, "seed": 1, "lanes": 64}
    args.update(kw)
    return kvaddr.check("token_translate", K.translate_v2p, **args)


@pytest.mark.parametrize("cases", [0, -1, 1.5, "3", True, False, None, 2**40 + 1, np.float64(2.0)])
def test_bad_cases_are_rejected_before_any_kernel_runs(cases):
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check("token_translate", calls_nothing, cases=cases, seed=1)
    assert e.value.argument == "cases" and e.value.value == repr(cases)
    assert str(e.value).startswith(f"cases = {cases!r}: must be an integer in [1, 1099511627776]")


@pytest.mark.parametrize("cases", [1, np.int64(1), np.int32(3), 2**40])
def test_good_cases_are_accepted(cases):
    rep = check(cases=cases, time_budget=1e-9)  # the first case always runs, then the budget stops the draw
    assert rep.cases + rep.rejected == 1


@pytest.mark.parametrize("name,value", [
    ("seed", -1), ("seed", 2**64), ("seed", 1.0), ("seed", "1"), ("seed", True),
    ("lanes", 0), ("lanes", -5), ("lanes", 2**40 + 1), ("lanes", 64.0), ("lanes", False),
    ("lanes_budget", 0), ("lanes_budget", 1.5), ("lanes_budget", True),
    ("time_budget", 0), ("time_budget", -1.0), ("time_budget", float("nan")), ("time_budget", float("inf")),
    ("time_budget", "1"), ("time_budget", True), ("time_budget", 1e9 + 1),
    ("case_timeout", 0.0), ("case_timeout", -0.5), ("case_timeout", float("nan")), ("case_timeout", True),
    ("shrink_seconds", -1), ("shrink_seconds", None), ("shrink_seconds", float("inf")), ("shrink_seconds", "5"),
    ("shrink", 1), ("shrink", "yes"), ("shrink", None),
    ("huge", 1), ("huge", 0), ("huge", "yes"),
    ("replay_dir", 3), ("replay_dir", ""), ("name", 5), ("params", [("page_size", 4)]),
    ("graph", 1), ("graph", "fastest"),
    ("isolate", "yes"), ("isolate", 1), ("isolate", None),
    ("overflow", "wrapped"), ("reference", "gpu"), ("device", "tpu"), ("array", "jax"),
    ("device", "cuda:"), ("device", "cuda:x"), ("device", "cuda:-1"), ("device", "cuda:0:1"), ("device", "CUDA"),
    ("device", "cuda:\u0661"), ("device", None), ("device", 0),
    ("variant", "b99_unknown"), ("variant", None), ("variant", 3), ("variant", b"production"),
])
def test_every_bad_argument_is_named(name, value):
    args = {"cases": 2, "seed": 1, name: value}
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check("token_translate", calls_nothing, **args)
    assert e.value.argument == name
    assert str(e.value).startswith(f"{name} = {value!r}: ")


@pytest.mark.parametrize("name,value", [
    ("seed", 0), ("seed", 2**64 - 1), ("seed", np.uint64(7)), ("lanes", 1), ("lanes_budget", 1),
    ("time_budget", 1e-9), ("time_budget", 3), ("case_timeout", 30), ("shrink_seconds", 0), ("shrink", False),
    ("huge", False), ("huge", None), ("replay_dir", None), ("name", "x"), ("isolate", False), ("isolate", True),
])
def test_good_arguments_are_accepted(name, value):
    assert check(**{name: value}).ok


def test_the_route_and_the_kernel_are_named():
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check("no_such_route", K.translate_v2p, cases=2)
    assert e.value.argument == "route" and e.value.value == "'no_such_route'"
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check("token_translate", "np_kernels:translate_v2p", cases=2)
    assert e.value.argument == "kernel"


def test_a_shard_with_no_case_index_is_rejected():
    with pytest.raises(kvaddr.InvalidArgument, match=r"shard = \(3, 4\): shard 3 of 4 holds no case index"):
        kvaddr.check("token_translate", calls_nothing, cases=3, seed=1, shard=(3, 4))
    assert check(cases=3, shard=(2, 4)).cases + check(cases=3, shard=(2, 4)).rejected == 1


def test_a_run_that_compared_nothing_is_not_ok():
    # a multiplier of 2^62: every table entry overflows, so the contract rejects every drawn case
    rep = kvaddr.check("canonical_page_table", calls_nothing, cases=3, seed=1, lanes=64,
                       params={"page_size": 4, "multiplier": 2**62})
    assert rep.cases == 0 and rep.rejected == 3 and rep.failure is None
    assert not rep.ok and not bool(rep)
    assert rep.verdict.startswith("NOTHING COMPARED: all 3 drawn cases were rejected by the claimed contract (")
    assert str(rep).splitlines()[0].endswith("reference host): " + rep.verdict) and rep.to_dict()["ok"] is False
    assert rep.verdict == ("NOTHING COMPARED: all 3 drawn cases were rejected by the claimed contract "
                           "(Overflow(multiplier) 3); not ok")
    assert check(cases=1).ok  # one compared case is enough


@pytest.mark.parametrize("route,params,where", [
    ("write_loc", {"page_size": 0}, "params['page_size']"), ("write_loc", {"page_size": -3}, "params['page_size']"),
    ("write_loc", {"page_size": 1.5}, "params['page_size']"), ("write_loc", {"page_size": 2**20 + 1}, "params['page_size']"),
    ("write_loc", {"dcp_size": 0}, "params['dcp_size']"), ("write_loc", {"multiplier": 0}, "params['multiplier']"),
    ("write_loc", {"dcp_size": 2, "dcp_rank": 2}, "params['dcp_rank']"), ("write_loc", {"dcp_rank": -1}, "params['dcp_rank']"),
    ("read_table", {"zero_tail": 1}, "params['zero_tail']"), ("read_table", {"seq_len_delta": -1}, "params['seq_len_delta']"),
    ("read_table", {"adjacent": "sometimes"}, "params['adjacent']"), ("read_table", {"nope": 1}, "params['nope']"),
])
def test_bad_generator_parameters_are_named(route, params, where):
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check(route, calls_nothing, cases=2, seed=1, params=params)
    assert e.value.argument == where


@pytest.mark.parametrize("route,params", [
    ("write_loc", {"page_size": 1, "multiplier": 1, "dcp_size": 2, "dcp_rank": 1}),
    ("write_loc", {"page_size": 2**20}), ("read_table", {"zero_tail": True, "seq_len_delta": 0, "adjacent": "always"}),
    ("flashmla_block_table", {"kv_start_idx": False}), ("decode_metadata", {"long_rows": False, "big_entries": False}),
])
def test_good_generator_parameters_are_accepted(route, params):
    rep = kvaddr.check(route, kvaddr.conventions.host_kernel(route), cases=3, seed=1, lanes=128, params=params)
    assert rep.failure is None


def _visible_gpus():
    """CUDA devices torch (else CuPy) sees here; 0 when neither imports or sees one."""
    try:
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except ImportError:
        pass
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:1", "cuda:9999"])
def test_a_cuda_device_the_machine_lacks_is_named_before_any_kernel_runs(device):
    index = 0 if device == "cuda" else int(device.split(":")[1])
    if index < _visible_gpus():
        pytest.skip(f"this machine has CUDA device {index}: {device} is valid here")
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check("token_translate", calls_nothing, cases=2, seed=1, device=device)
    assert e.value.argument == "device" and e.value.value == repr(device)


# ---- kvaddr.check_case / kvaddr.behaves_like: a case that is not a Case, a kernel that is not callable -----------
def _a_case():
    return kvaddr.check("token_translate", K.translate_v2p_doc_formula, cases=20, seed=1).failure.case


@pytest.mark.parametrize("case,shown", [(None, "a NoneType"), (5, "a int"), ({"route": "token_translate"}, "a dict")])
def test_check_case_and_behaves_like_name_a_case_that_is_not_a_case(case, shown):
    for call in (lambda: kvaddr.check_case(calls_nothing, case), lambda: kvaddr.behaves_like(case, {}, "production")):
        with pytest.raises(kvaddr.InvalidArgument) as e:
            call()
        assert (e.value.argument, e.value.value) == ("case", shown)


def test_check_case_checks_its_case_kernel_and_variant():
    import dataclasses

    case = _a_case()
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check_case(calls_nothing, dataclasses.replace(case, route="nope"))
    assert (e.value.argument, e.value.value) == ("case", "a Case of route 'nope'")
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check_case("np_kernels:translate_v2p", case)
    assert e.value.argument == "kernel"
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.check_case(calls_nothing, case, variant="b99_unknown")
    assert e.value.argument == "variant"
    assert kvaddr.check_case(K.translate_v2p, case, isolate=False).kind == "ok"  # the good side of each
    assert kvaddr.check_case(K.translate_v2p_doc_formula, case, isolate=False).kind == "mismatch"
    assert kvaddr.check_case(K.translate_v2p_doc_formula, case, variant="b17_doc_formula", isolate=False).kind == "ok"
