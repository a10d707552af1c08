"""graph=True: capture the kernel once in a CUDA graph over pointer-stable buffers, then replay it per case.

Case 0, the capture case (capture_choice: the first draw at least 4 columns wide that the claimed variant admits
and that breaks no production precondition), fixes the shapes and scalars, with its lengths halved (graphs are
captured on short batches); it runs eagerly once (the warm-up every capture needs), then the call is captured
with torch.cuda.graph over the same buffers. Every later case redraws the *values*
(v2p, ids / locs, req_to_token, row ids, lengths) at the same shapes, copies them into the captured
buffers, replays the graph and compares every lane. A kernel or wrapper that bakes capture-time values
(a grid sized from the capture batch, a table copied at capture time, a buffer rebound outside the
graph) fails here while it passes eagerly.

Two loops run the later cases: the fast loop (kvaddr.graph_fast: values drawn, referenced and compared on the
device in captured graphs around the user's, one host wait per batch) wherever it applies, and the slow loop
below (redraw from the case's stream, build, host reference, copy in) for graph="slow" and the host / both references.
"""
from __future__ import annotations

import dataclasses
import time

from . import _core
from . import cases as C
from . import check_args
from . import graph_fast
from . import harness
from .conventions import broken_preconditions, reference
from .harness import CaseResult, run_case, run_recipe
from .present import Presented


def redraw(route, r, rng):
    """A recipe with the shapes and scalars of `r` and freshly drawn values from `rng` (cases.rng_for): the
    C++ harness's graph-mode case of the same seed and index (gen::redraw_recipe)."""
    c = dict(r)
    c.update(_core.redraw_recipe(route, r, rng))
    return c


CAPTURE_DRAWS = 64  # capture candidates tried: the draw of case 0, then of 10^6 + 1, 10^6 + 2, ...


def _candidate(route, seed, j, lanes, params):
    """Capture candidate j: the eager draw of case 0 (j = 0), else of case index 10^6 + j."""
    # no overflow cases: a captured call is replayed on new values at the same shapes, all inside the contract
    params = {"long_rows": False, "big_entries": False, **(params or {})}
    return C.draw_recipe(route, C.rng_for(seed, 0 if j == 0 else 10**6 + j), lanes, params)


def _captured_form(raw, params):
    """Candidate `raw` as graph mode captures it: no aliasing, no partial overlap, separate allocations unless
    params adjacent="always" (an adjacent layout runs in the slow loop only), lengths halved (captured on a short
    batch, replayed on longer ones, as engines capture)."""
    r = dict(raw)
    r["alias"] = False
    r["overlap"] = 0  # no partially overlapping layout (validation rejects it)
    if (params or {}).get("adjacent") != "always":
        r["adjacent"] = None
    if "lens" in r:
        r["lens"] = r["lens"] // 2
    return r


@dataclasses.dataclass
class CaptureChoice:
    """The capture case: candidate `draw` (kvaddr.graph._candidate), its raw and captured recipes, why each earlier
    candidate was passed over ((draw, reason) pairs), and the production preconditions the captured case breaks
    ([] unless no candidate keeps them all)."""

    draw: int
    raw: dict
    recipe: dict
    skipped: list
    broken: list

    def note(self):
        """One line for Report.graph_capture."""
        key = "case 0" if self.draw == 0 else f"case index 10^6 + {self.draw}"
        line = f"captured on the draw of {key}"
        if self.skipped:
            line += f" ({len(self.skipped)} earlier draw(s) passed over, the first: {self.skipped[0][1]})"
        if self.broken:
            line += f"; it breaks the precondition at {self.broken[0]} (no draw of {CAPTURE_DRAWS} keeps them all)"
        return line


def capture_choice(route, seed, lanes, params, variant="production"):
    """The capture case of graph mode, a pure function of the campaign: the first candidate (j = 0, 1, ...) whose
    table is at least 4 columns wide (later cases can be longer), whose captured form the claimed variant's
    contract admits (a case the eager harness would count as rejected is never captured) and that breaks no
    production precondition (kvaddr.broken_preconditions: a kernel without the guard the claim says it has may
    misbehave there, and a failing warm-up would stop the campaign before any replay). Past CAPTURE_DRAWS
    candidates the first admitted one is taken with its broken preconditions named; none admitted is
    kvaddr.InvalidArgument naming the seed."""
    skipped, fallback, first_rejection = [], None, ""
    for j in range(CAPTURE_DRAWS):
        raw = _candidate(route, seed, j, lanes, params)
        if raw.get("width", 4) < 4:
            skipped.append((j, f"a table {raw['width']} column(s) wide (< 4)"))
            continue
        recipe = _captured_form(raw, params)
        try:
            case = C.build(route, recipe)
        except ValueError as e:  # e.g. a forced adjacent layout that the halved lengths misalign
            skipped.append((j, f"its captured form cannot be laid out ({e})"))
            continue
        try:
            reference(case, variant, table_guards=True)
        except _core.Error as e:
            first_rejection = first_rejection or f"{type(e).__name__}: {e}"
            skipped.append((j, f"rejected by the contract of {variant} ({type(e).__name__}: {e})"))
            continue
        broken = broken_preconditions(case)
        if broken:
            skipped.append((j, f"breaks the precondition at {broken[0]}"))
            fallback = fallback or CaptureChoice(j, raw, recipe, list(skipped[:-1]), broken)
            continue
        return CaptureChoice(j, raw, recipe, skipped, [])
    if fallback is not None:
        return fallback
    why = first_rejection or "all narrower than 4 columns"
    raise check_args.invalid("seed", repr(seed), f"graph mode: none of {CAPTURE_DRAWS} capture candidates of {route} "
                             f"is inside the contract of {variant} ({why}); pick another seed or params")


