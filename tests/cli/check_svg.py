#!/usr/bin/env python3
"""Parses every picture kvaddr produces with a real XML parser and checks its structure and layout.

usage: check_svg.py KVADDR REPLAY_EXAMPLE_DIR

Each SVG must parse, have an <svg> root in the SVG namespace with positive width/height equal to
its viewBox, and every <rect>/<text>/<line>/<polyline> must lie inside the picture with finite
coordinates. Its layout must be legible: no two labels overlap (each label's box from its x, y,
font-size, text-anchor and length: the pictures use a monospace font whose advance is at most
CHAR_EM of the font size), a label that starts inside a box stays inside it, and no arrow (line
or polyline) runs through the inside of a box. Each picture starts with a comment recording what
made it (the command line and its inputs, as JSON). Each picture's content is checked against
what it shows (labels, highlighted lanes, cell states). When rsvg-convert (librsvg2-bin) is
installed, every picture is rendered to PNG, which must be non-empty and not of one colour. The
checker first proves it rejects broken pictures.
"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
CHAR_EM = 0.62  # draw/'s kCharEm: DejaVu Sans Mono advances 0.602 em
ASCENT, DESCENT = 0.8, 0.25  # of the font size, above and below the baseline
EPS = 0.01
RSVG = shutil.which("rsvg-convert")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def text_box(el):
    """(x0, y0, x1, y1) of a <text> element."""
    x, y, size = float(el.get("x")), float(el.get("y")), float(el.get("font-size"))
    w = len(el.text or "") * size * CHAR_EM
    anchor = el.get("text-anchor", "start")
    x0 = x if anchor == "start" else (x - w / 2 if anchor == "middle" else x - w)
    return (x0, y - ASCENT * size, x0 + w, y + DESCENT * size)


def rect_box(el):
    x, y = float(el.get("x")), float(el.get("y"))
    return (x, y, x + float(el.get("width")), y + float(el.get("height")))


def overlap(a, b):
    return a[0] < b[2] - EPS and b[0] < a[2] - EPS and a[1] < b[3] - EPS and b[1] < a[3] - EPS


def inside(inner, outer, tol=0.5):
    return (inner[0] >= outer[0] - tol and inner[1] >= outer[1] - tol and inner[2] <= outer[2] + tol
            and inner[3] <= outer[3] + tol)


def crosses(seg, box, margin=0.5):
    """Whether the segment runs through the inside of `box` (shrunk by `margin`): Liang-Barsky."""
    (x1, y1), (x2, y2) = seg
    x0, y0, x3, y3 = box[0] + margin, box[1] + margin, box[2] - margin, box[3] - margin
    if x0 >= x3 or y0 >= y3:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = x2 - x1, y2 - y1
    for p, q in ((-dx, x1 - x0), (dx, x3 - x1), (-dy, y1 - y0), (dy, y3 - y1)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return t1 - t0 > 1e-9


def segments(el, tag):
    if tag == "line":
        return [((float(el.get("x1")), float(el.get("y1"))), (float(el.get("x2")), float(el.get("y2"))))]
    pts = [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]
    return list(zip(pts, pts[1:]))


def png_pixels(path):
    """(width, height, distinct pixel count capped at 2) of an 8-bit PNG, decoded here (no PIL)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError(f"{path}: PNG depth {depth} colour type {ctype} not decoded here")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    first, seen = None, 1
    for r in range(h):
        f = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        if first is None:
            first = bytes(line[:bpp])
        if seen == 1 and line != first * w:
            seen = 2
        prev = line
    return w, h, seen


def provenance(path):
    """The JSON object of the comment that opens the picture (after the XML declaration)."""
    text = open(path, encoding="utf-8").read()
    m = re.match(r'<\?xml[^>]*\?>\n<!-- made by (.*?) -->\n<svg ', text, re.S)
    if not m:
        raise ValueError(f"{path}: no provenance comment after the XML declaration")
    try:
        doc = json.loads(m.group(1))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: provenance is not JSON: {e}")
    if not (isinstance(doc.get("command"), list) and doc["command"][:1] == ["kvaddr"]
            and isinstance(doc.get("inputs"), dict)):
        raise ValueError(f"{path}: provenance lacks command / inputs: {doc}")
    return doc


