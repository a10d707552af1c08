"""Microseconds per case of eager mode's recipe draw (kvaddr.cases.draw_recipe), per route, split into its parts:
the C++ draw with its conversion to a dict of numpy arrays (kvaddr._core's Rng.recipe, gen/recipe.hpp) and the
adjacent-layout pick (kvaddr.adjacent.draw, which builds the case of the ~1/6 of recipes drawn with a layout).

    PYTHONPATH=build/python/package python3 python/bench/recipe_speed.py [--routes read_table,write_loc]
        [--lanes 4096] [--seed 1] [--cases 2000] [--repeats 5]

Each column is the median over --repeats passes over cases 0 .. --cases - 1 (the machine's noise shows in the
spread, printed as min-max of the full draw).
"""
from __future__ import annotations

import argparse
import statistics
import time

from kvaddr import adjacent
from kvaddr import cases as C

ROUTES = ("read_table", "decode_metadata", "canonical_page_table", "flashmla_block_table", "token_translate",
          "write_loc")


def _per_case(fn, items):
    t = time.perf_counter()
    for x in items:
        fn(x)
    return 1e6 * (time.perf_counter() - t) / max(len(items), 1)


def measure(route, lanes, seed, cases, repeats):
    """{full, core, adjacent: median us/case; spread: (min, max) of full; share: cases given a layout}."""
    idx = range(cases)
    full, core, adj = [], [], []
    drawn = [C.rng_for(seed, i).recipe(route, lanes) for i in idx]
    picks = [(r.pop("adjacent_pool"), r.pop("adjacent_pick"), r) for r in drawn]
    for _ in range(repeats):
        full.append(_per_case(lambda i: C.draw_recipe(route, C.rng_for(seed, i), lanes), idx))
        core.append(_per_case(lambda i: C.rng_for(seed, i).recipe(route, lanes), idx))
        adj.append(_per_case(lambda p: adjacent.draw(route, p[0], p[1], p[2], C._build), picks))
    share = sum(adjacent.draw(route, k, pick, r, C._build) is not None for k, pick, r in picks) / max(cases, 1)
    return {"full": statistics.median(full), "core": statistics.median(core), "adjacent": statistics.median(adj),
            "spread": (min(full), max(full)), "share": share}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--routes", default=",".join(ROUTES))
    p.add_argument("--lanes", type=int, default=4096)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args(argv)
    print(f"lanes = {a.lanes}, seed {a.seed}, cases 0..{a.cases - 1}, median of {a.repeats} passes, us/case")
    print(f"{'route':22} {'draw_recipe':>11} {'(min-max)':>13} {'_core draw':>10} {'adjacent':>9} {'layouts':>8}")
    for route in a.routes.split(","):
        m = measure(route, a.lanes, a.seed, a.cases, a.repeats)
        lo, hi = m["spread"]
        print(f"{route:22} {m['full']:>11.1f} {f'{lo:.1f}-{hi:.1f}':>13} {m['core']:>10.1f} {m['adjacent']:>9.1f} "
              f"{m['share']:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
