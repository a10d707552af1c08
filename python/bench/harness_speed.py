"""Checked lanes per second of kvaddr.check's own work (generation + reference + comparison), the kernel
excluded, per route: on the CPU path (numpy arrays, host routes as the reference), or with --device cuda on the
GPU (torch arrays, kvaddr's CUDA kernels as the kernel under test and as the reference, the comparison on the
device); --graph (with --device cuda) measures graph mode's harness overhead per small case in microseconds
(--graph-loop fast / slow / auto picks graph mode's loop; the loop that ran is printed).

    PYTHONPATH=build/python/package python3 python/bench/harness_speed.py [--lanes 1048576] [--seconds 5]
        [--routes token_translate,read_table] [--seed 1] [--json] [--device cuda [--graph] [--reference host]]
        [--profile DIR] [--timers]

--timers (eager mode, --device cuda or cpu) times the functions of TIMERS by wall-clock wrappers (no profiler, real figures).
--profile DIR (eager mode, --device cuda or cpu) runs each route once more under cProfile and prints where the harness's time goes per
case, by stage (STAGES: the function whose cumulative time is the stage), writing DIR/<route>.pstats.

The kernel under test is kvaddr.conventions.host_kernel (kvaddr.gpu.kernel on the GPU): it runs the host route on contiguous copies of its arguments
and writes the result into the presented views; its time is the report's kernel_seconds and is excluded.
Cases past an int32 precondition are skipped (overflow="skip"). Prints one row per route: cases, checked
lanes, harness seconds, lanes/s.

Harness time is report.seconds - report.kernel_seconds over the whole call (case 0's warm-up, the captures and
every batch sync included). In eager mode kernel_seconds is the host time spent inside the kernel's calls: the
batched eager loop waits for nothing before a call (the case's staging copy and the earlier cases' device work stay
queued on the stream) and kvaddr.gpu.kernel's launch on the current stream does not synchronise, so no harness work
is in it; the kernel's device work overlaps the harness's next case. Eager mode on the device adds: "all-in us" and
"all-in c/s" (report.seconds per case, cases per report.second: harness and kernel), "kernel us" (kernel_seconds
per case: what the host spent in the kernel's calls, harness = all-in - this) and "kernel GPU us"
(report.kernel_device_seconds per case: the kernel's device time, CUDA events around each batched call on
torch's current stream, read at the batch's wait; overlapped with the harness, so not subtracted from anything).
In graph mode's fast loop, kernel_seconds is the GPU time of the user's graph replays alone (CUDA events around
each replay, read at the batch syncs): the host's cost of launching that replay, and the pre / post graphs around
it, count as harness time. With --graph the "all-in us/case"
column counts the user's replay as harness time too (report.seconds / cases).
"""
from __future__ import annotations

import argparse
import json
import time


import kvaddr
import kvaddr.gpu

def measure(route, lanes, seconds, seed, device="cpu", graph=False, reference="auto", graph_loop="auto"):
    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    if device == "cpu":
        kernel = kvaddr.conventions.host_kernel(route, variant)
    else:
        kernel = kvaddr.gpu.kernel(route, variant)
    t0 = time.perf_counter()
    extra = {"graph": True if graph_loop == "auto" else graph_loop} if graph else {"overflow": "skip", "huge": False}
    extra["isolate"] = False  # the harness's own work, in process (isolation's copies: docs/harness.md)
    rep = kvaddr.check(route, kernel, cases=10**9, seed=seed, lanes=lanes, time_budget=seconds, variant=variant,
                       device=device, reference=reference, **extra)
    wall = time.perf_counter() - t0
    if not rep.ok:
        raise SystemExit(f"{route}: the oracle failed (a harness bug):\n{rep}")
    harness_s = rep.seconds - rep.kernel_seconds
    return {"route": route, "cases": rep.cases, "lanes": rep.lanes, "harness_seconds": round(harness_s, 3),
            "kernel_seconds": round(rep.kernel_seconds, 3), "wall_seconds": round(wall, 3),
            "lanes_per_second": rep.lanes / harness_s if harness_s > 0 else float("inf"),
            "us_per_case": 1e6 * harness_s / max(rep.cases, 1),
            "us_per_case_all": 1e6 * rep.seconds / max(rep.cases, 1), "reference": rep.reference, "graph": bool(graph),
            "graph_loop": rep.graph_loop, "cases_per_second_all": rep.cases / rep.seconds if rep.seconds > 0 else 0.0,
            "kernel_call_us": 1e6 * rep.kernel_seconds / max(rep.cases, 1),
            "kernel_device_us": 1e6 * getattr(rep, "kernel_device_seconds", 0.0) / max(rep.cases, 1)}


