#!/usr/bin/env python3
"""The layers of the Python package python/kvaddr, and the check that its imports respect them.

    scripts/python_layers.py                        # check python/kvaddr; exit 1 with one line per finding
    scripts/python_layers.py --package DIR          # check another copy of the package (the tests plant faults)
    scripts/python_layers.py --write                # regenerate the layer table of docs/architecture.md
    scripts/python_layers.py --check-doc            # also fail when docs/architecture.md's table differs

LAYERS below is the one statement of the order (bottom first). A module may import only modules of lower
layers, at module level: the check fails on a module missing from LAYERS (or listed but absent), on an
import of the same or a higher layer (which is what any import cycle needs), on an import cycle, and on a
sibling import inside a function or class body (the usual way to hide a cycle; FUNCTION_LEVEL_ALLOWED lists
the exceptions, none today). Sibling imports are the relative ones (``from . import x``, ``from .x import
y``) and the absolute ones of ``kvaddr``; ``from . import name`` of a name that is no module imports the
package's ``__init__``.
"""
from __future__ import annotations

import argparse
import ast
import pathlib
import sys

from include_cycles import strongly_connected  # one cycle finder for C++ includes and Python imports

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "kvaddr"
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- pylayers:begin (scripts/python_layers.py --write) -->", "<!-- pylayers:end -->"
PACKAGE_NAME = "kvaddr"

# (layer, modules, what they hold), bottom first.
LAYERS = (
    ("extensions", ("_core", "_gpu"), "the compiled bindings (python/src): route list, host routes, model, "
                                      "replay; kvaddr's CUDA launchers"),
    ("base", ("arrays", "buffers", "guards", "route_tables", "scalars", "upstream"),
     "array families, guarded buffers and their Lane, page-guarded host memory, the per-route tables, int64 "
     "argument errors, the upstream call forms"),
    ("layouts", ("adjacent",), "arguments as slices of one allocation"),
    ("cases", ("cases",), "seeded recipes and the Case each builds"),
    ("conventions", ("conventions", "shrink"), "calling conventions and host references; shrinking recipes"),
    ("engine binding", ("gpu", "overflow"), "kvaddr's CUDA kernels; overflow cases"),
    ("references", ("device_ref", "present"), "the device reference; a case presented to a kernel"),
    ("harness parts", ("check_args", "contract", "isolate", "report"), "check's argument validation, the wrapper's "
                                                                        "contract, the kernel in a worker process, "
                                                                        "the report and the registry of the layers "
                                                                        "above the harness"),
    ("harness", ("harness",), "run_case, run_recipe, check"),
    ("front ends", ("graph_fast", "huge", "record", "strategies"), "graph mode's fast loop, the huge case, replay "
                                                                   "directories, Hypothesis strategies"),
    ("graph mode", ("graph",), "graph mode's campaign"),
    ("package", ("__init__",), "the public names of kvaddr"),
    ("command line", ("__main__",), "python3 -m kvaddr"),
)
COMPILED = {"_core", "_gpu"}  # extension modules: no .py file to read
# "module.py:line imports target" findings accepted for a sibling import inside a function (none).
FUNCTION_LEVEL_ALLOWED = frozenset()


def layer_of():
    return {m: i for i, (_, mods, _) in enumerate(LAYERS) for m in mods}


def _targets(node, mods):
    """The sibling modules an import node names (empty for a foreign import)."""
    if isinstance(node, ast.ImportFrom):
        if node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0] == PACKAGE_NAME):
            sub = (node.module or "") if node.level == 1 else (node.module or "")[len(PACKAGE_NAME) + 1:]
            if sub:
                return [sub.split(".")[0]]
            return [a.name if a.name in mods else "__init__" for a in node.names]
        return []
    if isinstance(node, ast.Import):
        out = []
        for a in node.names:
            parts = a.name.split(".")
            if parts[0] == PACKAGE_NAME:
                out.append(parts[1] if len(parts) > 1 else "__init__")
        return out
    return []


