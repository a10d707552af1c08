"""python3 -m kvaddr: command-line entry of the harness (docs/harness.md, "Command line").

    python3 -m kvaddr check --route read_table my_kernels:build_kv_read_table --cases 200 --seed 1
    python3 -m kvaddr check --route token_translate path/to/kernels.py:translate_v2p --device cuda --json
    python3 -m kvaddr --version [--json]

`--json` prints one JSON document with a "schema" field, as the `kvaddr` command does
(docs/cli-json.md): "kvaddr.check/1" (the report, Report.to_dict) and "kvaddr.version/1".

Exit status: 0 when the kernel passed, 1 when kvaddr.check found a failure, 2 for a usage error (an
unknown route, a kernel that cannot be imported, a bad option value).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pathlib
import sys

from . import __version__, check


def load_kernel(spec):
    """MODULE:FUNC (an importable module, or a path to a .py file) -> the callable FUNC (dotted names allowed)."""
    if ":" not in spec:
        raise ValueError(f"kernel = {spec!r}: expected MODULE:FUNC or FILE.py:FUNC")
    mod_name, func = spec.rsplit(":", 1)
    if mod_name.endswith(".py"):
        path = pathlib.Path(mod_name)
        if not path.is_file():
            raise ValueError(f"kernel = {spec!r}: no file {mod_name}")
        sys.path.insert(0, str(path.resolve().parent))
        loader = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(mod)
    else:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as e:
            raise ValueError(f"kernel = {spec!r}: cannot import {mod_name} ({e})") from None
    obj = mod
    for part in func.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"kernel = {spec!r}: {mod_name} has no attribute {func}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"kernel = {spec!r}: {func} is not callable")
    return obj


def parser():
    p = argparse.ArgumentParser(prog="python3 -m kvaddr", description="kvaddr's differential harness")
    p.add_argument("--version", action="store_true", help="print the version (with --json: a kvaddr.version/1 document)")
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="kvaddr.check ROUTE on a kernel given as MODULE:FUNC and print the report")
    c.add_argument("kernel", help="MODULE:FUNC or FILE.py:FUNC, called as kernel(**kwargs) in the route's convention")
    c.add_argument("--route", required=True, help="a harness route or an upstream kernel name (kvaddr.HARNESS_ROUTES)")
    c.add_argument("--cases", type=int, default=100)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--device", default="cpu", help="cpu or cuda")
    c.add_argument("--array", default=None, help="numpy, torch or cupy (default: numpy on cpu, torch on cuda)")
    c.add_argument("--variant", default="production", help="the behaviour the kernel claims")
    c.add_argument("--lanes", type=int, default=4096, help="upper bound of a case's size")
    c.add_argument("--overflow", default="observe", help="observe, wrap or skip (docs/harness.md)")
    c.add_argument("--graph", action="store_true", help="CUDA-graph mode (device cuda, torch)")
    c.add_argument("--replay-dir", default=None, help="write the failing case as a replay directory here")
    c.add_argument("--json", action="store_true", help="print the report as JSON (Report.to_dict)")
    c.add_argument("--shard", default="0/1", metavar="I/N", help="run the case indices k with k %% N == I")
    c.add_argument("--merge-json", action="store_true",
                   help="print Report.to_json (kvaddr.diff/1): the shards' reports join with kvaddr merge")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--version" in argv and all(a in ("--version", "--json") for a in argv):
        if "--json" in argv:
            print(json.dumps({"schema": "kvaddr.version/1", "version": __version__}))
        else:
            print(f"kvaddr {__version__}")
        return 0
    p = parser()
    args = p.parse_args(argv)
    if args.command is None:
        p.error("a command is required (check), or --version")
    try:
        i, _, n = args.shard.partition("/")
        try:
            shard = (int(i), int(n))
        except ValueError:
            raise ValueError(f"shard = {args.shard!r}: must be I/N") from None
        kernel = load_kernel(args.kernel)
        rep = check(args.route, kernel, cases=args.cases, seed=args.seed, device=args.device, array=args.array,
                    variant=args.variant, lanes=args.lanes, overflow=args.overflow, graph=args.graph,
                    replay_dir=args.replay_dir, shard=shard)
    except ValueError as e:
        print(f"python3 -m kvaddr check: {e}", file=sys.stderr)
        return 2
    if args.merge_json:
        print(json.dumps(rep.to_json(), indent=2))
    else:
        print(json.dumps({"schema": "kvaddr.check/1", **rep.to_dict()}, indent=2, default=str) if args.json else str(rep))
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
