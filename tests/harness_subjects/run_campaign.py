"""The GPU campaign of docs/harness.md: every production Triton subject checked on >= 10^7 lanes per route,
every planted bug caught, shrunk and named, graph mode against the capture bug, kvaddr's own CUDA kernels
(kvaddr.gpu) checked for every route (reference="both" on a slice), and the huge cases (> 2^31 elements):
kvaddr's kernels must pass them; the Triton subjects' outcomes are recorded. The reference is kvaddr's CUDA
kernels on the device (kvaddr.gpu). Usage:

    PYTHONPATH=build/python/package:tests/harness_subjects python3 tests/harness_subjects/run_campaign.py OUTDIR [LANES]
"""
import json
import sys
import time

import torch  # noqa: F401  (either import order works; see python/CMakeLists.txt)
import kvaddr
import kvaddr.gpu
import triton_kernels as T

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/kvaddr-campaign"
target = float(sys.argv[2]) if len(sys.argv) > 2 else 1e7
summary = {"device": torch.cuda.get_device_name(), "production": {}, "planted": {}, "graph": {}, "kvaddr_gpu": {},
           "huge": {}}
ok = True
for route, kernel in T.PRODUCTION.items():
    variant = T.CLAIMS.get(route, "production")
    total, secs, kern, seed, cases = 0, 0.0, 0.0, 0, 0
    while total < target and seed < 50:
        rep = kvaddr.check(route, kernel, device="cuda", variant=variant, seed=seed, cases=100000, lanes=1 << 21,
                           time_budget=30.0, lanes_budget=target - total, replay_dir=f"{out}/replays", huge=False)
        print(rep, flush=True)
        total, secs, kern = total + rep.lanes, secs + rep.seconds, kern + rep.kernel_seconds
        cases, seed = cases + rep.cases, seed + 1
        if not rep.ok:
            ok = False
            break
    summary["production"][route] = {"lanes": total, "cases": cases, "seconds": round(secs, 2),
                                    "kernel_seconds": round(kern, 2),
                                    "harness_lanes_per_s": round(total / max(secs - kern, 1e-9)), "ok": rep.ok,
                                    "reference": rep.reference}
    print(route, summary["production"][route], flush=True)

for name, (route, kernel, claim, want) in T.PLANTED.items():
    t0 = time.perf_counter()
    rep = kvaddr.check(route, kernel, device="cuda", variant=claim, seed=1, cases=2000, lanes=4096,
                       replay_dir=f"{out}/replays", name=name)
    print(rep, flush=True)
    f = rep.failure
    named = bool(f) and T.planted_named(f, want)
    ok = ok and named
    summary["planted"][name] = {"caught": not rep.ok, "named": named, "want": want,
                                "seconds": round(time.perf_counter() - t0, 2),
                                "kind": f.kind if f else None, "case": f.case_index if f else None,
                                "minimal": kvaddr.harness.describe(f.case) if f else None,
                                "first": [str(x) for x in f.first[:2]] if f else None,
                                "behaves_like": f.behaves_like if f else None, "replay": f.replay_dir if f else None}

for label, route, kernel, expect_fail in [("decode_metadata baked columns", "decode_metadata",
                                           T.DecodeMetadataBakedColumns(), True),
                                          ("decode_metadata production", "decode_metadata", T.decode_metadata, False),
                                          ("translate_v2p production", "token_translate", T.translate_v2p, False)]:
    for array in ("torch",):
        t0 = time.perf_counter()
        rep = kvaddr.check(route, kernel, device="cuda", graph=True, seed=3, cases=300, lanes=1 << 14,
                           replay_dir=f"{out}/replays")
        print(rep, flush=True)
        good = (not rep.ok) == expect_fail
        ok = ok and good
        summary["graph"][label] = {"failed": not rep.ok, "as_expected": good, "cases": rep.cases, "lanes": rep.lanes,
                                   "seconds": round(time.perf_counter() - t0, 2),
                                   "first": [str(x) for x in rep.failure.first[:2]] if rep.failure else None,
                                   "case": rep.failure.case_index if rep.failure else None}

