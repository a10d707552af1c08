"""Graph mode on the host: the shard partition it shares with eager mode (harness.shard_indices), the capture case
(graph.capture_choice: the first draw that breaks no precondition of the claimed variant) and who counts it
(graph.owns_capture), the fast loop's per-batch bookkeeping under a shard (graph_fast.FastLoop.run over a model
of its three device graphs), and the shards' JSON reports merging into the unsharded one (issue 30 item 3, issue
35 item 4). The device runs are in test_graph_shard_gpu.py."""
import json

import numpy as np
import pytest

import kvaddr
from kvaddr import _core, graph, harness
from kvaddr import cases as C
from kvaddr import graph_fast as F
from kvaddr.arrays import family
from kvaddr.conventions import PRECONDITION_ROUTES, broken_preconditions, reference
from kvaddr.report import Report

import np_kernels as K
from test_shard_merge import COUNTS, merge


# ---- the partition -----------------------------------------------------------------------------
def test_shard_indices_exact_values():
    assert list(harness.shard_indices((0, 1), 5)) == [0, 1, 2, 3, 4]
    assert list(harness.shard_indices((2, 4), 11)) == [2, 6, 10]
    assert list(harness.shard_indices((0, 4), 11, start=1)) == [4, 8]  # case 0 is the capture case
    assert list(harness.shard_indices((1, 4), 11, start=1)) == [1, 5, 9]
    assert list(harness.shard_indices((3, 4), 3)) == []
    assert list(harness.shard_indices((0, 1), 1, start=1)) == []
    assert harness.shard_indices((1, 3), 10, start=1).step == 3


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("cases", [1, 2, 5, 8, 13, 600])
def test_graph_shards_count_every_case_index_exactly_once(n, cases):
    counted = []
    for i in range(n):
        own = graph.owns_capture((i, n), cases)
        later = list(harness.shard_indices((i, n), cases, start=1))
        assert own == (i == 0)
        assert all(k % n == i for k in later)
        mine = ([0] if own else []) + later
        # a graph shard counts the case indices an eager shard of the same campaign runs
        assert mine == list(harness.shard_indices((i, n), cases))
        counted += mine
    assert sorted(counted) == list(range(cases))


def test_graph_mode_is_sharded_now():
    # refused before with "graph mode captures on case 0 in every run and is not sharded"; now only the device is
    with pytest.raises(kvaddr.InvalidArgument, match="graph = True: needs device='cuda'"):
        kvaddr.check("token_translate", lambda **kw: None, graph=True, cases=8, shard=(1, 4))
    with pytest.raises(kvaddr.InvalidArgument, match=r"shard = \(4, 4\)"):
        kvaddr.check("token_translate", lambda **kw: None, graph=True, cases=8, shard=(4, 4))


def test_the_command_line_passes_a_graph_shard_through(capsys):
    from kvaddr.__main__ import main

    assert main(["check", "--route", "token_translate", "np_kernels:translate_v2p", "--graph", "--shard", "1/4"]) == 2
    assert capsys.readouterr().err == ("python3 -m kvaddr check: graph = True: needs device='cuda' with torch tensors "
                                       "(torch.cuda.graph)\n")


# ---- the capture case --------------------------------------------------------------------------
def _variant(route):
    return "era_b_unclamped" if route == "flashmla_block_table" else "production"


def _same(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k]
                                        for k in a)


def _why_not(route, raw, variant):
    """Why candidate `raw` cannot be captured ("" when it can), stated from the rule."""
    if raw.get("width", 4) < 4:
        return "narrow"
    case = C.build(route, graph._captured_form(raw, None))
    try:
        reference(case, variant, table_guards=True)
    except _core.Error:
        return "rejected"
    return "precondition" if broken_preconditions(case) else ""


