"""graph=True: capture the kernel once in a CUDA graph over pointer-stable buffers, then replay it per case.

Case 0 (the first draw whose table is >= 4 columns wide) fixes the shapes and scalars, with its lengths
halved (graphs are captured on short batches); it runs eagerly once (the warm-up every capture needs), then the
call is captured with torch.cuda.graph over the same buffers. Every later case redraws the *values*
(v2p, ids / locs, req_to_token, row ids, lengths) at the same shapes, copies them into the captured
buffers, replays the graph and compares every lane. A kernel or wrapper that bakes capture-time values
(a grid sized from the capture batch, a table copied at capture time, a buffer rebound outside the
graph) fails here while it passes eagerly.

Two loops run the later cases: the fast loop (kvaddr.graph_fast: values drawn, referenced and compared on the
device in captured graphs around the user's, one host wait per batch) wherever it applies, and the slow loop
below (redraw from the case's stream, build, host reference, copy in) for graph="slow" and the host / both references.
"""
from __future__ import annotations

import time

import numpy as np  # noqa: F401 - the run loop's (graph.py is also edited on another branch)

from . import _core
from . import cases as C
from . import graph_fast
from . import harness
from .conventions import reference
from .harness import CaseResult, run_case, run_recipe
from .present import Presented


def redraw(route, r, rng):
    """A recipe with the shapes and scalars of `r` and freshly drawn values from `rng` (cases.rng_for): the
    C++ harness's graph-mode case of the same seed and index (gen::redraw_recipe)."""
    c = dict(r)
    c.update(_core.redraw_recipe(route, r, rng))
    return c


def _capture_recipe(route, seed, lanes, params):
    """The recipe of the captured shapes: the first draw (case 0, then 10^6 + 1, ...) whose table is at
    least 4 columns wide, so that later cases can be longer than the captured one."""
    # no overflow cases: a captured call is replayed on new values at the same shapes, all inside the contract
    params = {"long_rows": False, "big_entries": False, **(params or {})}
    for j in range(64):
        r = C.draw_recipe(route, C.rng_for(seed, 0 if j == 0 else 10**6 + j), lanes, params)
        if r.get("width", 4) >= 4:
            return r
    return r


GRAPH_LOOPS = ("auto", "fast", "slow")


def captured_recipe(route, seed, lanes, params):
    """The recipe graph mode captures on: _capture_recipe without aliasing and with its lengths halved."""
    recipe0 = _capture_recipe(route, seed, lanes, params)
    recipe0["alias"] = False
    recipe0["overlap"] = 0  # no partially overlapping layout (validation rejects it)
    if (params or {}).get("adjacent") != "always":
        # separate allocations unless asked: an adjacent layout (kvaddr.adjacent) runs in the slow loop only
        recipe0["adjacent"] = None
    if "lens" in recipe0:  # captured on a short batch, replayed on longer ones (as engines capture)
        recipe0["lens"] = recipe0["lens"] // 2
    return recipe0


def run_graph_cases(rep, fam, kernel, route, cases, seed, variant, params, lanes, time_budget, case_timeout, t0,
                    loop="auto"):
    """Graph mode's campaign after the warm-up and the capture of case 0: the fast loop (kvaddr.graph_fast, no
    per-case host work) where it applies and `loop` allows it, else the slow loop (each case redrawn, built and
    referenced on the host, loaded into the captured buffers). rep.graph_loop says which one ran."""
    if fam.name != "torch" or fam.device == "cpu":
        raise ValueError("graph=True needs device='cuda' with torch tensors (torch.cuda.graph)")
    torch = fam.torch
    recipe0 = captured_recipe(route, seed, lanes, params)
    case0 = C.build(route, recipe0)
    try:
        expected0 = reference(case0, variant)
    except _core.Error as e:
        raise ValueError(f"graph mode: case 0 of seed {seed} is outside the contract ({e}); pick another seed")
    p = Presented(fam, case0)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # the warm-up call, as before any capture
        res = run_case(fam, kernel, case0, expected0, case_timeout=case_timeout, presented=p)
    torch.cuda.current_stream().wait_stream(side)
    rep.cases += 1
    if res.kind != "ok":
        return 0, recipe0, res
    rep.lanes += res.lanes
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):
            kernel(**p.kwargs())
    except Exception as e:  # noqa: BLE001 - a kernel that cannot be captured is a finding
        return 0, recipe0, CaseResult("raised", f"capture failed: {type(e).__name__}: {e}")
    fast, why = _fast_loop(rep, fam, route, recipe0, case0, p, variant, seed) if loop != "slow" else (None, "")
    if fast is not None:
        rep.graph_loop = "fast"

        def on_failure(k):  # differing lanes in case k: rebuild it on the host and run it as the slow loop does
            recipe = fast.recipe(k)
            failed = run_recipe(rep, fam, None, k, recipe, variant, case_timeout, None, presented=p, launch=g.replay)
            if failed is None:
                rep.graph_unconfirmed += 1
            return failed

        try:
            return fast.run(rep, g, 1, cases, time_budget, t0, on_failure, case_timeout)
        except Exception as e:  # noqa: BLE001 - a replay the CUDA runtime refuses is the kernel's finding
            return 0, recipe0, CaseResult("raised", f"a graph replay failed after {rep.cases} checked cases: "
                                                    f"{type(e).__name__}: {e}")
    if loop == "fast":
        raise ValueError(f"graph = 'fast': the fast graph loop cannot run this call ({why})")
    rep.graph_loop, rep.graph_note = "slow", why
    for i in range(1, int(cases)):
        if time_budget is not None and time.perf_counter() - t0 > time_budget:
            break
        recipe = redraw(route, recipe0, C.rng_for(seed, i))
        # overflow=None: graph mode does not run overflow cases, it counts them as rejected
        failed = run_recipe(rep, fam, None, i, recipe, variant, case_timeout, None, presented=p, launch=g.replay)
        if failed is not None:
            return failed
    return None


def _fast_loop(rep, fam, route, recipe0, case0, p, variant, seed):
    """(a captured kvaddr.graph_fast.FastLoop, "") or (None, why the slow loop runs instead)."""
    if rep.reference != "cuda":
        return None, f"reference {rep.reference!r} (the fast loop's reference is kvaddr's CUDA kernel)"
    try:
        fast = graph_fast.FastLoop(fam, route, recipe0, case0, p, variant, seed)
        fast.capture()
    except graph_fast.Unsupported as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - kvaddr's own graphs failed to capture: the slow loop runs, the note says why
        return None, f"the fast loop's graphs could not be captured ({type(e).__name__}: {e})"
    return fast, ""


harness.register(graph=run_graph_cases)  # kvaddr.check(graph=...) runs here