# kvaddr's own CUDA kernels as the subject, every route (the reference is the same kernels: this checks the
# harness's device path end to end), then reference="both" (device and host references lane for lane).
for route in kvaddr.HARNESS_ROUTES:
    k = kvaddr.gpu.kernel(route)
    t0 = time.perf_counter()
    rep = kvaddr.check(route, k, device="cuda", seed=2, cases=100000, lanes=1 << 16, lanes_budget=target / 4,
                       time_budget=20.0, huge=False)
    both = kvaddr.check(route, k, device="cuda", seed=3, cases=60, lanes=1 << 12, reference="both")
    print(rep, flush=True)
    good = rep.ok and both.ok and rep.reference == "cuda"
    ok = ok and good
    summary["kvaddr_gpu"][route] = {"ok": good, "cases": rep.cases, "lanes": rep.lanes,
                                    "seconds": round(time.perf_counter() - t0, 2),
                                    "harness_lanes_per_s": round(rep.lanes_per_second), "both_cases": both.cases}

# Planted variants of kvaddr's own kernels: caught and named on the device reference.
for route, planted in (("read_table", "b10_no_max_pages_bound"), ("token_translate", "b17_doc_formula"),
                       ("canonical_page_table", "e10_batch_index_rows"), ("write_loc", "b06_stale_tail"),
                       ("decode_metadata", "e10_batch_index_rows")):
    rep = kvaddr.check(route, kvaddr.gpu.kernel(route, planted), device="cuda", seed=1, cases=2000, lanes=4096)
    f = rep.failure
    named = bool(f) and planted in f.behaves_like
    ok = ok and named
    summary["kvaddr_gpu"][f"{route} planted {planted}"] = {
        "caught": not rep.ok, "named": named, "case": f.case_index if f else None,
        "minimal": kvaddr.harness.describe(f.case) if f else None,
        "first": [str(x) for x in f.first[:2]] if f else None}

# The huge cases (> 2^31 elements, built on the device): kvaddr's kernels must pass; the Triton subjects are
# recorded (an int32 index path fails there).
for route in ("token_translate", "write_loc", "canonical_page_table", "read_table"):
    for label, kernel in (("kvaddr.gpu", kvaddr.gpu.kernel(route)), ("triton", T.PRODUCTION.get(route))):
        if kernel is None:
            continue
        try:
            rep = kvaddr.check(route, kernel, device="cuda", seed=5, cases=1, huge=True, shrink=False)
            res = {"ok": rep.ok, **rep.huge, "report": str(rep).splitlines()[:6]}
        except Exception as e:  # noqa: BLE001 - recorded (e.g. out of memory)
            res = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(label, route, res, flush=True)
        if label == "kvaddr.gpu":
            ok = ok and res["ok"]
        summary["huge"][f"{label} {route}"] = res
        torch.cuda.empty_cache()

# Harness speed on one token case of N = 2^24 ids (kernel time excluded).
for n_log in (20, 24):
    for ref in ("cuda", "host"):
        rep = kvaddr.check("token_translate", T.translate_v2p, device="cuda", seed=7, cases=3, lanes=1 << n_log,
                           params={"page_size": 16, "multiplier": 1}, reference=ref)
        summary[f"speed_token_translate_2^{n_log}_{ref}"] = {"lanes": rep.lanes, "seconds": round(rep.seconds, 3),
                                                             "kernel_seconds": round(rep.kernel_seconds, 4),
                                                             "harness_lanes_per_s": round(rep.lanes_per_second)}
print(json.dumps(summary, indent=1))
with open(f"{out}/summary.json", "w") as fh:
    json.dump(summary, fh, indent=1)
print("CAMPAIGN", "OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
