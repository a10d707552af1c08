"""The flow of kvaddr.huge on the CPU: every huge case at a small limit (2^14 instead of 2^31, kvaddr.huge.sizes)
on a numpy stand-in of torch, with the host routes standing in for kvaddr's CUDA kernels. Correct kernels pass,
the planted int32-offset subjects of tests/harness_subjects/huge_subjects.py are caught at the first lane past
the limit, and the routes without a huge case say why. The real sizes run on a GPU
(tests/harness_subjects/test_huge_subjects.py)."""
import pathlib
import sys

import numpy as np
import pytest

import kvaddr
from kvaddr import harness
from kvaddr import huge as H
from kvaddr.arrays import Family
from kvaddr.conventions import host_kernel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "harness_subjects"))
import huge_subjects as S  # noqa: E402

LIMIT = 1 << 14


class T(np.ndarray):
    """The torch tensor methods kvaddr.huge and the subjects use, on numpy."""

    def mul_(self, x):
        np.multiply(self, x, out=self, casting="unsafe")
        return self

    def add_(self, x):
        np.add(self, x, out=self, casting="unsafe")
        return self

    def remainder_(self, x):
        np.remainder(self, x, out=self)
        return self

    def neg_(self):
        np.negative(self, out=self)
        return self

    def clamp_(self, min=None):  # noqa: A002 - torch's keyword
        np.maximum(self, min, out=self)
        return self

    def clone(self, **kw):
        return np.array(self, copy=True).view(T)

    def numel(self):
        return self.size

    def to(self, device):
        return self

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], type):
            return np.ndarray.view(self, shape[0])
        v = self.reshape(*shape)
        assert np.shares_memory(v, self) or self.size == 0
        return v

    def flip(self, dim):
        return np.flip(self, dim).copy().view(T)


class FakeTorch:
    int64, int32 = np.int64, np.int32
    Tensor = T

    class cuda:  # noqa: N801 - torch.cuda
        synchronize = staticmethod(lambda: None)
        empty_cache = staticmethod(lambda: None)
        mem_get_info = staticmethod(lambda: (1 << 40, 1 << 40))

    class Generator:
        def __init__(self, device=None):
            self.rng = np.random.default_rng(0)

        def manual_seed(self, s):
            self.rng = np.random.default_rng(int(s))
            return self

    @staticmethod
    def empty(n, dtype, device=None):
        return np.empty(n, dtype).view(T)

    @staticmethod
    def full(shape, v, dtype, device=None):
        return np.full(shape, v, dtype).view(T)

    @staticmethod
    def arange(a, b=None, dtype=None, device=None):
        return (np.arange(a, dtype=dtype) if b is None else np.arange(a, b, dtype=dtype)).view(T)

    @staticmethod
    def randint(low, high, size, generator, device=None, dtype=None):
        return generator.rng.integers(low, high, size=size, dtype=dtype).view(T)

    @staticmethod
    def from_dlpack(a):
        return np.array(a, copy=True).view(T)


class FakeFamily(Family):
    name, device = "torch", "cuda"
    torch = FakeTorch

    def put(self, a):
        return np.array(a, copy=True).view(T)

    def get(self, d):
        return np.array(d, copy=True)


@pytest.fixture
def small(monkeypatch):
    for k, v in H.sizes(LIMIT, table_cols=1024, eager_cols=64).items():
        monkeypatch.setattr(H, k, v)
    monkeypatch.setattr(H, "LIMIT", LIMIT)
    monkeypatch.setattr(H, "STREAM_CHUNK", 1 << 12)
    monkeypatch.setattr(H, "_CHUNK", 1 << 12)

    def count(a, b):
        d = np.flatnonzero(np.asarray(a).ravel() != np.asarray(b).ravel())
        return int(d.size), int(d[0]) if d.size else int(np.asarray(a).size)

    monkeypatch.setattr(H.gpu, "available", lambda: True)
    monkeypatch.setattr(H.gpu, "kernel", lambda route, variant="production": host_kernel(route, variant))
    monkeypatch.setattr(H.gpu, "count_differences", count)
    return FakeFamily()


def run(fam, route, kernel, seed=4):
    rep = harness.Report(route, seed, "production", "cuda", "torch", False, reference="cuda")
    failing = H.run_huge(rep, fam, kernel, route, seed, "production", True, cases=1)
    return rep, failing


