"""The SDK's per-instruction test files (aws-neuron-sdk nki/test/*.py), run unmodified under pytest with the `nkisim`
package (which provides `neuronxcc.nki`) on PYTHONPATH and numpy seeded before each test (seed_numpy.py). One row per
file: passed / failed / skipped tests."""
import concurrent.futures
import glob
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import backend


def _run_file(path, python_dir):
    row = {"file": os.path.basename(path), "passed": 0, "failed": 0, "skipped": 0, "message": ""}
    with tempfile.TemporaryDirectory(prefix="nkisim-sdk-") as d:
        xml = os.path.join(d, "junit.xml")
        env = dict(os.environ, PYTHONPATH=python_dir + os.pathsep + os.path.dirname(os.path.abspath(__file__)))
        try:
            p = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "seed_numpy",
                                f"--junitxml={xml}", path], capture_output=True, text=True, env=env,
                               cwd=os.path.dirname(path), timeout=600)
        except subprocess.TimeoutExpired:
            row["failed"], row["message"] = 1, "timeout (600 s)"
            return row
        if not os.path.exists(xml):
            row["failed"], row["message"] = 1, (p.stderr or p.stdout).strip().splitlines()[-1:] or ["no report"]
            return row
        for tc in ET.parse(xml).getroot().iter("testcase"):
            bad = tc.find("failure")
            if bad is None:
                bad = tc.find("error")
            if bad is not None:
                row["failed"] += 1
                if not row["message"]:
                    text = (bad.get("message") or bad.text or "").strip().splitlines()
                    row["message"] = f"{tc.get('name')}: {text[0] if text else ''}"
            elif tc.find("skipped") is not None:
                row["skipped"] += 1
            else:
                row["passed"] += 1
    return row


def run(sdk_root, python_dir, jobs):
    files = sorted(glob.glob(os.path.join(sdk_root, "nki", "test", "*.py")))
    if backend.python_package(python_dir) is None:
        return [{"file": os.path.basename(f), "passed": 0, "failed": 0, "skipped": 0, "status": "SKIP",
                 "message": f"no working nkisim package in {python_dir}"} for f in files]
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        return list(ex.map(lambda f: _run_file(f, python_dir), files))


def print_table(rows):
    print("--- sdk tests (pytest, unmodified)")
    print(f"{'file':<48} {'pass':>5} {'fail':>5} {'skip':>5}  first failure")
    for r in rows:
        print(f"{r['file']:<48} {r['passed']:>5} {r['failed']:>5} {r['skipped']:>5}  {r['message']}")


def totals_line(rows):
    if rows and all(r.get("status") == "SKIP" for r in rows):
        return f"sdk-tests    SKIP ({len(rows)} files): {rows[0]['message']}"
    p, f, s = (sum(r[k] for r in rows) for k in ("passed", "failed", "skipped"))
    return f"sdk-tests    {p}/{p + f + s} tests pass, {f} fail, {s} skip ({len(rows)} files)"
