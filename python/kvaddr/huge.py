"""The huge case of kvaddr.check on CUDA: one case per run whose arrays pass 2^31 elements, built directly on
the device with torch (no host copy could hold it cheaply), checked against kvaddr's CUDA kernel on the device.

* token_translate, swa_translate, dcp_read_translate, transfer_ids: ids and out of HUGE_TOKENS = 2^31 + 4099
  int64 elements (the lanes past element 2^31 exercise every int64 index path of the kernel);
* write_loc: loc of 2^20 elements and out of out_width = 2^31 + 2^20 + 17 lanes (the zeroed tail passes 2^31);
* canonical_page_table, full_prefill_table, read_table: a req_to_token int32 [2052, 2^20] (2^31 + 2^22
  elements) whose read rows are the last ones (every read token lies past element 2^31).

Every output allocation has the guard regions and the sentinel prefill of the ordinary cases and is compared
lane by lane (guards included), and the inputs are checked unchanged, on the device. huge= of kvaddr.check:
None (default) runs it once per run when device="cuda" with torch, the reference is kvaddr's CUDA kernels, the
route is one of HUGE_ROUTES, the run has at least HUGE_MIN_CASES cases, it is shard 0, and the device's free
memory holds the case with a margin; True runs it whenever the route has one (ValueError when it cannot run);
False never. The outcome is report.huge (lanes, seconds, memory, or why it was left out).
"""
from __future__ import annotations

import time

import numpy as np

from . import cases as C
from . import gpu

HUGE_TOKENS = (1 << 31) + 4099
HUGE_WRITE_LOC = (1 << 20, (1 << 31) + (1 << 20) + 17)
HUGE_TABLE = (2052, 1 << 20)  # req_to_token rows, columns: rows 2048..2051 start at element >= 2^31
HUGE_ROUTES = ("token_translate", "swa_translate", "dcp_read_translate", "transfer_ids", "write_loc",
               "canonical_page_table", "full_prefill_table", "read_table")
HUGE_MIN_CASES = 1000
_CHUNK = 1 << 30  # elements per on-device comparison call


def bytes_needed(route):
    """Device bytes the huge case of `route` holds at once (inputs, their pristine copies, outputs, expectation)."""
    if route in C.TOKEN_ROUTES:
        return 8 * HUGE_TOKENS * 4  # ids, pristine ids, out, expected out
    if route == "write_loc":
        return 8 * HUGE_WRITE_LOC[1] * 2 + 8 * HUGE_WRITE_LOC[0] * 2
    r, c = HUGE_TABLE
    return 4 * r * c * 2 + (1 << 26)


def _reason_out(route, fam, variant, cases, shard, reference, forced):
    if route not in HUGE_ROUTES:
        return f"{route} has no huge case (kvaddr.huge.HUGE_ROUTES)"
    if fam.name != "torch" or fam.device == "cpu":
        return "needs device='cuda' with torch"
    if reference not in ("cuda", "both") or not gpu.available():
        return f"needs kvaddr's CUDA kernels as the reference ({gpu.why_unavailable() or 'reference=' + reference})"
    if route == "mamba_translate":
        return "mamba_translate has no int64 path"
    if not forced and cases < HUGE_MIN_CASES:
        return f"a run of {cases} < {HUGE_MIN_CASES} cases"
    if not forced and shard[0] != 0:
        return "runs in shard 0 only"
    fam.torch.cuda.empty_cache()
    free, _ = fam.torch.cuda.mem_get_info()
    need = bytes_needed(route)
    if free < need + (4 << 30):
        return f"free device memory {free / 2**30:.1f} GiB < {need / 2**30:.1f} GiB + 4 GiB margin"
    return None


def _sentinel_backing(torch, n, dtype, device):
    """guard | n lanes | guard with the prefill of kvaddr.harness.guarded (built in place on the device)."""
    b = torch.empty(n + 2 * C.GUARD, dtype=torch.int64 if dtype == np.int64 else torch.int32, device=device)
    body = b[C.GUARD:C.GUARD + n]
    torch.arange(n, out=body)
    body.remainder_(65521).neg_().add_(C.SENTINEL_BASE)
    b[:C.GUARD] = torch.from_dlpack(C.sentinel(C.GUARD, dtype, 40000)).to(device)
    b[C.GUARD + n:] = torch.from_dlpack(C.sentinel(C.GUARD, dtype, 50000)).to(device)
    return b


def _differs(a, b):
    """(count, first) over two equal-size contiguous 1-D device arrays, in chunks."""
    n = a.numel()
    count, first = 0, n
    for lo in range(0, n, _CHUNK):
        c, f = gpu.count_differences(a[lo:lo + _CHUNK], b[lo:lo + _CHUNK])
        if c and first == n:
            first = lo + f
        count += c
    return count, first


