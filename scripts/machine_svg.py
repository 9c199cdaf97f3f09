#!/usr/bin/python3
"""machine_svg.py - draws one NeuronCore of a target as an SVG, every number read from the target description
(`nki-target TARGET`, i.e. isa/target.cpp): engines and clocks, the 128 partitions of SBUF and PSUM with PSUM's
banks, the DMA queues and engines, HBM, and the semaphores that order them. Used by scripts/guide_pictures.sh
for docs/guide/img/machine-<target>.svg; tests/docs/test_guide_pictures.py checks the committed file is current.

    /usr/bin/python3 scripts/machine_svg.py build/nki-target trn2 docs/guide/img/machine-trn2.svg
"""
import json
import subprocess
import sys

W, H = 1000, 670
FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
COLORS = {"tensor": "#c8ddf0", "vector": "#d5ecc9", "scalar": "#f6e0b5", "gpsimd": "#e6d3ef", "sync": "#e4e4e4",
          "sbuf": "#fdf3d8", "psum": "#fbe1dc", "dma": "#dbe9e6", "hbm": "#eceff4", "sem": "#fff7c2"}


def kib(b):
    return f"{b / 1024:g} KiB"


def size(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"


class Svg:
    def __init__(self):
        self.parts = []

    def rect(self, x, y, w, h, fill, stroke="#555", rx=4, sw=1):
        self.parts.append(f"<rect x='{x:g}' y='{y:g}' width='{w:g}' height='{h:g}' rx='{rx}' fill='{fill}' "
                          f"stroke='{stroke}' stroke-width='{sw}'/>")

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#222"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.parts.append(f"<text x='{x:g}' y='{y:g}' font-size='{size}' text-anchor='{anchor}' "
                          f"font-weight='{weight}' fill='{fill}' {FONT}>{s}</text>")

    def line(self, x1, y1, x2, y2, stroke="#555", dash=None, arrow=False, sw=1.2):
        d = f" stroke-dasharray='{dash}'" if dash else ""
        a = " marker-end='url(#arrow)'" if arrow else ""
        self.parts.append(f"<line x1='{x1:g}' y1='{y1:g}' x2='{x2:g}' y2='{y2:g}' stroke='{stroke}' "
                          f"stroke-width='{sw}'{d}{a}/>")

    def render(self, title):
        head = (f"<svg xmlns='http://www.w3.org/2000/svg' width='{W}' height='{H}' viewBox='0 0 {W} {H}'>\n"
                f"<title>{title}</title>\n<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' "
                "markerWidth='7' markerHeight='7' orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' "
                "fill='#555'/></marker></defs>\n<rect width='100%' height='100%' fill='white'/>\n")
        return head + "\n".join(self.parts) + "\n</svg>\n"


