"""Program files, end to end for every example kernel (issue #4 "Program files"):
kernel -> asm == kernel -> bin -> nki-objdump; asm -> nki-as -> the same bytes and back to the same text;
nki-sim --program BIN gives byte-identical outputs and the same timing (stats) as compiling the kernel."""
import glob
import json
import os
import subprocess

import numpy as np

from common import EXAMPLES, NKISIM, check, check_equal, finish, run, save, tmpdir

TOOLS = os.path.dirname(os.path.abspath(NKISIM))
rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(shape, dtype=np.float32)


# example -> (inputs as (array, ":dtype" suffix), --arg values); small shapes, several tiles where it matters.
CASES = {
    "tensor_add": ([(f32(256, 512), ""), (f32(256, 512), "")], []),
    "exp_affine": ([(f32(128, 256), ""), (f32(128, 1), "")], ["scale=0.25"]),
    "softmax": ([(f32(200, 96), "")], []),
    "layernorm": ([(f32(130, 64), ""), (f32(1, 64), ""), (f32(1, 64), "")], []),
    "rmsnorm": ([(f32(128, 256), ":bfloat16"), (f32(1, 256), ":bfloat16")], []),
    "matmul_bf16": ([(f32(256, 128), ":bfloat16"), (f32(256, 512), ":bfloat16")], []),
    "transpose_te": ([(f32(128, 256), "")], []),
    "causal_mask": ([(f32(128, 128), "")], ["diagonal=1"]),
    "prefix_sum": ([(f32(128, 1024), "")], []),
}


def tool(name, *args):
    p = subprocess.run([os.path.join(TOOLS, name), *map(str, args)], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def outputs(d):
    return {os.path.basename(p): read(p, "rb") for p in sorted(glob.glob(os.path.join(d, "output_*.npy")))}


examples = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(EXAMPLES, "*.py")))
check(set(CASES) <= set(examples), f"round-trip cases name existing examples: {sorted(set(CASES) - set(examples))}")
for name in examples:
    if name not in CASES:
        continue  # examples added later by other issues (legacy API, MX, ...) have their own tests
    ins, args = CASES[name]
    d = tmpdir()
    files = [save(d, f"in{i}.npy", a) + sfx for i, (a, sfx) in enumerate(ins)]
    argv = ["--inputs", *files]
    for a in args:
        argv += ["--arg", a]
    kernel = os.path.join(EXAMPLES, name + ".py")
    asm, binf, stats1, stats2 = (os.path.join(d, f) for f in ("k.s", "k.nkibin", "s1.json", "s2.json"))
    rc, _, se = run(kernel, *argv, "-o", os.path.join(d, "o1"), "--stats", stats1, "--emit", "asm", asm, "-q")
    check_equal(rc, 0, f"{name}: compile + run with --emit asm ({se.strip()})")
    rc, _, se = run(kernel, *argv, "-o", os.path.join(d, "o1b"), "--emit", "bin", binf, "-q")
    check_equal(rc, 0, f"{name}: --emit bin ({se.strip()})")
    text = read(asm)
    check(len(text.splitlines()) > 3, f"{name}: the asm lists instructions")
    # kernel -> bin -> objdump == kernel -> asm
    rc, dumped, se = tool("nki-objdump", binf)
    check(rc == 0 and dumped == text, f"{name}: nki-objdump of --emit bin equals --emit asm ({se.strip()})")
    # asm -> nki-as -> identical bytes; -> objdump -> identical text
    bin2 = os.path.join(d, "k2.nkibin")
    rc, _, se = tool("nki-as", asm, "-o", bin2)
    check(rc == 0 and read(bin2, "rb") == read(binf, "rb"), f"{name}: nki-as of the asm gives the same bytes ({se.strip()})")
    rc, dumped2, _ = tool("nki-objdump", bin2)
    check(dumped2 == text, f"{name}: asm -> as -> objdump == asm")
    # the binary runs with the same outputs and the same timing
    rc, _, se = run("--program", binf, "--inputs", *files, "-o", os.path.join(d, "o2"), "--stats", stats2, "-q")
    check_equal(rc, 0, f"{name}: nki-sim --program ({se.strip()})")
    o1, o2 = outputs(os.path.join(d, "o1")), outputs(os.path.join(d, "o2"))
    check(len(o1) > 0 and o1 == o2, f"{name}: --program outputs are byte-identical to the kernel run")
    s1, s2 = json.loads(read(stats1)), json.loads(read(stats2))
    for key in ("total_ns", "instructions", "engines", "dma"):
        check_equal([c.get(key) for c in s2["cores"]], [c[key] for c in s1["cores"]],
                    f"{name}: stats {key} equal between kernel and --program runs")
    check("total_ns" in s1 and s1["total_ns"] > 0, f"{name}: stats report a positive total_ns")

finish()