def build(route, fam, seed):
    """(inputs, scalars, outputs) on the device: inputs and outputs by their manifest names; outputs are guarded
    backings (name -> (backing, shape))."""
    torch, dev = fam.torch, fam.device
    rng = C.rng_for(seed, 2**40)
    g = torch.Generator(device=dev)
    g.manual_seed(int(rng.integers(0, 2**62)))
    put = fam.put
    if route in C.TOKEN_ROUTES or route == "write_loc":
        ps = int(rng.choice([3, 7, 64, 100]))
        m = int(rng.choice([1, 3]))
        num_pages = 1 << 20
        v2p = C.draw_v2p(rng, num_pages)
        if route == "write_loc":
            dcp = 2
            n, width = HUGE_WRITE_LOC
            ids = torch.randint(0, (num_pages + 1) * ps * dcp, (n,), generator=g, device=dev, dtype=torch.int64)
            ids[::101] = 0
            scalars = {"page_size": ps, "multiplier": m, "dcp_size": dcp, "dcp_rank": 1}
            return {"loc": ids, "v2p": put(v2p)}, scalars, {"out": (_sentinel_backing(torch, width, np.int64, dev),
                                                                    (width,))}
        ids_name, v2p_name, mult_name, extra, _ = C.TOKEN_ROUTES[route]
        n = HUGE_TOKENS
        ids = torch.randint(0, (num_pages + 1) * ps, (n,), generator=g, device=dev, dtype=torch.int64)
        ids[::97] = -1
        scalars = {"page_size": ps}
        if mult_name:
            scalars[mult_name] = m
        if "dcp_size" in extra:
            scalars["dcp_size"] = 2
            ids.mul_(2).clamp_(min=-1)
        return ({ids_name: ids, v2p_name: put(v2p)}, scalars,
                {"out": (_sentinel_backing(torch, n, np.int64, dev), (n,))})
    rows, cols = HUGE_TABLE
    ps = int(rng.choice([7, 64, 100]))
    m = int(rng.choice([1, 3]))
    b = 4
    read = torch.arange(rows - b, rows, device=dev, dtype=torch.int64).flip(0)  # the last rows, past 2^31
    num_pages = 1 << 18
    v2p = C.draw_v2p(rng, num_pages)
    v2p = np.where(v2p >= 0, v2p % max(1, (2**31 - 1) // m), v2p)
    r2t = torch.zeros((rows, cols), dtype=torch.int32, device=dev)
    vp = torch.randint(0, num_pages + 1, (b, cols // ps + 1), generator=g, device=dev, dtype=torch.int32)
    tok = (vp[:, :, None] * ps + torch.arange(ps, device=dev, dtype=torch.int32)).reshape(b, -1)[:, :cols]
    r2t[rows - b:] = tok.flip(0)
    width = cols // ps  # max_pages * page_size <= the row width (canonical / full_prefill validate it)
    lens = np.array([width * ps, width * ps - ps - 3, 1, 0], dtype=np.int64)
    scalars = {"page_size": ps, "multiplier": m, "max_pages": width}
    if route == "read_table":
        scalars.update(seq_len_delta=0, zero_tail=True)
    out_shape = (b + 1, width + 1)
    inputs = {"req_to_token": r2t, "req_pool_indices": read, "seq_lens": put(lens), "v2p": put(v2p)}
    return inputs, scalars, {"out": (_sentinel_backing(torch, out_shape[0] * out_shape[1], np.int32, dev), out_shape)}


def spot_check(route, fam, inputs, scalars, outs, expected, variant):
    """The device expectation against kvaddr's host route on the part of the huge case a host copy holds cheaply:
    the lanes from 2^31 - 8 to the end (token routes), the last 4099 lanes of the zeroed tail (write_loc), the
    whole table from the rows read (table routes). ReferenceDisagreement when they differ."""
    from .conventions import reference
    from .device_ref import assert_agree

    get = fam.get
    exp_body = {k: expected[k][C.GUARD:C.GUARD + int(np.prod(s))] for k, (_, s) in outs.items()}
    if route in C.TOKEN_ROUTES:
        ids_name, v2p_name = C.TOKEN_ROUTES[route][:2]
        lo = (1 << 31) - 8
        ids = get(inputs[ids_name][lo:])
        small = C.Case(route, dict(scalars), {ids_name: ids, v2p_name: get(inputs[v2p_name])},
                       {"out": C.sentinel(ids.size, np.int64, lo)})
        host = reference(small, variant)
        dev = {"out": get(exp_body["out"][lo:])}
    elif route == "write_loc":
        n, width = HUGE_WRITE_LOC
        host = {"out": np.zeros(4099, np.int64)}
        dev = {"out": get(exp_body["out"][width - 4099:])}
    else:
        rows, _ = HUGE_TABLE
        read = get(inputs["req_pool_indices"])
        first = int(read.min())
        ins = {"req_to_token": get(inputs["req_to_token"][first:]), "req_pool_indices": read - first,
               "seq_lens": get(inputs["seq_lens"]), "v2p": get(inputs["v2p"])}
        shape = outs["out"][1]
        small = C.Case(route, dict(scalars), ins, {"out": C.sentinel(shape[0] * shape[1], np.int32).reshape(shape)})
        host = reference(small, variant)
        dev = {"out": get(exp_body["out"]).reshape(shape)}

    class _Dev:
        def host(self):
            return dev

    assert_agree(C.Case(route, {}, {}, {"out": host["out"]}), variant, host, _Dev())


def _case_for_kwargs(route, inputs, scalars, outs):
    """A Case whose arrays are shape-only placeholders (for conventions.kernel_kwargs and the report)."""
    ph = {k: np.broadcast_to(np.zeros((), np.int64), tuple(v.shape)) for k, v in inputs.items()}
    op = {k: np.broadcast_to(np.zeros((), np.int64), shape) for k, (_, shape) in outs.items()}
    widths = {"out": outs["out"][1][1] - 1} if route in C.TABLE_ROUTES else {}
    return C.Case(route, dict(scalars), ph, op, widths)


def run_huge(rep, fam, kernel, route, seed, variant, huge, cases=None):
    """Run the huge case when `huge` asks for it (see the module doc); records report.huge and returns a
    failure tuple for kvaddr.check's report, or None."""
    if huge is False or (huge is None and fam.device == "cpu"):
        return None
    cases = rep.cases + rep.rejected if cases is None else cases
    why = _reason_out(route, fam, variant, cases, rep.shard, rep.reference, huge is True)
    if why is not None:
        if huge is True:
            raise ValueError(f"huge = True: {why}")
        rep.huge = {"ran": False, "why": why}
        return None
    from .harness import CaseResult, Lane

    torch = fam.torch
    t0 = time.perf_counter()
    inputs, scalars, outs = build(route, fam, rep.seed)
    case = _case_for_kwargs(route, inputs, scalars, outs)
    expected = {k: b.clone() for k, (b, _) in outs.items()}
    pristine = {k: v.clone() for k, v in inputs.items()}
    exp_views = {k: expected[k][C.GUARD:C.GUARD + int(np.prod(s))].reshape(s) for k, (_, s) in outs.items()}
    from .conventions import kernel_kwargs

    gpu.kernel(route, variant)(**kernel_kwargs(case, dict(inputs), exp_views))
    spot_check(route, fam, inputs, scalars, outs, expected, variant)
    views = {}
    for k, (b, s) in outs.items():
        v = b[C.GUARD:C.GUARD + int(np.prod(s))].reshape(s)
        views[k] = v[:, :case.widths[k]] if k in case.widths else v
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    result = None
    try:
        ret = kernel(**kernel_kwargs(case, inputs, views))
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - the kernel's failure is the report
        result = CaseResult("raised", f"{type(e).__name__}: {e}")
        ret = None
    t2 = time.perf_counter()
    if result is None and ret is not None and not all(r is views.get("out") for r in (ret if isinstance(ret, tuple)
                                                                                     else (ret,))):
        result = CaseResult("bad_return", "the huge case takes in-place outputs only (returned a fresh array)")
    if result is None:
        for k, (b, s) in outs.items():
            count, first = _differs(expected[k], b)
            if count:
                n = int(np.prod(s))
                lanes = []
                if first < C.GUARD or first >= C.GUARD + n:
                    region, idx = ("guard_before", (first - C.GUARD,)) if first < C.GUARD else (
                        "guard_after", (first - C.GUARD - n,))
                else:
                    idx = tuple(int(i) for i in np.unravel_index(first - C.GUARD, s))
                    region = "past_width" if k in case.widths and idx[1] >= case.widths[k] else "out"
                lanes.append(Lane(k, idx, region, int(expected[k][first].item()), int(b[first].item())))
                kind = "mismatch" if region == "out" else "out_of_bounds"
                result = CaseResult(kind, "the huge case (past 2^31 elements)", differing=count, first=lanes)
                break
    if result is None:
        for k, v in inputs.items():
            if _differs(pristine[k].reshape(-1), v.reshape(-1))[0]:
                result = CaseResult("input_modified", f"the kernel wrote into its input {k} (huge case)")
                break
    lanes = sum(int(b.numel()) for b, _ in outs.values())
    rep.huge = {"ran": True, "lanes": lanes, "seconds": round(time.perf_counter() - t0, 3),
                "kernel_seconds": round(t2 - t1, 3), "bytes": bytes_needed(route),
                "shapes": {k: list(v.shape) for k, v in inputs.items()} | {k: list(s) for k, (_, s) in outs.items()},
                "scalars": dict(scalars), "kind": "ok" if result is None else result.kind}
    rep.kernel_seconds += t2 - t1
    del expected, pristine, inputs, outs
    torch.cuda.empty_cache()
    if result is None:
        rep.lanes += lanes
        rep.cases += 1
        return None
    rep.cases += 1
    rep.huge["first"] = [str(x) for x in result.first] or [result.detail]
    return ("huge", case, result)


def describe(h):
    """The report line of report.huge."""
    if not h.get("ran"):
        return ""
    shapes = ", ".join(f"{k} {v}" for k, v in h["shapes"].items())
    line = (f"  huge case (> 2^31 elements): {h['kind']}, {h['lanes']:,} lanes in {h['seconds']:.2f} s "
            f"({shapes}; {', '.join(f'{k}={v}' for k, v in h['scalars'].items())})")
    if h.get("first"):
        line += "; first: " + "; ".join(h["first"])
    return line
