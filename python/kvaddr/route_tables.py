"""The harness's per-route tables, read off kvaddr's one route list (``kvaddr._core.route_shape``).

A per-id route (one id input, one table, scalars, one output lane per id: ``route_shape(r)["per_id"]``)
gets everything the harness needs from its field list, so a route added to the list reaches
``kvaddr.check``, ``kvaddr.gpu`` and the signatures with no edit here:

* ``token_row(route)``: (ids name, table name, multiplier name or None, other int64 scalars, output dtype);
* ``convention(route)``: the kernel's calling convention, (harness name, contract field, what) in call
  order: the fields in list order, arrays as "in64" / "in32" / "out64" / "out32", int64 scalars as "int",
  bools as "bool", the variant left out;
* ``scalar_defaults(route)``: the argument struct's default of every int64 scalar.

Routes whose upstream kernel has a calling convention of its own (other argument names, a scalar passed
in another form, an argument the kernel does not take) and the routes of other shapes are listed in
``UPSTREAM_CONVENTIONS``; the signature text of every route is its convention's names.
"""
from __future__ import annotations

import numpy as np

from . import _core

# what: "in64" / "in32" (1-D inputs; rank-2 contiguous ids are flattened where the route takes them), "out64"
# / "out32" (1-D outputs, contiguous), "mat32" / "mat64" (2-D inputs), "omat32" / "omat64" (2-D outputs), "int",
# "bool", "opt64" (optional 1-D int64 input, None = absent), and the scalar conversions "stride" (ps * M ->
# multiplier) and "out_width" (checked equal to out's size).
_TABLE = [("req_to_token", "req_to_token", "mat32"), ("req_pool_indices", "req_pool_indices", "in64"),
          ("seq_lens", "seq_lens", "in64"), ("v2p", "v2p", "in64"), ("page_size", "page_size", "int"),
          ("multiplier", "multiplier", "int"), ("max_pages", "max_pages", "int")]
UPSTREAM_CONVENTIONS = {
    # translate_v2p(virt, v2p, page_size, page_stride, out): the stride ps * M instead of M
    "token_translate": [("virt", "ids", "in64"), ("v2p", "v2p", "in64"), ("page_size", "page_size", "int"),
                        ("page_stride", "multiplier", "stride"), ("out", "out", "out64")],
    # the mamba slot gather takes no clamp flag
    "mamba_translate": [("slots", "slots", "in64"), ("v2p", "v2p", "in64"), ("out", "out", "out32")],
    "write_loc": [("loc", "loc", "in64"), ("v2p", "v2p", "in64"), ("page_size", "page_size", "int"),
                  ("stride", "multiplier", "stride"), ("dcp_size", "dcp_size", "int"),
                  ("dcp_rank", "dcp_rank", "int"), ("out", "out", "out64"), ("out_width", None, "out_width")],
    "canonical_page_table": _TABLE + [("out", "out", "omat32")],
    "full_prefill_table": _TABLE + [("out", "out", "omat32")],
    "read_table": _TABLE + [("seq_len_delta", "seq_len_delta", "int"), ("zero_tail", "zero_tail", "bool"),
                            ("out", "out", "omat32")],
    "flashmla_block_table": [("req_to_token", "req_to_token", "mat32"),
                             ("req_pool_indices", "req_pool_indices", "in64"),
                             ("page_kernel_lens", "page_kernel_lens", "in64"), ("v2p", "v2p", "in64"),
                             ("kv_start_idx", "kv_start_idx", "opt64"), ("page_size", "page_size", "int"),
                             ("multiplier", "multiplier", "int"), ("kv_indices", "kv_indices", "omat32")],
    "kv_indices_inplace": [("kv_indices", "kv_indices", "out32"), ("kv_indptr", "kv_indptr", "in32"),
                           ("batch_size", "batch_size", "int"), ("v2p", "v2p", "in64"),
                           ("page_size", "page_size", "int"), ("multiplier", "multiplier", "int")],
    "eager_funnel": [("page_table", "page_table", "mat64"), ("v2p", "v2p", "in64"),
                     ("page_size", "page_size", "int"), ("multiplier", "multiplier", "int"),
                     ("out", "out", "omat64")],
    "decode_metadata": [("seq_lens", "seq_lens", "in64"), ("req_to_token", "req_to_token", "mat32"),
                        ("req_pool_indices", "req_pool_indices", "in64"), ("v2p", "v2p", "in64"),
                        ("max_seq_pages", "max_seq_pages", "int"), ("page_size", "page_size", "int"),
                        ("seq_len_delta", "seq_len_delta", "int"), ("multiplier", "multiplier", "int"),
                        ("cache_seqlens", "cache_seqlens", "out32"), ("cu_seqlens_k", "cu_seqlens_k", "out32"),
                        ("page_table", "page_table", "omat32")],
}

