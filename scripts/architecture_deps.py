#!/usr/bin/env python3
"""The dependency table of docs/architecture.md, generated from the CMake targets.

    scripts/architecture_deps.py --build-dir build --write   # regenerate the table in docs/architecture.md
    scripts/architecture_deps.py --build-dir build --check   # exit 1 when the doc's table differs (ctest docs)
    scripts/architecture_deps.py --dot deps.dot              # print the table from a `cmake --graphviz` file

The graph is CMake's own (`cmake --graphviz`, every target_link_libraries edge, PRIVATE included); a
library's folder is the folder whose CMakeLists.txt declares it. Each row: the library, its folder, the
project libraries it links directly, the external ones, and the project libraries it never reaches (not in
its transitive link closure). Libraries the configuration did not build (no CUDA, no Z3, ...) are absent
from the graph; --check then skips (exit 77): the table describes the full configuration.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- deps:begin (scripts/architecture_deps.py --write) -->", "<!-- deps:end -->"
# Targets that carry build settings, not code.
SETTINGS = {"kvaddr_warnings"}
# The consumers at the top (the command line and the Python extensions): no library reaches them, which
# --check enforces; the "never reaches" column lists the other libraries.
CONSUMERS = {"kvaddr_cli_lib", "kvaddr_python", "kvaddr_python_gpu", "kvaddr_graph_fast"}
EXTERNAL = [  # (label prefix in the graph, name in the table)
    ("CLI11::", "CLI11"), ("fmt::", "fmt"), ("PkgConfig::Z3", "Z3"), ("/usr/lib/x86_64-linux-gnu/libz3", "Z3"),
    ("rapidcheck", "RapidCheck"), ("nlohmann_json::", "nlohmann_json"), ("pybind11::", "pybind11"),
    ("Python3::", "Python"), ("CUDA::", "CUDA runtime"), ("Threads::", "Threads"), ("benchmark::", "Google Benchmark"),
    ("GTest::", "GoogleTest"),
]
LIBRARY_SHAPES = {"octagon", "doubleoctagon", "tripleoctagon", "pentagon", "hexagon"}
DECLARE = re.compile(r"^\s*(?:add_library|kvaddr_area_library|pybind11_add_module)\(\s*(kvaddr_[A-Za-z0-9_]+)", re.M)


def folders():
    """{library target: the folder whose CMakeLists.txt declares it}."""
    out = {}
    for f in sorted(ROOT.glob("**/CMakeLists.txt")):
        rel = f.relative_to(ROOT)
        if rel.parts[0].startswith("build") or rel.parts[0].startswith("."):
            continue
        for name in DECLARE.findall(f.read_text()):
            out.setdefault(name, "/".join(rel.parts[:-1]) + "/" if len(rel.parts) > 1 else "./")
    return out


def parse_dot(text):
    """(libraries {target: shape}, edges {target: [label, ...]}) of a `cmake --graphviz` file."""
    labels, shapes, edges = {}, {}, {}
    for m in re.finditer(r'"(node\d+)" \[ label = "([^"]*)", shape = (\w+)', text):
        labels[m.group(1)] = m.group(2).split("\\n")[0]
        shapes[m.group(1)] = m.group(3)
    for m in re.finditer(r'"(node\d+)" -> "(node\d+)"', text):
        edges.setdefault(labels[m.group(1)], []).append(labels[m.group(2)])
    libs = {labels[n]: s for n, s in shapes.items()
            if s in LIBRARY_SHAPES and labels[n].startswith("kvaddr_") and labels[n] not in SETTINGS}
    return libs, {k: sorted(set(v)) for k, v in edges.items()}


def external_name(label):
    for prefix, name in EXTERNAL:
        if label.startswith(prefix):
            return name
    return label


def closure(libs, edges, t):
    """The project libraries `t` reaches through its links, directly or not."""
    seen, todo = set(), [t]
    while todo:
        for d in edges.get(todo.pop(), []):
            if d in libs and d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def rows(dot_text):
    libs, edges = parse_dot(dot_text)
    where = folders()
    out = {}
    for t in sorted(libs, key=lambda x: (where.get(x, "~"), x)):
        direct = edges.get(t, [])
        project = [d for d in direct if d in libs]
        external = sorted({external_name(d) for d in direct if d not in libs and d not in SETTINGS})
        never = sorted(set(libs) - closure(libs, edges, t) - {t} - CONSUMERS)
        out[t] = (f"`{t}`", where.get(t, "?"), ", ".join(f"`{d}`" for d in project) or "—",
                  ", ".join(external) or "—", ", ".join(f"`{d}`" for d in never) or "—")
    return out


def consumer_violations(dot_text):
    """Libraries other than the consumers that reach a consumer."""
    libs, edges = parse_dot(dot_text)
    bad = []
    for t in libs:
        if t in CONSUMERS:
            continue
        bad += [f"{t} reaches the consumer {c}" for c in sorted(closure(libs, edges, t) & CONSUMERS)]
    return bad


def table(rs):
    head = ["| library | folder | links (project) | links (external) | never reaches |", "|---|---|---|---|---|"]
    return "\n".join(head + ["| " + " | ".join(r) + " |" for r in rs.values()])


def doc_rows(text):
    body = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    out = {}
    for line in body.strip().splitlines()[2:]:
        cells = tuple(c.strip() for c in line.strip().strip("|").split("|"))
        out[cells[0].strip("`")] = cells
    return out


def graphviz(build_dir):
    with tempfile.TemporaryDirectory() as tmp:
        dot = pathlib.Path(tmp) / "deps.dot"
        subprocess.run(["cmake", f"--graphviz={dot}", "."], cwd=build_dir, check=True, stdout=subprocess.DEVNULL)
        return dot.read_text()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--build-dir", type=pathlib.Path, help="a configured build directory of this tree")
    src.add_argument("--dot", type=pathlib.Path, help="a `cmake --graphviz` file")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the table in docs/architecture.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when the doc's table differs from the targets")
    p.add_argument("--doc", type=pathlib.Path, default=DOC)
    a = p.parse_args(argv)
    text = a.dot.read_text() if a.dot else graphviz(a.build_dir)
    rs = rows(text)
    if not rs:
        print("architecture_deps: no kvaddr library in the graph", file=sys.stderr)
        return 2
    doc = a.doc.read_text()
    if a.write:
        start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        a.doc.write_text(doc[:start] + "\n" + table(rs) + "\n" + doc[end:])
        print(f"architecture_deps: {len(rs)} libraries written to {a.doc}")
        return 0
    if a.check:
        have = doc_rows(doc)
        bad = [f"{t}: targets say {r}, the doc says {have.get(t)}" for t, r in rs.items() if have.get(t) != r]
        bad += consumer_violations(text)
        absent = sorted(set(have) - set(rs))
        if absent:  # a partial configuration links its libraries otherwise: the table is the full one's
            print(f"architecture_deps: skipped, this configuration does not build {', '.join(absent)}")
            return 77
        if bad:
            print("architecture_deps: docs/architecture.md's table differs from the CMake targets "
                  "(run scripts/architecture_deps.py --build-dir <build> --write):\n  " + "\n  ".join(bad))
            return 1
        print(f"architecture_deps: {len(rs)} libraries agree with docs/architecture.md")
        return 0
    print(table(rs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
