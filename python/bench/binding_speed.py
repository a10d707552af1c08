"""Microseconds per call of each host route's binding (kvaddr._core.<route>) on a tiny case, against a binding of
three ints and no work (kvaddr._core.model.phi) in the same run: the fixed cost of a call that kvaddr.check's host reference
pays once per case (twice on the CPU path, with the host kernel).

    PYTHONPATH=build/python/package python3 python/bench/binding_speed.py [--calls 100000] [--routes a,b] [--json]

Each route's case is case 0 of seed 1 at --lanes lanes (kvaddr.cases.draw), called as kvaddr.conventions.reference
calls it (its inputs, scalars, outputs and variant by keyword); a case the route rejects is drawn again from the
next index.
"""
from __future__ import annotations

import argparse
import json
import time

import kvaddr
from kvaddr import _core
from kvaddr import cases as C
from kvaddr import route_tables


def call_of(route, lanes):
    """(the binding, its keyword arguments) of the first case of seed 1 that the route accepts."""
    fn = getattr(_core, route)
    for index in range(64):
        case = C.draw(route, 1, index, lanes)
        if case.adjacent or case.alias:
            continue
        kw = {k: v for k, v in case.inputs.items() if v is not None}
        kw.update(case.scalars)
        if route_tables.has_variant(route):
            kw["variant"] = "production"
        outs = {k: v.copy() for k, v in case.outputs.items()}
        if route in ("decode_metadata", "kv_indices_inplace"):
            kw.update(outs)
        else:
            kw["out"] = outs[next(iter(outs))]
        try:
            fn(**kw)
        except kvaddr.Error:
            continue
        return fn, kw
    raise SystemExit(f"{route}: no accepted case in 64 draws")


def per_call_us(fn, kw, calls):
    fn(**kw)
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(**kw)
    return 1e6 * (time.perf_counter() - t0) / calls


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=100_000)
    p.add_argument("--lanes", type=int, default=16)
    p.add_argument("--routes", default=",".join(C.ROUTES))
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    empty = per_call_us(_core.model.phi, {"x": 5, "page_size": 2, "multiplier": 3}, a.calls)
    rows = []
    for route in a.routes.split(","):
        fn, kw = call_of(route, a.lanes)
        us = per_call_us(fn, kw, a.calls)
        rows.append({"route": route, "us_per_call": us, "times_empty_call": us / empty})
    if a.json:
        print(json.dumps({"empty_call_us": empty, "routes": rows}))
        return 0
    print(f"a three-int binding call (model.phi): {empty:.2f} us")
    print(f"{'route':24} {'us/call':>8} {'x empty':>8}")
    for r in rows:
        print(f"{r['route']:24} {r['us_per_call']:8.2f} {r['times_empty_call']:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
