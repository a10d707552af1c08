"""python3 -m kvaddr: command-line entry of the harness (docs/harness.md, "Command line").

    python3 -m kvaddr check --route read_table my_kernels:build_kv_read_table --cases 200 --seed 1
    python3 -m kvaddr check --route token_translate path/to/kernels.py:translate_v2p --device cuda --json
    python3 -m kvaddr --version [--json]

`--json` prints one JSON document with a "schema" field, as the `kvaddr` command does
(docs/cli-json.md): "kvaddr.check/1" (the report, Report.to_dict), "kvaddr.version/1", and for every error
(exit 2) "kvaddr.error/1" on stdout: kind "usage" (argparse's errors), else the error's kind
("invalid_argument" for an unknown route, a kernel that cannot be imported, a bad option value), with the
argument and value it names.

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
from .check_args import invalid


def load_kernel(spec):
    """MODULE:FUNC (an importable module, or a path to a .py file) -> the callable FUNC (dotted names allowed)."""
    if ":" not in spec:
        raise invalid("kernel", repr(spec), "expected MODULE:FUNC or FILE.py:FUNC")
    mod_name, func = spec.rsplit(":", 1)
    if mod_name.endswith(".py"):
        path = pathlib.Path(mod_name)
        if not path.is_file():
            raise invalid("kernel", repr(spec), f"no file {mod_name}")
        sys.path.insert(0, str(path.resolve().parent))
        loader = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(mod)
    else:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as e:
            raise invalid("kernel", repr(spec), f"cannot import {mod_name} ({e})") from None
    obj = mod
    for part in func.split("."):
        if not hasattr(obj, part):
            raise invalid("kernel", repr(spec), f"{mod_name} has no attribute {func}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise invalid("kernel", repr(spec), f"{func} is not callable")
    return obj


def error_document(kind, message, argument=None, value=None):
    """The kvaddr.error/1 document of docs/cli-json.md (the kvaddr command's shape: keys sorted, one line)."""
    err = {"kind": kind, "message": message}
    if argument is not None:
        err.update(argument=argument, value=value)
    return json.dumps({"schema": "kvaddr.error/1", "ok": False, "error": err}, sort_keys=True)


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors, when the command line asks for --json, are a kvaddr.error/1 document of kind
    "usage" on stdout (exit 2) instead of the usage text on stderr."""

    json_errors = False

    def error(self, message):
        if _Parser.json_errors:
            print(error_document("usage", f"{self.prog}: {message}"))
            sys.exit(2)
        super().error(message)


def parser():
    p = _Parser(prog="python3 -m kvaddr", description="kvaddr's differential harness")
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
    as_json = "--json" in argv or "--merge-json" in argv
    _Parser.json_errors = as_json
    try:
        args = p.parse_args(argv)
    finally:
        _Parser.json_errors = False
    if args.command is None:
        p.error("a command is required (check), or --version")
    try:
        i, _, n = args.shard.partition("/")
        try:
            shard = (int(i), int(n))
        except ValueError:
            raise invalid("shard", repr(args.shard), "must be I/N") from None
        kernel = load_kernel(args.kernel)
        rep = check(args.route, kernel, cases=args.cases, seed=args.seed, device=args.device, array=args.array,
                    variant=args.variant, lanes=args.lanes, overflow=args.overflow, graph=args.graph,
                    replay_dir=args.replay_dir, shard=shard)
    except ValueError as e:  # kvaddr.InvalidArgument (a ValueError) and any other error of an argument's value
        if as_json:
            print(error_document(getattr(e, "kind", "invalid_argument"), str(e), getattr(e, "argument", None),
                                 getattr(e, "value", None)))
        else:
            print(f"python3 -m kvaddr check: {e}", file=sys.stderr)
        return 2
    if args.merge_json:
        print(json.dumps(rep.to_json(), indent=2))
    else:
        print(json.dumps({"schema": "kvaddr.check/1", **rep.to_dict()}, indent=2, default=str) if args.json else str(rep))
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
