"""GPU pytest: the huge (> 2^31 elements) cases of kvaddr.check for the routes added to kvaddr.huge, with kvaddr's
own kernels (pass) and planted int32-offset subjects (caught at the first lane past 2^31); adjacent layouts on
the device. Skips without torch, a CUDA device or kvaddr._gpu."""
import json

import pytest

torch = pytest.importorskip("torch")
import kvaddr  # noqa: E402
import kvaddr.gpu as G  # noqa: E402
from kvaddr import huge as H  # noqa: E402

if not torch.cuda.is_available() or not G.available():
    pytest.skip(f"no usable CUDA device for kvaddr.gpu: {G.why_unavailable() or 'torch sees no CUDA device'}",
                allow_module_level=True)

import huge_subjects as S  # noqa: E402

TABLES = ("flashmla_block_table", "decode_metadata", "canonical_page_table", "read_table", "full_prefill_table")


def _first_past(rep):
    return rep.huge["first_past"]


def _log(tag, rep):
    """One line per huge run (pytest -s shows them; docs/harness.md quotes them)."""
    h = {k: rep.huge.get(k) for k in ("kind", "seconds", "kernel_seconds", "lanes", "first_past", "first", "scalars")}
    print(f"\nHUGE {rep.route} {tag}: {json.dumps(h)}")


@pytest.mark.parametrize("route", TABLES)
def test_huge_table_case_passes_and_catches_31_bit_reads(route):
    out = {"flashmla_block_table": "kv_indices", "decode_metadata": "page_table"}.get(route, "out")
    rep = kvaddr.check(route, G.kernel(route), device="cuda", cases=1, seed=4, huge=True)
    _log("kvaddr", rep)
    assert rep.ok and rep.huge["ran"] and rep.huge["kind"] == "ok", str(rep)
    assert rep.huge["shapes"]["req_to_token"] == list(H.HUGE_TABLE) and _first_past(rep) == f"{out}[1, 0]"
    rep = kvaddr.check(route, S.reads_31_bits(route), device="cuda", cases=1, seed=4, huge=True)
    _log("reads_31_bits", rep)
    assert not rep.ok and rep.failure.kind == "mismatch", str(rep)
    lane = rep.failure.first[0]
    assert (lane.output, lane.index) == (out, (1, 0)), str(rep)  # the first lane whose read passes 2^31
    m = rep.huge["scalars"]["multiplier"]
    assert lane.actual == H.DECOY_ENTRY * m and lane.expected != lane.actual


@pytest.mark.parametrize("route", ["mamba_translate", "eager_funnel"])
def test_huge_streamed_case_passes_and_catches_an_int32_grid(route):
    rep = kvaddr.check(route, G.kernel(route), device="cuda", cases=1, seed=4, huge=True)
    _log("kvaddr", rep)
    assert rep.ok and rep.huge["ran"] and rep.huge["kind"] == "ok", str(rep)
    rep = kvaddr.check(route, S.stops_at_2_31(route), device="cuda", cases=1, seed=4, huge=True)
    _log("stops_at_2_31", rep)
    assert not rep.ok and rep.failure.kind == "mismatch", str(rep)
    lane = rep.failure.first[0]
    want = (1 << 31,) if route == "mamba_translate" else ((1 << 31) // H.HUGE_EAGER[1], 0)
    assert lane.index == want and f"out[{', '.join(map(str, want))}]" == _first_past(rep), str(rep)
    n_past = H.HUGE_TOKENS - (1 << 31) if route == "mamba_translate" else 2 * H.HUGE_EAGER[1]
    assert rep.failure.differing <= n_past and rep.failure.differing >= n_past // 2


def test_kv_indices_inplace_has_no_huge_case():
    with pytest.raises(ValueError, match="kv_indptr is int32"):
        kvaddr.check("kv_indices_inplace", G.kernel("kv_indices_inplace"), device="cuda", cases=1, huge=True)


# ---- adjacent slices of one allocation, on the device --------------------------------------------------------
@pytest.mark.parametrize("route", kvaddr.HARNESS_ROUTES)
def test_adjacent_layouts_on_the_device(route):
    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    rep = kvaddr.check(route, G.kernel(route, variant), device="cuda", variant=variant, cases=60, seed=7,
                       params={"adjacent": "always"}, lanes=1 << 11, reference="both")
    assert rep.ok and rep.reference == "both", str(rep)


def test_store_past_out_into_its_neighbour_on_the_device():
    base = G.kernel("token_translate")

    def oob(virt, out, **kw):
        base(virt=virt, out=out, **kw)
        flat = torch.as_strided(out, (out.numel() + 1,), (1,))  # one int64 lane past out
        flat[-1] = 12345

    # seed 10: its first case is laid out out | v2p (python/tests/test_adjacent.py finds the same on the host)
    rep = kvaddr.check("token_translate", oob, device="cuda", cases=20, seed=10, params={"adjacent": "always"})
    assert not rep.ok and rep.failure.kind == "out_of_bounds", str(rep)
    assert rep.failure.case.adjacent[0][0] == "out" and rep.failure.first[0].region == "neighbour_after", str(rep)


def test_graph_mode_with_adjacent_layouts():
    rep = kvaddr.check("decode_metadata", G.kernel("decode_metadata"), device="cuda", graph=True, cases=40, seed=3,
                       params={"adjacent": "always"})
    assert rep.ok, str(rep)