@pytest.mark.parametrize("route", C.ROUTES)
def test_the_capture_case_is_the_first_draw_that_breaks_no_precondition(route):
    variant = _variant(route)
    moved = 0
    for seed in range(20):
        choice = graph.capture_choice(route, seed, 1 << 12, None, variant)
        case = C.build(route, choice.recipe)
        reference(case, variant, table_guards=True)  # admitted by the claimed variant's contract
        assert choice.broken == [] and broken_preconditions(case) == []
        assert _same(choice.recipe, graph.captured_recipe(route, seed, 1 << 12, None, variant))  # deterministic
        assert _same(graph._capture_recipe(route, seed, 1 << 12, None, variant), choice.raw)
        # every earlier draw is passed over for a reason the rule names, and the chosen one has none
        earlier = [_why_not(route, graph._candidate(route, seed, j, 1 << 12, None), variant)
                   for j in range(choice.draw)]
        assert all(earlier) and [j for j, _ in choice.skipped] == list(range(choice.draw))
        assert _why_not(route, choice.raw, variant) == ""
        moved += "precondition" in earlier
    if route in PRECONDITION_ROUTES:
        # the old rule (the first draw at least 4 columns wide) captured a case breaking a precondition here
        assert moved > 0


def _first_seed_breaking(route):
    """The first seed whose draw 0 breaks a production precondition once in its captured form."""
    for seed in range(60):
        raw = graph._candidate(route, seed, 0, 1 << 12, None)
        if raw.get("width", 4) >= 4 and broken_preconditions(C.build(route, graph._captured_form(raw, None))):
            return seed
    raise AssertionError(f"no seed of 60 draws a {route} case 0 breaking a precondition")


def test_the_canonical_table_captures_past_a_broken_padding_guard():
    seed = _first_seed_breaking("canonical_page_table")
    choice = graph.capture_choice("canonical_page_table", seed, 1 << 12, None)
    first = C.build("canonical_page_table", graph._captured_form(graph._candidate(
        "canonical_page_table", seed, 0, 1 << 12, None), None))
    assert choice.draw > 0 and not broken_preconditions(C.build("canonical_page_table", choice.recipe))
    assert choice.skipped[0] == (0, f"breaks the precondition at {broken_preconditions(first)[0]}")
    assert choice.note() == (f"captured on the draw of case index 10^6 + {choice.draw} ({choice.draw} earlier "
                             f"draw(s) passed over, the first: {choice.skipped[0][1]})")
    assert graph.capture_choice("token_translate", 3, 1 << 12, None).note() == "captured on the draw of case 0"


def test_the_report_says_which_draw_was_captured():
    rep = Report("read_table", 1, "production", "cuda", "torch", True, cases=3, lanes=30)
    rep.graph_capture = "captured on the draw of case index 10^6 + 2 (2 earlier draw(s) passed over, the first: x)"
    assert str(rep).splitlines()[1] == ("  graph mode captured on the draw of case index 10^6 + 2 (2 earlier draw(s) "
                                        "passed over, the first: x)")
    assert rep.to_dict()["graph_capture"] == rep.graph_capture
    assert len(str(Report("read_table", 1, "production", "cpu", "numpy", False, cases=3)).splitlines()) == 1


def test_without_a_clean_draw_the_first_admitted_one_is_captured_and_named(monkeypatch):
    seed = _first_seed_breaking("canonical_page_table")
    monkeypatch.setattr(graph, "CAPTURE_DRAWS", 1)
    choice = graph.capture_choice("canonical_page_table", seed, 1 << 12, None)
    assert choice.draw == 0 and choice.broken and choice.skipped == []
    assert choice.note() == ("captured on the draw of case 0; it breaks the precondition at "
                             f"{choice.broken[0]} (no draw of 1 keeps them all)")


def test_without_an_admitted_draw_the_seed_is_named(monkeypatch):
    def rejects(case, variant, **kw):
        raise kvaddr.InvalidArgument("seq_lens = 5: planted rejection")

    monkeypatch.setattr(graph, "reference", rejects)
    with pytest.raises(kvaddr.InvalidArgument, match=r"seed = 7: graph mode: none of 64 capture candidates of "
                                                     r"read_table is inside the contract of production") as e:
        graph.capture_choice("read_table", 7, 1 << 12, None)
    assert e.value.argument == "seed" and "planted rejection" in str(e.value)