def _capture_recipe(route, seed, lanes, params, variant="production"):
    """The raw (drawn, not yet halved) recipe of the capture case (capture_choice)."""
    return capture_choice(route, seed, lanes, params, variant).raw


def captured_recipe(route, seed, lanes, params, variant="production"):
    """The recipe graph mode captures on (capture_choice): without aliasing and with its lengths halved."""
    return capture_choice(route, seed, lanes, params, variant).recipe


def owns_capture(shard, cases):
    """Whether shard (i, n) counts the capture case: it is case 0 of the campaign, in shard 0's slice; every other
    shard runs it as its warm-up without counting it (the shards together count it once)."""
    return 0 in harness.shard_indices(shard, cases)


def count_capture(rep, recipe0, res, own):
    """Count the warm-up's result `res` in `rep` when this shard owns case 0 (`own`); a failing one is returned as
    case 0's failure tuple, named as the capture case's own failure (every shard reports it: none can replay
    without it), else None."""
    if own:
        rep.cases += 1
        rep.kernel_seconds += res.kernel_seconds
    if res.kind != "ok":
        what = res.kind + (f" ({res.detail})" if res.detail else "")
        res.detail = f"the capture case itself failed: {what}; no graph was captured and no later case ran"
        return 0, recipe0, res
    if own:
        rep.lanes += res.lanes
    return None


def run_graph_cases(rep, fam, kernel, route, cases, seed, variant, params, lanes, time_budget, case_timeout, t0,
                    loop="auto", shard=(0, 1)):
    """Graph mode's campaign: the warm-up and the capture of the capture case (case 0, capture_choice), then the
    shard's later case indices (harness.shard_indices from 1) in the fast loop (kvaddr.graph_fast, no per-case host
    work) where it applies and `loop` allows it, else the slow loop (each case redrawn, built and referenced on the
    host, loaded into the captured buffers). rep.graph_loop says which one ran; rep.graph_capture which draw was
    captured. Case 0 is counted by the shard that owns it (owns_capture) and reported by every shard when it fails."""
    if fam.name != "torch" or fam.device == "cpu":
        raise check_args.invalid("graph", "True", check_args.GRAPH_NEEDS)
    torch = fam.torch
    choice = capture_choice(route, seed, lanes, params, variant)
    rep.graph_capture = choice.note()
    recipe0 = choice.recipe
    case0 = C.build(route, recipe0)
    expected0 = reference(case0, variant, table_guards=True)  # admitted: capture_choice checked it
    p = Presented(fam, case0)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # the warm-up call, as before any capture
        res = run_case(fam, kernel, case0, expected0, case_timeout=case_timeout, presented=p,
                       variant=variant)
    torch.cuda.current_stream().wait_stream(side)
    failed = count_capture(rep, recipe0, res, owns_capture(shard, cases))
    if failed is not None:
        return failed
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):
            kernel(**p.kwargs())
    except Exception as e:  # noqa: BLE001 - a kernel that cannot be captured is a finding
        return 0, recipe0, CaseResult("raised", f"capture failed: {type(e).__name__}: {e}")
    later = harness.shard_indices(shard, cases, start=1)
    fast, why = None, ""
    if loop != "slow":
        fast, why = _fast_loop(rep, fam, route, recipe0, case0, p, variant, seed, shard[1])
    if fast is not None:
        rep.graph_loop = "fast"

        def on_failure(k):  # differing lanes in case k: rebuild it on the host and run it as the slow loop does
            recipe = fast.recipe(k)
            failed = run_recipe(rep, fam, None, k, recipe, variant, case_timeout, None, presented=p, launch=g.replay)
            if failed is None:
                rep.graph_unconfirmed += 1
            return failed

        try:
            return fast.run(rep, g, later, time_budget, t0, on_failure, case_timeout)
        except Exception as e:  # noqa: BLE001 - a replay the CUDA runtime refuses is the kernel's finding
            return 0, recipe0, CaseResult("raised", f"a graph replay failed after {rep.cases} checked cases: "
                                                    f"{type(e).__name__}: {e}")
    if loop == "fast":
        raise check_args.invalid("graph", "'fast'", f"the fast graph loop cannot run this call ({why})")
    rep.graph_loop, rep.graph_note = "slow", why
    for i in later:
        if time_budget is not None and time.perf_counter() - t0 > time_budget:
            break
        recipe = redraw(route, recipe0, C.rng_for(seed, i))
        # overflow=None: graph mode does not run overflow cases, it counts them as rejected
        failed = run_recipe(rep, fam, None, i, recipe, variant, case_timeout, None, presented=p, launch=g.replay)
        if failed is not None:
            return failed
    return None


def _fast_loop(rep, fam, route, recipe0, case0, p, variant, seed, step=1):
    """(a captured kvaddr.graph_fast.FastLoop stepping `step` case indices per replay, "") or (None, why the slow
    loop runs instead)."""
    if rep.reference != "cuda":
        return None, f"reference {rep.reference!r} (the fast loop's reference is kvaddr's CUDA kernel)"
    try:
        fast = graph_fast.FastLoop(fam, route, recipe0, case0, p, variant, seed, step)
        fast.capture()
    except graph_fast.Unsupported as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - kvaddr's own graphs failed to capture: the slow loop runs, the note says why
        return None, f"the fast loop's graphs could not be captured ({type(e).__name__}: {e})"
    return fast, ""


harness.register(graph=run_graph_cases)  # kvaddr.check(graph=...) runs here
