"""kvaddr.check's argument rules: every argument is checked before anything is drawn or run, and a bad one is a
kvaddr.InvalidArgument naming the argument and its value (docs/harness.md, "Argument rules").

An integer argument is a Python int or a numpy integer (never a bool, a float or a str); a number of seconds is
an int or a float (never a bool), finite and positive."""
from __future__ import annotations

import math
import numbers
import os

from . import _core
from . import cases as C
from . import gpu as _gpu
from . import route_tables as _routes
from .arrays import family as _family
from .gpu import invalid

MAX_CASES = 1 << 40  # cases drawn per run (case i of seed s: a 64-bit SeedSequence key each)
MAX_LANES = 1 << 40  # the largest case size the generators are asked for
MAX_SEED = (1 << 64) - 1  # numpy's SeedSequence takes any non-negative int; the CLI's seeds are uint64
MAX_SECONDS = 1e9


def shown(value):
    """repr(value) for a message; an int past Python's int-to-str digit limit (whose repr is a ValueError) as its
    bit length."""
    try:
        return repr(value)
    except ValueError:
        return f"<{type(value).__name__} of {value.bit_length()} bits>" if isinstance(value, int) else \
            f"<a {type(value).__name__}>"


def typed(fn, *args):
    """fn(*args), with a plain ValueError '<name> = <value>: <reason>' raised by an older checker re-raised as
    kvaddr.InvalidArgument with the same text and fields (InvalidArgument is a ValueError)."""
    try:
        return fn(*args)
    except ValueError as e:
        if type(e) is not ValueError:
            raise
        text = str(e)
        head, _, reason = text.partition(": ")
        name, _, value = head.partition(" = ")
        raise invalid(name or "argument", value, reason or text) from None


def integer(name, value, lo, hi):
    """`value` as an int in [lo, hi]; InvalidArgument naming `name` for a bool, a non-integer or out of range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise invalid(name, shown(value), f"must be an integer in [{lo}, {hi}], not {type(value).__name__}")
    v = int(value)
    if not lo <= v <= hi:
        raise invalid(name, shown(value), f"must be an integer in [{lo}, {hi}]")
    return v


def seconds(name, value, *, zero=False, optional=True):
    """`value` as a float of seconds (> 0, or >= 0 with zero=True), or None when optional."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise invalid(name, shown(value), f"must be a number of seconds{' or None' if optional else ''}, "
                                         f"not {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:  # an int (or a Fraction) past the float range: not finite as seconds either
        v = math.inf
    if not math.isfinite(v) or v < 0 or (v == 0 and not zero) or v > MAX_SECONDS:
        raise invalid(name, shown(value), f"must be a finite number of seconds {'>= 0' if zero else '> 0'} "
                                         f"and <= {MAX_SECONDS:g}")
    return v


def flag(name, value):
    if not isinstance(value, bool):
        raise invalid(name, repr(value), "must be True or False")
    return value


def path(value, name="replay_dir"):
    """InvalidArgument naming `name` unless `value` is None or a non-empty path (a str or an os.PathLike of a str)
    without a NUL byte: checked here, since the recording writer would only fail after the campaign."""
    if value is None:
        return
    if not isinstance(value, (str, os.PathLike)):
        raise invalid(name, repr(value), "must be a path (str or os.PathLike) or None")
    try:
        text = os.fspath(value)
    except TypeError as e:  # a __fspath__ returning neither str nor bytes
        raise invalid(name, repr(value), f"must be a path (str or os.PathLike) or None ({e})") from None
    if not isinstance(text, str):
        raise invalid(name, repr(value), f"must be a path of a str, not of {type(text).__name__}")
    if text == "":  # '' was the working directory, written unasked
        raise invalid(name, repr(value), "must name a directory (None: no replay directory)")
    if "\0" in text:
        raise invalid(name, repr(value), "a path must not contain a NUL byte")