# ---- the capture case's warm-up: counted once, a failure named in every shard ------------------------
def _warm_up(kernel, shard, replay_dir, cases=40, seed=3):
    """Graph mode's warm-up of the capture case, run on the host (numpy) as run_graph_cases runs it on the device,
    counted (graph.count_capture) and explained by the harness as check() does for graph mode."""
    route = "token_translate"
    rep = Report(route, seed, "production", "cpu", "numpy", True, shard=shard)
    rep.campaign = {"route": route, "cases": cases, "graph": True}
    choice = graph.capture_choice(route, seed, 4096, None)
    case0 = C.build(route, choice.recipe)
    fam = family("cpu", None)
    res = harness.run_case(fam, kernel, case0, reference(case0, "production", table_guards=True))
    failed = graph.count_capture(rep, choice.recipe, res, graph.owns_capture(shard, cases))
    if failed is not None:
        rep.failure = harness._explain(fam, kernel, route, "production", *failed, True, 30.0, replay_dir, None, None,
                                       seed, True)
    return rep


def test_the_capture_case_is_counted_by_shard_0_only():
    whole = _warm_up(K.translate_v2p, (0, 1), None)
    assert whole.failure is None and whole.cases == 1 and whole.lanes > 0
    parts = [_warm_up(K.translate_v2p, (i, 4), None) for i in range(4)]
    assert [(p.cases, p.lanes) for p in parts] == [(1, whole.lanes), (0, 0), (0, 0), (0, 0)]


def test_a_failing_capture_case_is_named_with_its_replay_dir_in_every_shard(tmp_path):
    whole = _warm_up(K.translate_v2p_doc_formula, (0, 1), tmp_path)
    f = whole.failure
    assert f.case_index == 0 and whole.cases == 1 and whole.lanes == 0
    assert f.detail == "the capture case itself failed: mismatch; no graph was captured and no later case ran"
    assert "b17_doc_formula" in f.behaves_like and f.first and f.shrink_steps == 0  # graph failures are not shrunk
    assert f.replay_dir == str(tmp_path / "token_translate-seed3-case0")
    assert json.loads((tmp_path / "token_translate-seed3-case0" / "harness.json").read_text())["graph"] is True
    assert str(whole).splitlines()[0].endswith("FAILED at case 0: mismatch (the capture case itself failed: "
                                               "mismatch; no graph was captured and no later case ran)")
    parts = [_warm_up(K.translate_v2p_doc_formula, (i, 4), tmp_path) for i in range(4)]
    assert [p.cases for p in parts] == [1, 0, 0, 0] and all(p.failure.detail == f.detail for p in parts)
    code, merged = merge(tmp_path, [p.to_json() for p in parts])
    doc = whole.to_json()
    assert code == 1 and merged["first_mismatch"] == doc["first_mismatch"]
    assert merged["cases_run"] == doc["cases_run"] == 1


# ---- the fast loop's bookkeeping over a model of its device graphs --------------------------------
class _Vec:
    """A device int64 vector as FastLoop.run uses it."""

    def __init__(self, n):
        self.v = [0] * n

    def fill_(self, x):
        self.v = [int(x)] * len(self.v)

    def zero_(self):
        self.fill_(0)

    def tolist(self):
        return list(self.v)


class _Device:
    """The three graphs of one fast-loop case as the CUDA side runs them (graph_fast's docstring): pre draws case
    *counter; the user's replay differs on the planted case indices; post adds to counts[*slot % B], bumps the
    slot and, under a shard, adds the step to the counter."""

    def __init__(self, loop, planted):
        self.loop, self.planted, self.drawn = loop, planted, []
        dev = self

        class G:
            def __init__(self, body):
                self.replay = body

        loop.pre = G(lambda: dev.drawn.append(loop.counter.v[0]))
        loop.post = G(self._post)
        self.user = G(lambda: None)

    def _post(self):
        lp = self.loop
        lp.counts.v[lp.slot.v[0] % F.BATCH] += self.drawn[-1] in self.planted
        lp.slot.v[0] += 1
        if lp.slot is not lp.counter:
            lp.counter.v[0] += lp.step


class _Torch:
    class cuda:
        class Event:
            def __init__(self, enable_timing):
                pass

            def record(self, stream=None):  # torch's signature: the stream to record on (current by default)
                pass

            def elapsed_time(self, other):
                return 2.0  # ms

        @staticmethod
        def current_stream():
            class S:
                def synchronize(self):
                    pass
            return S()

        @staticmethod
        def synchronize():
            pass


