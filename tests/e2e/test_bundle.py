"""Device bundles (docs/device.md): `nki-sim bundle` of every example, of a two-core kernel and of a kernel in a
package with an -I module; each re-runs from a copy of the bundle alone with identical outputs
(`nki-sim bundle-run`), and each bundle's run_on_device.py runs against the stand-in Neuron SDK of
tests/device/sdk (the arguments it passes, the launch, the results file it writes)."""
import ast
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from common import EXAMPLES, NKISIM, SRC, check, check_equal, finish, load_json, save, tmpdir, write_file

DEVICE = os.path.join(SRC, "tests", "device")
rng = np.random.default_rng(21)
f32 = np.float32


def nki(*args, cwd=None):
    p = subprocess.run([NKISIM, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def device_env(log):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(DEVICE, "sdk")
    env["PATH"] = os.path.join(DEVICE, "bin") + os.pathsep + env.get("PATH", "")
    env["STANDIN_SDK_LOG"] = log
    env["STANDIN_LATENCY_US"] = json.dumps({"50": 12.5, "90": 13.0, "99": 14.25})
    for k in ("NEURON_LOGICAL_NC_CONFIG", "NEURON_PLATFORM_TARGET_OVERRIDE", "NEURON_FRAMEWORK_DEBUG"):
        env.pop(k, None)
    return env


def run_on_device(bundle, *args):
    """Runs the bundle's run_on_device.py with the stand-in SDK; returns (rc, stdout, stderr, log records)."""
    log = os.path.join(bundle, "..", os.path.basename(bundle) + ".sdk.log")
    if os.path.exists(log):
        os.remove(log)
    p = subprocess.run([sys.executable, os.path.join(bundle, "run_on_device.py"), *args], capture_output=True,
                       text=True, env=device_env(log), cwd=os.path.dirname(bundle), timeout=600)
    records = []
    if os.path.exists(log):
        with open(log) as f:
            records = [json.loads(line) for line in f]
    return p.returncode, p.stdout, p.stderr, records


def arr(shape, dtype=f32, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(dtype)


# (kernel file, -k, [(input array, dtype suffix)], extra options)
CASES = [
    ("causal_mask.py", None, [(arr((128, 256)), "")], ["--arg", "diagonal=3"]),
    ("exp_affine.py", None, [(arr((128, 512)), ""), (arr((128, 1)), "")], ["--arg", "scale=0.25"]),
    ("layernorm.py", None, [(arr((256, 512)), ""), (arr((1, 512)), ""), (arr((1, 512)), "")], []),
    ("legacy_attention.py", None, [(arr((256, 64)), ""), (arr((256, 64)), ""), (arr((256, 64)), "")],
     ["--arg", "causal=True"]),
    ("legacy_avgpool.py", None, [(arr((64, 8, 8)), "")], ["--arg", "pool_size=2"]),
    ("legacy_fused_mask.py", None, [(arr((200, 300)), ""), (arr((200, 300)), "")], []),
    ("legacy_mamba.py", None, [(arr((1, 128, 64), low=0.0, high=0.1), ""), (arr((1, 128, 64)), ""),
                               (arr((128, 4)), ""), (arr((1, 4, 64)), ""), (arr((1, 4, 64)), "")], []),
    ("legacy_matmul.py", None, [(arr((256, 128)), ""), (arr((256, 512)), "")], []),
    ("legacy_softmax.py", None, [(arr((200, 256)), "")], []),
    ("legacy_spmd_add.py", None, [(arr((256, 1024)), ""), (arr((256, 1024)), "")], ["--grid", "2,2"]),
    ("matmul_bf16.py", None, [(arr((256, 128)), ":bfloat16"), (arr((256, 512)), ":bfloat16")], []),
    ("prefix_sum.py", None, [(arr((128, 1024)), "")], []),
    ("rmsnorm.py", None, [(arr((256, 512)), ":bfloat16"), (arr((1, 512)), ":bfloat16")], ["--arg", "eps=1e-5"]),
    ("softmax.py", None, [(arr((256, 512)), "")], ["--arg", "use_accumulator=False"]),
    ("tensor_add.py", None, [(arr((256, 1024)), ""), (arr((256, 1024)), "")], []),
    ("transpose_te.py", None, [(arr((256, 128)), "")], []),
]
examples = sorted(os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "*.py")))
check_equal(sorted(c[0] for c in CASES), examples, "a bundle case for every example")
CASES = [(os.path.join(EXAMPLES, f), k, i, e) for f, k, i, e in CASES]
# A two-core kernel of our own (LNC=2: kernel[2] on the device).
CASES.append((os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py"), "lnc_add",
              [(arr((512, 256)), ""), (arr((512, 256)), "")], ["--lnc", "2"]))

# A legacy kernel at LNC=2 (kernel[nl.nc(2)] on the device).
legacy_lnc = write_file(tmpdir(), "legacy_lnc.py", """import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def legacy_lnc_add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // nl.num_programs()
    for t in nl.affine_range(rows // 128):
        r0 = nl.program_id(0) * rows + t * 128
        i_p, i_f = nl.mgrid[0:128, 0:a.shape[1]]
        nl.store(out[r0 + i_p, i_f], value=nl.load(a[r0 + i_p, i_f]) + nl.load(b[r0 + i_p, i_f]))
    return out
""")
CASES.append((legacy_lnc, None, [(arr((512, 256)), ""), (arr((512, 256)), "")], ["--lnc", "2"]))

# A kernel in a package: a relative import, an -I module, an unrelated file that must stay out of the bundle.
proj = tmpdir()
os.makedirs(os.path.join(proj, "kern"))
write_file(proj, "__init__.py", "")  # the bundle's kernel/ folder is then a package marker too: never imported
write_file(proj, "kern/__init__.py", "")
write_file(proj, "kern/consts.py", "SCALE = 3.0\n")
write_file(proj, "kern/unused.py", "raise RuntimeError('never imported')\n")
# Modules of lengths around SHA-256's 64-byte blocks (padding boundaries): their hashes are checked below.
# (kern/__init__.py is the empty file.)
PADS = (6, 55, 56, 63, 64, 119, 120, 128)
for n in PADS:
    write_file(proj, f"kern/pad{n}.py", "P = 1" + "#" * (n - 6) + "\n")
os.makedirs(os.path.join(proj, "lib"))
write_file(proj, "lib/tileops.py", """import nki.language as nl
import nki.isa as nisa


def scaled_copy(dst, src, scale):
    t = nl.ndarray(src.shape, dtype=src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=scale)
    nisa.dma_copy(dst=dst, src=t)
""")
write_file(proj, "kern/main.py", """import nki
import nki.language as nl
from tileops import scaled_copy
from .consts import SCALE
""" + "".join(f"from .pad{n} import P as P{n}\n" for n in PADS) + """


@nki.jit
def scale_rows(x, extra=0.0):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    scaled_copy(out, x, SCALE + extra)
    return out
""")
CASES.append((os.path.join(proj, "kern", "main.py"), None, [(arr((128, 64)), "")],
              ["-I", os.path.join(proj, "lib"), "-I", proj, "--arg", "extra=0.5"]))

# A kernel that writes its input in place and returns nothing; a non-tensor parameter before the tensors; float16.
write_file(proj, "add_into.py", """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def add_into(scale, a, b):
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    u = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=u, src=b)
    nisa.tensor_scalar(dst=u, data=u, op0=nl.multiply, operand0=scale)
    nisa.tensor_tensor(dst=t, data1=t, data2=u, op=nl.add)
    nisa.dma_copy(dst=a, src=t)
""")
CASES.append((os.path.join(proj, "add_into.py"), None, [(arr((128, 64)), ""), (arr((128, 64), np.float16), "")],
              ["--arg", "scale=2.0"]))

d = tmpdir()
bundles = []
for n, (kernel, k, inputs, extra) in enumerate(CASES):
    name = os.path.splitext(os.path.basename(kernel))[0] + (f"_{k}" if k else "")
    specs = [save(d, f"{name}_{i}.npy", a) + suffix for i, (a, suffix) in enumerate(inputs)]
    kopt = ["-k", k] if k else []
    bundle = os.path.join(d, "bundles", name)
    rc, so, se = nki("bundle", kernel, *kopt, "--inputs", *specs, *extra, "-o", bundle)
    check_equal(rc, 0, f"{name}: nki-sim bundle exit code ({se})")
    if rc:
        continue
    check(f"bundle {bundle}: kernel" in so and "run_on_device.py" in so, f"{name}: bundle summary {so!r}")
    m = load_json(os.path.join(bundle, "manifest.json"))
    check_equal(m["format"], "nki-sim-bundle", f"{name}: manifest format")
    for f, h in m["files"].items():
        check(os.path.isfile(os.path.join(bundle, f)) and sha256(os.path.join(bundle, f)) == h,
              f"{name}: {f} is in the bundle with its sha256")
    on_disk = sorted(os.path.relpath(p, bundle) for p in glob.glob(os.path.join(bundle, "**"), recursive=True)
                     if os.path.isfile(p))
    check_equal(on_disk, sorted(list(m["files"]) + ["manifest.json"]), f"{name}: the bundle holds the listed files")
    for f in ("run_on_device.py", "program.nkibin", "nki-sim/stats.json", "nki-sim/profile.txt"):
        check(f in m["files"], f"{name}: {f} is in the bundle")
    check_equal([t["name"] for t in m["inputs"]][:1], [m["inputs"][0]["name"]], f"{name}: inputs named")
    # nki-sim's outputs in the bundle are those of a plain run of the kernel.
    out = os.path.join(d, "direct", name)
    rc, so, se = nki(kernel, *kopt, "--inputs", *specs, *extra, "-o", out, "-q")
    check_equal(rc, 0, f"{name}: direct run ({se})")
    for t in m["nki_sim"]["outputs"]:
        direct = os.path.join(out, os.path.basename(t["file"]))
        check(rc == 0 and open(direct, "rb").read() == open(os.path.join(bundle, t["file"]), "rb").read(),
              f"{name}: bundle's {t['file']} equals a direct run's")
    stats = load_json(os.path.join(bundle, "nki-sim", "stats.json"))
    check_equal(stats["total_ns"], m["nki_sim"]["simulated_ns"], f"{name}: manifest simulated_ns is the stats'")
    bundles.append((name, bundle, m))

# The package case: the relative layout is kept, the -I folder recorded, the unused module left out.
pkg = [b for b in bundles if b[0] == "main"]
check(len(pkg) == 1, "the package kernel was bundled")
if pkg:
    m = pkg[0][2]
    check_equal(m["kernel"]["file"], "kernel/kern/main.py", "package kernel: its path in the bundle")
    check_equal(sorted(m["kernel"]["sources"]),
                sorted(["kernel/kern/consts.py", "kernel/kern/main.py", "kernel/lib/tileops.py"] +
                       [f"kernel/kern/pad{n}.py" for n in PADS]), "package kernel: the sources the front end read")
    check_equal(sorted(os.path.getsize(os.path.join(pkg[0][1], f"kernel/kern/pad{n}.py")) for n in PADS),
                sorted(PADS), "package kernel: modules of every padding length (their sha256 checked above)")
    check_equal(m["kernel"]["include_dirs"], ["kernel/lib", "kernel"], "package kernel: -I recorded inside the bundle")
    check("kernel/kern/__init__.py" in m["files"] and "kernel/__init__.py" in m["files"],
          "package kernel: the package markers come along")
    check("kernel/kern/unused.py" not in m["files"], "package kernel: a module it never imported stays out")
    check_equal(m["arguments"], [{"name": "extra", "value": "0.5"}], "package kernel: --arg recorded")
    # A kernel that reads a module the manifest does not list is refused, even with its own hash updated.
    sneaky = os.path.join(d, "sneaky")
    shutil.copytree(pkg[0][1], sneaky)
    write_file(sneaky, "kernel/kern/extra.py", "EXTRA = 1.0\n")
    main = os.path.join(sneaky, "kernel", "kern", "main.py")
    with open(main, "a") as f:
        f.write("from .extra import EXTRA\n")
    man = load_json(os.path.join(sneaky, "manifest.json"))
    man["files"]["kernel/kern/main.py"] = sha256(main)
    with open(os.path.join(sneaky, "manifest.json"), "w") as f:
        json.dump(man, f)
    rc, so, se = nki("bundle-run", sneaky)
    check(rc == 1 and os.path.join(sneaky, "kernel", "kern", "extra.py") +
          ": error: the kernel read this file, which is not one of the bundle's files" in se,
          f"bundle-run: a source outside the manifest: {se!r}")
lnc = [b for b in bundles if b[0] == "lnc_lnc_add"]
check(len(lnc) == 1 and lnc[0][2]["lnc"] == 2, "the two-core bundle records LNC=2")
spmd = [b for b in bundles if b[0] == "legacy_spmd_add"]
check(len(spmd) == 1 and spmd[0][2]["grid"] == [2, 2], "the legacy SPMD bundle records its grid")
inplace = [b for b in bundles if b[0] == "add_into"]
check(len(inplace) == 1 and inplace[0][2]["nki_sim"]["outputs"] == [] and
      [t["name"] for t in inplace[0][2]["nki_sim"]["written_inputs"]] == ["a"], "a written input is in the bundle")
if inplace:
    m = inplace[0][2]
    a0, b0 = (np.load(os.path.join(inplace[0][1], t["file"])) for t in m["inputs"])
    check_equal([t["dtype"] for t in m["inputs"]], ["float32", "float16"], "add_into: input dtypes")
    check(np.array_equal(np.load(os.path.join(inplace[0][1], "nki-sim", "input_a.npy")),
                         a0 + b0.astype(np.float32) * np.float32(2.0)), "add_into: nki-sim's written a = a + 2 b")
bf16 = [b for b in bundles if b[0] == "rmsnorm"]
check(len(bf16) == 1 and [t["dtype"] for t in bf16[0][2]["inputs"]] == ["bfloat16", "bfloat16"] and
      np.load(os.path.join(bf16[0][1], bf16[0][2]["inputs"][0]["file"])).dtype == np.uint16,
      "bfloat16 inputs are stored as raw bits with their dtype in the manifest")

# Re-run from a copy of each bundle alone (another folder, another working directory): identical outputs.
for name, bundle, m in bundles:
    copy = os.path.join(d, "copies", name)
    shutil.copytree(bundle, copy)
    out = os.path.join(d, "rerun", name)
    rc, so, se = nki("bundle-run", copy, "-o", out, cwd=d)
    check_equal(rc, 0, f"{name}: bundle-run exit code ({se})")
    check("outputs identical to the bundle's" in so, f"{name}: bundle-run summary {so!r}")
    for t in m["nki_sim"]["outputs"] + m["nki_sim"]["written_inputs"]:
        got = os.path.join(out, os.path.basename(t["file"]))
        check(os.path.exists(got) and open(got, "rb").read() == open(os.path.join(bundle, t["file"]), "rb").read(),
              f"{name}: re-run {os.path.basename(t['file'])} is bit-identical")

# run_on_device.py against the stand-in SDK: every bundle.
for name, bundle, m in bundles:
    rc, so, se, log = run_on_device(bundle, "--iters", "2", "--warmup", "1")
    check_equal(rc, 0, f"{name}: run_on_device.py exit code (stderr: {se[-2000:]})")
    res_path = os.path.join(bundle, "device_results.json")
    if rc or not os.path.exists(res_path):
        continue
    res = load_json(res_path)
    check_equal(res["format"], "nki-sim-device-results", f"{name}: results format")
    check_equal(res["manifest_sha256"], sha256(os.path.join(bundle, "manifest.json")), f"{name}: manifest sha256")
    check_equal(res["kernel"], m["kernel"]["function"], f"{name}: results kernel")
    check(res["numerics"]["all_match"] and all(o["max_abs_error"] == 0 and o["first_difference"] is None
                                               for o in res["numerics"]["outputs"]),
          f"{name}: the stand-in's outputs agree exactly: {res['numerics']}")
    check_equal(len(res["numerics"]["outputs"]), len(m["nki_sim"]["outputs"]), f"{name}: every output compared")
    calls = [r for r in log if "call" in r]
    legacy = res["sdk"]["module"] == "neuronxcc.nki"
    check_equal(legacy, name.startswith("legacy_"), f"{name}: the SDK module of the kernel's API")
    if name == "legacy_lnc":
        check(np.array_equal(np.load(os.path.join(bundle, "nki-sim", "output_0.npy")),
                             np.load(os.path.join(bundle, m["inputs"][0]["file"])) +
                             np.load(os.path.join(bundle, m["inputs"][1]["file"]))), "legacy_lnc: nki-sim's a + b")
    if legacy:  # baremetal for the numerics, then one benchmark call (warm-up and iterations are the SDK's)
        check_equal(len(calls), 2, f"{name}: kernel calls through neuronxcc.nki")
        check_equal([(r["warmup"], r["iters"]) for r in log if "benchmark" in r], [(1, 2)],
                    f"{name}: benchmark(warmup=1, iters=2)")
        check_equal(res["latency"]["method"], "neuronxcc.nki.benchmark", f"{name}: latency method")
        check_equal(res["latency"]["latency_us"], {"p50": 12.5, "p90": 13.0, "p99": 14.25},
                    f"{name}: nc_latency percentiles")
    else:  # nki.benchmark raises (NKI 0.2): a timed loop of 1 + 2 calls after the numerics call
        check_equal(len(calls), 4, f"{name}: kernel calls through nki")
        check_equal(res["latency"]["method"], "timed loop", f"{name}: latency method")
        check("nki.benchmark unavailable (NotImplementedError" in res["latency"]["note"], f"{name}: fallback note")
        check_equal(len(res["latency"]["samples_us"]), 2, f"{name}: two timed samples")
    want = [{"name": t["name"], "dtype": t["dtype"], "shape": t["shape"]} for t in m["inputs"]]
    got = [a for a in calls[0]["args"] if "shape" in a] if calls else []
    check_equal(got, want, f"{name}: inputs passed to the kernel by parameter, with dtype and shape")
    got_args = sorted((a["name"], ast.literal_eval(a["value"])) for a in calls[0]["args"] if "value" in a) if calls else []
    check_equal(got_args, sorted((a["name"], ast.literal_eval(a["value"])) for a in m["arguments"]),
                f"{name}: arguments passed, as values")
    launch = m["grid"] or ([f"nc({m['lnc']})" if legacy else m["lnc"]] if m["lnc"] > 1 else None)
    check(calls and all(c["grid"] == launch for c in calls), f"{name}: launched as {launch}: {calls[:1]}")
    check(calls and calls[0]["env"]["NEURON_LOGICAL_NC_CONFIG"] == str(m["lnc"]) and
          calls[0]["env"]["NEURON_PLATFORM_TARGET_OVERRIDE"] == m["target"],
          f"{name}: runtime LNC and target set before the SDK runs: {calls[0]['env'] if calls else None}")
    if name == "main":
        check(calls and calls[0]["module"] == "kern.main", f"package kernel imported as kern.main: {calls[:1]}")
    check("device p50" in so and "outputs match" in so, f"{name}: run_on_device summary {so!r}")

# --profile: the NEFF the SDK saved (NEURON_FRAMEWORK_DEBUG=1) goes to neuron-explorer capture.
b = os.path.join(d, "bundles", "tensor_add")
rc, so, se, log = run_on_device(b, "--iters", "1", "--warmup", "0", "--profile")
check_equal(rc, 0, f"--profile exit code ({se[-2000:]})")
res = load_json(os.path.join(b, "device_results.json"))
explorer = [r["neuron-explorer"] for r in log if "neuron-explorer" in r]
check_equal(explorer, [["capture", "-n", os.path.join(b, "device_work", "file.neff"), "-s", "profile.ntff",
                        "--profile-nth-exec=2"]], "neuron-explorer capture command")
check_equal((res["profile"]["status"], res["profile"]["ntff"]), ("ok", ["device_work/profile_exec_2.ntff"]),
            "profile status and NTFF")
check(all(r["env"]["NEURON_FRAMEWORK_DEBUG"] == "1" for r in log if "call" in r), "NEURON_FRAMEWORK_DEBUG=1")

# A device output that differs: max abs / rel error and the first differing element, exit 1.
bad = os.path.join(d, "bad_numerics")
shutil.copytree(b, bad)
ref_file = os.path.join(bad, "nki-sim", "output_0.npy")
ref = np.load(ref_file)
ref[3, 7] += 0.5
np.save(ref_file, ref)
man_file = os.path.join(bad, "manifest.json")
man = load_json(man_file)
man["files"]["nki-sim/output_0.npy"] = sha256(ref_file)
with open(man_file, "w") as f:
    json.dump(man, f, indent=2)
rc, so, se, log = run_on_device(bad, "--iters", "1", "--warmup", "0")
check_equal(rc, 1, "a differing output: exit 1")
res = load_json(os.path.join(bad, "device_results.json"))
o = res["numerics"]["outputs"][0]
check(not res["numerics"]["all_match"] and not o["match"], "a differing output is reported")
check_equal(o["first_difference"]["index"], [3, 7], "the first differing element")
check(abs(o["max_abs_error"] - 0.5) < 1e-6 and o["differing_elements"] == 1, f"max abs error and count: {o}")
check("outputs DIFFER" in so, f"summary says DIFFER: {so!r}")
# bundle-run holds a re-run to the bundle's outputs: the changed one is named, for the kernel and the program.
rc, so, se = nki("bundle-run", bad, "-o", os.path.join(d, "bad_rerun"))
check(rc == 1 and os.path.join(d, "bad_rerun", "output_0.npy") + ": differs from the bundle's " + ref_file in se and
      "program.nkibin: differs from the bundle's " + ref_file in se, f"bundle-run names a differing output: {se!r}")

# A changed bundle file: run_on_device.py and bundle-run refuse it, naming the file.
tampered = os.path.join(d, "tampered")
shutil.copytree(b, tampered)
with open(os.path.join(tampered, "kernel", "tensor_add.py"), "a") as f:
    f.write("# changed\n")
rc, so, se, log = run_on_device(tampered)
check(rc == 1 and "kernel/tensor_add.py: sha256 does not match manifest.json" in se and not log,
      f"run_on_device.py refuses a changed file before any call: {rc} {se!r}")
rc, so, se = nki("bundle-run", tampered)
check(rc == 1 and os.path.join(tampered, "kernel", "tensor_add.py") + ": error: sha256 " in se and
      "does not match the manifest's" in se, f"bundle-run refuses a changed file: {rc} {se!r}")
os.remove(os.path.join(tampered, "inputs", "0_a_input.npy"))
rc, so, se = nki("bundle-run", tampered)
check(rc == 1 and "0_a_input.npy: error: missing from the bundle" in se, f"bundle-run: a missing file: {se!r}")
linked = os.path.join(d, "linked")
shutil.copytree(b, linked)
shutil.move(os.path.join(linked, "kernel"), os.path.join(d, "outside_kernel"))
os.symlink(os.path.join(d, "outside_kernel"), os.path.join(linked, "kernel"))
rc, so, se = nki("bundle-run", linked)
check(rc == 1 and os.path.join(linked, "kernel") + ": error: a symbolic link" in se,
      f"bundle-run: a folder linked out of the bundle: {se!r}")
# A hostile or damaged manifest: every problem is an error located at manifest.json, nothing is read outside.
hostile = os.path.join(d, "hostile")
shutil.copytree(b, hostile)
base = load_json(os.path.join(hostile, "manifest.json"))
for change, message in [
        (lambda m: m["kernel"].update(file="../../etc/passwd"), "'file': '../../etc/passwd' is not a path inside the bundle"),
        (lambda m: m["files"].update({"/etc/passwd": "0"}), "'files': '/etc/passwd' is not a path inside the bundle"),
        (lambda m: m["kernel"].update(sources="kernel/tensor_add.py"), "'sources' must be a list of paths"),
        (lambda m: m.update(format_version=2), "bundle format_version 2 is not supported"),
        (lambda m: m.update(lnc=3), "LNC=3: trn2 supports LNC=1 to 2"),
        (lambda m: m.update(lnc="2"), "'lnc' must be an integer"),
        (lambda m: m["files"].pop("inputs/0_a_input.npy"), "'inputs/0_a_input.npy' is used but not listed under 'files'"),
        (lambda m: m.pop("target"), "missing key 'target'")]:
    m = json.loads(json.dumps(base))
    change(m)
    with open(os.path.join(hostile, "manifest.json"), "w") as f:
        json.dump(m, f)
    rc, so, se = nki("bundle-run", hostile)
    check(rc == 1 and os.path.join(hostile, "manifest.json") + ": error: " + message in se,
          f"hostile manifest: {message}: {se!r}")

# The budgets are recorded and a re-run is held to them.
budgeted = os.path.join(d, "budgeted")
specs = [save(d, f"bud_{i}.npy", arr((128, 512))) for i in range(2)]
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", *specs, "--max-steps", "123456",
                 "--max-instructions", "5000", "--max-recursion", "77", "--max-loop-iterations", "9", "-o", budgeted)