def shard(value, cases=None):
    """(i, n) as ints with n >= 1 and 0 <= i < n (and i < cases when `cases` is given: a shard with no case
    index would compare nothing)."""
    try:
        i, n = value
    except (TypeError, ValueError):
        raise invalid("shard", shown(value), "must be a pair (i, n)") from None
    if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in (i, n)):
        raise invalid("shard", shown(value), "i and n must be integers")
    i, n = int(i), int(n)
    if n < 1:
        raise invalid("shard", shown(value), "n must be at least 1")
    if not 0 <= i < n:
        raise invalid("shard", shown(value), f"i must be in [0, {n - 1}]")
    if cases is not None and i >= cases:
        raise invalid("shard", shown(value), f"shard {i} of {n} holds no case index of range(cases = {cases}): "
                                            "it would compare nothing")
    return (i, n)


def check_arguments(*, cases, seed, lanes, time_budget, lanes_budget, case_timeout, shrink, shrink_seconds,
                    replay_dir, name, huge, shard_, kernel):
    """Every numeric and plain argument of kvaddr.check (params by params(); the route, variant, device, array,
    graph, overflow, reference, isolate and contract arguments by their own modules); returns the normalised
    values as a dict."""
    if not callable(kernel):
        raise invalid("kernel", repr(kernel), "must be callable (called as kernel(**kwargs))")
    out = {"cases": integer("cases", cases, 1, MAX_CASES),
           "seed": integer("seed", seed, 0, MAX_SEED),
           "lanes": integer("lanes", lanes, 1, MAX_LANES),
           "time_budget": seconds("time_budget", time_budget),
           "lanes_budget": None if lanes_budget is None else integer("lanes_budget", lanes_budget, 1, MAX_LANES << 20),
           "case_timeout": seconds("case_timeout", case_timeout),
           "shrink": flag("shrink", shrink),
           "shrink_seconds": seconds("shrink_seconds", shrink_seconds, zero=True, optional=False)}
    path(replay_dir)
    if name is not None and not isinstance(name, str):
        raise invalid("name", repr(name), "must be a str or None")
    if huge is not None and not isinstance(huge, bool):  # not 1, 1.0, np.True_: the huge case tests `huge is True`
        raise invalid("huge", repr(huge), "must be None, True or False")
    out["shard"] = shard(shard_, out["cases"])
    return out


# Generator parameters (params=) and their ranges: sizes the generators can draw with (past them a draw would
# overflow int64 or the lane budget); the route's own contract still rejects a case it does not admit.
PARAM_INTS = {"page_size": (1, 1 << 20), "multiplier": (1, 1 << 62), "dcp_size": (1, 1 << 10),
              "dcp_rank": (0, (1 << 10) - 1), "seq_len_delta": (0, 1 << 20)}
PARAM_FLAGS = ("zero_tail", "kv_start_idx", "big_entries", "long_rows")


# Generator parameters a call mode fixes (kvaddr.contract.MODES): the static and canonical-source calls have
# multiplier 1 and no v2p table whose entries could be drawn big.
_MODE_FIXED = {"multiplier": 1, "big_entries": False}


def params(route, value, mode=None):
    """The generator parameters of `route` checked (InvalidArgument naming params[<key>]); None stays None. Under
    the call mode `mode`, a parameter the mode fixes must have the mode's value (it is not silently dropped)."""
    if value is None:
        return None
    if isinstance(value, dict) and mode in ("static", "canonical_source"):
        for k, fixed in _MODE_FIXED.items():
            if k in value and value[k] != fixed:
                raise invalid(f"params[{k!r}]", repr(value[k]), f"the {mode} call mode has {k} = {fixed!r}")
    if not isinstance(value, dict):
        raise invalid("params", repr(value), "must be a dict of generator parameters or None")
    scalars = {k: (-(1 << 63), (1 << 63) - 1) for k in _routes.scalar_defaults(route)}
    if route in _routes.per_id_routes() and _routes.token_row(route)[2]:
        scalars[_routes.token_row(route)[2]] = PARAM_INTS["multiplier"]
    ints = {**scalars, **PARAM_INTS}
    known = sorted(set(ints) | set(PARAM_FLAGS) | {"adjacent", "contract"})
    for k, v in value.items():
        where = f"params[{k!r}]"
        if k in ints:
            integer(where, v, *ints[k])
        elif k in PARAM_FLAGS:
            flag(where, v)
        elif k == "adjacent":
            if v not in (True, False, "always") or (not isinstance(v, (bool, str))):
                raise invalid(where, repr(v), "must be True, False or 'always'")
        elif k != "contract":
            raise invalid(where, repr(v), f"unknown generator parameter (known: {', '.join(known)})")
    if "dcp_rank" in value and "dcp_size" in value and int(value["dcp_rank"]) >= int(value["dcp_size"]):
        raise invalid("params['dcp_rank']", repr(value["dcp_rank"]), f"must be < dcp_size = {value['dcp_size']}")
    return value


