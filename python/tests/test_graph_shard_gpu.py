"""Graph mode on a GPU, sharded and with its capture case chosen by the rule (issue 30 item 3, issue 35 item 4):
4 shards merged by `kvaddr merge` equal the unsharded run (fast and slow loops, a passing kernel, a table baked at
capture time, a planted variant), a capture case that fails is named with its replay directory, and a kernel
without the padding guard is captured past the draws that break that precondition. The host side (partition,
capture rule, the fast loop's bookkeeping) is test_graph_shard.py. Skips without torch, a CUDA device or
kvaddr._gpu; the merge tests also without the kvaddr CLI."""
import pathlib

import pytest

torch = pytest.importorskip("torch")
import kvaddr  # noqa: E402
import kvaddr.gpu as G  # noqa: E402
from kvaddr import graph  # noqa: E402

from test_graph_shard import _first_seed_breaking  # noqa: E402
from test_shard_merge import COUNTS, merge  # noqa: E402

if not torch.cuda.is_available() or not G.available():
    pytest.skip(f"no usable CUDA device for kvaddr.gpu: {G.why_unavailable() or 'torch sees no CUDA device'}",
                allow_module_level=True)

from test_gpu_kernels import _BakedV2p  # noqa: E402  (a table baked at capture: passes case 0, fails a replay)


def _shards(route, kernel, n=4, **kw):
    return [kvaddr.check(route, kernel, device="cuda", shard=(i, n), **kw) for i in range(n)]


@pytest.mark.parametrize("loop, cases", [(True, 600), ("slow", 24)])
def test_graph_shards_merge_into_the_unsharded_run(tmp_path, loop, cases):
    kw = dict(graph=loop, cases=cases, seed=3, lanes=64)
    whole = kvaddr.check("read_table", G.kernel("read_table"), device="cuda", **kw)
    parts = _shards("read_table", G.kernel("read_table"), **kw)
    want = "fast" if loop is True else "slow"
    assert whole.ok and whole.cases + whole.rejected == cases and whole.graph_loop == want, str(whole)
    assert all(p.ok and p.graph_loop == want for p in parts), [str(p) for p in parts]
    # drawn cases per shard (the slow loop counts a redrawn case its contract rejects in `rejected`)
    assert [p.cases + p.rejected for p in parts] == [len(range(i, cases, 4)) for i in range(4)]
    assert len({p.graph_capture for p in parts + [whole]}) == 1  # every shard captured the same case
    code, merged = merge(tmp_path, [p.to_json() for p in parts])
    doc = whole.to_json()
    assert code == 0 and merged["ok"] is True and {k: merged[k] for k in COUNTS} == {k: doc[k] for k in COUNTS}


def test_a_baked_table_found_by_one_shard_merges_into_the_unsharded_failure(tmp_path):
    kw = dict(graph=True, cases=300, seed=3, replay_dir=tmp_path / "replays")
    whole = kvaddr.check("token_translate", _BakedV2p(), device="cuda", **kw)
    k = whole.failure.case_index
    assert not whole.ok and whole.graph_loop == "fast" and k > 0, str(whole)
    parts = _shards("token_translate", _BakedV2p(), **kw)
    owner = parts[k % 4]
    assert owner.failure.case_index == k and owner.failure.first == whole.failure.first, str(owner)
    assert owner.failure.replay_dir == whole.failure.replay_dir
    assert all(p.failure is None or p.failure.case_index > k for p in parts if p is not owner)
    code, merged = merge(tmp_path, [p.to_json() for p in parts])
    assert code == 1 and merged["first_mismatch"] == whole.to_json()["first_mismatch"]


def test_a_planted_variant_failing_the_capture_case_merges_into_the_unsharded_failure(tmp_path):
    # B17 (the doc formula omits v2p) differs on the capture case itself: every shard reports case 0, only shard 0
    # counts it
    kernel = G.kernel("token_translate", "b17_doc_formula")
    kw = dict(graph=True, cases=40, seed=3, replay_dir=tmp_path / "replays")
    whole = kvaddr.check("token_translate", kernel, device="cuda", **kw)
    parts = _shards("token_translate", kernel, **kw)
    first = whole.to_json()["first_mismatch"]
    assert first["case_index"] == 0 and whole.cases == 1 and "b17_doc_formula" in first["behaves_like"], str(whole)
    assert [p.cases for p in parts] == [1, 0, 0, 0] and all(p.failure.case_index == 0 for p in parts)
    code, merged = merge(tmp_path, [p.to_json() for p in parts])
    assert code == 1 and merged["first_mismatch"] == first and merged["cases_run"] == 1


def test_the_capture_case_itself_failing_is_named_with_its_replay_dir(tmp_path):
    base = G.kernel("token_translate")

    def off_by_one(**kw):
        base(**kw)
        kw["out"].add_(1)

    rep = kvaddr.check("token_translate", off_by_one, device="cuda", graph=True, cases=20, seed=2,
                       replay_dir=tmp_path)
    f = rep.failure
    assert not rep.ok and f.case_index == 0 and rep.cases == 1 and rep.graph_loop == "", str(rep)
    assert f.detail.startswith("the capture case itself failed: mismatch") and f.first, str(rep)
    assert f.replay_dir and (pathlib.Path(f.replay_dir) / "manifest.json").is_file()
    assert "the capture case itself failed: mismatch" in str(rep)
    other = kvaddr.check("token_translate", off_by_one, device="cuda", graph=True, cases=20, seed=2,
                         replay_dir=tmp_path, shard=(2, 4))
    # a shard that does not own case 0 still reports it (it cannot replay without it) but does not count it
    assert other.cases == 0 and other.failure.case_index == 0 and other.failure.detail == f.detail


def test_a_kernel_without_the_padding_guard_is_captured_past_the_draws_it_would_fail():
    # issue 35: on the canonical table kernel the capture case broke the padding precondition and failed the
    # warm-up, so no replay ran; now the capture case breaks none and the fast loop runs
    seed = _first_seed_breaking("canonical_page_table")
    rep = kvaddr.check("canonical_page_table", G.kernel("canonical_page_table", "b09_no_padding_guard"),
                       device="cuda", graph=True, cases=300, seed=seed, lanes=1 << 12)
    assert rep.graph_loop == "fast" and "passed over" in rep.graph_capture, str(rep)
    # the capture case passed (a later replay may still read a padding page start before v2p: page size 1)
    assert rep.failure is None or rep.failure.case_index > 0, str(rep)
    assert rep.graph_capture == graph.capture_choice("canonical_page_table", seed, 1 << 12, None).note()
