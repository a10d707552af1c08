"""Each route's production calling convention (what kvaddr.check passes to the kernel) and its host reference.

The kernel is called as ``kernel(**kwargs)`` with the names below (spec §4; docs/harness.md has the
table). Arrays are views into guarded buffers; outputs are written in place.
"""
from __future__ import annotations

import numpy as np

from . import _core
from . import adjacent
from . import route_tables as _routes
from .cases import GUARDED_TABLES, TOKEN_ROUTES, WRAP_ROUTES, guarded_table


def kernel_kwargs(case, ins, outs):
    """kwargs for kernel(**kwargs): ins / outs are the presented (device) views by manifest name."""
    route = case.route
    kw = {}
    names = _routes.kernel_names(route)  # manifest name -> the upstream kernel's argument name
    for k, v in ins.items():
        kw[names.get(k, k)] = v
    s = dict(case.scalars)
    if route == "token_translate":  # translate_v2p(virt, v2p, page_size, page_stride, out)
        s["page_stride"] = s["page_size"] * s.pop("multiplier")
    if route == "write_loc":  # write_loc_to_kernel_ids(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width)
        s["stride"] = s["page_size"] * s.pop("multiplier")
        s["out_width"] = int(case.outputs["out"].size)
    kw.update(s)
    kw.update(outs)
    return kw


def signature(route):
    """The kernel signature kvaddr.check calls, as text (docs/harness.md)."""
    return _routes.signature(route)


# Routes whose calling convention hands the result back as a fresh array the caller uses (the eager funnel's
# wrapper returns the funnelled table, spec §4.6). Every other route writes its outputs in place and the engine
# reads the buffer it passed (a captured graph reads it too): a kernel that leaves it untouched and returns a
# correct fresh array fails there as `not_written`.
FRESH_RETURN_ROUTES = ("eager_funnel",)


# route -> (its route_tables.shape, has_variant(route)): read once per shape (reference runs per case; a shape
# replaced in route_tables, as a test's new route does, is read again)
_HAS_VARIANT = {}


def reference(case, variant="production", table_guards=False):
    """The host route's outputs for `case` under `variant`: {output name: whole buffer after the call}.

    Raises kvaddr.Error when the route's contract rejects the call under that variant. With
    `table_guards` the v2p tables are views into the guarded parents the harness hands the kernel
    (cases.guarded_table), so a load outside the table reads what the kernel read there; without
    it such a load is an OutOfRange (the contract does not admit the case). A case with an adjacent layout
    (case.adjacent) runs on views of one host allocation laid out as the kernel gets it (kvaddr.adjacent), so
    validation sees the same touching or overlapping spans and a load past a grouped table reads its
    neighbour, as on the device."""
    route = case.route
    outs = {k: v.copy() for k, v in case.outputs.items()}
    kw = {k: v for k, v in case.inputs.items() if v is not None}
    grouped = ()
    if case.adjacent:  # the arguments laid out as the kernel gets them: slices of one host allocation
        grouped = adjacent.members(case)
        for k, v in adjacent.views(None, adjacent.host_backing(case), case).items():
            (outs if k in outs else kw)[k] = v
    if table_guards:  # guarded_inputs on the arguments outside the group, in place
        for k in GUARDED_TABLES:
            v = kw.get(k)
            if v is not None and k not in grouped and v.ndim == 1:
                kw[k] = guarded_table(v)[1]
    if case.alias:  # the input as the very elements of the output buffer the kernel gets (alias_view)
        kw[case.alias[1]] = alias_view(outs[case.alias[0]], case)
    kw.update(case.scalars)
    shape, memo = _routes.shape(route), _HAS_VARIANT.get(route)
    if memo is None or memo[0] is not shape:
        memo = _HAS_VARIANT[route] = (shape, _routes.has_variant(route))
    if memo[1]:
        kw["variant"] = variant
    elif variant != "production":
        raise _core.InvalidArgument(f"variant = {variant}: {route} has no variants")
    if route in ("decode_metadata", "kv_indices_inplace"):
        getattr(_core, route)(**kw, **outs)
    else:
        getattr(_core, route)(**kw, out=outs[next(iter(outs))])
    return {k: v.copy() for k, v in outs.items()} if grouped else outs


def guarded_inputs(inputs):
    """`inputs` with each 1-D v2p table (cases.GUARDED_TABLES) as a view into the guarded parent the harness hands
    the kernel (cases.guarded_table): a load outside the table reads what the kernel read there."""
    return {k: guarded_table(v)[1] if k in GUARDED_TABLES and v is not None and v.ndim == 1 else v
            for k, v in inputs.items()}


