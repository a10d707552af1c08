"""SGLang's kernel names and their call forms over kvaddr's routes (docs/harness.md, "Upstream names and call
modes").

``kvaddr.gpu.kernel(name)`` with a name of ``FORMS`` takes the upstream keyword arguments listed here (derived
from the address model, spec §4; where the spec names no argument, kvaddr's name), in every call mode the
route has:

* static pools: the v2p keyword ``None`` or left out (identity translation, multiplier 1; spec I10) on every
  table kernel and on ``normal_decode_set_metadata``;
* the canonical-source mode of ``normal_decode_set_metadata`` (``src_is_kernel_page_table=True``: the
  ``req_to_token`` rows are canonical kernel page-table rows, copied);
* the token-level full -> SWA slot map (``full_to_swa_index_mapping``) beside the page-level SWA v2p;
* int32 or int64 index arrays (``req_pool_indices``, ``seq_lens``, ``page_kernel_lens``, ``kv_start_idx``,
  ``virt``, ``loc``).

``host_kernel(name)`` is the same call on the host route (numpy arrays, outputs written in place): the CPU
reference of the forms, and what the tests check the expected values with.
"""
from __future__ import annotations

import numpy as np

from . import _core

# (upstream keyword, contract field, what, optional): what as in kvaddr.route_tables ("in64", "in32", "mat32",
# "out32", "out64", "omat32", "int", "bool", "stride") plus "idx" (a 1-D index input of int32 or int64). An
# optional argument left out or None keeps the contract's default (an absent array, the scalar's default).
_TABLE_IN = [("req_to_token", "req_to_token", "mat32", False), ("req_pool_indices", "req_pool_indices", "idx", False),
             ("seq_lens", "seq_lens", "idx", False), ("v2p", "v2p", "in64", True),
             ("page_size", "page_size", "int", False), ("kernel_page_multiplier", "multiplier", "int", True),
             ("max_pages", "max_pages", "int", False)]

FORMS = {
    # translate_v2p(virt, v2p, page_size, page_stride, out): page_stride = ps * M.
    "translate_v2p": ("token_translate", [
        ("virt", "ids", "idx", False), ("v2p", "v2p", "in64", False), ("page_size", "page_size", "int", False),
        ("page_stride", "multiplier", "stride", False), ("out", "out", "out64", False)]),
    "write_loc_to_kernel_ids": ("write_loc", [
        ("loc", "loc", "idx", False), ("v2p", "v2p", "in64", False), ("page_size", "page_size", "int", False),
        ("stride", "multiplier", "stride", False), ("dcp_size", "dcp_size", "int", True),
        ("dcp_rank", "dcp_rank", "int", True), ("out", "out", "out64", False),
        ("out_width", None, "out_width", True)]),
    # §4.2: PAGED_SIZE (default 64), v2p_ptr (None: the static kernel), PAGE_MULT (default 1).
    "create_flashmla_kv_indices_triton": ("flashmla_block_table", [
        ("req_to_token", "req_to_token", "mat32", False), ("req_pool_indices", "req_pool_indices", "idx", False),
        ("page_kernel_lens", "page_kernel_lens", "idx", False), ("kv_start_idx", "kv_start_idx", "idx", True),
        ("kv_indices", "kv_indices", "omat32", False), ("PAGED_SIZE", "page_size", "int", True),
        ("v2p_ptr", "v2p", "in64", True), ("PAGE_MULT", "multiplier", "int", True)]),
    # §4.3 / §4.4: v2p None = the static pool.
    "build_kernel_page_table": ("canonical_page_table", _TABLE_IN + [("out", "out", "omat32", False)]),
    "build_kv_read_table": ("read_table", _TABLE_IN + [
        ("seq_len_delta", "seq_len_delta", "int", True), ("zero_tail", "zero_tail", "bool", True),
        ("out", "out", "omat32", False)]),
    # §4.5: the static call (v2p_page_table None), Era B (v2p_page_table, kernel_page_multiplier), Era C
    # (src_is_kernel_page_table), Era D (skip_page_table); SWA through swa_v2p_page_table or the token map.
    "normal_decode_set_metadata": ("decode_metadata", [
        ("cache_seqlens", "cache_seqlens", "out32", False), ("cu_seqlens_k", "cu_seqlens_k", "out32", False),
        ("page_table", "page_table", "omat32", True), ("seq_lens", "seq_lens", "idx", False),
        ("req_to_token", "req_to_token", "mat32", True), ("req_pool_indices", "req_pool_indices", "idx", True),
        ("max_seq_pages", "max_seq_pages", "int", False), ("seq_len_delta", "seq_len_delta", "int", True),
        ("page_size", "page_size", "int", False), ("v2p_page_table", "v2p", "in64", True),
        ("kernel_page_multiplier", "multiplier", "int", True),
        ("src_is_kernel_page_table", "src_is_kernel_page_table", "bool", True),
        ("skip_page_table", "skip_page_table", "bool", True), ("swa_page_table", "swa_page_table", "omat32", True),
        ("swa_v2p_page_table", "swa_v2p", "in64", True),
        ("swa_kernel_page_multiplier", "swa_multiplier", "int", True),
        ("full_to_swa_index_mapping", "full_to_swa_index_mapping", "in64", True)]),
}