def imports(package):
    """{module: [(target, line, top_level)]} over every .py file of `package`."""
    files = sorted(pathlib.Path(package).glob("*.py"))
    mods = {f.stem for f in files} | COMPILED
    found = {}
    for f in files:
        tree = ast.parse(f.read_text(), str(f))
        rows = []

        def walk(node, nested):
            for child in ast.iter_child_nodes(node):
                inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
                for t in _targets(child, mods):
                    rows.append((t, child.lineno, not nested))
                walk(child, inner)

        walk(tree, False)
        found[f.stem] = rows
    return found


def check(package):
    """(findings, summary): one text per finding."""
    found = imports(package)
    rank = layer_of()
    names = [LAYERS[i][0] for i in range(len(LAYERS))]
    findings = []
    for m in sorted(found):
        if m not in rank:
            findings.append(f"{m}.py: not in the layer table (scripts/python_layers.py LAYERS): place it in a layer")
    for m in sorted(rank):
        if m not in found and m not in COMPILED:
            findings.append(f"{m}: in the layer table but no {m}.py in {package}")
    edges, inner = {}, 0
    for m, rows in sorted(found.items()):
        for t, line, top in rows:
            where = f"{m}.py:{line}"
            if t not in rank and t not in found:
                findings.append(f"{where} imports {t}, which is no module of the package")
                continue
            if not top:
                inner += 1
                if f"{where} imports {t}" not in FUNCTION_LEVEL_ALLOWED:
                    findings.append(f"{where} imports {t} inside a function or class (imports go at module level)")
            edges.setdefault(m, set()).add(t)
            if m in rank and t in rank and rank[t] >= rank[m]:
                findings.append(f"{where} imports {t} (layer {names[rank[t]]}), not below {m} (layer "
                                f"{names[rank[m]]}): a module imports only modules of lower layers")
    loops = strongly_connected({m: sorted(t) for m, t in edges.items()})
    findings += ["import cycle: " + " <-> ".join(c) for c in loops]
    n_edges = sum(len(v) for v in edges.values())
    summary = (f"{len(found)} modules in {len(LAYERS)} layers, {n_edges} sibling imports, {len(loops)} cycles, "
               f"{inner} function-level sibling imports, {len(findings)} findings")
    return findings, summary, edges


def table(edges):
    """The layer table of docs/architecture.md (top layer first, as the stack reads)."""
    rank = layer_of()
    rows = ["| layer | modules | imports (lower layers only) | holds |", "|---|---|---|---|"]
    for i in reversed(range(len(LAYERS))):
        name, mods, what = LAYERS[i]
        used = sorted({t for m in mods for t in edges.get(m, ())}, key=lambda t: (-rank.get(t, -1), t))
        rows.append(f"| {i} {name} | {', '.join(f'`{m}`' for m in mods)} | "
                    f"{', '.join(f'`{t}`' for t in used) or '—'} | {what} |")
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--package", default=str(PACKAGE), help="the package directory (default python/kvaddr)")
    ap.add_argument("--doc", default=str(DOC), help="the document holding the layer table")
    ap.add_argument("--write", action="store_true", help="rewrite the layer table in --doc")
    ap.add_argument("--check-doc", action="store_true", help="fail when the table in --doc differs")
    args = ap.parse_args(argv)
    findings, summary, edges = check(args.package)
    for f in findings:
        print(f)
    print(summary)
    rc = 1 if findings else 0
    if args.write or args.check_doc:
        doc = pathlib.Path(args.doc)
        text = doc.read_text()
        if BEGIN not in text or END not in text:
            print(f"{doc}: no {BEGIN} ... {END} block")
            return 1
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        new = f"{head}{BEGIN}\n{table(edges)}\n{END}{tail}"
        if args.write:
            doc.write_text(new)
        elif new != text:
            print(f"{doc}: the Python layer table differs from the package; run scripts/python_layers.py --write")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
