#!/usr/bin/env python3
"""Parses every picture kvaddr produces with a real XML parser and checks its structure.

usage: check_svg.py KVADDR REPLAY_EXAMPLE_DIR

Each SVG must parse, have an <svg> root in the SVG namespace with positive width/height equal to
its viewBox, and every <rect>/<text>/<line> must lie inside the picture with finite coordinates.
Each picture's content is checked against what it shows (labels, highlighted lanes, cell states).
When rsvg-convert (librsvg2-bin) is installed, every picture is also rendered to PNG. The checker
first proves it rejects broken pictures.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_svg(path):
    """Returns (root, texts, rects) or raises ValueError naming the problem."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise ValueError(f"{path}: not well-formed XML: {e}")
    if root.tag != NS + "svg":
        raise ValueError(f"{path}: root is {root.tag}, not svg")
    w, h = float(root.get("width", "nan")), float(root.get("height", "nan"))
    if not (w > 0 and h > 0 and math.isfinite(w) and math.isfinite(h)):
        raise ValueError(f"{path}: bad size {w} x {h}")
    vb = [float(x) for x in root.get("viewBox", "").split()]
    if vb != [0, 0, w, h]:
        raise ValueError(f"{path}: viewBox {vb} does not match {w} x {h}")
    rects, texts = [], []
    for el in root.iter():
        tag = el.tag.replace(NS, "")
        if tag == "rect":
            x, y = float(el.get("x")), float(el.get("y"))
            rw, rh = float(el.get("width")), float(el.get("height"))
            if rw < 0 or rh < 0 or x < 0 or y < 0 or x + rw > w + 0.5 or y + rh > h + 0.5:
                raise ValueError(f"{path}: rect outside the picture: {el.attrib}")
            rects.append(el)
        elif tag == "text":
            x, y = float(el.get("x")), float(el.get("y"))
            if not (0 <= x <= w and 0 <= y <= h):
                raise ValueError(f"{path}: text outside the picture at {x},{y}: {el.text}")
            texts.append(el.text or "")
        elif tag == "line":
            for k in ("x1", "y1", "x2", "y2"):
                v = float(el.get(k))
                if not (0 <= v <= max(w, h)):
                    raise ValueError(f"{path}: line outside the picture: {el.attrib}")
        elif tag == "polyline":
            for pt in el.get("points").split():
                if not all(0 <= float(v) <= max(w, h) for v in pt.split(",")):
                    raise ValueError(f"{path}: arrow outside the picture: {el.attrib}")
    if len(rects) < 2 or not texts:
        raise ValueError(f"{path}: empty picture")
    if shutil.which("rsvg-convert"):
        png = path + ".png"
        r = subprocess.run(["rsvg-convert", "-o", png, path], capture_output=True, text=True)
        if r.returncode != 0 or os.path.getsize(png) == 0:
            raise ValueError(f"{path}: rsvg-convert failed: {r.stderr}")
    return root, texts, rects


