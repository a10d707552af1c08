#!/usr/bin/env python3
"""Fails when the project's C++ files include each other in a loop.

Reads every C++ source and header of the tree (.hpp .h .cpp .cu .cuh .inc .ipp, build folders and
.git left out) and its quoted includes: "kvaddr/..." resolves to <area>/include/kvaddr/..., any
other quoted name first next to the including file, then in the private folders (<area>/src,
<area>/include) where exactly one file of that path exists (a target's include directories).
System includes (<...>) and names that resolve to no project file are not edges. A loop, e.g.
contracts.hpp -> route_list.hpp -> routes/x.hpp -> route_spec.hpp -> contracts.hpp, compiles only
by #pragma once and include order; each strongly connected set of files is printed as one cycle
and the exit status is 1.

  python3 scripts/include_cycles.py [--root DIR]
"""
import argparse
import os
import re
import sys

EXTENSIONS = (".hpp", ".h", ".cpp", ".cu", ".cuh", ".inc", ".ipp")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def is_build_dir(path):
    return os.path.exists(os.path.join(path, "CMakeCache.txt"))


def project_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not d.startswith("build")
                             and not is_build_dir(os.path.join(dirpath, d)))
        for f in sorted(filenames):
            if f.endswith(EXTENSIONS):
                out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return out


def resolve(root, including, name, files, search_dirs):
    here = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if here in files:
        return here
    hits = [os.path.normpath(os.path.join(d, name)) for d in search_dirs]
    hits = [h for h in hits if h in files]
    if len(hits) > 1:  # prefer the including file's area
        area = including.split(os.sep)[0]
        hits = [h for h in hits if h.split(os.sep)[0] == area]
    return hits[0] if len(hits) == 1 else None


def search_dirs_of(files):
    """Every <...>/include and <...>/src folder holding a project file (the targets' include directories)."""
    dirs = set()
    for f in files:
        parts = f.split(os.sep)[:-1]
        for i, p in enumerate(parts):
            if p in ("include", "src"):
                dirs.add(os.sep.join(parts[:i + 1]))
    return sorted(dirs)


def include_graph(root):
    files = set(project_files(root))
    search_dirs = search_dirs_of(files)
    graph = {}
    for f in sorted(files):
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            names = INCLUDE.findall(fh.read())
        graph[f] = sorted({t for t in (resolve(root, f, n, files, search_dirs) for n in names) if t})
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; returns the sets of more than one file (or a file including itself)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, []))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in graph.get(node, []):
                    out.append(sorted(comp))
    return out


def one_cycle(graph, comp):
    """A shortest include path from the first file of the set back to itself, inside the set."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    frontier = [start]
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for nxt in graph.get(node, []):
                if nxt == start:
                    path = [node]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if nxt in members and nxt not in prev:
                    prev[nxt] = node
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    return comp


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    graph = include_graph(root)
    cycles = strongly_connected(graph)
    for comp in cycles:
        print("include cycle: " + " -> ".join(one_cycle(graph, comp)))
    edges = sum(len(v) for v in graph.values())
    print(f"{len(graph)} files, {edges} project includes, {len(cycles)} include cycle(s)")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
