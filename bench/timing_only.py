#!/usr/bin/env python3
"""Benchmark: timing-only simulation of a 1,000,000-instruction kernel, in simulated instructions per second.

    python3 bench/timing_only.py [BUILD_DIR] [TARGET]     (defaults: build, trn2)

Runs nki-bench-timing (bench/timing_only.cpp), which builds a software-pipelined tile loop as the back end
emits it (DMA loads and stores on rotating queues, Vector / Scalar / GpSimd work, LoadStationary +
MultiplyMoving into rotating PSUM banks, semaphores between the stages; 20 instructions per iteration,
50,000 iterations) and times sim::simulate with Options::timing_only (validation included), best of 3.
Target: >= 10 M simulated instructions per second (wall clock). The CPU-time figure is printed too: on a
loaded machine it is the fairer one. NKISIM_SCHED_TIMING=1 in the environment makes every run print the CPU
time of the event loop and of the preparation worker (validation + compilation: for programs of 64K instructions
or more a second thread, with the event loop compiling chunks itself rather than wait for it); on an idle machine
the wall time approaches the larger of the two.
"""
import os
import re
import subprocess
import sys


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    target = sys.argv[2] if len(sys.argv) > 2 else "trn2"
    exe = os.path.join(build, "nki-bench-timing")
    r = subprocess.run([exe, "50000", target, "3"], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(r.returncode)
    m = re.search(r"([0-9.]+) M simulated instructions per second \(wall\), ([0-9.]+) M per CPU second", r.stdout)
    wall, cpu = float(m.group(1)), float(m.group(2))
    print(f"{wall:.2f} M simulated instructions/s wall ({'meets' if wall >= 10 else 'BELOW'} the 10 M/s target), "
          f"{cpu:.2f} M per CPU second; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