def draw(t):
    p = {k: v["value"] for k, v in t["params"].items()}
    s = Svg()
    parts = int(p["partitions"])
    gen = {2: "NeuronCore-v2", 3: "NeuronCore-v3", 4: "NeuronCore-v4"}.get(t["nc_version"], "NeuronCore")
    s.text(20, 30, f"One {gen} ({t['name']}) as nki-sim models it", 18, weight="bold")
    s.text(20, 50, f"numbers from the target description (nki-target {t['name']}; --param NAME=VALUE changes any)", 11,
           fill="#666")

    # Engines: one sequencer each, in-order streams.
    engines = [("tensor", "Tensor Engine", f"{int(p['pe_rows'])} x {int(p['pe_cols'])} PE array", p["tensor_ghz"]),
               ("vector", "Vector Engine", f"{parts} lanes", p["vector_ghz"]),
               ("scalar", "Scalar Engine", f"{parts} lanes, activation", p["scalar_ghz"]),
               ("gpsimd", "GpSimd Engine", "8 cores x 16 partitions", p["gpsimd_ghz"]),
               ("sync", "Sync Engine", "control, DMA triggers", p["sync_ghz"])]
    ex, ey, ew, eh, gap = 20, 100, 220, 62, 12
    s.text(ex, 72, f"5 instruction streams, each with a sequencer ({int(p['sequencer_registers'])} registers)", 11)
    for i, (key, name, what, ghz) in enumerate(engines):
        y = ey + i * (eh + gap)
        s.rect(ex, y, ew, eh, COLORS[key])
        s.text(ex + 10, y + 20, name, 13, weight="bold")
        s.text(ex + 10, y + 37, what, 11)
        s.text(ex + 10, y + 53, f"{ghz:g} GHz", 11, fill="#444")
    engines_bottom = ey + 5 * (eh + gap) - gap

    # SBUF: partitions as rows.
    sx, sy, sw_, sh = 300, 100, 250, 300
    s.rect(sx, sy, sw_, sh, COLORS["sbuf"])
    s.text(sx + sw_ / 2, sy - 8, f"SBUF: {parts} partitions x {kib(p['sbuf_partition_bytes'])} = "
           f"{size(parts * p['sbuf_partition_bytes'])}", 12, "middle", "bold")
    rows = 16
    for r in range(1, rows):
        y = sy + r * sh / rows
        s.line(sx, y, sx + sw_, y, "#d9c48f", sw=0.6)
    for q in range(1, 4):  # quadrant boundaries: 32-partition groups
        y = sy + q * sh / 4
        s.line(sx, y, sx + sw_, y, "#b39b55", sw=1.2)
    s.text(sx + 6, sy + 14, "partition 0", 10, fill="#6b5a2b")
    s.text(sx + 6, sy + sh - 6, f"partition {parts - 1}", 10, fill="#6b5a2b")
    s.text(sx + sw_ / 2, sy + sh - 62, "free dimension (bytes) ->", 10, "middle", fill="#6b5a2b")
    s.text(sx + sw_ / 2, sy + sh - 48, "engines read one element per", 10, "middle", fill="#6b5a2b")
    s.text(sx + sw_ / 2, sy + sh - 35, "partition per cycle, in parallel", 10, "middle", fill="#6b5a2b")

    # PSUM: banks as columns.
    px, py, pw, ph = 300, 435, 250, 130
    banks = int(p["psum_banks"])
    s.rect(px, py, pw, ph, COLORS["psum"])
    s.text(px + pw / 2, py - 8, f"PSUM: {parts} partitions x {kib(p['psum_partition_bytes'])} = "
           f"{size(parts * p['psum_partition_bytes'])}", 12, "middle", "bold")
    for b in range(banks):
        x = px + b * pw / banks
        if b:
            s.line(x, py, x, py + ph, "#c98a80", sw=0.8)
        s.text(x + pw / banks / 2, py + ph / 2, str(b), 10, "middle", fill="#7a3b32")
    s.text(px + pw / 2, py + ph - 10, f"{banks} banks of {kib(p['psum_partition_bytes'] / banks)} per partition "
           f"(matmul accumulation groups)", 9.5, "middle", fill="#7a3b32")

    # Engine <-> memory arrows.
    for i, key in enumerate(["tensor", "vector", "scalar", "gpsimd"]):
        y = ey + i * (eh + gap) + eh / 2
        s.line(ex + ew, y, sx - 4, sy + 40 + i * 60, arrow=True)
    s.line(ex + ew, ey + eh / 2 + 8, px - 4, py + 30, "#a0544a", arrow=True)  # Tensor writes PSUM
    s.text(px - 8, py + 62, "the Tensor Engine reads SBUF,", 10, "end", fill="#a0544a")
    s.text(px - 8, py + 76, "writes PSUM", 10, "end", fill="#a0544a")

    # DMA: queues and engines.
    dx, dy = 610, 100
    ne, nq, per = int(p["dma_engines"]), int(p["dma_queues"]), int(p["dma_partitions_per_engine"])
    s.text(dx, dy - 8, f"DMA: {nq} queues served round-robin by {ne} engines", 12, weight="bold")
    qw = 360 / nq
    for q in range(nq):
        s.rect(dx + q * qw, dy, qw - 3, 26, "#f3f7f6", rx=2)
    s.text(dx + 180, dy + 42, "queues, FIFO each, fed by dma_copy on any engine (usually Sync)", 10, "middle", fill="#335")
    ew2 = 360 / ne
    for e in range(ne):
        s.rect(dx + e * ew2, dy + 55, ew2 - 3, 60, COLORS["dma"], rx=2)
        s.text(dx + e * ew2 + (ew2 - 3) / 2, dy + 90, str(e), 9, "middle", fill="#335")
    s.text(dx + 180, dy + 132, f"engines: {p['dma_engine_bytes_per_ns']:g} B/ns each; engine e moves partitions "
           f"[{per}e, {per}e+{per})", 10, "middle", fill="#335")
    s.text(dx + 180, dy + 147, f"fixed {p['dma_fixed_ns']:g} ns per transfer, "
           f"{p['dma_buffer_overhead_ns']:g} ns per contiguous buffer", 10, "middle", fill="#335")
    if p.get("dma_dge_blocks", 0) > 0:
        s.text(dx + 180, dy + 162, f"hardware DGE: {int(p['dma_dge_blocks'])} blocks, "
               f"{p['dma_hwdge_ns']:g} ns per DMA instruction", 10, "middle", fill="#335")
    s.line(dx - 6, dy + 85, sx + sw_ + 4, sy + 120, arrow=True)  # DMA <-> SBUF
    s.line(sx + sw_ + 4, sy + 150, dx - 6, dy + 100, arrow=True)
    s.text(sx + sw_ + 10, sy + 175, "SBUF <-> HBM", 10, fill="#335")

    # HBM.
    hx, hy, hw, hh = 610, 300, 360, 100
    s.rect(hx, hy, hw, hh, COLORS["hbm"])
    s.text(hx + hw / 2, hy + 25, "HBM", 13, "middle", "bold")
    s.text(hx + hw / 2, hy + 47, f"{size(p['hbm_capacity_bytes'])} addressable by a program", 11, "middle")
    s.text(hx + hw / 2, hy + 65, f"{p['hbm_bytes_per_ns']:g} B/ns this core's share "
           f"(stack peak {p['hbm_peak_bytes_per_ns']:g} B/ns)", 11, "middle")
    if p.get("max_lnc", 1) > 1:
        s.text(hx + hw / 2, hy + 85, f"LNC={int(p['max_lnc'])}: two such cores share it (--lnc 2)", 11, "middle")
    s.line(dx + 180, dy + 170, hx + hw / 2, hy - 2, arrow=True)

    # Semaphores.
    yx, yy, yw, yh = 610, 435, 360, 130
    s.rect(yx, yy, yw, yh, COLORS["sem"])
    s.text(yx + yw / 2, yy + 22, "Semaphores", 13, "middle", "bold")
    for i, line in enumerate(["streams run independently; the back end inserts waits",
                              "(sem >= value) and updates that carry each dependency",
                              "between engines and DMA queues.",
                              f"A transfer completes when all {ne} DMA engines have",
                              "reported it (each writes its semaphore update)."]):
        s.text(yx + 12, yy + 44 + i * 16, line, 10.5)
    s.line(ex + ew / 2, engines_bottom + 4, ex + ew / 2, 600, "#a08c00", dash="5 3")
    s.line(ex + ew / 2, 600, yx + yw / 2, 600, "#a08c00", dash="5 3")
    s.line(yx + yw / 2, 600, yx + yw / 2, yy + yh + 4, "#a08c00", dash="5 3", arrow=True)
    s.text(ex + 10, 620, "every engine waits on and updates semaphores; DMA engines update them on completion", 10.5,
           fill="#7a6a00")
    s.text(20, 655, f"clocks: Tensor {p['tensor_ghz']:g}, Vector {p['vector_ghz']:g}, Scalar {p['scalar_ghz']:g}, "
           f"GpSimd {p['gpsimd_ghz']:g}, Sync {p['sync_ghz']:g} GHz; MIN_II {p['min_ii_cycles']:g} cycles; "
           f"matmul initiation {p['mm_init_cycles']:g} cycles", 10.5, fill="#444")
    return s.render(f"nki-sim: one {gen} ({t['name']})")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: machine_svg.py NKI_TARGET_EXE TARGET OUT.svg")
    exe, target, out = sys.argv[1:]
    desc = json.loads(subprocess.run([exe, target], check=True, capture_output=True, text=True).stdout)
    with open(out, "w") as f:
        f.write(draw(desc))


if __name__ == "__main__":
    main()
