"""GPU-only pytest (issue 33): Triton subjects whose difference no catalogue variant names, which kvaddr.check must
explain by inference. Skips without torch, Triton or a CUDA device. Passed on an H100 (2026-12-06, docs/gpu-check.md)."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the Triton subjects need a GPU", allow_module_level=True)

import kvaddr  # noqa: E402
import triton_kernels as T  # noqa: E402


def translate_v2p_stride0(virt, v2p, page_size, page_stride, out):
    """translate_v2p whose launcher hands the ids with stride 0 (an older launcher's broadcast): every lane
    translates the first id."""
    n = virt.numel()
    if n == 0:
        return
    src = virt if virt.dim() == 1 else virt.contiguous().view(-1)
    T._translate[(T._cdiv(n, 1024),)](src, 0, v2p, out.view(-1), n, page_size, page_stride, BLOCK=1024, DOC=False,
                                      INT32_OFFS=False)


def test_ids_read_with_stride_zero_are_inferred(tmp_path):
    rep = kvaddr.check("token_translate", translate_v2p_stride0, device="cuda", cases=300, seed=1, lanes=4096,
                       replay_dir=tmp_path)
    f = rep.failure
    assert f is not None and f.behaves_like == [], str(rep)
    assert len(f.inferred) == 1 and f.inferred[0].startswith("reads ids with stride 0"), str(rep)
    # replay names it from the recording, and the inferred claim replays equal
    call = kvaddr.replay(f.replay_dir)["calls"][0]
    assert call["inferred"][0]["variant"] == "stride0(ids)"