def _loop(step, planted):
    loop = object.__new__(F.FastLoop)  # the loop without a device: its host side, run() and its fields
    loop.torch, loop.step, loop.lanes = _Torch, step, 10
    loop.counter = _Vec(1)
    loop.slot = loop.counter if step == 1 else _Vec(1)
    loop.counts = _Vec(F.BATCH)
    loop.batch = object.__new__(F.Counts)  # the batch's counts (graph_fast.Counts) over the same vector
    loop.batch.torch, loop.batch.counts = _Torch, loop.counts
    return loop, _Device(loop, planted)


def _run(shard, cases, planted):
    """One graph shard with the capture case passing: (its report, the case indices the device drew, the cases
    handed to on_failure)."""
    rep = Report("token_translate", 1, "production", "cuda", "torch", True, shard=shard)
    rep.campaign = {"route": "token_translate", "cases": cases, "graph": True}
    if graph.owns_capture(shard, cases):
        rep.cases, rep.lanes = 1, 10
    loop, dev = _loop(shard[1], planted)
    handed = []

    def on_failure(k):
        handed.append(k)
        rep.cases += 1
        return (k, None, None) if k in planted else None

    failed = loop.run(rep, dev.user, harness.shard_indices(shard, cases, start=1), None, 0.0, on_failure)
    return rep, dev.drawn, handed, failed


@pytest.mark.parametrize("n", [1, 3, 4, F.BATCH, F.BATCH + 44])
def test_a_shard_draws_its_own_case_indices_and_names_the_failing_one(n):
    cases = 3 * F.BATCH * n + 5
    planted = {1 + 2 * F.BATCH * n, 2 + 2 * F.BATCH * n}  # in shards 1 and 2 (n > 2), in a later batch
    for i in range(min(n, 4)):
        rep, drawn, handed, failed = _run((i, n), cases, planted)
        mine = sorted(k for k in planted if k % n == i)
        want = list(harness.shard_indices((i, n), cases, start=1))
        if mine:
            assert failed == (mine[0], None, None) and handed == [mine[0]]
            # the batches up to the failing one ran on the device, the cases before it counted
            assert drawn == want[:len(drawn)] and mine[0] in drawn
            assert rep.cases == (i == 0) + want.index(mine[0]) + 1
        else:
            assert failed is None and handed == [] and drawn == want
            assert rep.cases == (i == 0) + len(want) and rep.lanes == 10 * rep.cases
            assert rep.kernel_seconds == pytest.approx(0.002 * len(want))


def test_run_refuses_indices_of_another_step():
    loop, dev = _loop(4, set())
    with pytest.raises(ValueError, match="steps 4 case indices per replay"):
        loop.run(None, dev.user, range(1, 10, 3), None, 0.0, None)
    assert _loop(4, set())[0].run(None, dev.user, range(4, 4, 4), None, 0.0, None) is None


def test_the_shards_reports_merge_into_the_unsharded_one(tmp_path):
    cases = 700
    whole = _run((0, 1), cases, set())[0].to_json()
    parts = [_run((i, 4), cases, set())[0].to_json() for i in (3, 1, 0, 2)]
    assert [p["cases_run"] for p in parts] == [175, 175, 175, 175] and whole["cases_run"] == cases
    code, merged = merge(tmp_path, parts)
    assert code == 0 and merged["ok"] is True
    assert {k: merged[k] for k in COUNTS} == {k: whole[k] for k in COUNTS}


def test_a_failing_shard_merges_into_the_unsharded_first_failure(tmp_path):
    def doc(shard):
        rep, _, _, failed = _run(shard, 900, {334, 402})
        if failed is not None:
            rep.failure = harness.Failure("mismatch", failed[0], "", [], 1, C.build("token_translate", graph
                                          .captured_recipe("token_translate", 1, 64, None)), {}, {}, 0, [], None, "")
        return rep.to_json()

    whole = doc((0, 1))
    code, merged = merge(tmp_path, [doc((i, 3)) for i in range(3)])
    assert code == 1 and whole["first_mismatch"]["case_index"] == 334
    assert merged["first_mismatch"] == whole["first_mismatch"]
    assert [m["case_index"] for m in merged["mismatches"]] == [334, 402]  # shard 1's failure, then shard 0's
