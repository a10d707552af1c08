#!/usr/bin/env python3
"""Source-level mutation campaign for the layers the runtime hooks of translate/ cannot reach.

One textual mutation at a time is applied to a C++ source file of a layer (model/, the pool
simulator model/src/pool.cpp, the Z3 encodings of proofs/src), only the test binaries of that
layer are rebuilt with ninja, and the layer's tests run under a timeout. Each mutant ends as
killed (a test failed), survived (every test passed), build_failed (the mutant does not
compile) or timeout (build or tests ran past their limit).

The worktree is never edited: the tracked files are mirrored into BUILD_ROOT (default
build-mut/, ignored by git) and the mutations are applied to the mirror, so other builds of the
worktree cannot pick up a mutant. The mirror file is restored in a finally block after every
mutant and compared with the worktree at the end; the worktree is checked with `git diff
--quiet` on the mutated files. The mirror's build dir (BUILD_ROOT/build) sits at the same
relative place as build/, so ccache (base_dir = /work) reuses the worktree's objects.

Usage:
  scripts/mutate-source.py --per-layer 20 --seed 1 [--layers model,simulator,proofs]
      [--json build-mut/mutants.json] [--markdown build-mut/mutants.md] [--list]
  scripts/mutate-source.py --only model/src/formulas.cpp:42:rel_boundary:0   (re-run one mutant)

Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import dataclasses
import filecmp
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# ---- layers ------------------------------------------------------------------------------------
# files: sources mutated; targets: ninja targets rebuilt; tests: commands run from the build dir
# (any non-zero exit kills the mutant).
LAYERS = {
    "model": {
        "files": ["model/src/formulas.cpp", "model/src/geometry.cpp", "model/src/layout.cpp",
                  "model/src/tables.cpp", "model/src/wiring.cpp", "model/src/lifecycle.cpp",
                  "model/src/lifecycle_step.cpp", "model/src/lifecycle_check.cpp", "model/src/catalogue.cpp"],
        "targets": ["kvaddr_model_tests"],
        "tests": [["tests/kvaddr_model_tests", "--gtest_brief=1"]],
        "timeout": 120,
    },
    "simulator": {
        "files": ["model/src/pool.cpp"],
        "targets": ["kvaddr_model_tests", "kvaddr_props_tests"],
        "tests": [["tests/kvaddr_model_tests", "--gtest_brief=1"],
                  ["props/kvaddr_props_tests", "--gtest_brief=1", "--gtest_filter=PropsStateful.*"]],
        "timeout": 240,
    },
    "proofs": {
        "files": ["proofs/src/routes.cpp", "proofs/src/identities.cpp", "proofs/src/layout.cpp",
                  "proofs/src/lifecycle.cpp", "proofs/src/sym.cpp"],
        "targets": ["kvaddr_proofs_tests"],
        "tests": [["proofs/kvaddr_proofs_tests", "--gtest_brief=1"]],
        "timeout": 420,
    },
    # The route specs' row / columns / tail rules (host and device share them): judged by the host
    # route tests, which compare against model/.
    "specs": {
        "files": [f"translate/include/kvaddr/translate/routes/{r}.hpp" for r in (
            "canonical_page_table", "read_table", "flashmla_block_table", "full_prefill_table",
            "decode_metadata", "write_loc", "kv_indices_inplace", "shared_rules")],
        "targets": ["kvaddr_translate_tests", "kvaddr_regression_tests"],
        "tests": [["tests/kvaddr_translate_tests", "--gtest_brief=1"],
                  ["tests/kvaddr_regression_tests", "--gtest_brief=1"]],
        "timeout": 240,
    },
    # The CUDA kernels: judged by the GPU tests and a differential campaign, so this layer needs a
    # GPU (without one the GPU tests skip and every mutant would survive; the layer is refused).
    "kernels": {
        "files": ["kernels/src/kernel_common.cuh", "kernels/src/kernel_stream.cuh", "kernels/src/kernels_per_id.cu",
                  "kernels/src/kernels_rows.cu"],
        "targets": ["kvaddr_gpu_tests", "kvaddr"],
        "tests": [["tests/kvaddr_gpu_tests", "--gtest_brief=1"],
                  ["kvaddr", "diff", "--cases", "200", "--seed", "7"]],
        "timeout": 600,
        "requires_gpu": True,
    },
}


def have_gpu() -> bool:
    """True when nvidia-smi lists at least one GPU."""
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0 and "GPU" in r.stdout

# ---- mutation operators --------------------------------------------------------------------------
# Each operator is (name, regex, replacement function). Patterns are matched on the code part of a
# line with string literals and comments masked, so a mutation never lands inside either.
_SWAP = {"+": "-", "-": "+", "<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
         "std::max": "std::min", "std::min": "std::max", "&&": "||", "||": "&&"}

OPERATORS = [
    # binary + / - between operands (spaces on both sides; unary minus and ++/-- are not matched)
    ("arith_swap", re.compile(r"(?<=[\w)\]] )([+-])(?= [\w(])"), lambda m: _SWAP[m.group(1)]),
    # relational boundary: < <-> <=, > <-> >= (spaces on both sides: not templates, shifts, ->)
    ("rel_boundary", re.compile(r"(?<= )(<=|>=|<|>)(?= )"), lambda m: _SWAP[m.group(1)]),
    ("eq_negate", re.compile(r"(?<= )(==|!=)(?= )"), lambda m: _SWAP[m.group(1)]),
    # drop an off-by-one term: `x - 1` -> `x`, `x + 1` -> `x`
    ("drop_one", re.compile(r" [+-] 1(?![\w.'])"), lambda m: ""),
    ("minmax_swap", re.compile(r"\bstd::(max|min)\b"), lambda m: _SWAP["std::" + m.group(1)]),
    # 0 <-> 1 on the right of a comparison
    ("cmp_const", re.compile(r"((?:==|!=|<=|>=|[<>]) )([01])(?![\w.'])"),
     lambda m: m.group(1) + ("1" if m.group(2) == "0" else "0")),
    ("logic_swap", re.compile(r"(?<= )(&&|\|\|)(?= )"), lambda m: _SWAP[m.group(1)]),
    # a throw statement made inert: the exception object is built and discarded
    ("drop_throw", re.compile(r"\bthrow (?=\w)"), lambda m: "(void)"),
    # a validation call made vacuous: require(cond, ...) -> require(true || (cond), ...)
    ("skip_require", re.compile(r"\b((?:rule_)?require(?:_size)?)\((?!\))"), lambda m: m.group(1) + "(true || "),
]


@dataclasses.dataclass(frozen=True)
class Mutant:
    layer: str
    path: str      # relative to the repository root
    line: int      # 1-based
    op: str
    index: int     # which match of `op` on that line (0-based)
    original: str
    mutated: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.op}:{self.index}"


def mask_code(line: str, in_block_comment: bool) -> tuple[str, bool]:
    """Returns the line with comments and string / char literals replaced by spaces (same length)."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if in_block_comment:
            end = line.find("*/", i)
            if end < 0:
                out.append(" " * (n - i))
                i = n
            else:
                out.append(" " * (end + 2 - i))
                i = end + 2
                in_block_comment = False
            continue
        c = line[i]
        if line.startswith("//", i):
            out.append(" " * (n - i))
            break
        if line.startswith("/*", i):
            in_block_comment = True
            out.append("  ")
            i += 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)[:n], in_block_comment