def test_sizes_at_2_31():
    s = H.sizes(1 << 31)
    assert s == {"HUGE_TOKENS": 2**31 + 4099, "HUGE_WRITE_LOC": (1 << 20, 2**31 + 2**20 + 17),
                 "HUGE_TABLE": (2052, 1 << 20), "HUGE_TABLE_ROWS": (2047, 2051, 2049, 2048, 2050),
                 "HUGE_EAGER": (2**19 + 2, 4096)}
    assert H.HUGE_TABLE == (2052, 1 << 20) and H.HUGE_EAGER == (2**19 + 2, 4096)
    # every case stays well under 40 GiB of device memory
    assert max(H.bytes_needed(r) for r in H.HUGE_ROUTES if r not in kvaddr.cases.TOKEN_ROUTES or
               r == "mamba_translate") < 34 << 30
    assert H.bytes_needed("mamba_translate") < 28 << 30 and H.bytes_needed("eager_funnel") < 23 << 30


def test_every_route_has_a_huge_case_or_a_reason():
    assert set(H.HUGE_ROUTES) | set(H.NO_HUGE) == set(kvaddr.HARNESS_ROUTES)
    assert set(H.HUGE_ROUTES) & set(H.NO_HUGE) == set()
    assert "kv_indptr is int32" in H.NO_HUGE["kv_indices_inplace"]


@pytest.mark.parametrize("route", H.HUGE_ROUTES)
def test_correct_kernel_passes_the_huge_case(small, route):
    rep, failing = run(small, route, host_kernel(route))
    assert failing is None and rep.huge["ran"] and rep.huge["kind"] == "ok", rep.huge
    assert rep.cases == 1 and rep.lanes == rep.huge["lanes"]
    if route not in H.TABLE_LIKE:
        assert rep.lanes > LIMIT  # an output past the limit


@pytest.mark.parametrize("route", H.TABLE_LIKE)
def test_31_bit_reads_are_caught_at_the_first_row_past_the_limit(small, route):
    out = {"flashmla_block_table": "kv_indices", "decode_metadata": "page_table"}.get(route, "out")
    rep, failing = run(small, route, S.reads_31_bits(route, host_kernel(route)))
    assert failing is not None and failing[0] == "huge"
    res = failing[2]
    assert res.kind == "mismatch" and (res.first[0].output, res.first[0].index) == (out, (1, 0))
    assert res.first[0].actual == H.DECOY_ENTRY * rep.huge["scalars"]["multiplier"] != res.first[0].expected
    assert rep.huge["first_past"] == f"{out}[1, 0]" and rep.huge["kind"] == "mismatch"
    # batch row 0 reads the table row that ends at the limit: unaffected; rows 1-4 read past it
    assert H.HUGE_TABLE_ROWS[0] * H.HUGE_TABLE[1] + H.HUGE_TABLE[1] == LIMIT
    assert min(H.HUGE_TABLE_ROWS[1:]) * H.HUGE_TABLE[1] == LIMIT


