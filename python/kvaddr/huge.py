"""The huge case of kvaddr.check on CUDA: one case per run whose arrays pass 2^31 elements, built directly on
the device with torch (no host copy could hold it cheaply), checked against kvaddr's CUDA kernel on the device.

* token_translate, swa_translate, dcp_read_translate, transfer_ids: ids and out of HUGE_TOKENS = 2^31 + 4099
  int64 elements (the lanes past element 2^31 exercise every int64 index path of the kernel);
* write_loc: loc of 2^20 elements and out of out_width = 2^31 + 2^20 + 17 lanes (the zeroed tail passes 2^31);
* canonical_page_table, full_prefill_table, read_table, flashmla_block_table, decode_metadata: a req_to_token
  int32 [2052, 2^20] (2^31 + 2^22 elements) read by five batch rows: row 0 reads table row 2047 (its elements
  end at 2^31 - 1), rows 1-4 the last four table rows (every token they read lies past element 2^31), so
  the first output lane whose read passes 2^31 is [1, 0]. The rows no batch row reads hold the page-start
  tokens of a decoy page whose v2p entry no read page has: a kernel that reads element e past 2^31 at
  e - 2^31 (a 31-bit offset) stores the decoy's entry there;
* mamba_translate: slots int64 and out int32 of HUGE_TOKENS elements (slots from a formula of the index,
  so that they are regenerated for the checks instead of copied);
* eager_funnel: an int64 page_table of HUGE_EAGER = [2^19 + 2, 4096] (2^31 + 8192 elements) funnelled in
  place (out == page_table, the layout the contract admits; 16 GiB, where a separate out would double it),
  tokens regenerated per chunk for the checks; the first lane past 2^31 is [2^19, 0].

mamba_translate and eager_funnel are streamed: the expectation is kvaddr's CUDA kernel run per chunk of
STREAM_CHUNK elements on regenerated inputs and compared chunk by chunk, so the device holds the case's
arrays only (24 GiB and 16 GiB). The others hold a device copy of the expected outputs and of the inputs.

kv_indices_inplace has no huge case: kv_indptr is int32, so every lane the route reads or writes,
kv_indices[kv_indptr[b] + i] < kv_indptr[batch_size] <= 2^31 - 1, lies below element 2^31 (a longer
kv_indices only adds stale lanes the route must not touch), and its kernel ids fit int32 by contract.

Every output allocation has the guard regions and the sentinel prefill of the ordinary cases and is compared
lane by lane (guards included), and the inputs are checked unchanged, on the device. report.huge["first_past"]
is the first output lane whose element offset (or whose read of req_to_token) passes 2^31. huge= of
kvaddr.check: None (default) runs it once per run when device="cuda" with torch, the reference is kvaddr's CUDA
kernels, the route is one of HUGE_ROUTES, the run has at least HUGE_MIN_CASES cases, it is shard 0, and the
device's free memory holds the case with a margin; True runs it whenever the route has one (ValueError when it
cannot run); False never. The outcome is report.huge (lanes, seconds, memory, or why it was left out).
"""
from __future__ import annotations

import time

import numpy as np

from . import _core
from . import cases as C
from . import check_args
from . import gpu
from . import harness
from .conventions import kernel_kwargs, reference
from .device_ref import assert_agree
from .harness import CaseResult, Lane

LIMIT = 1 << 31  # the element offset the huge cases pass (sizes(limit) derives every shape from it)