def mutants_of_text(text: str, path: str = "<text>", layer: str = "-") -> list[Mutant]:
    """Every single-site mutant of a C++ source text, in file order."""
    result = []
    in_block = False
    for lineno, line in enumerate(text.split("\n"), start=1):
        code, in_block = mask_code(line, in_block)
        stripped = code.strip()
        if not stripped or stripped.startswith("#") or "static_assert" in code:
            continue
        for name, rx, repl in OPERATORS:
            for idx, m in enumerate(rx.finditer(code)):
                new = line[:m.start()] + repl(m) + line[m.end():]
                if new != line:
                    result.append(Mutant(layer, path, lineno, name, idx, line, new))
    return result


def apply_mutant(text: str, mu: Mutant) -> str:
    lines = text.split("\n")
    if lines[mu.line - 1] != mu.original:
        raise RuntimeError(f"{mu.key}: line changed since the mutants were listed")
    lines[mu.line - 1] = mu.mutated
    return "\n".join(lines)


def all_mutants(layers: list[str]) -> list[Mutant]:
    out = []
    for layer in layers:
        for f in LAYERS[layer]["files"]:
            out.extend(mutants_of_text((ROOT / f).read_text(), f, layer))
    return out


def sample(mutants: list[Mutant], layer: str, n: int, seed: int) -> list[Mutant]:
    pool = sorted((m for m in mutants if m.layer == layer), key=lambda m: m.key)
    rng = random.Random(f"{seed}:{layer}")
    return pool if n <= 0 or n >= len(pool) else sorted(rng.sample(pool, n), key=lambda m: m.key)


