"""Never lose the report (#35 item 1, #36 item 6): a kernel that faults, aborts, hangs, raises or interrupts gives a
Report with the failing case; later checks in the same process still run; the harness's own I/O errors are in
the report. Subjects: fault_kernels.py (misbehave from three ids on)."""
import os
import types

import numpy as np
import pytest

import kvaddr
import kvaddr.isolate as iso
from kvaddr import cases as C
from kvaddr.conventions import reference
from kvaddr.harness import run_case
import fault_kernels as F
import np_kernels as K


def fails(kernel, tmp_path=None, **kw):
    args = {"cases": 30, "seed": 1, "shrink_seconds": 20}
    args.update(kw)
    if tmp_path is not None:
        args["replay_dir"] = str(tmp_path)
    return kvaddr.check("token_translate", kernel, **args)


def later_check_passes():
    rep = kvaddr.check("token_translate", K.translate_v2p, cases=20, seed=3)
    assert rep.ok and rep.cases == 20 - rep.rejected


@pytest.mark.parametrize("kernel,detail", [
    (F.reads_address_zero, "the kernel killed its process with SIGSEGV (signal 11)"),
    (F.aborts, "the kernel killed its process with SIGABRT (signal 6)"),
])
def test_a_kernel_that_kills_its_process_is_a_fault_with_its_shrunk_case(kernel, detail, tmp_path):
    rep = fails(kernel, tmp_path)
    f = rep.failure
    assert rep.isolation == "fork" and not rep.ok
    assert (f.kind, f.case_index, f.detail) == ("fault", 0, detail)
    assert f.case.inputs["ids"].tolist() == [0, 0, 0] and f.shrink_steps > 0  # every faulting attempt still fails
    assert f.replay_dir == str(tmp_path / "token_translate-seed1-case0")
    assert (tmp_path / "token_translate-seed1-case0" / "manifest.json").is_file()
    later_check_passes()


def test_a_kernel_that_hangs_past_case_timeout_is_killed_reported_and_shrunk(tmp_path):
    rep = fails(F.sleeps, tmp_path, case_timeout=0.3)
    f = rep.failure
    assert (f.kind, f.case_index) == ("timeout", 0)
    assert f.detail == "the call did not return within case_timeout = 0.3 s; its process was killed"
    assert f.case.inputs["ids"].tolist() == [0, 0, 0] and f.replay_dir is not None
    later_check_passes()


def test_replaying_a_faulting_case_reports_it_instead_of_dying(tmp_path):
    d = fails(F.reads_address_zero, tmp_path).failure.replay_dir
    with pytest.raises(AssertionError, match=r"^kvaddr replay .*: fault \(the kernel killed its process with SIGSEGV"):
        kvaddr.assert_replay(F.reads_address_zero, d)
    kvaddr.assert_replay(K.translate_v2p, d)  # the correct kernel passes the recorded case


@pytest.mark.parametrize("isolate", ["auto", False])
def test_a_kernel_that_raises_is_raised_in_or_out_of_process(isolate):
    rep = fails(F.raises, isolate=isolate)
    f = rep.failure
    assert (f.kind, f.case_index, f.detail) == ("raised", 0, "RuntimeError: launch failed: grid too large")
    assert f.case.inputs["ids"].tolist() == [0, 0, 0]
    assert rep.isolation == ("fork" if isolate == "auto" else "in-process")
    later_check_passes()


@pytest.mark.parametrize("isolate", ["auto", False])
@pytest.mark.parametrize("kernel,exc", [(F.interrupts, KeyboardInterrupt), (F.exits, SystemExit)])
def test_an_interrupt_from_the_kernel_prints_the_partial_report_then_propagates(kernel, exc, isolate, capsys):
    with pytest.raises(exc) as e:
        fails(kernel, isolate=isolate)
    rep = e.value.kvaddr_report
    assert rep.interrupted.startswith(exc.__name__) and not rep.ok and rep.failure is None
    assert rep.cases == 0  # case 0 has more than two ids: interrupted before any case compared
    err = capsys.readouterr().err
    assert err.startswith("kvaddr.check token_translate (variant production, seed 1, cpu/numpy, reference host): "
                          "interrupted after 0 compared cases: " + exc.__name__)
    later_check_passes()