# eager mode's stages: (stage, module file suffix, function name); cumulative time under cProfile
STAGES = (("draw recipe", "kvaddr/cases.py", "draw_recipe"),
          ("build case", "kvaddr/harness.py", "_build"),
          ("host reference", "kvaddr/conventions.py", "reference"),
          ("present (device copies)", "kvaddr/present.py", "__init__"),
          ("device reference", "kvaddr/device_ref.py", "__init__"),
          ("user call", "bench/harness_speed.py", "user_kernel"),
          ("per-case wait (fam.sync)", "kvaddr/arrays.py", "sync"),
          ("per-case device compare + wait", "kvaddr/device_ref.py", "compare"),
          ("batched: device count", "kvaddr/device_ref.py", "add"),
          ("batched: batch wait + settle", "kvaddr/harness.py", "flush"))


def profile(route, lanes, seconds, seed, out_dir, device="cuda"):
    """Eager mode's time per case by stage (cProfile cumulative seconds / cases; the profiler's own overhead
    inflates the Python-heavy stages), the user's kernel wrapped as user_kernel so that its calls stand apart
    from the device reference's launches of the same kvaddr.gpu kernel."""
    import cProfile
    import os
    import pstats

    variant = "era_b_unclamped" if route == "flashmla_block_table" else "production"
    inner = kvaddr.gpu.kernel(route, variant) if device != "cpu" else kvaddr.conventions.host_kernel(route, variant)

    def user_kernel(**kw):
        return inner(**kw)

    prof = cProfile.Profile()
    prof.enable()
    rep = kvaddr.check(route, user_kernel, cases=10**9, seed=seed, lanes=lanes, time_budget=seconds, variant=variant,
                       device=device, overflow="skip", huge=False, isolate=False)
    prof.disable()
    os.makedirs(out_dir, exist_ok=True)
    prof.dump_stats(os.path.join(out_dir, f"{route}.pstats"))
    st = pstats.Stats(prof).stats
    rows = []
    for stage, path, fn in STAGES:
        cum = sum(v[3] for (f, _, name), v in st.items() if name == fn and f.endswith(path))
        rows.append((stage, 1e6 * cum / max(rep.cases, 1)))
    return rep.cases, rows


# --timers: functions timed by a wrapper (inclusive wall time, no profiler: the figures are real, each call costing
# the wrapper's own fraction of a microsecond); "module:attribute path"
TIMERS = (("draw recipe", "kvaddr.cases:draw_recipe"),
          ("build case", "kvaddr.harness:_build"),
          ("host reference", "kvaddr.harness:reference"),
          ("present", "kvaddr.present:Presented.__init__"),
          ("  stage (pinned writes + copy)", "kvaddr.present:stage"),
          ("  guarded backings", "kvaddr.present:guarded"),
          ("  adjacent backings", "kvaddr.adjacent:host_backing"),
          ("  output views", "kvaddr.present:Presented._out_view"),
          ("device expected", "kvaddr.device_ref:DeviceExpected.__init__"),
          ("device pairs", "kvaddr.device_ref:DeviceExpected.batch_pairs"),
          ("device count", "kvaddr.device_ref:Counts.add"),
          ("kernel call (its own time included)", "kvaddr.harness:_call"),
          ("batch wait + settle", "kvaddr.harness:_EagerBatch.flush"),
          ("batched case, all of it", "kvaddr.harness:_EagerBatch.add"))