# The contract default of an optional scalar a form names otherwise (PAGED_SIZE: the Triton constexpr default).
_FORM_DEFAULTS = {("create_flashmla_kv_indices_triton", "PAGED_SIZE"): 64}


def route_of(name):
    """The kvaddr route an upstream name of FORMS calls."""
    return FORMS[name][0]


def convention(name):
    """(keyword, contract field, what) in call order, and the set of optional keywords, of FORMS[name]."""
    _, args = FORMS[name]
    return [(k, f, w) for k, f, w, _ in args], {k for k, _, _, opt in args if opt}


def default(name, keyword):
    """The value an optional scalar keyword of `name` takes when left out (None: the contract's default)."""
    return _FORM_DEFAULTS.get((name, keyword))


def _core_names(route):
    """{contract field: the host binding's parameter that fills it}."""
    return {field: param for param, field in _core.route_parameters(route) if field is not None}


def fields_of(name, kwargs):
    """The contract fields of an upstream call (field -> value), with the stride converted to the multiplier
    and the optional arguments left out or None dropped; raises ValueError for an unknown or missing keyword."""
    route, args = FORMS[name]
    known = {k for k, _, _, _ in args}
    for k in kwargs:
        if k not in known:
            raise ValueError(f"{k}: not an argument of {name} ({', '.join(known)})")
    out = {}
    for k, field, what, optional in args:
        val = kwargs.get(k)
        if val is None:
            if optional:
                d = default(name, k)
                if d is not None:
                    out[field] = d
                continue
            raise ValueError(f"{k}: required by {name}")
        if what == "stride":
            out[field] = int(val) // int(kwargs["page_size"])
        elif what != "out_width":
            out[field] = val
    return route, out


def host_kernel(name, variant="production"):
    """`name`'s call form on kvaddr's host route (numpy arrays; int32 index arrays accepted; outputs written in
    place, strided or padded views included): the CPU counterpart of kvaddr.gpu.kernel(name)."""
    route = FORMS[name][0]
    conv, _ = convention(name)
    outs = {f for _, f, w in conv if w.startswith("o")}
    params = _core_names(route)
    fn = getattr(_core, route)
    has_variant = any(f[1] == "variant" for f in _core.route_shape(route)["fields"])

    def kernel(**kwargs):
        _, fields = fields_of(name, kwargs)
        views = {f: v for f, v in fields.items() if f in outs}
        args = {params[f]: (np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v)
                for f, v in fields.items() if f not in outs}
        tmp = {f: np.array(v, copy=True, order="C") for f, v in views.items()}
        if has_variant:
            args["variant"] = variant
        fn(**args, **{params[f]: v for f, v in tmp.items()})
        for f, v in views.items():
            v[...] = tmp[f]

    kernel.__name__ = f"kvaddr_host_{name}"
    return kernel