def check_svg(path, command=None):
    """Returns (root, texts, rects) or raises ValueError naming the problem. `command`: the
    arguments the picture must record as the command that made it."""
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
    rects, texts, text_els, arrows = [], [], [], []
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
            text_els.append(el)
        elif tag in ("line", "polyline"):
            for seg in segments(el, tag):
                for v in (*seg[0], *seg[1]):
                    if not (0 <= v <= max(w, h)):
                        raise ValueError(f"{path}: arrow outside the picture: {el.attrib}")
                arrows.append(seg)
    if len(rects) < 2 or not texts:
        raise ValueError(f"{path}: empty picture")
    # Layout: labels apart, each inside the box it starts in, arrows outside every box.
    boxes = [rect_box(r) for r in rects if rect_box(r) != (0, 0, w, h)]  # not the background
    tboxes = sorted((text_box(t), t.text) for t in text_els)
    for i, (a, ta) in enumerate(tboxes):
        for b, tb in tboxes[i + 1:]:
            if b[0] >= a[2] - EPS:
                break
            if overlap(a, b):
                raise ValueError(f"{path}: labels {ta!r} and {tb!r} overlap: {a} {b}")
    for t in text_els:
        tb = text_box(t)
        x, y = float(t.get("x")), float(t.get("y"))
        holders = [b for b in boxes if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
        if holders:
            box = min(holders, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
            if not inside(tb, box):
                raise ValueError(f"{path}: label {t.text!r} {tb} spills out of its box {box}")
    for seg in arrows:
        for b in boxes:
            if crosses(seg, b):
                raise ValueError(f"{path}: arrow {seg} crosses the box {b}")
    doc = provenance(path)
    if command is not None and doc["command"] != ["kvaddr", *command]:
        raise ValueError(f"{path}: records {doc['command']}, made by {['kvaddr', *command]}")
    if RSVG:
        fd, png = tempfile.mkstemp(suffix=".png")
        os.close(fd)
        try:
            r = subprocess.run([RSVG, "-o", png, path], capture_output=True, text=True)
            if r.returncode != 0 or os.path.getsize(png) == 0:
                raise ValueError(f"{path}: rsvg-convert failed: {r.stderr}")
            pw, ph, colours = png_pixels(png)
        finally:
            os.remove(png)
        if pw <= 0 or ph <= 0 or colours < 2:
            raise ValueError(f"{path}: rendered {pw} x {ph} with {colours} colour(s)")
    return root, texts, rects


def kvaddr(*args, status=0):
    r = subprocess.run([KVADDR, *args], capture_output=True, text=True)
    if r.returncode != status:
        fail(f"kvaddr {' '.join(args)} exited {r.returncode} (expected {status}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def self_test(tmp):
    good = os.path.join(tmp, "good.svg")
    kvaddr("draw", "pool", "--v2p", "0,1,-1", "--svg", good)
    check_svg(good, ["draw", "pool", "--v2p", "0,1,-1", "--svg", good])
    text = open(good).read()
    first_text = re.search(r"<text [^\n]*</text>\n", text).group(0)
    shifted = re.sub(r' x="([0-9.]+)"', lambda m: f' x="{float(m.group(1)) + 3:.1f}"', first_text, count=1)
    cell = re.search(r'<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" fill="#263238"', text)
    cx, cy, cw, ch = (float(v) for v in cell.groups())
    across = f'<line x1="{cx - 2}" y1="{cy + ch / 2}" x2="{cx + cw + 2}" y2="{cy + ch / 2}" stroke="#000"/>\n'
    broken = {
        "truncated": (text[: len(text) // 2], "XML"),
        "unescaped": (text.replace("P0 sink", "P0 <sink"), "XML"),
        "outside": (text.replace('<rect x="', '<rect x="99999', 1), "outside"),
        "not svg": (text.replace("<svg ", "<html ", 1).replace("</svg>", "</html>"), "root"),
        "overlapping labels": (text.replace(first_text, first_text + shifted, 1), "overlap"),
        "label spills out of its box": (text.replace(">P0 sink<", ">P0 sink, the sink<"), "spills"),
        "arrow across a box": (text.replace("</svg>", across + "</svg>"), "crosses"),
        "no provenance": (re.sub(r"<!-- made by .*? -->\n", "", text, flags=re.S), "provenance"),
        "wrong command": (text.replace('"pool"', '"route"', 1), "records"),
    }
    if RSVG:
        blank = re.sub(r'(fill|stroke)="[^"]*"', r'\1="#ffffff"', text)
        broken["one colour"] = (blank, "colour")
    for name, (body, why) in broken.items():
        p = os.path.join(tmp, f"broken-{name.replace(' ', '_')}.svg")
        open(p, "w").write(body)
        try:
            check_svg(p, ["draw", "pool", "--v2p", "0,1,-1", "--svg", good])
        except (ValueError, TypeError, AttributeError) as e:
            if why not in str(e) and not isinstance(e, (TypeError, AttributeError)):
                fail(f"the checker rejected the broken picture ({name}) for another reason: {e}")
            continue
        fail(f"the checker accepted a broken picture ({name})")


def main():
    tmp = tempfile.mkdtemp(prefix="kvaddr_svg_")
    try:
        self_test(tmp)

        # A pool with a tombstone, the sentinel, two sub-pools and a compaction move.
        if not RSVG:
            print("SKIP rendering: rsvg-convert is not installed (Debian package librsvg2-bin); "
                  "the layout checks still run")
        pool = os.path.join(tmp, "pool.svg")
        args = ["draw", "pool", "--page-size", "4", "--multiplier", "2", "--v2p", "0,3,-1,1,-1", "--after",
                "0,1,-1,2,-1", "--v2p", "0,1,-1", "--after", "0,1,-1", "--name", "full", "--name", "swa", "--svg", pool]
        out = kvaddr(*args)
        if "moves P3 -> P1" not in out or "tombstone" not in out:
            fail("pool text misses the move or the tombstone:\n" + out)
        _, texts, _ = check_svg(pool, args)
        inputs = provenance(pool)["inputs"]
        if inputs != {"names": ["full", "swa"], "page_size": [4, 4], "multiplier": [2, 2],
                      "v2p": [[0, 3, -1, 1, -1], [0, 1, -1]], "after": [[0, 1, -1, 2, -1], [0, 1, -1]]}:
            fail(f"pool picture records the inputs {inputs}")
        for label in ("P0 sink", "v2 tombstone", "v4 sentinel", "v1 -> P3", "v1 -> P1", "[24,28)", "[28,32)"):
            if label not in texts:
                fail(f"pool picture misses {label!r}: {texts}")
        root = ET.parse(pool).getroot()
        moves = [l for l in root.iter(NS + "polyline") if l.get("stroke") == "#e65100"]
        if len(moves) != 2:  # v1: P3 -> P1, v3: P1 -> P2
            fail(f"pool picture has {len(moves)} move arrows, expected 2")

        # docs/index.md's own example (one sub-pool, a compaction).
        index = os.path.join(tmp, "index.svg")
        args = ["draw", "pool", "--page-size", "4", "--v2p", "0,3,-1,1,-1", "--after", "0,1,-1,2,-1", "--svg", index]
        kvaddr(*args)
        check_svg(index, args)

        # The model's own compaction: freeing the first request (2 pages) moves the last two pages
        # into its holes.
        sim = os.path.join(tmp, "sim.svg")
        out = kvaddr("draw", "pool", "--simulate", "--page-size", "2", "--multiplier", "2", "--svg", sim)
        if "moves P5 -> P1" not in out or "moves P6 -> P2" not in out:
            fail("simulated compaction text misses its moves:\n" + out)
        root, texts, _ = check_svg(sim, ["draw", "pool", "--simulate", "--page-size", "2", "--multiplier", "2", "--svg",
                                         sim])
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
        _, texts, rects = check_svg(route, ["draw", "route", *args, "--variant", "b17_doc_formula", "--svg", route])
        inputs = provenance(route)["inputs"]
        if inputs.get("ids") != [5, 9, 13, -1] or inputs.get("v2p") != {"shape": [5], "values": [0, 5, -1, 2, -1]} \
                or inputs.get("variant") != "b17_doc_formula" or inputs.get("page-size") != "4":
            fail(f"route picture records the inputs {inputs}")
        red = [r for r in rects if r.get("fill") == "#ef9a9a" and r.find(NS + "title") is not None]  # not the legend
        if len(red) != 2 * differing:  # each differing lane in both grids
            fail(f"route picture highlights {len(red)} cells, expected {2 * differing}")
        for v in got + ref:
            if str(v) not in texts:
                fail(f"route picture misses value {v}")

        # A table route: untouched lanes (the reference leaves the fill value) are shaded.
        table = os.path.join(tmp, "table.svg")
        args = ["draw", "route", "--route", "read_table", "--page-size", "2", "--multiplier", "3", "--v2p", "1,0,-1",
                "--req-to-token", "0,1,2,3;4,5,6,7", "--seq-lens", "3,1", "--max-pages", "2", "--svg", table]
        kvaddr(*args)
        _, _, rects = check_svg(table, args)
        inputs = provenance(table)["inputs"]
        if inputs.get("req-to-token") != {"shape": [2, 4], "values": [0, 1, 2, 3, 4, 5, 6, 7]}:
            fail(f"table picture records the inputs {inputs}")
        grey = [r for r in rects if r.get("fill") == "#e0e0e0" and r.find(NS + "title") is not None]
        if len(grey) != 2:  # row 1 lane 1 (seq_len 1 -> one page), in both grids
            fail(f"table picture shades {len(grey)} cells, expected 2")

        # The kill matrix as a heat map.
        if "zoo" in kvaddr("--help"):
            zoo = os.path.join(tmp, "zoo.svg")
            args = ["draw", "zoo", "--only", "production", "--only", "production.lifecycle", "--only",
                    "b10_no_max_pages_bound", "--svg", zoo, "--quiet"]
            out = kvaddr(*args)
            _, texts, rects = check_svg(zoo, args)
            if "production" not in texts or not any(t.startswith("b10_no_max_pages_bound") for t in texts):
                fail(f"zoo picture misses its rows: {texts}")
            states = {r.get("fill") for r in rects}
            if "#66bb6a" not in states:
                fail("zoo picture has no killed cell")
            # Both production rows are clean: their cells read "no alarm" (green), n/a or skipped.
            prod = [r for r in rects if r.find(NS + "title") is not None
                    and r.find(NS + "title").text.startswith("production")]
            if len(prod) != 12 or any(r.get("fill") not in ("#c5e1a5", "#f5f5f5", "#bdbdbd") for r in prod):
                fail("zoo picture paints a production row: "
                     + str([(r.find(NS + "title").text, r.get("fill")) for r in prod]))

        # The proofs' verdicts.
        if "prove" in kvaddr("--help"):
            proofs = os.path.join(tmp, "proofs.svg")
            args = ["draw", "proofs", "--only", "I1", "--only", "route.read_table", "--only", "route.mamba_translate",
                    "--svg", proofs]
            kvaddr(*args)
            root, texts, rects = check_svg(proofs, args)
            for label in ("read_table", "mamba_translate", "contract", "columns", "I1", "algebra", "int64"):
                if label not in texts:
                    fail(f"proofs picture misses {label!r}: {texts}")
            tips = {r.find(NS + "title").text: r.get("fill") for r in rects if r.find(NS + "title") is not None}
            # read_table's contract cell: the statement proved, its planted bug (b09) and upstream form
            # (unclamped) refuted as expected; mamba_translate's contract is expected refuted.
            cell = [t for t in tips if t.startswith("route.read_table: proved")]
            if len(cell) != 1 or "route.read_table.b09: refuted (expected refuted)" not in cell[0] \
                    or tips[cell[0]] != "#66bb6a":
                fail(f"proofs picture: read_table's contract cell is {cell}")
            cell = [t for t in tips if t.startswith("route.mamba_translate: refuted (expected refuted)")]
            if len(cell) != 1 or tips[cell[0]] != "#80cbc4":
                fail(f"proofs picture: mamba_translate's contract cell is {cell}")
        else:
            print("SKIP draw proofs: kvaddr was built without Z3 (libz3-dev)")
            r = subprocess.run([KVADDR, "draw", "proofs"], capture_output=True, text=True)
            if r.returncode != 2 or "Z3" not in r.stdout + r.stderr:
                fail(f"draw proofs without Z3 exits {r.returncode}: {r.stdout} {r.stderr}")

        # replay --svg: one picture per differing call of the shipped example (two).
        if "replay" in kvaddr("--help"):
            d = os.path.join(tmp, "replay")
            kvaddr("replay", sys.argv[2], "--svg", d, status=1)
            pics = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
            if len(pics) != 2:
                fail(f"replay --svg wrote {pics}, expected two pictures")
            for p in pics:
                check_svg(os.path.join(d, p), ["replay", sys.argv[2], "--svg", d])

        # diff --svg on a forced bug variant (host only: no GPU needed).
        if "diff" in kvaddr("--help"):
            d = os.path.join(tmp, "diff")
            args = ["diff", "--host-only", "--cases", "5", "--seed", "1", "--force-variant", "e10_batch_index_rows",
                    "--force-route", "read_table", "--svg", d]
            kvaddr(*args, status=1)
            check_svg(os.path.join(d, "first-mismatch.svg"), args)
        # The pictures committed under docs/img pass the same checks and record their command.
        img = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "img")
        for f in sorted(os.listdir(img)):
            if f.endswith(".svg"):
                doc = check_svg(os.path.join(img, f))
                if doc is None or "--svg" not in provenance(os.path.join(img, f))["command"]:
                    fail(f"docs/img/{f} does not record the command that wrote it")
        print("all pictures parse and show what they should")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    KVADDR = sys.argv[1]
    main()