# The host binding's name for an output whose kernel argument is named differently.
_HOST_OUT_NAMES = {"flashmla_block_table": {"kv_indices": "out"}}


def host_kernel(route, variant="production"):
    """kvaddr's host route as a kernel in the harness calling convention (numpy arrays, outputs written in
    place): the CPU counterpart of kvaddr.gpu.kernel. The route runs on C-contiguous copies of the arguments
    and its outputs are then written into the presented views (a strided or padded view is accepted)."""
    fn = getattr(_core, route)
    # the convention's outputs, and the route's other output fields (decode's swa_page_table of the swa_token_map
    # call mode, kvaddr.contract.MODES), each written into the view the kernel was handed when given
    outs = tuple(dict.fromkeys([*output_dtypes(route), *(f[0] for f in _routes.shape(route)["fields"]
                                                         if f[1] in ("vec_out", "mat_out"))]))
    out_names = _HOST_OUT_NAMES.get(route, {})

    def kernel(**kw):
        if route == "token_translate":
            kw["ids"] = kw.pop("virt")
            kw["multiplier"] = kw.pop("page_stride") // kw["page_size"]
        if route == "write_loc":
            kw["multiplier"] = kw.pop("stride") // kw["page_size"]
            kw.pop("out_width")
        views = {k: kw.pop(k) for k in outs if k in kw}
        args = {k: np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        tmp = {k: np.array(v, copy=True, order="C") for k, v in views.items()}
        if _routes.has_variant(route):
            args["variant"] = variant
        fn(**args, **{out_names.get(k, k): v for k, v in tmp.items()})
        for k, v in views.items():
            v[...] = tmp[k]

    kernel.__name__ = f"kvaddr_host_{route}"
    return kernel


def broken_preconditions(case):
    """The production preconditions `case` breaks, one text per broken one with its row and numbers (the host
    library's list, translate/preconditions.hpp): n_pages <= max_pages and padding tokens a guard-less kernel
    reads before v2p with (canonical_page_table, read_table), int32-fitting lengths and the fa3 shift's
    padding (decode_metadata); [] for the other routes."""
    route = case.route
    if route not in PRECONDITION_ROUTES:
        return []
    ins, s = case.inputs, case.scalars
    return list(_core.broken_preconditions(
        route, req_to_token=ins.get("req_to_token"), req_pool_indices=ins.get("req_pool_indices"),
        seq_lens=ins["seq_lens"], v2p=ins.get("v2p"), page_size=s["page_size"],
        max_pages=s["max_seq_pages" if route == "decode_metadata" else "max_pages"],
        seq_len_delta=s.get("seq_len_delta", 0)))


# The routes with production preconditions their kernels do not enforce (kvaddr.broken_preconditions).
PRECONDITION_ROUTES = ("canonical_page_table", "read_table", "decode_metadata")


def alias_view(out, case):
    """The aliased input of `case` as a view of its output buffer `out` (any array family with reshape and
    slicing): `out` itself for out == input, else the elements [offset, offset + size) of the flat buffer."""
    src = case.inputs[case.alias[1]]
    off = int(case.alias[2]) if len(case.alias) > 2 else 0
    if off == 0 and tuple(out.shape) == tuple(src.shape):
        return out
    return out.reshape(-1)[off:off + src.size].reshape(src.shape)


def wrap_variant(route, claimed):
    """The claimed variant with int32_wrap added (int32 stores keep their low 32 bits), or None where the
    route has no int32_wrap."""
    if route not in WRAP_ROUTES:
        return None
    if claimed == "production":
        return "int32_wrap"
    return claimed if "int32_wrap" in claimed.split("+") else claimed + "+int32_wrap"


def output_dtypes(route):
    if route in TOKEN_ROUTES:
        return {"out": np.dtype(TOKEN_ROUTES[route][4])}
    if route in ("write_loc", "eager_funnel"):
        return {"out": np.dtype(np.int64)}
    if route in ("flashmla_block_table", "kv_indices_inplace"):
        return {"kv_indices": np.dtype(np.int32)}
    if route == "decode_metadata":
        return {k: np.dtype(np.int32) for k in ("cache_seqlens", "cu_seqlens_k", "page_table")}
    return {"out": np.dtype(np.int32)}
