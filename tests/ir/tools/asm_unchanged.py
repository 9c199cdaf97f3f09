#!/usr/bin/python3
"""Does a back-end change leave every program unchanged? Runs the e2e scripts and the conformance suite with nki-sim
replaced by a wrapper that, for every kernel command line the tests run, also compiles it with a BEFORE and an AFTER
nki-sim (--emit asm, --timing-only) and compares the assembly; for kernels under examples/ it also compares --stats
(simulated times, instruction counts; wall-clock fields left out). Not part of ctest: a tool for refactors that
must not change programs (issue 17: "--emit asm of every example is unchanged").

    /usr/bin/python3 tests/ir/tools/asm_unchanged.py BEFORE_NKI_SIM [--after build/nki-sim] [--jobs 2] [--only NAME]

Copy the BEFORE binary aside before rebuilding. Prints one line per differing command line and the totals; exit 1
when any differs. The wrapped test scripts run against the AFTER binary (their own pass/fail is reported too).
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SKIP_SCRIPTS = ("test_hostile_budgets", "test_html_timeline", "test_sweep_parallel")  # budgets x3; no kernels
FILE_OPTS = ("--stats", "--trace", "--profile-json", "--trace-detail", "--html", "--print-dir", "--check-json", "-o",
             "--output-dir")
REPORT_OPTS = ("--profile", "--explain", "--time-phases", "--check", "-q", "--quiet", "--functional", "--timing-only")


def compile_args(a):
    """The command line without outputs and reports, or None when it compiles no kernel file."""
    out, i, kernel = [], 0, False
    while i < len(a):
        x = a[i]
        if x in ("--help", "-h", "--version", "compare", "--program") or x.startswith("--sweep") or \
                (x == "--target" and a[i + 1:i + 2] == ["all"]) or x == "--target=all":
            return None
        if x in FILE_OPTS and i + 1 < len(a):
            i += 2
            continue
        if x == "--emit" and i + 2 < len(a):
            i += 3
            continue
        if x.split("=", 1)[0] in FILE_OPTS + REPORT_OPTS + ("--emit",):
            i += 1
            continue
        kernel = kernel or (not x.startswith("-") and x.endswith(".py"))
        out.append(x)
        i += 1
    return out if kernel else None


def stats(exe, args, d, tag):
    path = os.path.join(d, tag + ".json")
    subprocess.run([exe, *args, "-q", "-o", os.path.join(d, tag + "-o"), "--stats", path], capture_output=True,
                   timeout=600)
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return None

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()
                    if not any(w in k for w in ("wall", "phase", "seconds", "_ms", "elapsed"))}
        return [strip(x) for x in v] if isinstance(v, list) else v
    return strip(doc)


def wrapper():
    """As nki-sim: run the AFTER binary, then compare BEFORE and AFTER on this command line."""
    env = os.environ
    args = sys.argv[1:]
    rc = subprocess.run([env["ASM_UNCHANGED_AFTER"], *args]).returncode
    cargs = compile_args(args)
    if cargs and not ("--functional" in args and "--check=error" in args):  # not the functional rerun of a run
        d = tempfile.mkdtemp(prefix="asm-unchanged-")
        try:
            res = {"args": args}
            asm = {}
            for tag in ("before", "after"):
                f = os.path.join(d, tag + ".asm")
                p = subprocess.run([env["ASM_UNCHANGED_" + tag.upper()], *cargs, "--timing-only", "-q", "-o",
                                    os.path.join(d, tag + "-out"), "--emit", "asm", f],
                                   capture_output=True, text=True, timeout=600)
                asm[tag] = (p.returncode, p.stderr, open(f).read() if os.path.exists(f) else None)
            res["same"] = asm["before"] == asm["after"]
            res["compiled"] = asm["after"][2] is not None
            res["loops"] = "\nbranch" in (asm["after"][2] or "") or " branch " in (asm["after"][2] or "")
            if not res["same"]:
                keep = os.path.join(env["ASM_UNCHANGED_DIR"], "diff-" + hashlib.sha256(" ".join(args).encode()).hexdigest()[:12])
                os.makedirs(keep, exist_ok=True)
                for tag in asm:
                    open(os.path.join(keep, tag + ".asm"), "w").write(asm[tag][2] or asm[tag][1])
                res["kept"] = keep
            if "/examples/" in os.path.abspath(cargs[0] if cargs[0].endswith(".py") else "") and asm["after"][0] == 0:
                res["stats_same"] = stats(env["ASM_UNCHANGED_BEFORE"], cargs, d, "b") == stats(
                    env["ASM_UNCHANGED_AFTER"], cargs, d, "a")
            with open(env["ASM_UNCHANGED_LOG"], "a") as f:
                f.write(json.dumps(res) + "\n")
        finally:
            shutil.rmtree(d, ignore_errors=True)
    sys.exit(rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("--after", default=os.path.join(ROOT, "build", "nki-sim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="run only the test scripts whose name contains this")
    o = ap.parse_args()
    work = tempfile.mkdtemp(prefix="asm-unchanged-")
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir)
    after = os.path.abspath(o.after)
    os.symlink(os.path.abspath(__file__), os.path.join(bindir, "nki-sim"))  # the tests find nki-as etc. beside it
    for tools in (os.path.dirname(after), os.path.join(ROOT, "build")):  # nki-as, nki-objdump, regions-match, ...
        for tool in os.listdir(tools) if os.path.isdir(tools) else []:
            src, dst = os.path.join(tools, tool), os.path.join(bindir, tool)
            if not os.path.lexists(dst) and os.path.isfile(src) and os.access(src, os.X_OK):
                os.symlink(src, dst)
    log = os.path.join(work, "log.jsonl")
    env = dict(os.environ, NKISIM=os.path.join(bindir, "nki-sim"), NKISIM_SOURCE_DIR=ROOT, ASM_UNCHANGED_LOG=log,
               ASM_UNCHANGED_BEFORE=os.path.abspath(o.before), ASM_UNCHANGED_AFTER=after, ASM_UNCHANGED_DIR=work)
    scripts = [s for s in sorted(glob.glob(os.path.join(ROOT, "tests", "e2e", "test_*.py")))
               if not any(k in s for k in SKIP_SCRIPTS)] + [os.path.join(ROOT, "tests", "frontend", "run_conformance.py")]
    scripts = [s for s in scripts if not o.only or o.only in os.path.basename(s)]

    def run(s):
        p = subprocess.run([sys.executable, s], capture_output=True, text=True, env=env)
        return s, p.returncode
    with ThreadPoolExecutor(o.jobs) as ex:
        failed = [os.path.basename(s) for s, rc in ex.map(run, scripts) if rc != 0]
    rows = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
    differ = [r for r in rows if not r["same"]]
    examples = [r for r in rows if "stats_same" in r]
    for r in differ:
        print("DIFFERS:", " ".join(r["args"]), "->", r.get("kept"))
    for r in examples:
        if not r["stats_same"]:
            print("STATS DIFFER:", " ".join(r["args"]))
    print(f"{len(rows)} command lines ({sum(r['compiled'] for r in rows)} compiled, "
          f"{sum(r['loops'] for r in rows)} with dynamic loops): {len(rows) - len(differ)} identical --emit asm, "
          f"{len(differ)} differ; examples --stats identical {sum(r['stats_same'] for r in examples)}/{len(examples)}")
    print(f"test scripts failing under the wrapper: {failed or 'none'}")
    if not differ:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if differ or any(not r["stats_same"] for r in examples) else 0


if __name__ == "__main__":
    sys.exit(wrapper() if os.path.basename(sys.argv[0]) == "nki-sim" else main())
