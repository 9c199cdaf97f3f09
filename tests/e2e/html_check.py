"""Headless-Chromium checks of an --html page (tests/e2e/test_html_timeline.py): load it, read the DOM after the
viewer's first frame, collect console errors, and take a screenshot whose pixels must vary (not a blank page).
PNG decoding with zlib and struct only (no PIL)."""
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib


def find_chromium():
    """The Chromium binary (NKISIM_CHROMIUM, else chromium / chromium-browser on PATH), or None."""
    for name in (os.environ.get("NKISIM_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _chromium(binary, page, extra, timeout):
    profile = tempfile.mkdtemp(prefix="nkisim-chromium-")
    try:
        cmd = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
               "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1400,900",
               *extra, "file://" + os.path.abspath(page)]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p, time.monotonic() - t0
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(stderr):
    """Console errors and uncaught exceptions that Chromium logged for the page."""
    return [l for l in stderr.splitlines() if "CONSOLE" in l and ("Uncaught" in l or "ERROR:CONSOLE" in l or
                                                                   "Error" in l)]


def dump_dom(binary, page, timeout=120):
    """(DOM text after load, console error lines, seconds taken)."""
    p, secs = _chromium(binary, page, ["--dump-dom"], timeout)
    return p.stdout, console_errors(p.stderr), secs


def screenshot(binary, page, png, timeout=120):
    p, secs = _chromium(binary, page, [f"--screenshot={png}", "--hide-scrollbars"], timeout)
    return os.path.exists(png), console_errors(p.stderr), secs


def png_pixels(path):
    """(width, height, channels, rows of bytes) of an 8-bit RGB / RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and ctype in (2, 6), f"unsupported PNG (depth {depth}, colour type {ctype})"
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def pixel_stats(path):
    """(number of distinct colours in a sample, variance of the grey level) of the PNG."""
    w, h, ch, rows = png_pixels(path)
    colours, greys = set(), []
    for y in range(0, h, 3):
        r = rows[y]
        for x in range(0, w, 3):
            px = r[x * ch:x * ch + 3]
            colours.add(px)
            greys.append(sum(px) / 3)
    mean = sum(greys) / len(greys)
    return len(colours), sum((g - mean) ** 2 for g in greys) / len(greys)