_SHAPES = {}


def shape(route):
    """``_core.route_shape(route)``, read once: {"per_id": bool, "fields": [(name, kind, int32, required,
    default), ...]}."""
    if route not in _SHAPES:
        _SHAPES[route] = _core.route_shape(route)
    return _SHAPES[route]


def route_names():
    """Every route of the list, in list order."""
    return tuple(_core.routes())


def per_id_routes():
    """The per-id routes of the route list, in list order."""
    return tuple(r for r in _core.routes() if shape(r)["per_id"])


def _fields(route, kind):
    return [f for f in shape(route)["fields"] if f[1] == kind]


def token_row(route):
    """(ids name, table name, multiplier name or None, other int64 scalars, output dtype) of a per-id route:
    the first and second 1-D inputs, the int64 scalar named ``*multiplier``, the int64 scalars other than
    page_size and that one, the dtype of the one 1-D output."""
    ins = _fields(route, "vec_in")
    (out,) = _fields(route, "vec_out")
    scalars = [f[0] for f in _fields(route, "int64")]
    mult = next((s for s in scalars if s.endswith("multiplier")), None)
    extra = tuple(s for s in scalars if s not in ("page_size", mult))
    return ins[0][0], ins[1][0], mult, extra, np.int32 if out[2] else np.int64


def scalar_defaults(route):
    """{int64 scalar: the argument struct's default} of a route."""
    return {f[0]: f[4] for f in _fields(route, "int64")}


def has_field(route, name):
    return any(f[0] == name for f in shape(route)["fields"])


def has_variant(route):
    """Whether the route takes a variant (mamba_translate, the raw slot gather, takes none)."""
    return bool(_fields(route, "variant"))


def _derived_convention(route):
    what = {"vec_in": "in", "vec_out": "out"}
    conv = []
    for name, kind, int32, _required, _default in shape(route)["fields"]:
        if kind in what:
            conv.append((name, name, f"{what[kind]}{32 if int32 else 64}"))
        elif kind == "int64":
            conv.append((name, name, "int"))
        elif kind == "bool":
            conv.append((name, name, "bool"))
    return conv


def convention(route):
    """(harness name, contract field, what) in call order: the upstream convention where the route has one,
    else the per-id route's field list."""
    if route in UPSTREAM_CONVENTIONS:
        return UPSTREAM_CONVENTIONS[route]
    if not shape(route)["per_id"]:
        raise ValueError(f"route = {route!r}: a route of this shape needs an entry in UPSTREAM_CONVENTIONS")
    return _derived_convention(route)


def signature(route):
    """The kernel signature kvaddr.check calls, as text: its convention's names in order."""
    return "kernel(" + ", ".join(h for h, _, _ in convention(route)) + ")"


def kernel_names(route):
    """{manifest name: kernel argument name} for the arrays whose kernel argument is named otherwise."""
    return {f: h for h, f, w in convention(route) if f is not None and f != h and w not in ("int", "stride")}
