"""kvaddr.check validates every argument before anything runs (#36 item 4): kvaddr.InvalidArgument naming the
argument and its value; each rule on both sides of its boundary. A run that compared nothing is not ok."""
import fractions
import pathlib

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


# ---- fuzzer findings: variant of a route without variants, huge numbers of seconds, graph / huge / array that
# cannot run here, huge that is not a bool, a replay_dir with a NUL byte: each a kvaddr.InvalidArgument up front ----
NO_VARIANT_ROUTES = [r for r in kvaddr.HARNESS_ROUTES if not kvaddr.route_tables.has_variant(r)]


def cheap(route="token_translate", kernel=None, **kw):
    """kvaddr.check in the cheapest setup: one small case, no shrinking, in process, the host route as the kernel."""
    args = {"cases": 1, "lanes": 16, "shrink": False, "isolate": False}
    args.update(kw)
    return kvaddr.check(route, kvaddr.conventions.host_kernel(route) if kernel is None else kernel, **args)


def rejected(name, route="token_translate", **kw):
    """The InvalidArgument of a cheap check whose kernel must not run; its argument is `name`."""
    with pytest.raises(kvaddr.InvalidArgument) as e:
        cheap(route, calls_nothing, **kw)
    assert isinstance(e.value, kvaddr.Error) and isinstance(e.value, ValueError)
    assert e.value.argument == name, str(e.value)
    return e.value


def test_routes_without_variants_exist():
    assert "mamba_translate" in NO_VARIANT_ROUTES


@pytest.mark.parametrize("route", NO_VARIANT_ROUTES)
def test_a_route_without_variants_accepts_production(route):
    rep = cheap(route, variant="production")
    assert rep.ok, str(rep)


@pytest.mark.parametrize("route", NO_VARIANT_ROUTES)
@pytest.mark.parametrize("variant", ["nope", "int32_wrap", "Production", "production+int32_wrap", "", None, 5,
                                     b"production"])
def test_a_route_without_variants_rejects_any_other_variant(route, variant):
    e = rejected("variant", route, variant=variant)
    assert e.value == repr(variant)
    assert str(e) == f"variant = {variant!r}: {route} has no variants: must be 'production'"


@pytest.mark.parametrize("route", ["token_translate", "read_table", "mamba_translate"])
@pytest.mark.parametrize("variant", [None, 5, 1.0, b"production", ["production"]])
def test_a_variant_that_is_not_a_str_is_rejected_on_every_route(route, variant):
    e = rejected("variant", route, variant=variant)
    assert str(e).startswith(f"variant = {variant!r}: ")


@pytest.mark.parametrize("name", ["time_budget", "case_timeout"])
@pytest.mark.parametrize("value", [1e9, 10**9, 1e-9, 0.5])
def test_seconds_up_to_the_limit_are_accepted(name, value):
    assert cheap(**{name: value}).cases == 1


@pytest.mark.parametrize("name", ["time_budget", "case_timeout", "shrink_seconds"])
@pytest.mark.parametrize("value", [10**400, -10**400, 10**9 + 1, 1e300, fractions.Fraction(10**400)])
def test_seconds_past_the_float_range_are_rejected_not_an_overflow_error(name, value):
    e = rejected(name, **{name: value})
    assert str(e).startswith(f"{name} = {value!r}: must be a finite number of seconds")


@pytest.mark.parametrize("name", ["cases", "seed", "lanes", "lanes_budget", "time_budget", "case_timeout"])
def test_an_int_too_long_to_print_is_still_named(name):
    value = 10**5000  # repr() of it raises ValueError (Python's int-to-str digit limit)
    e = rejected(name, **{name: value})
    assert str(e).startswith(f"{name} = <int of {value.bit_length()} bits>: ")


def test_graph_false_is_accepted_on_the_cpu():
    assert cheap(graph=False).ok


@pytest.mark.parametrize("graph", [True, "fast", "slow"])
def test_graph_on_the_cpu_is_an_invalid_argument_before_any_kernel_runs(graph):
    e = rejected("graph", graph=graph)
    assert e.value == repr(graph)
    assert str(e) == f"graph = {graph!r}: needs device='cuda' with torch tensors (torch.cuda.graph)"


@pytest.mark.parametrize("huge", [None, False])
def test_huge_none_and_false_are_accepted_on_the_cpu(huge):
    rep = cheap(huge=huge)
    assert rep.ok and rep.huge == {}


def test_huge_true_on_the_cpu_is_an_invalid_argument_before_any_kernel_runs():
    e = rejected("huge", huge=True)
    assert str(e) == "huge = True: needs device='cuda' with torch" and e.value == "True"


@pytest.mark.parametrize("huge", [1.0, 0.0, 1, 0, np.True_, np.False_, "True", [True]])
def test_huge_that_is_not_none_or_a_bool_is_rejected(huge):
    e = rejected("huge", huge=huge)
    assert str(e) == f"huge = {huge!r}: must be None, True or False"


def _imports(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


@pytest.mark.parametrize("array", [None, "numpy"])
def test_a_cpu_array_family_is_accepted(array):
    assert cheap(array=array).ok


@pytest.mark.skipif(_imports("torch"), reason="torch is installed here")
def test_array_torch_without_torch_is_an_invalid_argument():
    e = rejected("array", array="torch")
    assert str(e).startswith("array = 'torch': cannot be imported (ModuleNotFoundError: ")


def planted(**kw):  # a failing kernel: the run writes a replay directory
    kw["out"][...] = 12345


@pytest.mark.parametrize("as_path", [False, True])
def test_a_replay_dir_path_is_accepted_and_written(tmp_path, as_path):
    root = tmp_path / "fails"
    rep = cheap(kernel=planted, replay_dir=root if as_path else str(root))
    assert rep.failure is not None and rep.failure.replay_error is None
    assert pathlib.Path(rep.failure.replay_dir).parent == root


class _BytesPath:
    def __fspath__(self):
        return b"/tmp/kvaddr-bytes"


class _BrokenPath:
    def __fspath__(self):
        return 5


@pytest.mark.parametrize("replay_dir,reason", [
    ("x\0y", "a path must not contain a NUL byte"), ("\0", "a path must not contain a NUL byte"),
    (pathlib.PurePosixPath("a\0b"), "a path must not contain a NUL byte"),
    (_BytesPath(), "must be a path of a str, not of bytes"), (_BrokenPath(), "must be a path (str or os.PathLike)"),
    (b"kvaddr-failures", "must be a path (str or os.PathLike) or None"),
])
def test_a_replay_dir_that_cannot_be_written_is_rejected_before_any_kernel_runs(replay_dir, reason):
    e = rejected("replay_dir", replay_dir=replay_dir)
    assert str(e).startswith(f"replay_dir = {replay_dir!r}: {reason}")
