#!/usr/bin/env python3
"""nki-sim never crashes on a source file: truncations, byte mutations and binary junk derived from the
conformance kernels (a fixed seed, so every run checks the same inputs) must each exit 0 or 1, and exit 1
must come with a diagnostic (`...: error: ...`), never a signal, a sanitizer report or an internal error.

    NKISIM=build/nki-sim python3 tests/frontend/run_robustness.py [COUNT]
"""
import concurrent.futures
import glob
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scratch import scratch_dir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.join(HERE, "conformance")
NKISIM = os.environ.get("NKISIM", os.path.join(HERE, "..", "..", "build", "nki-sim"))

JUNK = [b"\x00", b"\xff", b"\xc3", b"(", b")", b"[", b"]", b"{", b"}", b":", b"\n", b"    ", b"\t", b"'", b'"', b'"""',
        b"\\", b"#", b"@", b"*", b"**", b"lambda", b"yield", b"f'{", b"}'", b"nl.", b"nisa.", b"[:]", b"...", b",",
        b"=", b":=", b"if ", b"else", b"def ", b"class ", b"return", b"9" * 40, b"1e999", b"0x", b"\r", b"\x1b"]


def variants(rng, sources):
    out = []
    for path, data in sources:
        for cut in sorted(rng.sample(range(1, len(data)), min(4, len(data) - 1))):
            out.append((f"{os.path.basename(path)} truncated at {cut}", data[:cut]))
        for k in range(3):
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                pos = rng.randrange(len(b))
                op = rng.randrange(3)
                if op == 0:
                    b[pos:pos + 1] = rng.choice(JUNK)
                elif op == 1:
                    del b[pos:pos + rng.randint(1, 20)]
                else:
                    b[pos:pos] = rng.choice(JUNK)
            out.append((f"{os.path.basename(path)} mutation {k}", bytes(b)))
    for k in range(10):
        out.append((f"random bytes {k}", bytes(rng.randrange(256) for _ in range(rng.randint(1, 2000)))))
    out.append(("empty file", b""))
    return out


def check(item, d, i):
    name, data = item
    path = os.path.join(d, f"case_{i}.py")
    with open(path, "wb") as f:
        f.write(data)
    try:
        p = subprocess.run([NKISIM, path, "-q", "-o", os.path.join(d, f"out_{i}")], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return f"{name}: timed out"
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (0, 1):
        return f"{name}: exit {p.returncode}\n{err[-2000:]}"
    if "internal error" in err or "runtime error" in err or "AddressSanitizer" in err:
        return f"{name}: {err[-2000:]}"
    if p.returncode == 1 and ": error: " not in err:
        return f"{name}: exit 1 without a diagnostic: {err[-500:]!r}"
    return None


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    rng = random.Random(20240601)
    sources = []
    for path in sorted(glob.glob(os.path.join(CONF, "[0-9][0-9][0-9]_*.py"))):
        with open(path, "rb") as f:
            sources.append((path, f.read()))
    items = variants(rng, sources)
    if count:
        items = rng.sample(items, min(count, len(items)))
    d = scratch_dir("nkisim-robust-")
    # The kernels import conflib and mylib from their directory.
    for name in ("conflib.py",):
        os.symlink(os.path.join(CONF, name), os.path.join(d, name))
    os.symlink(os.path.join(CONF, "mylib"), os.path.join(d, "mylib"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda a: check(a[1], d, a[0]), enumerate(items)))
    failures = [r for r in results if r]
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"{len(items) - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