man_file = os.path.join(budgeted, "manifest.json")
check(rc == 0 and load_json(man_file)["budgets"] == {"max_steps": 123456, "max_instructions": 5000,
                                                     "max_recursion": 77, "max_loop_iterations": 9},
      f"budgets recorded in the manifest ({se})")
man = load_json(man_file)
man["budgets"]["max_instructions"] = 3
with open(man_file, "w") as f:
    json.dump(man, f)
rc, so, se = nki("bundle-run", budgeted)
check(rc == 1 and "--max-instructions" in se and "tensor_add.py:" in se, f"a re-run is held to the budgets: {se!r}")
man["budgets"]["max_instructions"] = 0
with open(man_file, "w") as f:
    json.dump(man, f)
rc, so, se = nki("bundle-run", budgeted)
check(rc == 1 and "manifest.json: error: 'budgets': 'max_instructions' must be a positive whole number" in se,
      f"a bad budget in the manifest: {se!r}")
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", *specs, "--max-steps", "0", "-o", budgeted)
check(rc == 2 and "--max-steps expects a positive whole number, got '0'" in se, f"a bad budget option: {se!r}")
rc, so, se = nki("bundle-run", os.path.join(d, "no_such_bundle"))
check(rc == 1 and "no_such_bundle: error: not a bundle folder" in se, f"bundle-run: no such folder: {se!r}")
rc, so, se = nki("bundle-run")
check(rc == 2 and "no bundle folder given" in se, f"bundle-run without a folder: usage error {se!r}")

