"""`nki-sim calibrate` (docs/device.md): hand-written device_results.json files for three bundles reproduce a known
table (device times chosen as fixed multiples of the simulated ones, so the errors are known), --json carries the
same numbers, and bad input - a missing file, a bundle file changed after the manifest, results for another
kernel or another bundle, a malformed results file - is a located error with exit 1 (2 for a bad command line)."""
import hashlib
import json
import os
import shutil
import subprocess

import numpy as np

from common import EXAMPLES, NKISIM, SRC, check, check_equal, finish, load_json, save, tmpdir

rng = np.random.default_rng(7)
d = tmpdir()


def nki(*args):
    p = subprocess.run([NKISIM, *map(str, args)], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def a(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def write_results(bundle, kernel, p50, all_match=True, max_abs=0.0, sha=None):
    """A device_results.json as run_on_device.py writes it (the fields calibrate reads, and a few more)."""
    res = {"format": "nki-sim-device-results", "format_version": 1,
           "manifest_sha256": sha or sha256(os.path.join(bundle, "manifest.json")), "kernel": kernel,
           "target": "trn2", "latency": {"method": "neuronxcc.nki.benchmark", "latency_us": {"p50": p50}},
           "numerics": {"all_match": all_match, "outputs": [{"output": "output_0", "max_abs_error": max_abs}]}}
    path = os.path.join(bundle, "device_results.json")
    with open(path, "w") as f:
        json.dump(res, f)
    return path


cases = [("tensor_add", [os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", save(d, "a.npy", a(256, 512)),
                         save(d, "b.npy", a(256, 512))], 0.8, True, 0.0),
         ("softmax", [os.path.join(EXAMPLES, "softmax.py"), "--inputs", save(d, "x.npy", a(128, 512))], 1.25,
          False, 0.0625),
         ("lnc_add", [os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py"), "-k", "lnc_add", "--inputs",
                      save(d, "p.npy", a(256, 256)), save(d, "q.npy", a(256, 256)), "--lnc", "2"], 1.0, True, 0.0)]
results, expected_rows = [], []
for name, args, factor, match, max_abs in cases:
    bundle = os.path.join(d, name)
    rc, so, se = nki("bundle", *args, "-o", bundle, "-q")
    check_equal(rc, 0, f"bundle {name} ({se})")
    m = load_json(os.path.join(bundle, "manifest.json"))
    sim_us = m["nki_sim"]["simulated_ns"] / 1000
    device_us = sim_us / factor  # so (simulated - device) / device = factor - 1
    results.append(write_results(bundle, name, device_us, match, max_abs))
    shape = ",".join("x".join(map(str, t["shape"])) for t in m["inputs"])
    target = "trn2" + (" lnc2" if m["lnc"] == 2 else "")
    numerics = "match" if match else f"DIFFER (max abs {max_abs:.3g})"
    expected_rows.append([name, shape, target, f"{device_us:.3f}", f"{sim_us:.3f}", f"{(factor - 1) * 100:+.1f}%",
                          numerics])

# The known table: errors -20.0%, +25.0%, +0.0%; median |error| 20.0%, max 25.0%; numerics 2 of 3.
cells = [["kernel", "shape", "target", "device us", "simulated us", "error", "numerics"]] + expected_rows
width = [max(len(r[i]) for r in cells) for i in range(7)]
lines = []
for r in cells:
    parts = [r[i].rjust(width[i]) if 3 <= i <= 5 else (r[i].ljust(width[i]) if i < 6 else r[i]) for i in range(7)]
    lines.append("  ".join(parts))
expected = "\n".join(lines) + "\n" + \
    "error |simulated - device| / device: median 20.0%, max 25.0% over 3 kernel runs\n" + \
    "numerics: 2 of 3 device runs match nki-sim's outputs\n"
check_equal([r[5] for r in expected_rows], ["-20.0%", "+25.0%", "+0.0%"], "the known errors")
rc, so, se = nki("calibrate", *results)
check_equal(rc, 0, f"calibrate exit code ({se})")
check_equal(so, expected, "calibrate reproduces the known table")
# A bundle folder names its device_results.json.
rc, so2, se = nki("calibrate", os.path.join(d, "tensor_add"))
check(rc == 0 and so2.splitlines()[1].split() == so.splitlines()[1].split(), f"a bundle folder stands for its results: {so2!r}")

rc, so, se = nki("calibrate", "--json", *results)
check_equal(rc, 0, f"calibrate --json exit code ({se})")
j = json.loads(so) if rc == 0 else {}
check_equal([r["kernel"] for r in j.get("rows", [])], ["tensor_add", "softmax", "lnc_add"], "--json rows")
check(all(abs(r["error_percent"] - e) < 1e-9 for r, e in zip(j.get("rows", []), [-20.0, 25.0, 0.0])),
      f"--json errors {[r['error_percent'] for r in j.get('rows', [])]}")
check(abs(j.get("median_abs_error_percent", 0) - 20.0) < 1e-9 and abs(j.get("max_abs_error_percent", 0) - 25.0) < 1e-9,
      "--json median and max")
check_equal((j.get("numerics_agree"), j.get("runs")), (2, 3), "--json numerics agreement")
check_equal([r["numerics_match"] for r in j.get("rows", [])], [True, False, True], "--json numerics per row")
check_equal(j["rows"][1]["max_abs_error"] if j else None, 0.0625, "--json max abs error")
check_equal(j["rows"][2]["lnc"] if j else None, 2, "--json lnc")

# Bad input.
rc, so, se = nki("calibrate", os.path.join(d, "nowhere", "device_results.json"))
check(rc == 1 and "nowhere/device_results.json: error: cannot read device results" in se, f"missing file: {se!r}")
rc, so, se = nki("calibrate")
check(rc == 2 and "no device_results.json given" in se, f"no results: usage error {se!r}")

changed = os.path.join(d, "changed")
shutil.copytree(os.path.join(d, "tensor_add"), changed)
with open(os.path.join(changed, "inputs", "0_a_input.npy"), "r+b") as f:
    f.seek(-4, 2)
    f.write(b"\0\0\x80\x7f")
rc, so, se = nki("calibrate", os.path.join(changed, "device_results.json"))
check(rc == 1 and os.path.join(changed, "inputs", "0_a_input.npy") + ": error: sha256 " in se and
      "does not match the manifest's" in se, f"a changed bundle file: {se!r}")

other = os.path.join(d, "other_kernel")
shutil.copytree(os.path.join(d, "tensor_add"), other)
path = write_results(other, "softmax", 10.0)
rc, so, se = nki("calibrate", path)
check(rc == 1 and f"{path}: error: results for kernel 'softmax', but the bundle {other} holds kernel 'tensor_add'"
      in se, f"results for another kernel: {se!r}")
path = write_results(other, "tensor_add", 10.0, sha="0" * 64)
rc, so, se = nki("calibrate", path)
check(rc == 1 and f"{path}: error: results recorded with another bundle (manifest sha256 {'0' * 64})" in se,
      f"results of another bundle: {se!r}")
with open(path, "w") as f:
    f.write("{not json")
rc, so, se = nki("calibrate", results[0], path)
check(rc == 1 and f"{path}: error: not valid JSON" in se and so == "", f"malformed results: {se!r}")
with open(path, "w") as f:
    json.dump({"format": "nki-sim-device-results", "kernel": "tensor_add"}, f)
rc, so, se = nki("calibrate", path)
check(rc == 1 and f"{path}: error: missing key 'manifest_sha256'" in se, f"a results file missing a key: {se!r}")

finish()
