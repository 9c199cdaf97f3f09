#!/usr/bin/python3
"""Before/after proof for a refactoring that must not change any output: a stand-in for nki-sim.

    mkdir -p /tmp/ab-bin && ln -sf $PWD/scripts/ab_runs.py /tmp/ab-bin/nki-sim
    for t in nki-as nki-objdump; do ln -sf $PWD/build/$t /tmp/ab-bin/$t; done
    for s in tests/e2e/test_*.py; do
      NKISIM=/tmp/ab-bin/nki-sim AB_BASE=/tmp/old/nki-sim AB_NEW=$PWD/build/nki-sim AB_LOG=/tmp/ab \
          /usr/bin/python3 $s
    done

Run the e2e scripts directly as above: under ctest each test's own NKISIM (tests/CMakeLists.txt) replaces the
stand-in. The scripts look for nki-as and nki-objdump next to NKISIM, hence the links. A few scripts that
inspect the process itself (signals, budgets, progress output) fail under any stand-in; they pass under ctest.

Every nki-sim invocation of the tests runs the old binary, then the new one (whose result the test sees), with
the test's own arguments: exit code, stdout and stderr must be equal. A kernel run is then repeated by both
binaries in one scratch folder with every report added (-o, --stats, --trace, --html, --profile, --profile-json,
--explain, --emit asm; --stats only for --functional), and every file and stdout must be byte-identical.
Each invocation appends one line {"args", "same", "diff"} to AB_LOG/log.jsonl; `scripts/ab_runs.py --summary
AB_LOG` prints the counts and every difference.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Options that name an output file (their value is dropped from the comparison runs), and their value count.
OUTPUT_OPTS = {"-o": 1, "--output-dir": 1, "--stats": 1, "--trace": 1, "--html": 1, "--profile-json": 1,
               "--check-json": 1, "--emit": 2}
OPTIONAL_VALUE = ("--profile", "--explain")  # --profile[=FILE], --explain[=LINE]: dropped, re-added


def run(binary, args, cwd):
    p = subprocess.run([binary, *args], capture_output=True, cwd=cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr


def strip_outputs(args):
    out, i = [], 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if name in OUTPUT_OPTS:
            i += 1 if "=" in a else 1 + OUTPUT_OPTS[name]
            continue
        if name in OPTIONAL_VALUE:
            i += 1
            continue
        out.append(a)
        i += 1
    return out


def files_of(d):
    got = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                # a staged file left behind is named after the process: compare it without its pid
                got[re.sub(r"\.tmp\d+-", ".tmpPID-", os.path.relpath(p, d))] = f.read()
    return got


def report_run(binary, args, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    extra = ["-o", os.path.join(work, "out"), "--stats", os.path.join(work, "stats.json")]
    if "--functional" not in args:
        extra += ["--trace", os.path.join(work, "trace.json"), "--html", os.path.join(work, "timeline.html"),
                  "--profile=" + os.path.join(work, "profile.txt"), "--profile-json", os.path.join(work, "profile.json"),
                  "--explain"]
    if "--program" not in " ".join(args):
        extra += ["--emit", "asm", os.path.join(work, "program.s")]
    rc, so, se = run(binary, args + extra, os.getcwd())
    got = files_of(work)
    got["<rc>"], got["<stdout>"], got["<stderr>"] = str(rc).encode(), so, se
    return got


def summary(log_dir):
    n = same = 0
    with open(os.path.join(log_dir, "log.jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            n += 1
            same += rec["same"]
            if not rec["same"]:
                print("DIFF", rec["diff"], " ".join(rec["args"]))
    print(f"{same}/{n} invocations identical")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        return summary(sys.argv[2])
    args = sys.argv[1:]
    base, new, log_dir = os.environ["AB_BASE"], os.environ["AB_NEW"], os.environ["AB_LOG"]
    skip = not args or args[0] == "compare" or "--time-phases" in args or "--help" in args
    diff = []
    if not skip:
        b = run(base, args, None)
    rc, so, se = run(new, args, None)
    sys.stdout.buffer.write(so)
    sys.stderr.buffer.write(se)
    if not skip:
        if b != (rc, so, se):
            diff.append("plain run: " + ", ".join(k for k, x, y in zip(("rc", "stdout", "stderr"), b, (rc, so, se)) if x != y))
        if rc == 0 and not any(a.split("=", 1)[0] in ("--emit",) for a in args):
            plain = strip_outputs(args)
            work = tempfile.mkdtemp(prefix="ab-")
            try:
                rb = report_run(base, plain, work)
                rn = report_run(new, plain, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            for k in sorted(set(rb) | set(rn)):
                if rb.get(k) != rn.get(k):
                    diff.append(k)
        os.makedirs(log_dir, exist_ok=True)
        with open(os.path.join(log_dir, "log.jsonl"), "a") as f:
            f.write(json.dumps({"args": args, "same": not diff, "diff": diff}) + "\n")
    sys.exit(rc)


if __name__ == "__main__":
    main()