# The bundle folder: an earlier bundle is replaced whole, anything else is left alone; no temporary folder stays.
specs = [save(d, f"re_{i}.npy", arr((128, 512))) for i in range(2)]
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", *specs, "-o", b, "-q")
check(rc == 1 and "tensor_add: error: holds device_results.json from a device run; not replaced" in se and
      os.path.exists(os.path.join(b, "device_results.json")), f"a bundle holding device results is kept: {se!r}")
os.remove(os.path.join(b, "device_results.json"))
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", *specs, "-o", b, "-q")
check(rc == 0 and so == "" and load_json(os.path.join(b, "manifest.json"))["inputs"][0]["shape"] == [128, 512] and
      not os.path.exists(os.path.join(b, "device_results.json")), f"re-bundling replaces the bundle ({se})")
other = os.path.join(d, "not_a_bundle")
os.makedirs(other)
write_file(other, "keep.txt", "mine")
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", *specs, "-o", other)
check(rc == 1 and "not_a_bundle: error: exists and is not a bundle folder" in se and
      os.listdir(other) == ["keep.txt"], f"a folder that is not a bundle is not replaced: {se!r}")
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", specs[0], "-o",
                 os.path.join(d, "failed"))
check(rc == 1 and "error:" in se and not os.path.exists(os.path.join(d, "failed")), f"a failing kernel: {se!r}")
check_equal([p for p in os.listdir(d) if ".tmp-" in p], [], "no temporary bundle folder is left behind")
rc, so, se = nki("bundle", os.path.join(EXAMPLES, "tensor_add.py"), "--inputs", *specs)
check(rc == 2 and "-o DIR (the bundle folder) is required" in se, f"bundle without -o: usage error {se!r}")

finish()