def variant(route, value):
    """InvalidArgument naming `variant` unless `route` accepts `value` (a str: any '+'-joined set of behaviours, the
    inferred ones and their parameters included: grid_spill@G, era_d_read_table@G). A route without variants
    (route_tables.has_variant) accepts "production" only."""
    if not _routes.has_variant(route):
        if not isinstance(value, str) or value != "production":
            raise invalid("variant", repr(value), f"{route} has no variants: must be 'production'")
        return
    if not isinstance(value, str):
        raise invalid("variant", repr(value), f"must be a str naming a behaviour of {route} "
                      f"({', '.join(_core.variants(route))}) or a '+'-joined set of them")
    try:
        _core.require_variant(route, value)
    except _core.Error as e:
        raise invalid("variant", repr(value), f"{e}; {route} accepts {', '.join(_core.variants(route))} "
                      "and '+'-joined sets of them") from None


def family(device, array):
    """kvaddr.arrays.family(device, array) with its ValueError as InvalidArgument (typed) and an array library
    that cannot be imported (array='torch' without torch) as InvalidArgument naming `array`."""
    try:
        return typed(_family, device, array)
    except ImportError as e:
        raise invalid("array", repr(array), f"cannot be imported ({type(e).__name__}: {e})") from None


GRAPH_NEEDS = "needs device='cuda' with torch tensors (torch.cuda.graph)"  # (kvaddr.graph's own check says the same)


def runnable(fam, reference, graph, huge):
    """InvalidArgument, before anything runs, for a graph or huge argument that the array family `fam` and the
    resolved `reference` cannot run (kvaddr.graph and kvaddr.huge would raise a plain ValueError mid-run): graph
    needs torch on CUDA; huge=True needs torch on CUDA and kvaddr's CUDA kernels as the reference. (huge=True on a
    route without a huge case, or without the free device memory, is still found by kvaddr.huge after the cases.)"""
    on_cuda_torch = fam.name == "torch" and fam.device != "cpu"
    if graph and not on_cuda_torch:
        raise invalid("graph", repr(graph), GRAPH_NEEDS)
    why = huge_device_reason(fam, reference) if huge is True else None
    if why is not None:
        raise invalid("huge", "True", why)


def huge_device_reason(fam, reference):
    """Why the huge case cannot run on array family `fam` with the resolved `reference` (None: it can, as far as the
    device goes; kvaddr.huge adds the route, the run's size and the free memory)."""
    if fam.name != "torch" or fam.device == "cpu":
        return "needs device='cuda' with torch"
    if reference not in ("cuda", "both") or not _gpu.available():
        return f"needs kvaddr's CUDA kernels as the reference ({_gpu.why_unavailable() or 'reference=' + reference})"
    return None


def route(value):
    """The harness route `value` names (a route of the list, or an upstream kernel name of kvaddr.cases.ALIASES);
    InvalidArgument naming `route` for anything else."""
    name = C.ALIASES.get(value, value) if isinstance(value, str) else value
    if name not in C.ROUTES:
        raise invalid("route", repr(value), f"the harness supports {', '.join(C.ROUTES)}")
    return name


def case(value):
    """InvalidArgument naming `case` unless `value` is a kvaddr.cases.Case of a harness route."""
    if not isinstance(value, C.Case):
        raise invalid("case", f"a {type(value).__name__}", "must be a kvaddr.cases.Case (kvaddr.load_case reads one "
                      "from a replay directory; Report.failure.case holds a failing one)")
    if value.route not in C.ROUTES:
        raise invalid("case", f"a Case of route {value.route!r}", f"the harness supports {', '.join(C.ROUTES)}")