@pytest.mark.parametrize("route", ["mamba_translate", "eager_funnel", "token_translate", "transfer_ids"])
def test_an_int32_grid_is_caught_at_the_first_lane_past_the_limit(small, route):
    rep, failing = run(small, route, S.stops_at_2_31(route, host_kernel(route)))
    res = failing[2]
    want = (LIMIT // 64, 0) if route == "eager_funnel" else (LIMIT,)
    assert res.kind == "mismatch" and res.first[0].index == want and res.first[0].output == "out"
    assert rep.huge["first_past"] == f"out[{', '.join(map(str, want))}]"
    if route == "mamba_translate":  # every lane past the limit keeps its sentinel
        assert res.differing == 4099 and res.first[0].actual == kvaddr.cases.sentinel(1, np.int32, LIMIT)[0]
    if route == "eager_funnel":  # the decoy page start left untranslated at the first lane past the limit
        assert res.first[0].actual == (2**20 - 1) * rep.huge["scalars"]["page_size"]
        assert res.first[0].expected == H.DECOY_ENTRY * rep.huge["scalars"]["multiplier"]


def test_a_streamed_input_writer_and_a_guard_writer(small):
    base = host_kernel("mamba_translate")

    def writes_slots(slots, v2p, out):
        base(slots=slots, v2p=v2p, out=out)
        slots[LIMIT + 5] += 1

    _, failing = run(small, "mamba_translate", writes_slots)
    assert failing[2].kind == "input_modified" and "slots" in failing[2].detail

    def past_the_end(page_table, v2p, page_size, multiplier, out):
        host_kernel("eager_funnel")(page_table=page_table, v2p=v2p, page_size=page_size, multiplier=multiplier,
                                    out=out)
        root = out
        while root.base is not None:
            root = root.base
        root.reshape(-1)[-1] = 7  # the last guard lane after the table

    _, failing = run(small, "eager_funnel", past_the_end)
    res = failing[2]
    assert res.kind == "out_of_bounds" and res.first[0].region == "guard_after" and res.first[0].index == (63,)


def test_kv_indices_inplace_says_why(small):
    with pytest.raises(ValueError, match="huge = True: kv_indices_inplace cannot reach element 2\\^31"):
        run(small, "kv_indices_inplace", host_kernel("kv_indices_inplace"))


# ---- issue 33: a failed per-id huge case is re-run under int32_lane_offsets ---------------------------------
def test_an_int32_grid_at_the_small_limit_is_not_explained_by_int32_lane_offsets(small):
    # The claim acts from lane 2^31 on, so its re-run (the host route standing in for the CUDA kernel) writes the
    # 4099 lanes past the small limit that the subject leaves unwritten: said, not guessed.
    rep, failing = run(small, "token_translate", S.stops_at_2_31("token_translate", host_kernel("token_translate")))
    assert failing[2].differing == 4099
    assert rep.huge["not_explained"] == "not explained by int32_lane_offsets: its re-run differs from the kernel in " \
                                       "4,099 lanes"
    assert "inferred" not in rep.huge


def _unwritten_from_the_limit(route):
    """The host route with its lanes from the small limit on left unwritten (write_loc: its zeroed tail too): what
    int32_lane_offsets does from lane 2^31 on, moved to the limit."""
    base = host_kernel(route)

    def k(**kw):
        kw = dict(kw, out=kw["out"][:LIMIT])
        if route == "write_loc":  # at the small limit loc (2^20 lanes) itself passes it
            kw["loc"], kw["out_width"] = kw["loc"][:LIMIT], min(kw["out_width"], LIMIT)
        else:
            kw["virt"] = kw["virt"][:LIMIT]
        return base(**kw)

    return k


@pytest.mark.parametrize("route", ["token_translate", "write_loc"])
def test_lanes_left_unwritten_from_the_limit_are_inferred(small, monkeypatch, route):
    # The flow of the explanation (refill the expectation, re-run under the claim, compare every lane): the claim's
    # kernel is the same stand-in at the small limit, so the re-run reproduces the subject lane for lane.
    claim_kernel = _unwritten_from_the_limit(route)
    monkeypatch.setattr(H.gpu, "kernel", lambda r, variant="production":
                        claim_kernel if variant == H.LANE_CLAIM else host_kernel(r, variant))
    rep, failing = run(small, route, _unwritten_from_the_limit(route))
    past = H.HUGE_TOKENS - LIMIT if route == "token_translate" else H.HUGE_WRITE_LOC[1] - LIMIT
    assert failing[2].kind == "mismatch" and failing[2].first[0].index == (LIMIT,)
    assert rep.huge["inferred"] == [f"lanes >= 2^31 not written (lane offsets formed in int32): {past} lanes "
                                    f"unwritten, from lane {LIMIT} to {LIMIT + past - 1} (claim int32_lane_offsets; "
                                    "its re-run on kvaddr's CUDA kernel reproduces every lane of the huge case)"]
    assert "not_explained" not in rep.huge


def test_routes_without_the_claim_are_not_re_run(small):
    rep, _ = run(small, "transfer_ids", S.stops_at_2_31("transfer_ids", host_kernel("transfer_ids")))
    assert "inferred" not in rep.huge and "not_explained" not in rep.huge


@pytest.mark.parametrize("key", ["inferred", "not_explained"])
def test_check_carries_the_huge_explanation_into_its_failure(monkeypatch, key):
    # kvaddr.check's failure of a huge case says what kvaddr.huge inferred, or why nothing is, instead of a bare
    # "behaves like no catalogue variant" (the huge case itself replaced by a stand-in that reports one)
    from kvaddr import report as R

    line = "lanes >= 2^31 not written (a stand-in)" if key == "inferred" else "not explained by int32_lane_offsets: x"
    case = kvaddr.cases.Case("token_translate", {"page_size": 1, "page_stride": 1},
                             {"virt": np.zeros(2, np.int64), "v2p": np.array([0, -1], np.int64)},
                             {"out": np.zeros(2, np.int64)})

    def huge_stand_in(rep, fam, kernel, route, seed, variant, huge, cases=None):
        rep.huge = {"ran": True, "kind": "mismatch", "lanes": 2, "seconds": 0.0, "shapes": {}, "scalars": {},
                    key: [line] if key == "inferred" else line}
        return ("huge", case, harness.CaseResult("mismatch", "the huge case (past 2^31 elements)", differing=1))

    monkeypatch.setitem(R._ABOVE, "huge", huge_stand_in)
    rep = kvaddr.check("token_translate", host_kernel("token_translate"), device="cpu", cases=3, seed=1)
    text = str(rep)
    if key == "inferred":
        assert rep.failure.inferred == [line] and f"  inferred: {line}" in text
        assert "behaves like no catalogue variant" not in text
    else:
        assert rep.failure.not_explained == line and f"behaves like no catalogue variant; {line}" in text
