"""GPU-only pytest (issue 33): Triton subjects of triton_kernels.py with int32 arithmetic where the contract has
int64. translate_v2p_int32_offs and write_loc_int32_offs form their lane offsets in int32 (lanes at or past 2^31
left unwritten): kvaddr.check's huge case fails at out[2^31] and infers int32_lane_offsets by re-running kvaddr's
CUDA kernel under it (kvaddr.huge). decode_metadata_int32_lengths counts pages from seq_len.to(int32): the call of
int32_cases.py fails as production, passes claimed int32_lengths, and is named int32_lengths by behaves-like and by
replay from its recording. Device memory: the token_translate huge case holds 64 GiB (ids, their pristine copy,
out, the expectation: kvaddr.huge.bytes_needed), write_loc's 32 GiB. Skips without torch, Triton, a CUDA device or
kvaddr._gpu. Passed on an H100 (2026-12-06, docs/gpu-check.md "Stability")."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
import kvaddr  # noqa: E402
import kvaddr.gpu as G  # noqa: E402
from kvaddr import huge as H  # noqa: E402

if not torch.cuda.is_available() or not G.available():
    pytest.skip(f"no usable CUDA device for kvaddr.gpu: {G.why_unavailable() or 'torch sees no CUDA device'}",
                allow_module_level=True)

import int32_cases as E  # noqa: E402
import triton_kernels as T  # noqa: E402


@pytest.mark.parametrize("route, subject", [("token_translate", T.translate_v2p_int32_offs),
                                            ("write_loc", T.write_loc_int32_offs)])
def test_int32_lane_offsets_subject_is_inferred_on_the_huge_case(route, subject):
    rep = kvaddr.check(route, subject, device="cuda", cases=1, seed=4, huge=True)
    print(f"\nHUGE {route} int32 offsets: {rep.huge}")
    assert not rep.ok and rep.huge["ran"] and rep.huge["kind"] == "mismatch", str(rep)
    lane = rep.failure.first[0]
    assert (lane.output, lane.index) == ("out", (H.LIMIT,)), str(rep)  # the first lane left unwritten
    past = (H.HUGE_TOKENS if route == "token_translate" else H.HUGE_WRITE_LOC[1]) - H.LIMIT
    assert rep.huge["inferred"] == [f"lanes >= 2^31 not written (lane offsets formed in int32): {past} lanes "
                                    f"unwritten, from lane {H.LIMIT} to {H.LIMIT + past - 1} (claim "
                                    "int32_lane_offsets; its re-run on kvaddr's CUDA kernel reproduces every lane of "
                                    "the huge case)"], str(rep)
    assert rep.failure.inferred == rep.huge["inferred"], str(rep)
    assert "inferred: lanes >= 2^31 not written" in str(rep)


def test_int32_lane_offsets_subject_passes_below_2_31():
    for route, subject in (("token_translate", T.translate_v2p_int32_offs), ("write_loc", T.write_loc_int32_offs)):
        kvaddr.assert_check(route, subject, device="cuda", cases=200, seed=5, huge=False)


@pytest.mark.parametrize("route", ["token_translate", "write_loc"])
def test_kvaddr_kernel_under_int32_lane_offsets_equals_production_below_2_31(route):
    # the CUDA kernel's variant hook (kernels_per_id.cu) changes nothing on a launch below 2^31 lanes
    kvaddr.assert_check(route, G.kernel(route, "int32_lane_offsets"), device="cuda", cases=200, seed=6, huge=False)
    kvaddr.assert_check(route, G.kernel(route, "int32_lane_offsets"), device="cuda", cases=200, seed=6, huge=False,
                        variant="int32_lane_offsets")


def test_int32_lengths_subject_is_named(tmp_path):
    rep = E.check_int32_lengths_subject(T.decode_metadata_int32_lengths, "cuda", tmp_path)
    print(f"\nint32_lengths subject replay: {rep['summary']}")


def test_decode_subject_without_int32_lengths_writes_the_row():
    res = kvaddr.check_case(T.decode_metadata, E.int32_lengths_case(), device="cuda")
    assert res.kind == "ok", res
