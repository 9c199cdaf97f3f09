"""Timed and functional runs of one program give bit-identical outputs (DESIGN.md decision 10, issue 16 part 6).

The test drivers (tests/e2e/common.py run(), tests/frontend/run_conformance.py) hand every successful nki-sim run
to functional_differences(), which runs the same command again with --functional into a fresh directory and
compares every output file the two runs wrote byte for byte (NaN payloads included). Any difference is a bug:
a dependency the back end failed to state, or a timing model that applies an effect at the wrong time.
The rerun also passes --check=error (docs/checks.md: every check, initcheck, racecheck and synccheck): a correct
kernel has no finding, so every example, e2e and conformance kernel is held to zero false positives. And each such
kernel without dynamic loops is lowered through both semaphore paths, which must give the same program
(regions_differences)."""
import os
import shutil
import subprocess
import tempfile

# Options that name a file the second run must leave alone, with their value in the next argument or after '='.
_FILE_OPTIONS = ("--stats", "--trace", "--profile-json", "--trace-detail", "--html", "--print-dir")
# Options that only add reports (an optional value after '=').
_REPORT_OPTIONS = ("--profile", "--explain", "--time-phases", "--check")
# The checks every rerun makes (a finding fails it).
CHECK = "--check=error"
# Runs that compute nothing to compare, or are functional already; sweeps and compare write no outputs.
_NO_RERUN = ("--functional", "--timing-only", "--help", "-h", "--version", "--sweep", "compare", "--target=all")


def functional_args(args, check=True):
    """(arguments of the --functional run, output directory of the original run) for an nki-sim command line
    `args` (strings, without the executable), or None when it is no run whose outputs can be compared.
    check=False leaves out --check=error (a kernel whose findings are the point of its test)."""
    out, rerun, i, runs_something = "nki-sim-out", [], 0, False
    while i < len(args):
        a = args[i]
        if a in _NO_RERUN or a.startswith("--sweep") or (a == "--target" and args[i + 1:i + 2] == ["all"]):
            return None
        if a == "-o" and i + 1 < len(args):
            out, i = args[i + 1], i + 2
            continue
        if a in _FILE_OPTIONS and i + 1 < len(args):
            i += 2
            continue
        if a == "--emit" and i + 2 < len(args):
            i += 3
            continue
        if a == "--check-json" and i + 1 < len(args):
            i += 2
            continue
        if a.split("=", 1)[0] in _FILE_OPTIONS + _REPORT_OPTIONS + ("--emit", "-q", "--quiet", "--check-json"):
            i += 1
            continue
        runs_something = runs_something or a == "--program" or (not a.startswith("-") and a.endswith(".py"))
        rerun.append(a)
        i += 1
    return (rerun + ["--functional", "-q"] + ([CHECK] if check else []), out) if runs_something else None


def regions_differences(nkisim, args, cwd=None, timeout=300):
    """The kernel of the nki-sim command line `args` lowered through both semaphore paths (ir/deps.h: the
    straight-line fast path and the region emitter of dynamic loops) gives the same program when it has no
    dynamic loops: a list with the first difference, else empty. Runs the test tool regions-match
    (tests/ir/tools/regions_match.cpp) found beside nki-sim; nothing when it was not built."""
    tool = os.path.join(os.path.dirname(os.path.abspath(nkisim)), "regions-match")
    if not os.path.exists(tool) or "--program" in args:
        return []
    p = subprocess.run([tool, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)
    if p.returncode == 0:
        return []
    return [f"{' '.join(args)}: regions-match exited {p.returncode}: {(p.stdout + p.stderr).strip()}"]


def functional_differences(nkisim, args, cwd=None, timeout=300, check=True):
    """Runs `nkisim args` again with --functional (args: the original command line after the executable; the
    original run must have succeeded) and returns a list of differences between the two runs' output files
    (empty when bit-identical, or when the command is no run that writes outputs)."""
    args = [str(a) for a in args]
    plan = functional_args(args, check)
    if plan is None:
        return []
    rerun, out = plan
    paths = regions_differences(nkisim, rerun[:rerun.index("--functional")], cwd, timeout)
    if paths:
        return paths
    out = os.path.join(cwd or os.getcwd(), out)
    fdir = tempfile.mkdtemp(prefix="nkisim-functional-")
    try:
        p = subprocess.run([nkisim, *rerun, "-o", fdir], capture_output=True, text=True, cwd=cwd, timeout=timeout)
        what = " ".join(args)
        if p.returncode != 0:
            first = (p.stderr.strip().splitlines() or ["(no message)"])[0]
            return [f"{what}: the timed run succeeded but --functional exited {p.returncode}: {first}"]
        diffs = []
        for name in sorted(os.listdir(fdir)):
            mine = os.path.join(out, name)
            if not os.path.exists(mine):
                diffs.append(f"{what}: --functional wrote {name}, the timed run did not")
                continue
            with open(mine, "rb") as f1, open(os.path.join(fdir, name), "rb") as f2:
                if f1.read() != f2.read():
                    diffs.append(f"{what}: {name} of the timed run differs from --functional's")
        return diffs
    finally:
        shutil.rmtree(fdir, ignore_errors=True)