def kvaddr(*args, status=0):
    r = subprocess.run([KVADDR, *args], capture_output=True, text=True)
    if r.returncode != status:
        fail(f"kvaddr {' '.join(args)} exited {r.returncode} (expected {status}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def self_test(tmp):
    good = os.path.join(tmp, "good.svg")
    kvaddr("draw", "pool", "--v2p", "0,1,-1", "--svg", good)
    check_svg(good)
    text = open(good).read()
    broken = {
        "truncated": text[: len(text) // 2],
        "unescaped": text.replace("P0 sink", "P0 <sink"),
        "outside": text.replace('<rect x="', '<rect x="99999', 1),
        "not svg": text.replace("<svg ", "<html ", 1).replace("</svg>", "</html>"),
    }
    for name, body in broken.items():
        p = os.path.join(tmp, f"broken-{name.replace(' ', '_')}.svg")
        open(p, "w").write(body)
        try:
            check_svg(p)
        except (ValueError, TypeError):
            continue
        fail(f"the checker accepted a broken picture ({name})")


def main():
    tmp = tempfile.mkdtemp(prefix="kvaddr_svg_")
    try:
        self_test(tmp)

        # A pool with a tombstone, the sentinel, two sub-pools and a compaction move.
        pool = os.path.join(tmp, "pool.svg")
        out = kvaddr("draw", "pool", "--page-size", "4", "--multiplier", "2", "--v2p", "0,3,-1,1,-1", "--after",
                     "0,1,-1,2,-1", "--v2p", "0,1,-1", "--after", "0,1,-1", "--name", "full", "--name", "swa",
                     "--svg", pool)
        if "moves P3 -> P1" not in out or "tombstone" not in out:
            fail("pool text misses the move or the tombstone:\n" + out)
        _, texts, _ = check_svg(pool)
        for label in ("P0 sink", "v2 tombstone", "v4 sentinel", "v1 -> P3", "v1 -> P1", "[24,28)", "[28,32)"):
            if label not in texts:
                fail(f"pool picture misses {label!r}: {texts}")
        root = ET.parse(pool).getroot()
        moves = [l for l in root.iter(NS + "polyline") if l.get("stroke") == "#e65100"]
        if len(moves) != 2:  # v1: P3 -> P1, v3: P1 -> P2
            fail(f"pool picture has {len(moves)} move arrows, expected 2")

        # The model's own compaction: freeing the first request (2 pages) moves the last two pages
        # into its holes.
        sim = os.path.join(tmp, "sim.svg")
        out = kvaddr("draw", "pool", "--simulate", "--page-size", "2", "--multiplier", "2", "--svg", sim)
        if "moves P5 -> P1" not in out or "moves P6 -> P2" not in out:
            fail("simulated compaction text misses its moves:\n" + out)
        root, texts, _ = check_svg(sim)
        if len([l for l in root.iter(NS + "polyline") if l.get("stroke") == "#e65100"]) != 2:
            fail("simulated compaction picture: expected 2 move arrows")

        # A route beside the reference: the differing lanes are highlighted, and only those.
        args = ["--route", "token_translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1",
                "--ids", "5,9,13,-1"]
        got = json.loads(kvaddr("translate", *args, "--variant", "b17_doc_formula", "--json"))["out"]
        ref = json.loads(kvaddr("translate", *args, "--json"))["out"]
        differing = sum(1 for a, b in zip(got, ref) if a != b)
        if differing == 0:
            fail("b17_doc_formula equals production on the chosen ids; pick others")
        route = os.path.join(tmp, "route.svg")
        kvaddr("draw", "route", *args, "--variant", "b17_doc_formula", "--svg", route)
        _, texts, rects = check_svg(route)
        red = [r for r in rects if r.get("fill") == "#ef9a9a" and float(r.get("width")) > 14]
        if len(red) != 2 * differing:  # each differing lane in both grids
            fail(f"route picture highlights {len(red)} cells, expected {2 * differing}")
        for v in got + ref:
            if str(v) not in texts:
                fail(f"route picture misses value {v}")

        # A table route: untouched lanes (the reference leaves the fill value) are shaded.
        table = os.path.join(tmp, "table.svg")
        kvaddr("draw", "route", "--route", "read_table", "--page-size", "2", "--multiplier", "3", "--v2p", "1,0,-1",
               "--req-to-token", "0,1,2,3;4,5,6,7", "--seq-lens", "3,1", "--max-pages", "2", "--svg", table)
        _, _, rects = check_svg(table)
        grey = [r for r in rects if r.get("fill") == "#e0e0e0" and float(r.get("width")) > 14]
        if len(grey) != 2:  # row 1 lane 1 (seq_len 1 -> one page), in both grids
            fail(f"table picture shades {len(grey)} cells, expected 2")

        # The kill matrix as a heat map.
        if "zoo" in kvaddr("--help"):
            zoo = os.path.join(tmp, "zoo.svg")
            out = kvaddr("draw", "zoo", "--only", "production", "--only", "b10_no_max_pages_bound", "--svg", zoo,
                         "--quiet")
            _, texts, rects = check_svg(zoo)
            if "production" not in texts or not any(t.startswith("b10_no_max_pages_bound") for t in texts):
                fail(f"zoo picture misses its rows: {texts}")
            states = {r.get("fill") for r in rects}
            if "#66bb6a" not in states:
                fail("zoo picture has no killed cell")

        # The proofs' verdicts.
        if "prove" in kvaddr("--help"):
            proofs = os.path.join(tmp, "proofs.svg")
            kvaddr("draw", "proofs", "--only", "I1.algebra", "--svg", proofs)
            _, texts, _ = check_svg(proofs)
            if "I1" not in texts or "algebra" not in texts:
                fail(f"proofs picture misses its verdict: {texts}")

        # replay --svg: one picture per differing call of the shipped example (two).
        if "replay" in kvaddr("--help"):
            d = os.path.join(tmp, "replay")
            kvaddr("replay", sys.argv[2], "--svg", d, status=1)
            pics = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
            if len(pics) != 2:
                fail(f"replay --svg wrote {pics}, expected two pictures")
            for p in pics:
                check_svg(os.path.join(d, p))

        # diff --svg on a forced bug variant (host only: no GPU needed).
        if "diff" in kvaddr("--help"):
            d = os.path.join(tmp, "diff")
            kvaddr("diff", "--host-only", "--cases", "5", "--seed", "1", "--force-variant", "e10_batch_index_rows",
                   "--force-route", "read_table", "--svg", d, status=1)
            check_svg(os.path.join(d, "first-mismatch.svg"))
        print("all pictures parse and show what they should")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    KVADDR = sys.argv[1]
    main()
