"""End-to-end: --html (docs/html.md) loaded in headless Chromium: a one-core run, a hovered instruction with its
semaphore dependencies, a two-core (LNC=2) run and a 100k-instruction run that must load within a time limit.
Each page: self-contained (no network), no console errors, the expected row labels, a screenshot that is not
blank. Skipped (exit 77) where Chromium is absent (Debian package `chromium`)."""
import json
import os
import re
import sys

import numpy as np

from common import EXAMPLES, SRC, check, check_equal, finish, run, save, tmpdir, write_file
from html_check import dump_dom, find_chromium, pixel_stats, screenshot

CHROMIUM = find_chromium()
if not CHROMIUM:
    print("SKIP: chromium not found (apt-get install chromium)")
    sys.exit(77)

d = tmpdir()
rng = np.random.default_rng(3)


def page_data(path):
    """The JSON data embedded in the page."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="nkisim-data">(.*?)</script>', text, re.S)
    return text, json.loads(m.group(1)) if m else None


def labels(dom):
    return [re.sub(r"^[\u25b8\u25be] ", "", t) for t in re.findall(r'class="row-label[^"]*"[^>]*>([^<]*)<', dom)]


def check_page(path, tag, expect_labels, hash_="", time_limit=None, shot=True):
    """Loads the page; checks the ready sentinel, console errors, row labels and a non-blank screenshot."""
    text, data = page_data(path)
    check(data is not None, f"{tag}: the page embeds its data")
    check(not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', text) and "@import" not in text,
          f"{tag}: nothing is fetched from the network")
    url = path + hash_
    dom, errors, secs = dump_dom(CHROMIUM, url)
    check('data-state="ready"' in dom, f"{tag}: the viewer drew its first frame (data-state=ready): {dom[:300]!r}")
    check_equal(errors, [], f"{tag}: console errors")
    got = labels(dom)
    for want in expect_labels:
        check(want in got, f"{tag}: row {want!r} drawn (rows: {got})")
    ready = re.search(r'data-ready-ms="(\d+)"', dom)
    ready_s = int(ready.group(1)) / 1000 if ready else float("inf")
    print(f"{tag}: ready {ready_s:.2f} s after navigation, {secs:.1f} s with Chromium's start and DOM dump, "
          f"{len(got)} rows")
    if time_limit is not None:
        check(ready_s < time_limit, f"{tag}: the page is drawn {ready_s:.2f} s after navigation (limit {time_limit} s)")
    if not shot:
        return dom, data
    png = os.path.join(d, tag + ".png")
    ok, errors2, _ = screenshot(CHROMIUM, url, png)
    check(ok, f"{tag}: screenshot written")
    if ok:
        colours, var = pixel_stats(png)
        check(colours >= 8 and var > 50, f"{tag}: screenshot is not blank ({colours} colours, variance {var:.1f})")
    check_equal(errors2, [], f"{tag}: console errors (screenshot)")
    return dom, data


ENGINES = ["Tensor", "Vector", "Scalar", "GpSimd", "Sync"]

# ---- one core: the tensor_add example (Vector, Sync and DMA rows, semaphores)
pa = save(d, "a.npy", rng.standard_normal((512, 512)).astype(np.float32))
pb = save(d, "b.npy", rng.standard_normal((512, 512)).astype(np.float32))
page = os.path.join(d, "add.html")
rc, so, se = run(os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", pa, pb, "-o", os.path.join(d, "o1"), "-q",
                 "--html", page)
check_equal(rc, 0, f"tensor_add --html exit code ({se})")
dom, data = check_page(page, "tensor_add", ENGINES + ["DMA queue 0", "sbuf_bytes_per_partition"])
page_again = os.path.join(d, "add2.html")
rc, so, se = run(os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", pa, pb, "-o", os.path.join(d, "o1b"), "-q",
                 "--html", page_again, same_as_functional=False)
check(rc == 0 and open(page, "rb").read() == open(page_again, "rb").read(), "two runs give byte-identical pages")
if data:
    core = data["cores"][0]
    check_equal(len(data["cores"]), 1, "one core in the data")
    check(all(len(v) == len(core["instr"]["op"]) for v in core["instr"].values()), "instruction columns")
    ops = {data["strings"][i] for i in core["instr"]["op"]}
    check({"tensor_tensor", "dma_copy"} <= ops, f"opcodes in the data: {ops}")
    sub = [t for t in core["tracks"] if t["parent"] >= 0]
    check(len(sub) > 0 and all(core["tracks"][t["parent"]]["key"].startswith("dma.q") for t in sub),
          "DMA engine rows are folded under their queue")
    files = {data["strings"][i] for i in data["locations"]["file"]}
    texts = [data["strings"][i] for i in data["locations"]["text"]]
    check(any("tensor_add.py" in f for f in files) and any("nisa.tensor_tensor" in t for t in texts),
          f"source locations and their text: {files}")
    # Hover an instruction that waited on a semaphore: the details name what it waited on, with its cost formula.
    waits = core["waits"]
    if waits["to"]:
        g = waits["to"][0]
        dom2, _ = check_page(page, "tensor_add_hover", ENGINES, f"#hover=0:{g}&expand=all")
        tip = dom2[dom2.find('<div id="tip"'):] if '<div id="tip" style="display: block' in dom2 else ""
        src_ins = waits["from"][0]
        name = data["strings"][core["instr"]["op"][src_ins]]
        check("waited on:" in tip and name in tip and "cost:" in tip and "source:" in tip and "tensor_add.py:" in tip,
              f"hover details: {tip[:1500]!r}")
        check("engine 0" in labels(dom2), "expand=all shows the DMA engine rows")
    else:
        check(False, "tensor_add has semaphore waits")
    # A highlighted source line: its row is selected in the side panel.
    dom3, _ = check_page(page, "tensor_add_line", ENGINES, "#line=0:1", shot=False)
    check('class="line-row selected"' in dom3, "line=0:1 selects a source line in the side panel")

# ---- two cores (LNC=2): both cores' rows
lnc_kernel = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
la = save(d, "la.npy", rng.standard_normal((512, 256)).astype(np.float32))
lb = save(d, "lb.npy", rng.standard_normal((512, 256)).astype(np.float32))
page2 = os.path.join(d, "lnc.html")
rc, so, se = run(lnc_kernel, "-k", "lnc_add", "--inputs", la, lb, "--lnc", "2", "-o", os.path.join(d, "o2"), "-q",
                 "--html", page2)
check_equal(rc, 0, f"lnc_add --lnc 2 --html exit code ({se})")
dom, data = check_page(page2, "lnc", ENGINES + ["DMA queue 0"])
got = labels(dom)
check(any(l.startswith("core 0: lnc_add") for l in got) and any(l.startswith("core 1: lnc_add") for l in got),
      f"a section per core: {got}")
check_equal(sum(1 for l in got if l == "Tensor"), 2, "the engine rows of both cores")

# ---- 100k+ instructions: aggregated drawing, the page loads within the limit
big = write_file(d, "many.py", """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def many(x):
    out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
    u = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    for i in range(26000):
        nisa.tensor_scalar(dst=u, data=t, op0=nl.multiply, operand0=1.0)
        nisa.activation(dst=t, op=nl.copy, data=u)
        nisa.tensor_scalar(dst=u, data=t, op0=nl.add, operand0=0.0)
        nisa.activation(dst=t, op=nl.copy, data=u)
    nisa.dma_copy(dst=out, src=t)
    return out