def timers(route, lanes, seconds, seed, device="cuda"):
    """Eager mode's time per case in the TIMERS functions, each wrapped by a wall-clock accumulator for one run:
    (cases, harness us/case, [(label, us/case)])."""
    import importlib

    acc, undo = {}, []

    def wrap(label, fn):
        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                acc[label] += time.perf_counter() - t
        return timed

    for label, target in TIMERS:
        mod, path = target.split(":")
        owner = importlib.import_module(mod)
        *outer, attr = path.split(".")
        for name in outer:
            owner = getattr(owner, name)
        fn = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        acc[label] = 0.0
        setattr(owner, attr, wrap(label, fn))
        undo.append((owner, attr, fn))
    try:
        r = measure(route, lanes, seconds, seed, device)
    finally:
        for owner, attr, fn in reversed(undo):
            setattr(owner, attr, fn)
    n = max(r["cases"], 1)
    return r["cases"], r["us_per_case"], [(label, 1e6 * acc[label] / n) for label, _ in TIMERS]


def graph_columns(r):
    """The --graph columns of row r: all-in microseconds per case and the loop that ran."""
    return f" {r['us_per_case_all']:>14.1f}  {r['graph_loop']}"


def eager_columns(r):
    """The eager columns of row r (--device cuda): all-in us/case and cases/s, then the kernel's own time per case,
    host (inside its calls) and device (CUDA events around the batched calls)."""
    return (f" {r['us_per_case_all']:>10.1f} {r['cases_per_second_all']:>11.0f} {r['kernel_call_us']:>10.1f} "
            f"{r['kernel_device_us']:>10.1f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lanes", type=int, default=1 << 20, help="kvaddr.check lanes (upper bound of a case's size)")
    p.add_argument("--seconds", type=float, default=5.0, help="time budget per route")
    p.add_argument("--routes", default=",".join(kvaddr.HARNESS_ROUTES))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--graph", action="store_true", help="graph mode (needs --device cuda): per-case overhead")
    p.add_argument("--reference", default="auto", choices=("auto", "host", "cuda", "both"))
    p.add_argument("--graph-loop", default="auto", choices=("auto", "fast", "slow"),
                   help="graph mode's loop (kvaddr.check graph=True / 'fast' / 'slow')")
    p.add_argument("--profile", metavar="DIR", help="eager mode's time per case by stage (cProfile), stats in DIR")
    p.add_argument("--timers", action="store_true", help="eager mode: us/case in TIMERS' functions "
                   "(wall-clock wrappers, no profiler)")
    a = p.parse_args(argv)
    if a.graph and a.device != "cuda":
        p.error("--graph needs --device cuda")
    if a.profile:
        for r in a.routes.split(","):
            cases, rows = profile(r, a.lanes, a.seconds, a.seed, a.profile, a.device)
            print(f"{r}: {cases} cases under cProfile, us/case by stage (cumulative)")
            for stage, us in rows:
                print(f"  {stage:26} {us:9.1f}")
        return 0
    if a.timers:
        for r in a.routes.split(","):
            cases, us, rows = timers(r, a.lanes, a.seconds, a.seed, a.device)
            print(f"{r}: {cases} cases, harness {us:.1f} us/case (timed); us/case inclusive")
            for label, t in rows:
                print(f"  {label:38} {t:9.1f}")
        return 0
    rows = [measure(r, a.lanes, a.seconds, a.seed, a.device, a.graph, a.reference, a.graph_loop)
            for r in a.routes.split(",") if r]
    if a.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"lanes = {a.lanes}, {a.seconds} s per route, seed {a.seed}, device {a.device}"
          f"{' (graph)' if a.graph else ''} (harness time: kernel excluded)")
    eager = a.device == "cuda" and not a.graph
    print(f"{'route':22} {'reference':>9} {'cases':>7} {'checked lanes':>14} {'harness s':>10} {'lanes/s':>10} "
          f"{'us/case':>9}{' all-in us/case  loop' if a.graph else ''}"
          f"{' all-in us  all-in c/s  kernel us  kernel GPU us' if eager else ''}")
    for r in rows:
        print(f"{r['route']:22} {r['reference']:>9} {r['cases']:>7} {r['lanes']:>14,} {r['harness_seconds']:>10.2f} "
              f"{r['lanes_per_second']:>10.2e} {r['us_per_case']:>9.1f}{graph_columns(r) if a.graph else ''}"
              f"{eager_columns(r) if eager else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
