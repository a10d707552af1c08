#!/usr/bin/env python3
"""kvaddr's CUDA kernels against Triton peers, side by side in one process (issue 16).

    PYTHONPATH=build/python/package python3 bench/peer.py [--json] [--runs 30] [--triton-only]

(build/python/package: the built `kvaddr` package with kvaddr._core and kvaddr._gpu, target kvaddr_python.)

For each workload both kernels run on the same torch CUDA tensors: kvaddr through
``kvaddr.gpu.kernel(route, variant="production")`` (the harness calling convention, outputs written in
place on torch's current stream), the peer from tests/harness_subjects/triton_kernels.py (Triton, written
from the spec the way upstream writes it). Outputs are checked equal to each other and to a torch
statement of the spec formula. Timing: a clean L2 flush (a read of 256 MiB) before every run, CUDA events
around the one call, kvaddr and Triton runs interleaved, median of --runs (>= 30) after 5 warm-ups.
Two modes (--mode, default both): "graph" captures each call once in a CUDA graph and times its replay,
so the figure is the device time of the kernel alone (the kernel comparison); "eager" times the Python
call itself, so the host work of each wrapper (argument marshalling, Triton's launcher) that the
device waits for beyond the flush shows up too.
Floors, timed interleaved with each ps-64 stream and table workload on the same tensors: the stream
routes against torch's copy of the ids (`copy`: out.copy_(ids)) and a bare Triton gather out = v2p[ids >> 6]
(`gather`); the ps-64 tables against a bare Triton chain out[b, c] = int32(v2p[r2t[rows[b], 64 c] >> 6] * 24)
in upstream's 256-column grid (`chain`). Each row reports kvaddr / floor and Triton / floor.
--triton-only times the peers alone (checked against the torch formula) where kvaddr.gpu is not built.
Prints kvaddr / Triton time per workload; --json prints the rows as JSON.
"""
import argparse
import json
import os
import statistics
import sys

import torch
import triton
import triton.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "harness_subjects"))
import triton_kernels as T  # noqa: E402

DEV = "cuda"
N = 1 << 24
M = 24


def flush_fn():
    scratch = torch.zeros(32 << 20, dtype=torch.int64, device=DEV)  # 256 MiB

    def flush():
        scratch.max()  # a read: leaves the L2 clean
    return flush