# ---- mirror and build ------------------------------------------------------------------------
def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                         capture_output=True).stdout.decode()
    return [p for p in out.split("\0") if p]


def sync_mirror(mirror: Path) -> None:
    """Copies the worktree's files into the mirror, touching only files whose content differs."""
    for rel in tracked_files():
        src, dst = ROOT / rel, mirror / rel
        if not src.is_file():
            continue
        if dst.is_file() and filecmp.cmp(src, dst, shallow=False):
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def configure(mirror: Path, build: Path) -> None:
    if (build / "build.ninja").is_file():
        return
    subprocess.run(["cmake", "-S", str(mirror), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                    "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"], check=True, stdout=subprocess.DEVNULL)


def run(cmd: list[str], cwd: Path, timeout: float) -> tuple[str, int, str]:
    """('ok' | 'fail' | 'timeout', rc, tail of output)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", -1, ""
    tail = p.stdout.decode(errors="replace")[-600:]
    return ("ok" if p.returncode == 0 else "fail"), p.returncode, tail


def build(build_dir: Path, targets: list[str], jobs: int, timeout: float) -> tuple[str, int, str]:
    return run(["ninja", "-C", str(build_dir), f"-j{jobs}", *targets], build_dir, timeout)


def run_mutant(mu: Mutant, mirror: Path, build_dir: Path, jobs: int, build_timeout: float) -> dict:
    layer = LAYERS[mu.layer]
    target = mirror / mu.path
    original = target.read_bytes()
    t0 = time.monotonic()
    status, killer = "survived", ""
    try:
        target.write_text(apply_mutant(original.decode(), mu))
        b, _, tail = build(build_dir, layer["targets"], jobs, build_timeout)
        if b == "timeout":
            status = "timeout"
            killer = "build"
        elif b == "fail":
            status, killer = "build_failed", tail.strip().splitlines()[-1] if tail.strip() else ""
        else:
            for cmd in layer["tests"]:
                r, rc, tail = run([str(build_dir / cmd[0]), *cmd[1:]], build_dir, layer["timeout"])
                if r == "timeout":
                    status, killer = "timeout", Path(cmd[0]).name
                    break
                if r == "fail":
                    failed = re.findall(r"\[  FAILED  \] (\S+)", tail)
                    status = "killed"
                    killer = f"{Path(cmd[0]).name}" + (f" ({failed[0]})" if failed else f" (exit {rc})")
                    break
    finally:
        target.write_bytes(original)
    return {"layer": mu.layer, "file": mu.path, "line": mu.line, "op": mu.op, "index": mu.index, "key": mu.key,
            "original": mu.original.strip(), "mutated": mu.mutated.strip(), "status": status, "killer": killer,
            "seconds": round(time.monotonic() - t0, 1)}


def score(results: list[dict]) -> dict:
    per = {}
    for r in results:
        s = per.setdefault(r["layer"], {"mutants": 0, "killed": 0, "survived": 0, "build_failed": 0, "timeout": 0})
        s["mutants"] += 1
        s[r["status"]] += 1
    for s in per.values():
        valid = s["killed"] + s["survived"] + s["timeout"]
        # timeouts count as killed (the mutant changed behaviour enough to hang a test)
        s["score"] = round(100.0 * (s["killed"] + s["timeout"]) / valid, 1) if valid else None
    return per


def markdown(results: list[dict], summary: dict, args: argparse.Namespace) -> str:
    lines = ["# Source-level mutation campaign", "",
             f"`scripts/mutate-source.py --per-layer {args.per_layer} --seed {args.seed} --layers {args.layers}`", "",
             "| layer | mutants | killed | survived | build failed | timeout | score (killed+timeout)/(compiled) |",
             "|---|---|---|---|---|---|---|"]
    for layer, s in summary.items():
        sc = "-" if s["score"] is None else f"{s['score']}%"
        lines.append(f"| {layer} | {s['mutants']} | {s['killed']} | {s['survived']} | {s['build_failed']} | "
                     f"{s['timeout']} | {sc} |")
    lines += ["", "## Survivors", "", "| layer | file:line | operator | original | mutated |", "|---|---|---|---|---|"]
    for r in results:
        if r["status"] == "survived":
            lines.append(f"| {r['layer']} | {r['file']}:{r['line']} | {r['op']} | `{r['original']}` | `{r['mutated']}` |")
    lines += ["", "## All mutants", "", "| key | status | killer | s |", "|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['key']} | {r['status']} | {r['killer'].replace('|', '/')} | {r['seconds']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", default="model,simulator,proofs")
    ap.add_argument("--per-layer", type=int, default=15, help="mutants sampled per layer (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", action="append", default=[], help="run the mutant with this key (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the sampled mutants and exit")
    ap.add_argument("--build-root", default=str(ROOT / "build-mut"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--build-timeout", type=float, default=600)
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args(argv)
    layers = [x for x in args.layers.split(",") if x]
    for layer in layers:
        if layer not in LAYERS:
            ap.error(f"unknown layer {layer!r} (known: {', '.join(LAYERS)})")
        if LAYERS[layer].get("requires_gpu") and not args.list and not have_gpu():
            ap.error(f"layer {layer!r} needs a GPU (its tests skip without one, so no mutant could be killed)")

    everything = all_mutants(layers)
    if args.only:
        by_key = {m.key: m for m in everything}
        missing = [k for k in args.only if k not in by_key]
        if missing:
            ap.error(f"no such mutant: {', '.join(missing)}")
        chosen = [by_key[k] for k in args.only]
    else:
        chosen = [m for layer in layers for m in sample(everything, layer, args.per_layer, args.seed)]
    if args.list:
        for m in chosen:
            print(f"{m.key}\t{m.original.strip()}  ->  {m.mutated.strip()}")
        print(f"{len(chosen)} of {len(everything)} mutants", file=sys.stderr)
        return 0

    mirror = Path(args.build_root).resolve()
    build_dir = mirror / "build"
    mirror.mkdir(parents=True, exist_ok=True)
    sync_mirror(mirror)
    configure(mirror, build_dir)
    targets = sorted({t for layer in layers for t in LAYERS[layer]["targets"]})
    b, _, tail = build(build_dir, targets, args.jobs, 3600)
    if b != "ok":
        print("the unmutated tree does not build:\n" + tail, file=sys.stderr)
        return 2
    for layer in layers:  # the tests must pass on the unmutated tree, else nothing is measured
        for cmd in LAYERS[layer]["tests"]:
            r, _, tail = run([str(build_dir / cmd[0]), *cmd[1:]], build_dir, LAYERS[layer]["timeout"])
            if r != "ok":
                print(f"{layer}: {cmd[0]} fails on the unmutated tree:\n{tail}", file=sys.stderr)
                return 2

    results = []
    try:
        for i, mu in enumerate(chosen, 1):
            r = run_mutant(mu, mirror, build_dir, args.jobs, args.build_timeout)
            results.append(r)
            print(f"[{i}/{len(chosen)}] {r['key']}: {r['status']} {r['killer']} ({r['seconds']} s)", flush=True)
    finally:
        # Every mirrored file is back to the worktree's content, and the worktree was not touched.
        files = sorted({m.path for m in chosen})
        dirty = [f for f in files if not filecmp.cmp(ROOT / f, mirror / f, shallow=False)]
        wt = subprocess.run(["git", "diff", "--quiet", "--", *files], cwd=ROOT).returncode
        if dirty or wt != 0:
            print(f"RESTORE FAILED: mirror differs in {dirty}, git diff rc {wt}", file=sys.stderr)
        # leave the mirror's binaries built from the unmutated sources
        build(build_dir, targets, args.jobs, 3600)
    summary = score(results)
    doc = {"seed": args.seed, "per_layer": args.per_layer, "layers": layers,
           "candidates": {layer: sum(1 for m in everything if m.layer == layer) for layer in layers},
           "summary": summary, "mutants": results}
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(markdown(results, summary, args))
    for layer, s in summary.items():
        print(f"{layer}: {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