def test_a_kernel_returning_its_own_output_buffer_passes_isolated():
    rep = fails(F.returns_out)
    assert rep.ok and rep.isolation == "fork"


def test_an_unwritable_replay_dir_keeps_the_failure(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    rep = fails(K.translate_v2p_doc_formula, replay_dir=str(not_a_dir))
    f = rep.failure
    assert f.kind == "mismatch" and f.behaves_like == ["b17_doc_formula"]
    # the recording writer's kvaddr.IoError (an OSError) names the directory it could not create
    assert f.replay_dir is None and f.replay_error == (
        f"IoError: dir = {not_a_dir / 'token_translate-seed1-case0'}: cannot create the directory: Not a directory")
    assert rep.to_dict()["failure"]["replay_error"] == f.replay_error
    assert f"replay: not written ({f.replay_error})" in str(rep)
    rep = fails(K.translate_v2p_doc_formula, replay_dir="/dev/full/x")
    assert rep.failure.replay_dir is None and rep.failure.replay_error.startswith("IoError: dir = /dev/full/x/")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a device whose writes fail with ENOSPC)")
def test_a_full_disk_keeps_the_failure(tmp_path):
    d = tmp_path / "token_translate-seed1-case0"
    d.mkdir()
    os.symlink("/dev/full", d / "manifest.json")  # writing the manifest meets a full disk
    rep = fails(K.translate_v2p_doc_formula, tmp_path)
    assert rep.failure.kind == "mismatch" and rep.failure.replay_dir is None
    assert rep.failure.replay_error == f"IoError: file = {d / 'manifest.json'}: cannot write"


def one_case(ids_n=3):
    r = C.draw_recipe("token_translate", C.rng_for(1, 0), 64, {})
    r.update(ids=np.zeros(ids_n, np.int64), strided=False, alias=False, overlap=0, rank2=False, adjacent=None)
    case = C.build("token_translate", r)
    return case, reference(case)


def test_the_spawn_worker_imports_the_kernel_by_reference_and_survives_its_fault():
    """The start method used for CUDA (spawn), exercised on the CPU: the worker imports fault_kernels itself."""
    case, expected = one_case()
    run = iso.Isolated(F.reads_address_zero, "spawn", ("out",))
    try:
        res = run_case(kvaddr.harness.family("cpu"), run, case, expected)
        assert (res.kind, res.detail) == ("fault", "the kernel killed its process with SIGSEGV (signal 11)")
        small, small_expected = one_case(2)
        assert run_case(kvaddr.harness.family("cpu"), run, small, small_expected).kind == "ok"  # a fresh worker
    finally:
        run.close()


def test_auto_isolation_says_why_it_runs_in_process():
    cuda = types.SimpleNamespace(name="torch", device="cuda")
    assert iso.resolve("auto", cuda, F.raises, False) == ("spawn", "")
    method, why = iso.resolve("auto", cuda, lambda **kw: None, False)
    assert method is None and why.startswith("the kernel cannot be pickled by reference (AttributeError: Can't pickle local object")
    with pytest.raises(kvaddr.InvalidArgument, match=r"^isolate = True: the kernel cannot be pickled"):
        iso.resolve(True, cuda, lambda **kw: None, False)
    assert iso.resolve("auto", cuda, F.raises, True) == (None, "graph mode captures the kernel in this process")
    assert iso.resolve(False, cuda, F.raises, False) == (None, "isolate=False")
    cpu = types.SimpleNamespace(name="numpy", device="cpu")
    assert iso.resolve("auto", cpu, lambda **kw: None, False) == ("fork", "")


@pytest.mark.parametrize("isolate", ["auto", False])
def test_an_exception_whose_str_raises_is_reported(isolate):
    f = fails(F.raises_unprintable, isolate=isolate).failure
    assert (f.kind, f.detail) == ("raised", "Unprintable: <str() of the exception raised ValueError>")


def test_a_kernel_that_exits_its_process_is_a_fault():
    f = fails(F.exits_quietly).failure
    assert (f.kind, f.detail) == ("fault", "the kernel's process exited with status 0")
    assert f.case.inputs["ids"].tolist() == [0, 0, 0]
