"""kvaddr.check(..., contract=): what the kernel's wrapper guarantees about each argument, so that the harness
presents only those layouts (docs/harness.md, "Your wrapper's contract").

Per argument (by the kernel's argument name, e.g. ``req_pool_indices``, ``virt``, ``out``, ``page_table``):

* layout: inputs ``"contiguous"`` (never a strided view) or ``"strided"`` (always one, where the route draws
  strided views of it); 2-D outputs ``"packed"`` (row stride = width) or ``"pitched"`` (row stride > width), 1-D
  outputs ``"packed"`` only (``"contiguous"`` is the same);
* dtype: ``"int32"`` or ``"int64"`` for index inputs that take either (conventions.INDEX_DTYPES), else only the
  route's own dtype;
* alias: ``"no_alias"`` (never presented aliasing its partner, e.g. ``out`` and ``virt``) or ``"may_alias"``
  (the default), on arguments the route draws aliased.

Forms: ``Contract.of(route, {"req_pool_indices": "contiguous", "seq_lens": ("contiguous", "int32"),
"out": {"layout": "packed", "alias": "no_alias"}})`` or the same dict passed as ``contract=``. Anything else
(an unknown argument, an unknown word, a layout, dtype or alias the route cannot have) is kvaddr.InvalidArgument
naming ``contract[<argument>]`` and the value, raised before any kernel runs. A contract is part of each recipe
(key "contract") and applied by kvaddr.cases.build, so shrunk cases keep it.

The upstream call mode the wrapper calls in (kvaddr.check(..., mode=), ``MODES``) travels with the contract:
``apply_mode(case, contract)`` turns each built case into that mode's call (static pool: no v2p; the
canonical-source mode of decode_metadata; its token-level full -> SWA slot map), so the reference, the kernel, the
shrinker and the replay directory all see the mode's arguments."""
from __future__ import annotations

import dataclasses

import numpy as np

from . import route_tables as _routes
from .buffers import sentinel
from .gpu import invalid
from .present import STRIDE_PAD

LAYOUTS = ("contiguous", "strided", "packed", "pitched")
DTYPES = ("int32", "int64")
ALIASES = ("no_alias", "may_alias")
# Index inputs a wrapper may hand as int32 or int64 (engines keep req_pool_indices / seq_lens in int32); every
# other array keeps the route's dtype (v2p and the ids are int64, req_to_token int32).
INDEX_DTYPES = ("req_pool_indices", "seq_lens", "page_kernel_lens", "kv_start_idx")
# The recipe flag that presents each input strided (kvaddr.cases draws them), per route family.
_STRIDED_FLAG = {"req_to_token": "r2t_strided"}
# The inputs each route can present aliased with its output (cases: alias / overlap), by manifest name.
_ALIASED = {"write_loc": ("loc",), "eager_funnel": ("page_table",)}


@dataclasses.dataclass(frozen=True)
class ArgContract:
    layout: str | None = None
    dtype: str | None = None
    alias: str | None = None


# The upstream call modes kvaddr.check draws (mode=), and the routes that have each (docs/harness.md, "Upstream
# names and call modes"): a static pool (no v2p table, multiplier 1) on every table route and decode_metadata;
# decode_metadata's canonical-source mode (src_is_kernel_page_table) and its token-level full -> SWA slot map.
_TABLES = ("flashmla_block_table", "canonical_page_table", "read_table", "full_prefill_table", "decode_metadata")
MODES = {"static": _TABLES, "canonical_source": ("decode_metadata",), "swa_token_map": ("decode_metadata",)}


def check_mode(route, mode):
    """`mode` when `route` has that call mode (None: the harness's dense call); InvalidArgument naming `mode`."""
    if mode is None:
        return None
    if not isinstance(mode, str) or mode not in MODES:
        raise invalid("mode", repr(mode), f"must be None or one of {', '.join(MODES)}")
    if route not in MODES[mode]:
        raise invalid("mode", repr(mode), f"{route} has no {mode} call mode (routes with it: {', '.join(MODES[mode])})")
    return mode