def sizes(limit, table_cols=1 << 20, eager_cols=1 << 12):
    """The shapes of the huge cases past element `limit` (kvaddr uses 2^31; the CPU test of this module's flow
    a small limit): token length, write_loc (N, out_width), req_to_token shape, the table rows read, eager
    page_table shape."""
    r0 = limit // table_cols
    return {"HUGE_TOKENS": limit + 4099, "HUGE_WRITE_LOC": (1 << 20, limit + (1 << 20) + 17),
            "HUGE_TABLE": (r0 + 4, table_cols), "HUGE_TABLE_ROWS": (r0 - 1, r0 + 3, r0 + 1, r0, r0 + 2),
            "HUGE_EAGER": (limit // eager_cols + 2, eager_cols)}


_S = sizes(LIMIT)
HUGE_TOKENS = _S["HUGE_TOKENS"]
HUGE_WRITE_LOC = _S["HUGE_WRITE_LOC"]
HUGE_TABLE = _S["HUGE_TABLE"]  # req_to_token [2052, 2^20]: rows 2048..2051 start at element >= 2^31
HUGE_TABLE_ROWS = _S["HUGE_TABLE_ROWS"]  # (2047, 2051, 2049, 2048, 2050): the rows read (row 0 below 2^31)
HUGE_EAGER = _S["HUGE_EAGER"]  # [2^19 + 2, 2^12]
TABLE_LIKE = ("canonical_page_table", "full_prefill_table", "read_table", "flashmla_block_table", "decode_metadata")
STREAMED = ("mamba_translate", "eager_funnel")
# The per-id routes with an int64 output share one huge case (ids and out of HUGE_TOKENS, from their row in
# kvaddr.cases.TOKEN_ROUTES), so a per-id route added to the list has one with no edit here.
PER_ID_HUGE = tuple(r for r, row in C.TOKEN_ROUTES.items() if row[4] == np.int64 and r not in STREAMED)
HUGE_ROUTES = PER_ID_HUGE + ("write_loc",) + TABLE_LIKE + STREAMED
# Routes without a huge case, and why (report.huge["why"], docs/harness.md).
NO_HUGE = {"kv_indices_inplace": "kv_indices_inplace cannot reach element 2^31: kv_indptr is int32, so every lane it "
                                 "reads or writes lies below kv_indptr[batch_size] <= 2^31 - 1"}
HUGE_MIN_CASES = 1000
_CHUNK = 1 << 30  # elements per on-device comparison call
STREAM_CHUNK = 1 << 28  # elements per chunk of a streamed case
DECOY_ENTRY = (1 << 29) + 12345  # the v2p entry of the decoy page (live pages have entries below 2^20)
_SLOT_MUL = 2654435761  # slots[i] = (i * _SLOT_MUL + seed part) % (num_pages + 1)


def bytes_needed(route):
    """Device bytes the huge case of `route` holds at once (inputs, their pristine copies, outputs, expectation)."""
    if route == "mamba_translate":
        return 12 * HUGE_TOKENS + 12 * STREAM_CHUNK  # slots, out; one chunk of regenerated slots and expectation
    if route == "eager_funnel":
        return 8 * HUGE_EAGER[0] * HUGE_EAGER[1] + 24 * STREAM_CHUNK  # the table in place; a chunk's temporaries
    if route in C.TOKEN_ROUTES:
        return 8 * HUGE_TOKENS * 4  # ids, pristine ids, out, expected out
    if route == "write_loc":
        return 8 * HUGE_WRITE_LOC[1] * 2 + 8 * HUGE_WRITE_LOC[0] * 2
    r, c = HUGE_TABLE
    return 4 * r * c * 2 + (1 << 26)


def _reason_out(route, fam, variant, cases, shard, reference, forced):
    if route in NO_HUGE:
        return NO_HUGE[route]
    if route not in HUGE_ROUTES:
        return f"{route} has no huge case (kvaddr.huge.HUGE_ROUTES)"
    why = check_args.huge_device_reason(fam, reference)
    if why is not None:
        return why
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
    return _prefill(torch, b, n, dtype, device)


def _prefill(torch, b, n, dtype, device):
    """(Re)writes the prefill of a guarded backing b = guard | n lanes | guard, in place; returns b."""
    body = b[C.GUARD:C.GUARD + n]
    for lo in range(0, n, STREAM_CHUNK):  # int64 lane numbers per chunk (an int32 arange stops at 2^31)
        hi = min(n, lo + STREAM_CHUNK)
        body[lo:hi] = torch.arange(lo, hi, dtype=torch.int64, device=device).remainder_(65521).neg_().add_(
            C.SENTINEL_BASE)
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
        v2p = rng.v2p(num_pages)
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
    return _build_table(route, fam, rng, g)


def _decoy_v2p(rng, num_pages, m):
    """v2p for the table cases: int32-fitting entries, the last live page the decoy (DECOY_ENTRY)."""
    v2p = rng.v2p(num_pages)
    v2p = np.where(v2p >= 0, v2p % max(1, (2**31 - 1) // m), v2p)
    v2p[num_pages - 1] = DECOY_ENTRY
    return v2p


def _build_table(route, fam, rng, g):
    torch, dev, put = fam.torch, fam.device, fam.put
    rows, cols = HUGE_TABLE
    ps = int(rng.choice([16, 64] if route == "decode_metadata" else [7, 64, 100]))
    m = int(rng.choice([1, 3]))
    read_rows = np.array(HUGE_TABLE_ROWS, dtype=np.int64)
    b = read_rows.size
    num_pages = 1 << 18
    decoy = num_pages - 1
    v2p = _decoy_v2p(rng, num_pages, m)
    r2t = torch.full((rows, cols), decoy * ps, dtype=torch.int32, device=dev)  # decoy page starts
    vp = torch.randint(0, decoy, (b, cols // ps + 1), generator=g, device=dev, dtype=torch.int32)
    tok = (vp[:, :, None] * ps + torch.arange(ps, device=dev, dtype=torch.int32)).reshape(b, -1)[:, :cols]
    r2t[put(read_rows)] = tok
    del vp, tok
    width = cols // ps - (1 if route == "flashmla_block_table" else 0)  # flashmla: room for kv_start_idx
    full = width * ps
    lens = np.array([full - 2 * ps + 1, full, full - ps - 3, 1, 0], dtype=np.int64)
    out_shape = (b + 1, width + 1)
    out = {"out": (_sentinel_backing(torch, out_shape[0] * out_shape[1], np.int32, dev), out_shape)}
    inputs = {"req_to_token": r2t, "req_pool_indices": put(read_rows), "v2p": put(v2p)}
    if route == "flashmla_block_table":
        inputs.update(page_kernel_lens=put(lens), kv_start_idx=put(np.array([ps, 0, 3, ps - 1, 1], np.int64)))
        return inputs, {"page_size": ps, "multiplier": m}, {"kv_indices": out["out"]}
    if route == "decode_metadata":
        delta = int(rng.choice([0, 1]))
        inputs["seq_lens"] = put(np.minimum(lens, full - delta))
        scalars = {"max_seq_pages": width, "page_size": ps, "seq_len_delta": delta, "multiplier": m}
        return inputs, scalars, {"cache_seqlens": (_sentinel_backing(torch, b, np.int32, dev), (b,)),
                                 "cu_seqlens_k": (_sentinel_backing(torch, b + 1, np.int32, dev), (b + 1,)),
                                 "page_table": out["out"]}
    inputs["seq_lens"] = put(lens)
    scalars = {"page_size": ps, "multiplier": m, "max_pages": width}
    if route == "read_table":
        scalars.update(seq_len_delta=0, zero_tail=True)
    return inputs, scalars, out


def first_past(route, outs):
    """The first output lane (name, index) whose element offset, or whose req_to_token read, passes 2^31."""
    if route in TABLE_LIKE:
        return ("page_table" if route == "decode_metadata" else next(iter(outs)), (1, 0))
    if route == "eager_funnel":
        return ("out", (LIMIT // HUGE_EAGER[1], LIMIT % HUGE_EAGER[1]))
    return ("out", (LIMIT,))


def spot_check(route, fam, inputs, scalars, outs, expected, variant):
    """The device expectation against kvaddr's host route on the part of the huge case a host copy holds cheaply:
    the lanes from 2^31 - 8 to the end (token routes), the last 4099 lanes of the zeroed tail (write_loc), the
    whole table from the first row read (table routes). ReferenceDisagreement when they differ."""
    get = fam.get
    exp_body = {k: expected[k][C.GUARD:C.GUARD + int(np.prod(s))] for k, (_, s) in outs.items()}
    if route in C.TOKEN_ROUTES:
        ids_name, v2p_name = C.TOKEN_ROUTES[route][:2]
        lo = LIMIT - 8
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
        read = get(inputs["req_pool_indices"])
        first = int(read.min())
        ins = {k: (None if v is None else get(v)) for k, v in inputs.items() if k != "req_to_token"}
        ins["req_to_token"] = get(inputs["req_to_token"][first:])
        ins["req_pool_indices"] = read - first
        small_outs = {k: C.sentinel(int(np.prod(shape)), np.int32).reshape(shape) for k, (_, shape) in outs.items()}
        host = reference(C.Case(route, dict(scalars), ins, small_outs), variant)
        dev = {k: get(exp_body[k]).reshape(outs[k][1]) for k in outs}
    _agree(route, variant, host, dev)


def _agree(route, variant, host, dev):
    class _Dev:
        def host(self):
            return dev

    assert_agree(C.Case(route, {}, {}, dict(host)), variant, host, _Dev())


def _case_for_kwargs(route, inputs, scalars, outs):
    """A Case whose arrays are shape-only placeholders (for conventions.kernel_kwargs and the report)."""
    ph = {k: None if v is None else np.broadcast_to(np.zeros((), np.int64), tuple(v.shape)) for k, v in inputs.items()}
    op = {k: np.broadcast_to(np.zeros((), np.int64), shape) for k, (_, shape) in outs.items()}
    widths = {k: shape[1] - 1 for k, (_, shape) in outs.items() if len(shape) == 2 and route in C.TABLE_ROUTES}
    return C.Case(route, dict(scalars), ph, op, widths)


def _lane(name, case, shape, first, n, exp_v, got_v):
    """The Lane of flat backing index `first` of output `name` (guards included)."""
    if first < C.GUARD:
        return Lane(name, (first - C.GUARD,), "guard_before", exp_v, got_v)
    if first >= C.GUARD + n:
        return Lane(name, (first - C.GUARD - n,), "guard_after", exp_v, got_v)
    idx = tuple(int(i) for i in np.unravel_index(first - C.GUARD, shape))
    region = "past_width" if name in case.widths and idx[1] >= case.widths[name] else "out"
    return Lane(name, idx, region, exp_v, got_v)


def run_huge(rep, fam, kernel, route, seed, variant, huge, cases=None):
    """Run the huge case when `huge` asks for it (see the module doc); records report.huge and returns a
    failure tuple for kvaddr.check's report, or None."""
    if huge is False or (huge is None and fam.device == "cpu"):
        return None
    cases = rep.cases + rep.rejected if cases is None else cases
    why = _reason_out(route, fam, variant, cases, rep.shard, rep.reference, huge is True)
    if why is not None:
        if huge is True:
            raise check_args.invalid("huge", "True", why)  # (an InvalidArgument: a ValueError)
        rep.huge = {"ran": False, "why": why}
        return None
    if route in STREAMED:
        return _run_streamed(rep, fam, kernel, route, variant)
    torch = fam.torch
    t0 = time.perf_counter()
    inputs, scalars, outs = build(route, fam, rep.seed)
    case = _case_for_kwargs(route, inputs, scalars, outs)
    expected = {k: b.clone() for k, (b, _) in outs.items()}
    pristine = {k: v.clone() for k, v in inputs.items() if v is not None}
    exp_views = {k: expected[k][C.GUARD:C.GUARD + int(np.prod(s))].reshape(s) for k, (_, s) in outs.items()}
    gpu.kernel(route, variant)(**kernel_kwargs(case, dict(inputs), exp_views))
    spot_check(route, fam, inputs, scalars, outs, expected, variant)
    views = {}
    for k, (b, s) in outs.items():
        v = b[C.GUARD:C.GUARD + int(np.prod(s))].reshape(s)
        views[k] = v[:, :case.widths[k]] if k in case.widths else v
    result, t1, t2 = _timed_call(kernel, case, inputs, views, torch)
    if result is None:
        for k, (b, s) in outs.items():
            count, first = _differs(expected[k], b)
            if count:
                n = int(np.prod(s))
                lane = _lane(k, case, s, first, n, int(expected[k][first].item()), int(b[first].item()))
                kind = "mismatch" if lane.region == "out" else "out_of_bounds"
                result = CaseResult(kind, "the huge case (past 2^31 elements)", differing=count, first=[lane])
                break
    if result is None:
        for k, v in inputs.items():
            if v is not None and _differs(pristine[k].reshape(-1), v.reshape(-1))[0]:
                result = CaseResult("input_modified", f"the kernel wrote into its input {k} (huge case)")
                break
    explained = None
    if result is not None and result.kind in ("mismatch", "out_of_bounds"):
        explained = _explain_lane_offsets(route, fam, variant, case, pristine, inputs, outs, expected, exp_views)
    lanes = sum(int(b.numel()) for b, _ in outs.values())
    shapes = {k: list(v.shape) for k, v in inputs.items() if v is not None} | {k: list(s) for k, (_, s) in outs.items()}
    del expected, pristine, inputs, outs, views, exp_views
    failing = _finish(rep, torch, route, case, result, lanes, shapes, scalars, t0, t1, t2)
    if explained is not None:
        rep.huge[explained[0]] = explained[1]
    return failing


# ---- the explanation of a per-id huge failure: int32 lane offsets (issue 33) ------------------------------
LANE_CLAIM = "int32_lane_offsets"


def _explain_lane_offsets(route, fam, variant, case, pristine, inputs, outs, expected, exp_views):
    """A failed huge case of a route that has int32_lane_offsets, claimed production: kvaddr's CUDA kernel is run
    again under int32_lane_offsets on the inputs as they were made, into the expectation's own buffers refilled
    with the prefill (no second copy of the outputs), and compared with the kernel's outputs on every lane, guards
    included. Returns ("inferred", [line]) when the claim reproduces them all, ("not_explained", line) when it
    does not, None when the claim does not apply (another route, another claimed variant: kvaddr.gpu.kernel takes
    one variant a call). kvaddr.check's failure carries it (Failure.inferred / not_explained)."""
    if variant != "production" or LANE_CLAIM not in _core.variants(route):
        return None
    torch = fam.torch
    for k, (b, s) in outs.items():
        _prefill(torch, expected[k], int(np.prod(s)), np.int64 if b.dtype == torch.int64 else np.int32, fam.device)
    ins = {k: pristine.get(k, v) for k, v in inputs.items()}
    gpu.kernel(route, LANE_CLAIM)(**kernel_kwargs(case, ins, exp_views))
    counts = {k: _differs(expected[k], b)[0] for k, (b, _) in outs.items()}
    if any(counts.values()):
        return ("not_explained", f"not explained by {LANE_CLAIM}: its re-run differs from the kernel in "
                                 f"{sum(counts.values()):,} lanes")
    # in the words of replay's inference (replay/src/infer.cpp), then the claim as kvaddr.check's inferred lines
    n = {k: int(np.prod(s)) for k, (_, s) in outs.items()}
    line = "; ".join(f"lanes >= 2^31 not written (lane offsets formed in int32): {n[k] - LIMIT} lanes unwritten, from "
                     f"lane {LIMIT} to {n[k] - 1}" + ("" if len(n) == 1 else f" of {k}") for k in n if n[k] > LIMIT)
    return ("inferred", [f"{line} (claim {LANE_CLAIM}; its re-run on kvaddr's CUDA kernel reproduces every lane of "
                         "the huge case)"])


def _timed_call(kernel, case, inputs, views, torch):
    """One timed call of the kernel on the huge case, after the device is idle: (CaseResult or None, t1, t2),
    the result "raised" or a wrong return value, t1 and t2 the perf_counter times around the call."""
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    result, ret = _call(kernel, kernel_kwargs(case, inputs, views), torch)
    t2 = time.perf_counter()
    return result or _returned(ret, views), t1, t2


def _call(kernel, kwargs, torch):
    """(CaseResult("raised") or None, the kernel's return value)."""
    try:
        ret = kernel(**kwargs)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - the kernel's failure is the report
        return CaseResult("raised", f"{type(e).__name__}: {e}"), None
    return None, ret


def _returned(ret, views):
    if ret is None:
        return None
    vals = ret if isinstance(ret, (tuple, list)) else (ret,)
    if all(any(r is v for v in views.values()) for r in vals):
        return None
    return CaseResult("bad_return", "the huge case takes in-place outputs only (returned a fresh array)")


def _finish(rep, torch, route, case, result, lanes, shapes, scalars, t0, t1, t2):
    torch.cuda.empty_cache()
    name, idx = first_past(route, case.outputs)
    rep.huge = {"ran": True, "lanes": lanes, "seconds": round(time.perf_counter() - t0, 3),
                "kernel_seconds": round(t2 - t1, 3), "bytes": bytes_needed(route), "shapes": shapes,
                "scalars": dict(scalars), "kind": "ok" if result is None else result.kind,
                "first_past": f"{name}[{', '.join(str(i) for i in idx)}]"}
    rep.kernel_seconds += t2 - t1
    rep.cases += 1
    if result is None:
        rep.lanes += lanes
        return None
    rep.huge["first"] = [str(x) for x in result.first] or [result.detail]
    return ("huge", case, result)


# ---- streamed cases: mamba_translate, eager_funnel -------------------------------------------------------
class _Stream:
    """The inputs of a streamed case as functions of the chunk they fill (regenerated for the checks)."""

    def __init__(self, route, fam, seed):
        self.route, self.fam = route, fam
        torch, dev = fam.torch, fam.device
        rng = C.rng_for(seed, 2**40)
        self.seed_part = int(rng.integers(0, 2**40))
        num_pages = 1 << 20
        v2p = rng.v2p(num_pages)
        if route == "mamba_translate":
            self.num_pages = num_pages
            self.v2p = np.where(v2p < 0, 0, v2p)  # the raw gather: every slot has an entry
            self.scalars = {}
            self.shape, self.dtype, self.rows = (HUGE_TOKENS,), np.int32, HUGE_TOKENS
            self.step = STREAM_CHUNK
        else:
            self.ps, self.m = int(rng.choice([1, 7, 64, 100])), int(rng.choice([1, 3]))
            v2p[num_pages - 1] = DECOY_ENTRY
            self.v2p, self.decoy = v2p, num_pages - 1
            self.scalars = {"page_size": self.ps, "multiplier": self.m}
            self.shape, self.dtype, self.rows = HUGE_EAGER, np.int64, HUGE_EAGER[0]
            self.step = STREAM_CHUNK // HUGE_EAGER[1]
        self.v2p_dev = fam.put(self.v2p)
        self.torch, self.dev = torch, dev

    def chunk(self, lo, hi):
        """mamba: slots[lo:hi]; eager: page_table rows [lo, hi)."""
        torch = self.torch
        if self.route == "mamba_translate":
            t = torch.arange(lo, hi, dtype=torch.int64, device=self.dev)
            return t.mul_(_SLOT_MUL).add_(self.seed_part).remainder_(self.num_pages + 1)
        g = torch.Generator(device=self.dev)
        g.manual_seed(self.seed_part + lo)
        cols = self.shape[1]
        t = torch.randint(0, self.decoy, (hi - lo, cols), generator=g, device=self.dev, dtype=torch.int64)
        t.mul_(self.ps)
        t.view(-1)[::97] = -1  # padding entries
        r, c = LIMIT // cols, LIMIT % cols
        if lo <= r < hi:  # the first lanes past 2^31: decoy page starts (their entry differs from the token)
            t[r - lo, c:c + 4] = self.decoy * self.ps
        return t

    def expected(self, ref, lo, hi, inp=None):
        """kvaddr's kernel on the regenerated chunk (inp: the chunk's inputs when already made)."""
        inp = self.chunk(lo, hi) if inp is None else inp
        if self.route == "mamba_translate":
            out = self.torch.empty(hi - lo, dtype=self.torch.int32, device=self.dev)
            ref(slots=inp, v2p=self.v2p_dev, out=out)
            return out
        ref(page_table=inp, v2p=self.v2p_dev, out=inp, **self.scalars)
        return inp


def _pieces(st, ref, backing, n):
    """(backing index of the piece's first lane, expected, actual) for the guard before, every chunk of the
    output (the expectation: kvaddr's kernel on the regenerated chunk), and the guard after."""
    guards = _sentinel_backing(st.torch, 0, st.dtype, st.dev)  # the prefill of the two guards
    yield 0, guards[:C.GUARD], backing[:C.GUARD]
    flat = backing[C.GUARD:C.GUARD + n]
    cols = n // st.rows
    for lo in range(0, st.rows, st.step):
        hi = min(st.rows, lo + st.step)
        yield C.GUARD + lo * cols, st.expected(ref, lo, hi).reshape(-1), flat[lo * cols:hi * cols]
    yield C.GUARD + n, guards[C.GUARD:], backing[C.GUARD + n:]


def _run_streamed(rep, fam, kernel, route, variant):
    torch = fam.torch
    t0 = time.perf_counter()
    st = _Stream(route, fam, rep.seed)
    n = int(np.prod(st.shape))
    backing = _sentinel_backing(torch, n, st.dtype, fam.device)
    body = backing[C.GUARD:C.GUARD + n].view(st.shape)
    slots = torch.empty(HUGE_TOKENS, dtype=torch.int64, device=fam.device) if route == "mamba_translate" else None
    for lo in range(0, st.rows, st.step):
        hi = min(st.rows, lo + st.step)
        (slots if slots is not None else body)[lo:hi] = st.chunk(lo, hi)
    ref = gpu.kernel(route, variant)
    # the device expectation of the last chunk (past 2^31) against the host route on a host copy of its tail
    last = ((st.rows - 1) // st.step) * st.step
    k = min(4099 if route == "mamba_translate" else 2, st.rows - last)
    tail_exp = fam.get(st.expected(ref, last, st.rows)[-k:])
    tail_in = fam.get(st.chunk(last, st.rows)[-k:])
    if route == "mamba_translate":
        small = C.Case(route, {}, {"slots": tail_in, "v2p": st.v2p}, {"out": np.zeros(k, np.int32)})
    else:
        small = C.Case(route, dict(st.scalars), {"page_table": tail_in, "v2p": st.v2p},
                       {"out": np.zeros(tail_in.shape, np.int64)})
    _agree(route, variant, reference(small, variant), {"out": tail_exp})
    if route == "mamba_translate":
        inputs, outs_v = {"slots": slots, "v2p": st.v2p_dev}, {"out": body}
    else:
        inputs, outs_v = {"page_table": body, "v2p": st.v2p_dev}, {"out": body}  # in place
    pristine_v2p = st.v2p_dev.clone()
    case = C.Case(route, dict(st.scalars), {k: np.broadcast_to(np.zeros((), np.int64), tuple(v.shape))
                                            for k, v in inputs.items()},
                  {"out": np.broadcast_to(np.zeros((), np.int64), st.shape)})
    result, t1, t2 = _timed_call(kernel, case, inputs, outs_v, torch)
    if result is None:
        count, first, first_vals, wrote_slots = 0, None, None, False
        for at, exp, got in _pieces(st, ref, backing, n):  # in backing order: guard, chunks, guard
            c, f = gpu.count_differences(exp, got)
            if c:
                count += c
                if first is None:
                    first, first_vals = at + f, (int(exp[f].item()), int(got[f].item()))
            del exp
        if slots is not None:  # the kernel must leave slots as they were made
            for lo in range(0, st.rows, st.step):
                hi = min(st.rows, lo + st.step)
                wrote_slots = wrote_slots or bool(gpu.count_differences(st.chunk(lo, hi), slots[lo:hi])[0])
        if count:
            lane = _lane("out", case, st.shape, first, n, *first_vals)
            kind = "mismatch" if lane.region == "out" else "out_of_bounds"
            result = CaseResult(kind, "the huge case (past 2^31 elements)", differing=count, first=[lane])
        elif wrote_slots:
            result = CaseResult("input_modified", "the kernel wrote into its input slots (huge case)")
        elif gpu.count_differences(pristine_v2p, st.v2p_dev)[0]:
            result = CaseResult("input_modified", "the kernel wrote into its input v2p (huge case)")
    shapes = {k: list(v.shape) for k, v in inputs.items() if k != "page_table"} | {"out": list(st.shape)}
    if route == "eager_funnel":
        shapes["page_table"] = ["out (in place)"]
    del backing, body, slots, inputs, outs_v
    return _finish(rep, torch, route, case, result, n + 2 * C.GUARD, shapes, st.scalars, t0, t1, t2)


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


harness.register(huge=run_huge, huge_line=describe)  # kvaddr.check's huge case and its report line
