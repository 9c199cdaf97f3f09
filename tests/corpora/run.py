#!/usr/bin/python3
"""Conformance runner: AWS's public NKI code (nki-library, the SDK's examples and tests, nki-samples) through nki-sim,
against numpy references of ours. On demand, not part of ctest (the corpora are not in the repository).
Usage: see README.md in this folder."""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import backend as backends  # noqa: E402
from harness import Result, compare, make_args, reference_inputs  # noqa: E402

REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def run_case(be, case, root, functional=False):
    try:
        return _run_case(be, case, root, functional)
    except Exception as e:  # a runner bug must not hide the other cases
        return Result(case, "ERROR", message=f"runner: {type(e).__name__}: {e}")


def _run_case(be, case, root, functional=False):
    if case.skip:
        return Result(case, "SKIP", message=case.skip)
    if case.expect_error:
        try:
            be.run(case, root, make_args(case), functional=functional)
        except backends.KernelError as e:
            if case.error_text and case.error_text not in str(e):
                return Result(case, "MISMATCH", message=f"refused, but not with '{case.error_text}': {e}")
            located = re.search(r"\.py:\d+:\d+: error: ", str(e))
            return Result(case, "PASS", message=("refused as expected: " if located else "refused (unlocated): ")
                          + str(e))
        return Result(case, "MISMATCH", message=f"ran, but {case.expect_error}")
    try:
        args = make_args(case)
        expected = case.reference(reference_inputs(args))
    except Exception as e:  # a bug in our port: say so rather than blame the kernel
        return Result(case, "ERROR", message=f"reference: {type(e).__name__}: {e}")
    try:
        outs, total_ns = be.run(case, root, args, functional=functional)
    except backends.KernelError as e:
        return Result(case, "ERROR", message=str(e))
    if case.post:
        outs = case.post(outs, reference_inputs(args))
    ok, err, msg = compare(outs, expected, case.atol, case.rtol, case.atol_scale)
    return Result(case, "PASS" if ok else "MISMATCH", err, total_ns, msg)


def fmt_row(r):
    err = "" if r.max_err is None else f"{r.max_err:.3g}"
    ns = "" if not r.total_ns else f"{r.total_ns / 1000:.2f} us"
    msg = r.message + (f" [functional: {r.functional}]" if r.functional else "")
    return f"{r.case.name:<48} {r.status:<8} {err:>9} {ns:>12}  {msg}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nki-library", help="checkout of aws-neuron/nki-library")
    ap.add_argument("--sdk", help="checkout of aws-neuron/aws-neuron-sdk")
    ap.add_argument("--samples", help="checkout of aws-neuron/nki-samples")
    ap.add_argument("--only", action="append", default=[], help="glob on case names (repeatable)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--backend", choices=["auto", "python", "cli"], default="auto")
    ap.add_argument("--nki-sim", default=os.path.join(REPO, "build", "nki-sim"), help="CLI backend binary")
    ap.add_argument("--python-dir", default=os.path.join(REPO, "build", "python"), help="where `nkisim` is built")
    ap.add_argument("--functional", action="store_true", help="run every case with --functional (no timing)")
    ap.add_argument("--check", action="store_true",
                    help="run every case with --check=error: a finding (docs/checks.md) makes the case an ERROR")
    ap.add_argument("--no-sdk-tests", action="store_true", help="skip the SDK pytest section")
    ap.add_argument("--json", help="also write the results as JSON to this file")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (inputs, outputs, wrappers)")
    a = ap.parse_args()
    a.python_dir = os.path.abspath(a.python_dir)  # the SDK tests run pytest from another folder

    import nkilib_cases
    import samples_cases
    roots = {"nki-library": a.nki_library, "sdk": a.sdk, "samples": a.samples}
    cases = [c for c in nkilib_cases.cases() + samples_cases.cases() if roots.get(c.corpus)]
    if a.only:
        cases = [c for c in cases if any(fnmatch.fnmatch(c.name, p) or p in c.name for p in a.only)]
    if a.list:
        for c in cases:
            print(c.corpus, c.name, c.skip)
        return 0
    be = backends.choose(a.backend, a.nki_sim, a.python_dir)
    if a.check:
        be.check = "error"
    print(f"backend: {be.name}" + (" (--check=error)" if a.check else ""), flush=True)

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        futs = [ex.submit(run_case, be, c, roots[c.corpus], a.functional) for c in cases]
        results = []
        for f in futs:
            r = f.result()
            results.append(r)
            print(fmt_row(r), flush=True)
        # A silent wrong answer is the worst outcome: see whether the numerics-only mode agrees.
        mism = [r for r in results if r.status == "MISMATCH" and not a.functional]
        for r, f in zip(mism, [ex.submit(run_case, be, r.case, roots[r.case.corpus], True) for r in mism]):
            fr = f.result()
            r.functional = fr.status + (f" (max err {fr.max_err:.3g})" if fr.max_err is not None else "")

    print()
    print(f"{'case':<48} {'status':<8} {'max err':>9} {'sim time':>12}  first error line")
    corpora = []
    for r in results:
        if r.case.corpus not in corpora:
            corpora.append(r.case.corpus)
    summary = {}
    for corpus in corpora:
        rs = [r for r in results if r.case.corpus == corpus]
        print(f"--- {corpus}")
        for r in rs:
            print(fmt_row(r))
        counts = {s: sum(r.status == s for r in rs) for s in ("PASS", "MISMATCH", "ERROR", "SKIP")}
        summary[corpus] = counts
    sdk_tests = []
    if a.sdk and not a.no_sdk_tests and not a.only:
        import sdk_tests as st
        sdk_tests = st.run(a.sdk, a.python_dir, a.jobs)
        st.print_table(sdk_tests)
    print()
    print("totals:")
    for corpus, c in summary.items():
        total = sum(c.values())
        print(f"  {corpus:<12} {c['PASS']}/{total} pass, {c['MISMATCH']} mismatch, {c['ERROR']} error, "
              f"{c['SKIP']} skip")
    if sdk_tests:
        import sdk_tests as st
        print("  " + st.totals_line(sdk_tests))
    print(f"  ({time.time() - t0:.0f} s)")
    if a.keep:
        print(f"  kept {be.tmp}")
    else:
        shutil.rmtree(be.tmp, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"backend": be.name, "cases": [
                {"corpus": r.case.corpus, "case": r.case.name, "status": r.status, "max_err": r.max_err,
                 "total_ns": r.total_ns, "message": r.message, "functional": r.functional} for r in results],
                "totals": summary, "sdk_tests": sdk_tests}, f, indent=1)
    return 1 if any(r.status in ("MISMATCH", "ERROR") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
