"""GPU pytest: kvaddr.check against the Triton subjects (skips without CUDA or Triton)."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the Triton subjects need a GPU", allow_module_level=True)

import kvaddr  # noqa: E402
import kvaddr.gpu  # noqa: E402
import triton_kernels as T  # noqa: E402


@pytest.mark.parametrize("route", sorted(T.PRODUCTION))
def test_production_subject_passes(route):
    rep = kvaddr.assert_check(route, T.PRODUCTION[route], device="cuda", variant=T.CLAIMS.get(route, "production"),
                              cases=60, seed=11, lanes=1 << 12)
    # kvaddr's CUDA kernels are the reference whenever kvaddr._gpu is built (kvaddr.gpu)
    assert rep.reference == ("cuda" if kvaddr.gpu.available() else "host"), str(rep)


@pytest.mark.parametrize("name", sorted(T.PEERS))
def test_performance_peer_passes(name):
    # bench/peer.py's timings mean something only for a peer that computes the route's contract
    route, kernel = T.PEERS[name]
    kvaddr.assert_check(route, kernel, device="cuda", variant=T.CLAIMS.get(route, "production"), cases=60, seed=12,
                        lanes=1 << 12)


@pytest.mark.parametrize("name", sorted(T.PLANTED))
def test_planted_subject_is_caught_and_named(name, tmp_path):
    route, kernel, claim, want = T.PLANTED[name]
    rep = kvaddr.check(route, kernel, device="cuda", variant=claim, cases=2000, seed=1, lanes=4096, replay_dir=tmp_path)
    assert not rep.ok
    assert T.planted_named(rep.failure, want), str(rep)
    with pytest.raises(AssertionError):
        kvaddr.assert_replay(kernel, rep.failure.replay_dir, device="cuda")


def test_graph_mode_catches_the_capture_bug():
    rep = kvaddr.check("decode_metadata", T.DecodeMetadataBakedColumns(), device="cuda", graph=True, cases=300, seed=3,
                       lanes=1 << 14)
    assert not rep.ok and rep.failure.kind == "mismatch" and rep.failure.case_index > 0, str(rep)
    assert kvaddr.check("decode_metadata", T.decode_metadata, device="cuda", graph=True, cases=100, seed=3).ok