@dataclasses.dataclass(frozen=True)
class Contract:
    route: str
    args: tuple  # ((manifest name, ArgContract), ...) sorted
    mode: str | None = None  # the upstream call mode (MODES), applied to each built case by apply_mode

    @classmethod
    def of(cls, route, spec, mode=None):
        """A Contract for `route` from a Contract, a dict {kernel argument name: word(s) or dict}, or None; with
        the call mode `mode` (check_mode) when given."""
        mode = check_mode(route, mode)
        if spec is None or isinstance(spec, Contract):
            if isinstance(spec, Contract) and spec.route != route:
                raise invalid("contract", f"Contract({spec.route})", f"was made for {spec.route}, not {route}")
            if mode is not None:
                return _check_mode_args(dataclasses.replace(spec or cls(route, ()), mode=mode))
            return spec
        if not isinstance(spec, dict):
            raise invalid("contract", repr(spec), "must be a dict {argument: 'contiguous' | ('contiguous', 'int32') "
                                                  "| {'layout': ..., 'dtype': ..., 'alias': ...}} or a Contract")
        arrays = _arrays(route)
        by_kernel = {k: m for m, (k, _) in arrays.items()}
        out = {}
        for name, words in spec.items():
            if name in _MODE_ARGS:
                raise invalid(f"contract[{name!r}]", repr(words), f"{name} is an argument of a call mode (mode=): "
                                                                   f"{_MODE_ARGS[name]}")
            if name not in by_kernel:
                raise invalid(f"contract[{name!r}]", repr(words), f"{route} has no array argument {name!r} "
                                                                   f"(its arrays: {', '.join(sorted(by_kernel))})")
            out[by_kernel[name]] = _check(route, name, by_kernel[name], arrays[by_kernel[name]][1], words)
        return _check_mode_args(cls(route, tuple(sorted(out.items())), mode))

    def get(self, name):
        return dict(self.args).get(name, ArgContract())

    def shape_recipe(self, route, r):
        """The recipe with the presentation flags the contract fixes (layouts, aliasing)."""
        r = dict(r)
        for name, a in self.args:
            if a.layout in ("contiguous", "strided") and name in _strided_inputs(route):
                flag = _STRIDED_FLAG.get(name, "strided")
                r[flag] = a.layout == "strided"
                if r[flag]:
                    r["alias"], r["overlap"] = False, 0
            if a.layout == "packed" and "pad" in r:
                r["pad"] = 0
            if a.layout == "pitched" and "pad" in r:
                r["pad"] = max(int(r["pad"]), 1)
                r["alias"], r["overlap"] = False, 0
            if a.alias == "no_alias":
                r["alias"], r["overlap"] = False, 0
        if self.dtypes() or self.mode:  # an adjacent layout presents its members in the case's dtypes and the
            r["adjacent"] = None        # arguments the dense call has: not with a dtype contract or a call mode
        return r

    def dtypes(self):
        """{manifest name: numpy dtype} of the inputs presented in another dtype than the case's."""
        return {n: np.dtype(a.dtype) for n, a in self.args if a.dtype is not None and n in INDEX_DTYPES}


# The arrays a call mode adds, and how they are presented (a contract names none of them).
_MODE_ARGS = {"swa_page_table": "presented like page_table (state the layout of page_table)",
              "full_to_swa_index_mapping": "always a contiguous int64 array"}


def _check_mode_args(contract):
    """`contract` unless it states a layout or dtype of an array its call mode leaves out (v2p of a static or
    canonical-source call); InvalidArgument naming contract[<argument>] otherwise."""
    if contract.mode in ("static", "canonical_source"):
        for name, a in contract.args:
            if name == "v2p":
                raise invalid("contract['v2p']", repr(a), f"the {contract.mode} call passes v2p=None: the wrapper "
                                                          "hands no v2p to guarantee anything about")
    return contract


def apply_mode(case, contract):
    """`case` as a call in the contract's call mode (unchanged without one). static / canonical_source: no v2p
    and multiplier 1; canonical_source: req_to_token replaced by canonical kernel page-table rows (its page-start
    tokens shifted by log2(page_size), at least max_seq_pages columns, -1 past the row) and
    src_is_kernel_page_table = True; swa_token_map: full_to_swa_index_mapping over every token id req_to_token
    holds (slot_map) and the output swa_page_table, shaped and presented like page_table."""
    mode = getattr(contract, "mode", None)
    if mode is None:
        return case
    ins, scalars, outs, widths = dict(case.inputs), dict(case.scalars), dict(case.outputs), dict(case.widths)
    if mode in ("static", "canonical_source"):
        ins["v2p"] = None
        scalars["multiplier"] = 1
    if mode == "canonical_source":
        ins["req_to_token"] = canonical_rows(ins["req_to_token"], scalars["page_size"], scalars["max_seq_pages"])
        scalars["src_is_kernel_page_table"] = True
    if mode == "swa_token_map":
        ins["full_to_swa_index_mapping"] = slot_map(ins["req_to_token"])
        pt = outs["page_table"]
        outs["swa_page_table"] = sentinel(pt.size, np.int32, 13).reshape(pt.shape)
        if "page_table" in widths:
            widths["swa_page_table"] = widths["page_table"]
    return dataclasses.replace(case, inputs=ins, scalars=scalars, outputs=outs, widths=widths)


def canonical_rows(req_to_token, page_size, max_seq_pages):
    """The canonical kernel page table of a static pool over `req_to_token` (int32 [rows, >= max_seq_pages]): the
    page-start tokens shifted by log2(page_size) (a padding token stays negative), -1 past the row's tokens."""
    shift = int(page_size).bit_length() - 1
    starts = np.asarray(req_to_token)[:, ::int(page_size)].astype(np.int64) >> shift
    width = max(int(max_seq_pages), starts.shape[1], 1)
    out = np.full((starts.shape[0], width), -1, np.int32)
    out[:, :starts.shape[1]] = starts
    return out


def slot_map(req_to_token):
    """A token-level full -> SWA slot map (int64) over the tokens 0..max(req_to_token): a spread of slots below
    2^20, 0 (unmapped) for every fifth token."""
    t = np.arange(max(int(np.max(req_to_token, initial=-1)) + 1, 1), dtype=np.int64)
    return np.where(t % 5 == 3, 0, (t * 7919 + 17) % (1 << 20))