""")
px = save(d, "x.npy", rng.standard_normal((128, 4)).astype(np.float32))
page3 = os.path.join(d, "many.html")
stats = os.path.join(d, "many.json")
rc, so, se = run(big, "--inputs", px, "-o", os.path.join(d, "o3"), "-q", "--html", page3, "--stats", stats,
                 same_as_functional=False)
check_equal(rc, 0, f"many --html exit code ({se})")
if rc == 0:
    with open(stats) as f:
        n = json.load(f)["cores"][0]["instructions"]
    check(n >= 100000, f"the big kernel runs 100k+ instructions ({n})")
    check(os.path.getsize(page3) < 40 * 1024 * 1024, f"compact data: {os.path.getsize(page3)} bytes")
    dom, data = check_page(page3, "many", ENGINES, time_limit=15)
    slices = re.search(r'data-slices-drawn="(\d+)"', dom)
    check(slices is not None and int(slices.group(1)) < 20000,
          f"zoomed out, the 100k slices are drawn aggregated per pixel column ({slices and slices.group(1)})")
    frame = re.search(r'data-frame-ms="([\d.]+)"', dom)
    print(f"many: a zoomed-out frame takes {frame and frame.group(1)} ms")
    check(frame is not None and float(frame.group(1)) < 2000, f"a zoomed-out frame of 100k slices: {frame and frame.group(1)} ms")
    check_page(page3, "many_zoomed", ENGINES, "#zoom=1000,1500", time_limit=15, shot=False)

# --html needs a timed run
rc, so, se = run(os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", pa, pb, "--functional", "--html",
                 os.path.join(d, "f.html"))
check(rc == 2 and "--html" in se, f"--functional --html is a usage error: {rc} {se!r}")

finish()
