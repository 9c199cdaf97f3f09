#!/usr/bin/python3
"""Stands in for nki-sim under tests/corpora/run.py (bench/large_kernels.py): runs the real binary (NKISIM_REAL)
with --time-phases and --emit asm added, and appends one JSON line to NKISIM_BENCH_LOG: simulate wall/CPU
seconds, the peak RSS of the nki-sim process, and the bytes of the program's HBM tensors (from the assembly's
.tensor lines, each core's once). Its stdout, stderr (minus the phase lines) and exit status are nki-sim's."""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile


def main():
    with tempfile.TemporaryDirectory(prefix="nkisim-wrap-") as d:
        asm = os.path.join(d, "k.asm")
        p = subprocess.run([os.environ["NKISIM_REAL"], *sys.argv[1:], "--time-phases", "--emit", "asm", asm],
                           capture_output=True, text=True)
        rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        phases = {m.group(1): (float(m.group(2)), float(m.group(3)))
                  for m in re.finditer(r"^nki-sim: (\w+)\s+([0-9.]+)\s+([0-9.]+)$", p.stderr, re.M)}
        tensors = set()
        if os.path.exists(asm):
            with open(asm) as f:
                for line in f:
                    m = re.match(r"\.tensor (\S+) .* @(0x[0-9a-f]+) bytes=(\d+)", line)
                    if m:
                        tensors.add((m.group(1), m.group(2), int(m.group(3))))
        with open(os.environ["NKISIM_BENCH_LOG"], "a") as f:
            f.write(json.dumps({"rc": p.returncode, "simulate": phases.get("simulate"), "total": phases.get("total"),
                                "rss_bytes": rss_kib * 1024, "hbm_tensor_bytes": sum(t[2] for t in tensors)}) + "\n")
    sys.stdout.write(p.stdout)
    sys.stderr.write("".join(l for l in p.stderr.splitlines(True) if not l.startswith("nki-sim: ")))
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
