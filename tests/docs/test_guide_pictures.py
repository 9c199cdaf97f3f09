"""The guide's pictures: scripts/guide_pictures.sh, run into a scratch folder, makes every picture it can
(screenshots only where nki-sim has --html and chromium is installed; they must not be blank). The machine
diagrams (docs/guide/img/machine-*.svg) are current: drawn again from the target descriptions (nki-target +
scripts/machine_svg.py) they are byte-identical to the committed files, well-formed SVG, and show the target's
numbers. After a change of the target data or the drawing: bash scripts/guide_pictures.sh."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.environ.get("NKISIM_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NKISIM = os.environ.get("NKISIM") or os.path.join(ROOT, "build", "nki-sim")
NKI_TARGET = os.path.join(os.path.dirname(NKISIM), "nki-target")


def main():
    stale = []
    with tempfile.TemporaryDirectory() as work:
        # The whole script, into a scratch folder: every picture it can make here.
        made = subprocess.run(["bash", os.path.join(ROOT, "scripts", "guide_pictures.sh"), os.path.dirname(NKISIM), work],
                              cwd=ROOT, check=True, capture_output=True, text=True).stdout
        print(made, end="")
        for f in os.listdir(work):
            if f.endswith(".png"):  # a screenshot of a drawn page, not an empty one
                assert os.path.getsize(os.path.join(work, f)) > 20000, f"{f}: {os.path.getsize(os.path.join(work, f))} bytes"
        for target in ("trn1", "trn2", "trn3"):
            fresh = os.path.join(work, f"machine-{target}.svg")
            text = open(fresh, encoding="utf-8").read()
            ET.fromstring(text)  # well-formed
            desc = json.loads(subprocess.run([NKI_TARGET, target], check=True, capture_output=True, text=True).stdout)
            p = {k: v["value"] for k, v in desc["params"].items()}
            for shown in (f"{p['sbuf_partition_bytes'] / 1024:g} KiB", f"{int(p['psum_banks'])} banks",
                          f"{p['tensor_ghz']:g} GHz", f"{int(p['dma_queues'])} queues", f"{int(p['dma_engines'])} engines",
                          f"{p['dma_engine_bytes_per_ns']:g} B/ns"):
                assert shown in text, f"machine-{target}.svg does not show {shown!r}"
            committed = os.path.join(ROOT, "docs", "guide", "img", f"machine-{target}.svg")
            if not os.path.exists(committed) or open(committed, encoding="utf-8").read() != text:
                stale.append(committed)
    # The tour's text quotes trn2's figures: they must be the target's.
    p = {k: v["value"] for k, v in json.loads(subprocess.run([NKI_TARGET, "trn2"], check=True, capture_output=True,
                                                             text=True).stdout)["params"].items()}
    tour = open(os.path.join(ROOT, "docs", "guide", "01-machine.md"), encoding="utf-8").read()
    for quoted in (f"{p['sbuf_partition_bytes'] / 1024:g} KiB on trn2", f"**{int(p['psum_banks'])} banks** of "
                   f"{p['psum_partition_bytes'] / p['psum_banks'] / 1024:g} KiB", f"**{int(p['dma_queues'])} DMA queues**",
                   f"**{int(p['dma_engines'])} DMA engines**", f"({int(p['dma_partitions_per_engine'])} partitions each",
                   f"(about {p['dma_fixed_ns'] / 1000:g} us)", f"{int(p['pe_rows'])} x {int(p['pe_cols'])} array"):
        assert quoted in tour, f"01-machine.md should say {quoted!r} (the trn2 target's figure)"
    if stale:
        sys.exit("not current (bash scripts/guide_pictures.sh regenerates them): " + ", ".join(stale))
    print("guide machine diagrams: current")


if __name__ == "__main__":
    main()