def _arrays(route):
    """{manifest name: (kernel argument name, what)} of the route's array arguments."""
    return {f: (h, w) for h, f, w in _routes.convention(route) if f is not None and w not in ("int", "bool", "stride",
                                                                                             "out_width")}


def _strided_inputs(route):
    """The inputs kvaddr.cases presents strided for `route` (manifest names)."""
    conv = _routes.convention(route)
    ins = [f for _, f, w in conv if w in ("in64", "in32", "mat32", "mat64")]
    if route in ("canonical_page_table", "read_table", "full_prefill_table", "flashmla_block_table",
                 "decode_metadata"):
        return ("req_pool_indices", "req_to_token")
    if route in ("kv_indices_inplace", "mamba_translate"):
        return ()
    return (ins[0],)  # the ids / loc / page_table


def _aliased_inputs(route):
    if route in _ALIASED:
        return _ALIASED[route]
    if route in _routes.per_id_routes() and route != "mamba_translate":
        return (_routes.token_row(route)[0],)
    return ()


def _check(route, kname, name, what, words):
    where = f"contract[{kname!r}]"
    if isinstance(words, ArgContract):
        words = {k: v for k, v in dataclasses.asdict(words).items() if v is not None}
    if isinstance(words, str):
        words = (words,)
    if isinstance(words, dict):
        bad = set(words) - {"layout", "dtype", "alias"}
        if bad:
            raise invalid(where, repr(words), f"unknown key {sorted(bad)[0]!r} (layout, dtype, alias)")
        words = tuple(v for v in words.values() if v is not None)
    if not isinstance(words, (tuple, list)) or not all(isinstance(w, str) for w in words):
        raise invalid(where, repr(words), "must be a word, a tuple of words or a dict")
    got = {}
    for w in words:
        slot = "layout" if w in LAYOUTS else "dtype" if w in DTYPES else "alias" if w in ALIASES else None
        if slot is None:
            raise invalid(where, repr(w), f"unknown word (layouts {', '.join(LAYOUTS)}; dtypes {', '.join(DTYPES)}; "
                                          f"{', '.join(ALIASES)})")
        if slot in got and got[slot] != w:
            raise invalid(where, repr(words), f"two {slot}s: {got[slot]} and {w}")
        got[slot] = w
    output = what.startswith("out") or what.startswith("omat")
    layout, dtype, alias = got.get("layout"), got.get("dtype"), got.get("alias")
    if output:
        if layout == "strided":
            raise invalid(where, "'strided'", f"{route} writes {kname} in place through its own layout: a strided "
                                              "output contradicts the route (outputs are 'packed' or 'pitched')")
        if layout == "pitched" and not what.startswith("omat"):
            raise invalid(where, "'pitched'", f"{kname} is a 1-D output of {route}: it has no row pitch")
        if layout == "contiguous":
            layout = "packed"
    elif layout in ("packed", "pitched"):
        raise invalid(where, repr(layout), f"{kname} is an input of {route}: its layouts are contiguous or strided")
    elif layout == "strided" and name not in _strided_inputs(route):
        raise invalid(where, "'strided'", f"{route} presents {kname} contiguous only")
    own = "int32" if what.endswith("32") else "int64"
    if dtype is not None and dtype != own and not (name in INDEX_DTYPES and not output):
        raise invalid(where, repr(dtype), f"{route} takes {kname} as {own} only")
    if alias == "may_alias" and name not in _aliased_inputs(route) and not (output and _aliased_inputs(route)):
        raise invalid(where, "'may_alias'", f"{route} never presents {kname} aliased: nothing may alias it")
    return ArgContract(layout, dtype, alias)



def as_dict(contract):
    """{kernel argument name: {"layout", "dtype", "alias"} without the unset ones} (report JSON)."""
    if contract is None:
        return {}
    names = _routes.kernel_names(contract.route)
    return {names.get(n, n): {k: v for k, v in dataclasses.asdict(a).items() if v is not None}
            for n, a in contract.args}


def strided_behaviour(case, rerun):
    """The behaviour lines of a failing `case` whose failure goes away when one of its strided inputs is presented
    contiguous: 'reads `req_pool_indices` as packed: ignores its stride 2'. rerun(case) runs the kernel on a case
    and returns its CaseResult (or None when the contract rejects it)."""
    lines = []
    names = _routes.kernel_names(case.route)
    for name in case.strided:
        plain = dataclasses.replace(case, strided=tuple(n for n in case.strided if n != name))
        res = rerun(plain)
        if res is None or res.kind != "ok":
            continue
        arr = case.inputs[name]
        stride = "stride 2" if arr.ndim == 1 else f"row stride {arr.shape[1] + STRIDE_PAD} (width {arr.shape[1]})"
        lines.append(f"reads `{names.get(name, name)}` as packed: ignores its {stride} (the same case passes with "
                     f"`{names.get(name, name)}` contiguous)")
    return lines
