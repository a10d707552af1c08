"""Graph mode's fast loop: no per-case work on the host.

The captured shapes (case 0, kvaddr.graph) fix a *plan*: which input arrays a case redraws, with which
distribution (kvaddr/kernels/graph_draw.hpp, the same ranges as kvaddr.graph.redraw) and which parameters.
Every drawn lane is a pure function of (seed, case index k, array, lane), computed by the same C++ code on
the host (kvaddr._core.graph_draw) and on the device (kvaddr._gpu.graph_draw, which reads k from a
device-resident int64 counter). Per case the device replays three CUDA graphs on one stream:

  pre   reset every guarded output backing, its expected copy, every input backing and its snapshot from
        pristine device copies (one copy kernel); draw case k's values into the captured input views and into
        the snapshot / expected copies (one draw kernel); kvaddr's own CUDA kernel (kvaddr.gpu.kernel, the
        claimed variant) into the expected backings;
  user  the user's captured call (the same graph the slow loop replays);
  post  one comparison kernel over every backing (outputs with their guards against the expected backings,
        inputs against their snapshots) adding the number of differing elements to counts[k % B], then
        counter += 1. Under shard (i, n) with n > 1 the counter steps n (the shard's next case index, a
        torch add captured in the same graph) and a second counter, the case's ordinal in the shard, picks
        the counts slot (ordinal % B) and steps 1.

The host syncs once per batch of B cases and reads the counts. The first case with a nonzero count is rebuilt
on the host from (seed, k) (host_recipe) and handed to the eager path of kvaddr.harness (run_recipe with
launch=g.replay: the same report, lanes, variants and replay directory as the slow loop).
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from . import _core
from . import cases as C
from . import gpu
from .conventions import kernel_kwargs
from .device_ref import BATCH, CallTimes, Counts, _reference_kernel  # noqa: F401 - BATCH: the fast loop's batch
from .present import Presented, strided_view

# graph_draw.hpp's kinds
V2P, IDS, LOC, PAGE_TABLE, R2T, ROWS, LENS = 1, 2, 3, 4, 5, 6, 7
# one tag per recipe field, so that the arrays of one case are independent
_TAGS = {"v2p": 1, "ids": 2, "loc": 3, "page_table": 4, "req_to_token": 5, "rows": 6, "lens": 7}
_M64 = (1 << 64) - 1  # the draws take the seed as an unsigned 64-bit word


@dataclasses.dataclass
class Draw:
    """One redrawn recipe field: its kind, parameters, shape, and the case array it lands in
    (("in", input name) or ("out", output name, elements from the buffer's start))."""

    field: str
    kind: int
    params: list
    shape: tuple
    target: tuple
    dtype: type = np.int64

    @property
    def tag(self):
        return _TAGS[self.field]

    def rows_cols(self):
        return (self.shape[0], self.shape[1]) if len(self.shape) == 2 else (1, self.shape[0])


def plan(route, r):
    """The draws that redraw the values of recipe `r` (the captured case's recipe) at its shapes."""
    ps = int(r["page_size"])
    m = int(r.get("multiplier", 1))
    num_pages = len(r["v2p"]) - 1
    n_v2p = (num_pages + 1,)
    if route in C.TOKEN_ROUTES:
        ids_name, v2p_name = C.TOKEN_ROUTES[route][:2]
        mamba, dcp = route == "mamba_translate", route == "dcp_read_translate"
        return [Draw("v2p", V2P, [num_pages, 1 if mamba else 0, 0], n_v2p, ("in", v2p_name)),
                Draw("ids", IDS, [num_pages, ps, 1 if mamba else 2 if dcp else 0, int(r.get("dcp_size", 1))],
                     (len(r["ids"]),), ("in", ids_name))]
    if route == "kv_indices_inplace":
        n = int(np.sum(r["lens"]))
        return [Draw("v2p", V2P, [num_pages, 2, max(1, (2**31 - 1) // (ps * m) - 1)], n_v2p, ("in", "v2p")),
                Draw("ids", IDS, [num_pages, ps, 0, 1], (n,), ("out", "kv_indices", n))]
    if route == "eager_funnel":
        return [Draw("v2p", V2P, [num_pages, 0, 0], n_v2p, ("in", "v2p")),
                Draw("page_table", PAGE_TABLE, [num_pages, ps], tuple(r["page_table"].shape), ("in", "page_table"))]
    if route == "write_loc":
        return [Draw("v2p", V2P, [num_pages, 0, 0], n_v2p, ("in", "v2p")),
                Draw("loc", LOC, [num_pages, ps, int(r["dcp_size"])], (len(r["loc"]),), ("in", "loc"))]
    r2t = r["req_to_token"]
    b = len(r["rows"])
    hi = max(0, int(r["width"]) * ps - int(r.get("seq_len_delta", 0)))
    if r.get("kv_start_idx") is not None:
        hi = max(0, min(hi, r2t.shape[1] - int(np.max(r["kv_start_idx"], initial=0))))
    lens_name = "page_kernel_lens" if route == "flashmla_block_table" else "seq_lens"
    return [Draw("v2p", V2P, [num_pages, 2, max(1, (2**31 - 1) // m)], n_v2p, ("in", "v2p")),
            Draw("req_to_token", R2T, [num_pages, ps, 10000], tuple(r2t.shape), ("in", "req_to_token"), np.int32),
            Draw("rows", ROWS, [r2t.shape[0]], (b,), ("in", "req_pool_indices")),
            Draw("lens", LENS, [hi], (b,), ("in", lens_name))]


def host_values(d, seed, k):
    """Draw `d`'s values of case k of `seed` on the host (the values the device draws)."""
    rows, cols = d.rows_cols()
    return _core.graph_draw(d.kind, d.tag, list(d.params), int(seed) & _M64, int(k), rows, cols).reshape(d.shape).astype(
        d.dtype)


def host_recipe(route, r, draws, seed, k):
    """The recipe of fast-loop case k: `r` (the captured recipe) with every drawn field replaced."""
    c = dict(r)
    for d in draws:
        c[d.field] = host_values(d, seed, k)
    return c


# ---- the device loop ---------------------------------------------------------------------------
def _ptr(t):
    return int(t.data_ptr())


def _bits(t):
    return 8 * t.element_size()


def _target(view, d):
    """graph_draw's (ptr, rows, cols, row_stride, col_stride, bits) for torch view `view` of draw `d`."""
    rows, cols = d.rows_cols()
    if len(d.shape) == 2:
        rs, cs = view.stride()
    else:
        flat = view.reshape(-1) if view.is_contiguous() else view
        if flat.dim() != 1:
            raise ValueError(f"graph fast loop: {d.field} is not a 1-D view")
        rs, cs = 0, flat.stride(0)
    return (_ptr(view), rows, cols, rs, cs, _bits(view))


class Unsupported(Exception):
    """The fast loop cannot run this call (the slow loop runs it)."""


class FastLoop:
    """The pre / post graphs of one captured call and the per-batch loop."""

    def __init__(self, fam, route, recipe0, case0, presented, variant, seed, step=1):
        torch = fam.torch
        self.torch, self.fam, self.route, self.seed = torch, fam, route, int(seed) & _M64
        self.step = int(step)  # case indices per replay: the shard count (harness.shard_indices)
        self.recipe0, self.case0, self.p = recipe0, case0, presented
        self.draws = plan(route, recipe0)
        if case0.alias:
            raise Unsupported("an aliased layout")
        if case0.adjacent:
            raise Unsupported("an adjacent layout (arguments sliced from one allocation)")
        g = gpu._gpu
        if g is None or not hasattr(g, "graph_draw"):
            raise Unsupported("kvaddr._gpu has no fast-loop kernels")
        pristine = Presented(fam, case0)  # fresh device copies of every backing as case 0 was built
        p = presented
        self.pristine = pristine
        clone = lambda t: t.clone()  # noqa: E731
        self.exp = {n: clone(pristine.out_backing[n]) for n in case0.outputs}
        self.snap = {n: clone(pristine.in_backing[n]) for n in p.in_backing}
        copies = []
        for n in case0.outputs:
            for dst in (p.out_backing[n], self.exp[n]):
                copies.append((_ptr(pristine.out_backing[n]), _ptr(dst), pristine.out_backing[n].numel() *
                               pristine.out_backing[n].element_size()))
        for n in p.in_backing:
            for dst in (p.in_backing[n], self.snap[n]):
                copies.append((_ptr(pristine.in_backing[n]), _ptr(dst), pristine.in_backing[n].numel() *
                               pristine.in_backing[n].element_size()))
        if len(copies) > 16:
            raise Unsupported(f"{len(copies)} backings to reset")
        jobs = []
        for d in self.draws:
            if d.target[0] == "in":
                name = d.target[1]
                views = (p.ins[name], self._mirror(name))
            else:
                name, n = d.target[1], d.target[2]
                views = (p.out_backing[name][C.GUARD:C.GUARD + n], self.exp[name][C.GUARD:C.GUARD + n])
            for v in views:
                jobs.append((d.kind, d.tag, list(d.params)) + _target(v, d))
        self.copies, self.jobs = copies, jobs
        exp_outs = {}
        for name, buf in case0.outputs.items():
            v = self.exp[name][C.GUARD:C.GUARD + buf.size].reshape(buf.shape)
            if name in case0.widths:
                v = v[:, :case0.widths[name]]
            exp_outs[name] = v
        ref = _reference_kernel(route, variant)
        self.ref_kwargs = kernel_kwargs(case0, p.ins, exp_outs)
        self.ref = ref
        self.pairs = [(_ptr(self.exp[n]), _ptr(p.out_backing[n]), self.exp[n].numel(), _bits(self.exp[n]))
                      for n in case0.outputs]
        self.pairs += [(_ptr(self.snap[n]), _ptr(p.in_backing[n]), self.snap[n].numel(), _bits(self.snap[n]))
                       for n in p.in_backing]
        self.counter = torch.ones(1, dtype=torch.int64, device=p.out_backing[next(iter(case0.outputs))].device)
        # the counts slot of a case: the case index itself (step 1), else the case's ordinal in the shard (a second
        # counter), so that the cases of one batch land in distinct slots whatever the step
        self.slot = self.counter if self.step == 1 else torch.zeros_like(self.counter)
        self.batch = Counts(torch, self.counter.device)
        self.counts = self.batch.counts  # the post graph adds into it (captured pointer)
        self.lanes = C.lanes_of(case0)
        self.g = g

    def recipe(self, k):
        """Case k's recipe, drawn on the host (the values the device drew for it)."""
        return host_recipe(self.route, self.recipe0, self.draws, self.seed, k)  # the seed as the device took it

    def _mirror(self, name):
        """The snapshot's view of input `name`, laid out as the presented view."""
        arr = self.case0.inputs[name]
        b = self.snap[name]
        if name in self.case0.strided:
            return strided_view(b, arr)
        if name in C.GUARDED_TABLES and arr.ndim == 1:
            return b[C.TABLE_GUARD:C.TABLE_GUARD + arr.size]
        return b

    def _pre(self, stream):
        self.g.graph_copy(self.copies, stream)
        self.g.graph_draw(self.jobs, self.seed, _ptr(self.counter), stream)
        self.ref(**self.ref_kwargs)

    def _post(self, stream):
        self.g.graph_compare(self.pairs, _ptr(self.slot), _ptr(self.counts), BATCH, stream)
        self.g.graph_bump(_ptr(self.slot), stream)
        if self.slot is not self.counter:
            self.counter.add_(self.step)  # captured on the same stream: the next case index of the shard

    def capture(self):
        """Capture the pre and post graphs (on torch's capture stream, as the user's graph)."""
        torch = self.torch
        self.pre, self.post = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
        for gr, body in ((self.pre, self._pre), (self.post, self._post)):
            with torch.cuda.graph(gr):
                body(int(torch.cuda.current_stream().cuda_stream))

    def draw_now(self, k):
        """Run the pre graph's work for case k eagerly (the GPU test compares it with the host draw)."""
        self.counter.fill_(int(k))
        self._pre(int(self.torch.cuda.current_stream().cuda_stream))

    def run(self, rep, user_graph, indices, time_budget, t0, on_failure, case_timeout=None):
        """The case indices of `indices` (a range stepping self.step: harness.shard_indices); on_failure(k) handles
        a case with differing lanes (or a replay that took longer than case_timeout on the GPU) and returns a
        failure tuple (stop) or None (continue). Returns the failure tuple or None."""
        torch = self.torch
        if indices.step != self.step:
            raise ValueError(f"indices = {indices!r}: the post graph steps {self.step} case indices per replay")
        if not indices:
            return None
        self.counter.fill_(indices.start)
        if self.slot is not self.counter:
            self.slot.zero_()
        ev = CallTimes(torch)
        o = 0  # ordinal in `indices` of the batch's first case
        while o < len(indices):
            if time_budget is not None and time.perf_counter() - t0 > time_budget:
                break
            nb = min(BATCH, len(indices) - o)
            for j in range(nb):
                self.pre.replay()
                ev.start(j)
                user_graph.replay()
                ev.stop(j)
                self.post.replay()
            counts = self.batch.read()
            # the user's replay of each case, timed on the GPU between two events (its kernel_seconds)
            times = ev.seconds(nb)
            for j in range(nb):
                kk = indices[o + j]
                slot = (kk if self.slot is self.counter else o + j) % BATCH
                if counts[slot] or (case_timeout is not None and times[j] > case_timeout):
                    failed = on_failure(kk)  # the eager re-run counts the case (and its kernel time)
                    if failed is not None:
                        return failed
                    continue
                rep.cases += 1
                rep.lanes += self.lanes
                rep.kernel_seconds += times[j]
            o += nb
        return None