def as_graphs(fns):
    """name -> the callable captured once in a CUDA graph (after an eager warm-up on a side stream), as its
    replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for f in fns.values():
            f()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    out = {}
    for k, f in fns.items():
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            f()
        out[k] = g.replay
    torch.cuda.synchronize()
    return out


# ---- floors: the bare access patterns of the ps-64 workloads, no lane arithmetic ------------------
@triton.jit
def _floor_gather(ids_ptr, v2p_ptr, out_ptr, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    t = tl.load(ids_ptr + offs, mask=m, other=0)
    tl.store(out_ptr + offs, tl.load(v2p_ptr + (t >> SHIFT), mask=m, other=0), mask=m)


@triton.jit
def _floor_chain(r2t_ptr, r2t_s0, rows_ptr, v2p_ptr, out_ptr, cols, PS: tl.constexpr, MULT: tl.constexpr,
                 BLOCK: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < cols
    row = tl.load(rows_ptr + b)
    tok = tl.load(r2t_ptr + row * r2t_s0 + c * PS, mask=m, other=0)
    e = tl.load(v2p_ptr + (tok // PS), mask=m, other=0) * MULT
    tl.store(out_ptr + b * cols + c, e.to(tl.int32), mask=m)


def stream_floors(ids, v2p):
    """copy and bare-gather floors of the ps-64 token data (ids >= 0, page-major runs)."""
    a = torch.empty_like(ids)
    b = torch.empty_like(ids)
    n = ids.numel()
    return {"copy": lambda: a.copy_(ids),
            "gather": lambda: _floor_gather[(triton.cdiv(n, 1024),)](ids, v2p, b, n, SHIFT=6, BLOCK=1024)}


def table_floors(r2t, rows, v2p, per_row, ps):
    out = torch.empty(rows.numel(), per_row, dtype=torch.int32, device=DEV)
    grid = (rows.numel(), triton.cdiv(per_row, 256))
    return {"chain": lambda: _floor_chain[grid](r2t, r2t.stride(0), rows, v2p, out, per_row, PS=ps, MULT=M,
                                                BLOCK=256)}


def time_pair(fns, runs, flush):
    """fns: name -> callable; returns name -> median us, runs interleaved."""
    ev = {k: [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
          for k in fns}
    for _ in range(5):
        for f in fns.values():
            flush()
            f()
    torch.cuda.synchronize()
    for i in range(runs):
        for k, f in fns.items():
            flush()
            a, b = ev[k][i]
            a.record()
            f()
            b.record()
    torch.cuda.synchronize()
    return {k: statistics.median(a.elapsed_time(b) * 1000.0 for a, b in ev[k]) for k in fns}


# ---- data (same distributions as kvaddr bench: docs/performance.md) ------------------------------
def random_v2p(pages, gen):
    v = torch.empty(pages + 1, dtype=torch.int64, device=DEV)
    v[0] = 0
    v[1:pages] = torch.randperm(pages - 1, generator=gen, device=DEV) + 1
    v[pages] = -1
    return v


def page_major_ids(pages, ps, gen):
    p = torch.randint(1, pages, (N // ps,), generator=gen, device=DEV, dtype=torch.int64)
    return (p[:, None] * ps + torch.arange(ps, device=DEV)).reshape(-1)


def token_data(ps, gen):
    if ps == 64:
        pages = 1 << 18
        return page_major_ids(pages, ps, gen), random_v2p(pages, gen)
    pages = N  # ps = 1: random ids over a 2^24-page table (random gathers from HBM)
    return torch.randint(0, pages, (N,), generator=gen, device=DEV, dtype=torch.int64), random_v2p(pages, gen)


def table_data(ps, gen, bs=256, tokens=32768):
    per_row = tokens // ps
    pages = bs * per_row + 1
    v2p = random_v2p(pages, gen)
    vp = (torch.randperm(pages - 1, generator=gen, device=DEV) + 1).reshape(bs, per_row)
    r2t = (vp[:, :, None] * ps + torch.arange(ps, device=DEV)).reshape(bs, tokens).to(torch.int32)
    rows = torch.arange(bs - 1, -1, -1, device=DEV, dtype=torch.int64)
    lens = torch.full((bs,), tokens, device=DEV, dtype=torch.int64)
    return r2t, rows, lens, v2p, per_row


# ---- torch statements of the spec formulas (the third opinion) --------------------------------
def ref_token(t, v2p, ps, stride):
    live = t >= 0
    tt = torch.where(live, t, 0)
    d = torch.clamp_min(v2p[tt // ps] * stride + tt % ps, 0)
    return torch.where(live, d, 0)


def ref_table(r2t, rows, lens, v2p, ps, mult, max_pages):
    cols = torch.arange(max_pages, device=DEV)
    tok = r2t[rows][:, cols * ps].to(torch.int64)
    e = torch.clamp_min(v2p[torch.where(tok < 0, 0, tok // ps)] * mult, 0).to(torch.int32)
    live = cols[None, :] < torch.clamp_max((lens[:, None] + ps - 1) // ps, max_pages)
    return torch.where(live, e, 0)


# ---- workloads: (name, route, kwargs maker, outputs, torch reference, Triton peer) -----------------
FLOORS = {}  # workload name -> {floor name: callable}, filled by workloads()


def workloads(gen):
    out = []
    for ps in (64, 1):
        ids, v2p = token_data(ps, gen)
        tag = f"ps{ps}"
        o = lambda: torch.zeros(N, dtype=torch.int64, device=DEV)  # noqa: E731
        for peer_name, peer in (("", T.translate_v2p), ("+constexpr-peer", T.PEERS["translate_v2p_constexpr"][1])):
            out.append((f"token_translate/{tag}{peer_name}", "token_translate", peer,
                        dict(virt=ids, v2p=v2p, page_size=ps, page_stride=ps * M), {"out": o},
                        lambda ids=ids, v2p=v2p, ps=ps: {"out": ref_token(ids, v2p, ps, ps * M)}))
        out.append((f"swa_translate/{tag}", "swa_translate", T.swa_translate,
                    dict(ids=ids, swa_v2p=v2p, page_size=ps, swa_multiplier=M), {"out": o},
                    lambda ids=ids, v2p=v2p, ps=ps: {"out": ref_token(ids, v2p, ps, ps * M)}))
        out.append((f"transfer_ids/{tag}", "transfer_ids", T.transfer_ids, dict(ids=ids, v2p=v2p, page_size=ps),
                    {"out": o}, lambda ids=ids, v2p=v2p, ps=ps: {"out": ref_token(ids, v2p, ps, ps)}))
        for dcp in ((1, 2) if ps == 64 else (1,)):
            width = N + 4097
            for peer_name, peer in (("", T.PEERS["write_loc_constexpr"][1]), ("+runtime-scalar-peer", T.write_loc)):
                def ref_wl(ids=ids, v2p=v2p, ps=ps, dcp=dcp, width=width):
                    keep = (ids > 0) & (ids % dcp == 0)
                    r = torch.zeros(width, dtype=torch.int64, device=DEV)
                    r[:N] = torch.where(keep, ref_token(torch.where(keep, ids // dcp, 0), v2p, ps, ps * M), 0)
                    return {"out": r}
                out.append((f"write_loc/{tag}_dcp{dcp}{peer_name}", "write_loc", peer,
                            dict(loc=ids, v2p=v2p, page_size=ps, stride=ps * M, dcp_size=dcp, dcp_rank=0,
                                 out_width=width),
                            {"out": lambda width=width: torch.full((width,), 7, dtype=torch.int64, device=DEV)},
                            ref_wl))
        if ps == 64:
            # ids widened by dcp 2 stay within the table after the collapse
            out.append((f"dcp_read_translate/{tag}_dcp2", "dcp_read_translate", T.dcp_read_translate,
                        dict(ids=ids, v2p=v2p, page_size=ps, multiplier=M, dcp_size=2), {"out": o},
                        lambda ids=ids, v2p=v2p, ps=ps: {"out": ref_token(torch.where(ids < 0, -1, ids // 2), v2p, ps,
                                                                           ps * M)}))
        if ps == 64:
            fl = stream_floors(ids, v2p)
            for w in out:  # the ps-64 token workloads so far
                FLOORS.setdefault(w[0], fl)
        del ids
    for ps in (64, 1):
        r2t, rows, lens, v2p, per_row = table_data(ps, gen)
        tag = f"ps{ps}"
        tab = lambda per_row=per_row: torch.zeros(256, per_row, dtype=torch.int32, device=DEV)  # noqa: E731
        ref = lambda r2t=r2t, rows=rows, lens=lens, v2p=v2p, ps=ps, per_row=per_row: ref_table(  # noqa: E731
            r2t, rows, lens, v2p, ps, M, per_row)
        common = dict(req_to_token=r2t, req_pool_indices=rows, seq_lens=lens, v2p=v2p, page_size=ps, multiplier=M,
                      max_pages=per_row)
        # two Triton peers each: 32-column programs, and upstream's 256-column grid blocks
        for peer_name, canon, read in (("", T.canonical_page_table, T.read_table),
                                       ("+grid256-peer", T.PEERS["canonical_page_table_grid256"][1],
                                        T.PEERS["read_table_grid256"][1])):
            out.append((f"canonical_page_table/{tag}{peer_name}", "canonical_page_table", canon, common,
                        {"out": tab}, lambda ref=ref: {"out": ref()}))
            out.append((f"read_table/{tag}{peer_name}", "read_table", read,
                        dict(common, seq_len_delta=0, zero_tail=False), {"out": tab}, lambda ref=ref: {"out": ref()}))

        def ref_decode(ref=ref, lens=lens):
            return {"page_table": ref(), "cache_seqlens": lens.to(torch.int32),
                    "cu_seqlens_k": torch.cat([torch.zeros(1, dtype=torch.int64, device=DEV),
                                               torch.cumsum(lens, 0)]).to(torch.int32)}
        # two Triton peers: prefix sums in a launch of their own (vector cumsum), and upstream's one fused launch
        # whose program (0, 0) walks the batch serially (tests/harness_subjects/triton_kernels.py)
        for peer_name, peer in (("", T.decode_metadata), ("+fused-upstream-peer", T.PEERS["decode_metadata_fused"][1])):
            out.append((f"decode_metadata/{tag}{peer_name}", "decode_metadata", peer,
                        dict(seq_lens=lens, req_to_token=r2t, req_pool_indices=rows, v2p=v2p, max_seq_pages=per_row,
                             page_size=ps, seq_len_delta=0, multiplier=M),
                        {"page_table": tab, "cache_seqlens": lambda: torch.zeros(256, dtype=torch.int32, device=DEV),
                         "cu_seqlens_k": lambda: torch.zeros(257, dtype=torch.int32, device=DEV)}, ref_decode))
        if ps == 64:
            fl = table_floors(r2t, rows, v2p, per_row, ps)
            for w in out:
                if "/ps64" in w[0]:
                    FLOORS.setdefault(w[0], fl)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the rows as JSON (instead of text)")
    ap.add_argument("--out", default="", help="also write the JSON to this file")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--triton-only", action="store_true", help="time the Triton peers alone (no kvaddr.gpu)")
    ap.add_argument("--only", default="", help="comma-separated workload name prefixes")
    ap.add_argument("--mode", choices=("graph", "eager", "both"), default="both",
                    help="graph: device time of the captured call (replay); eager: the Python call")
    args = ap.parse_args()
    runs = max(args.runs, 30)
    if not torch.cuda.is_available():
        print("peer: no CUDA device")
        return 0
    kg = None
    if not args.triton_only:
        try:
            import kvaddr.gpu as kg
        except ImportError as e:
            print(f"peer: kvaddr.gpu is not importable ({e}); build the Python module or pass --triton-only")
            return 2
        if not kg.available():
            print(f"peer: kvaddr.gpu unavailable: {kg.why_unavailable()}")
            return 2
    gen = torch.Generator(device=DEV)
    gen.manual_seed(12345)
    flush = flush_fn()
    rows = []
    prefixes = [p for p in args.only.split(",") if p]
    for name, route, peer, inputs, outs, ref in workloads(gen):
        if prefixes and not any(name.startswith(p) for p in prefixes):
            continue
        bufs = {"triton": {k: f() for k, f in outs.items()}}
        fns = {"triton": lambda b=bufs["triton"]: peer(**inputs, **b)}
        if kg is not None:
            bufs["kvaddr"] = {k: f() for k, f in outs.items()}
            kern = kg.kernel(route, variant="production")
            fns["kvaddr"] = lambda b=bufs["kvaddr"], kern=kern: kern(**inputs, **b)
        for k, f in FLOORS.get(name, {}).items():
            fns["floor:" + k] = f
        for f in fns.values():
            f()
        torch.cuda.synchronize()
        want = ref()
        agree = {k: all(torch.equal(bufs[k][o], want[o]) for o in want) for k in bufs}
        modes = ("graph", "eager") if args.mode == "both" else (args.mode,)
        for mode in modes:
            t = time_pair(as_graphs(fns) if mode == "graph" else fns, runs, flush)
            row = {"workload": name, "route": route, "mode": mode, "triton_us": round(t["triton"], 2),
                   "triton_matches_formula": agree["triton"]}
            if kg is not None:
                row["kvaddr_us"] = round(t["kvaddr"], 2)
                row["kvaddr_over_triton"] = round(t["kvaddr"] / t["triton"], 3)
                row["kvaddr_matches_formula"] = agree["kvaddr"]
                row["outputs_equal"] = all(torch.equal(bufs["kvaddr"][o], bufs["triton"][o]) for o in outs)
            for k in FLOORS.get(name, {}):
                f_us = t["floor:" + k]
                row[f"floor_{k}_us"] = round(f_us, 2)
                row[f"triton_over_{k}"] = round(t["triton"] / f_us, 3)
                if kg is not None:
                    row[f"kvaddr_over_{k}"] = round(t["kvaddr"] / f_us, 3)
            rows.append(row)
            if not args.json:
                if kg is not None:
                    print(f"{name:40s} {mode:5s} kvaddr {row['kvaddr_us']:8.1f} us  triton {row['triton_us']:8.1f} us"
                          f"  kvaddr/triton {row['kvaddr_over_triton']:.3f}  equal {row['outputs_equal']}  "
                          f"formula {row['kvaddr_matches_formula']}/{row['triton_matches_formula']}"
                          + "".join(f"  {k} {row[f'floor_{k}_us']:.1f} us (kvaddr {row[f'kvaddr_over_{k}']:.3f}x, "
                                    f"triton {row[f'triton_over_{k}']:.3f}x)" for k in FLOORS.get(name, {})),
                          flush=True)
                else:
                    print(f"{name:40s} {mode:5s} triton {row['triton_us']:8.1f} us  formula "
                          f"{row['triton_matches_formula']}", flush=True)
        del bufs, want
        torch.cuda.empty_cache()
    doc = json.dumps({"device": torch.cuda.get_device_name(), "runs": runs, "rows": rows}, indent=2)
    if args.json:
        print(doc)
    if args.out:
        with open(args.out, "w") as f:
            f.write(doc + "\n")
    bad = [r["workload"] for r in rows if not all(v for k, v in r.items() if k.endswith(("equal", "formula")))]
    if bad:
        print("peer: outputs differ on " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
