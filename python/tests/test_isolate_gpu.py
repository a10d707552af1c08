"""kvaddr.check isolation on CUDA (#35 item 1): the spawned worker runs the kernel; an illegal address, a store past
the device guard, a hang and a raise each give a report, and later checks in the same process still run (the
parent's CUDA context is untouched). Skips without torch and a CUDA device (Triton subjects without Triton)."""
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the isolated CUDA worker needs a GPU", allow_module_level=True)

import kvaddr  # noqa: E402
import fault_kernels_gpu as G  # noqa: E402

needs_triton = pytest.mark.skipif(G.triton is None, reason="Triton is not installed")


def check(kernel, **kw):
    args = {"device": "cuda", "cases": 30, "seed": 1, "shrink_seconds": 60}
    args.update(kw)
    return kvaddr.check("token_translate", kernel, **args)


def later_checks_pass():
    rep = check(G.translate_v2p, cases=20, seed=3)
    assert rep.ok and rep.isolation == "spawn", str(rep)
    rep = check(G.translate_v2p, cases=20, seed=3, isolate=False)
    assert rep.ok and rep.isolation == "in-process", str(rep)  # the parent's own context still works


@needs_triton
def test_an_illegal_address_is_a_fault_with_its_shrunk_case(tmp_path):
    rep = check(G.illegal_address, replay_dir=str(tmp_path))
    f = rep.failure
    assert rep.isolation == "spawn" and f.kind == "fault", str(rep)
    assert f.detail.endswith("(the CUDA context of the kernel's process is no longer usable)")
    assert f.case.inputs["ids"].tolist() == [0, 0, 0] and f.replay_dir is not None
    later_checks_pass()


@needs_triton
def test_a_store_2000_lanes_past_out_lands_in_the_device_guard():
    f = check(G.stores_2000_past_out).failure
    assert f.kind == "out_of_bounds" and f.case.inputs["ids"].tolist() == [0, 0, 0]
    assert [str(lane) for lane in f.first] == ["out[1999] (guard after the buffer): expected -6510615555426900571, "
                                               "got 4242"]
    later_checks_pass()


def test_a_hang_is_a_timeout_and_a_raise_is_raised():
    f = check(G.sleeps, case_timeout=5.0, shrink=False).failure
    assert (f.kind, f.case_index) == ("timeout", 0)
    f = check(G.raises).failure
    assert (f.kind, f.detail) == ("raised", "RuntimeError: launch failed: grid too large")
    assert f.case.inputs["ids"].tolist() == [0, 0, 0]
    later_checks_pass()


def test_graph_mode_and_unpicklable_kernels_run_in_process_and_say_why():
    rep = check(lambda **kw: G.translate_v2p(**kw), cases=5)
    assert rep.ok and rep.isolation == "in-process"
    assert rep.isolation_note.startswith("the kernel cannot be pickled by reference")
    with pytest.raises(kvaddr.InvalidArgument, match="^isolate = True: the kernel cannot be pickled"):
        check(lambda **kw: None, isolate=True)
