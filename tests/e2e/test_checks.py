"""--check (docs/checks.md, issue 16): each kind of mistake in tests/e2e/kernels/checks.py, an assembly program with
a wait= removed and a two-core kernel without its core_barrier are reported with the kernel line and the tensor
range; a deadlock names the semaphore's updates; --check=error exits 1; --check-json lists the findings; a correct
kernel has no finding."""
import json
import os
import subprocess

import numpy as np

from common import EXAMPLES, NKISIM, SRC, check, check_equal, finish, load_json, run, save, tmpdir

d = tmpdir()
K = os.path.join(SRC, "tests", "e2e", "kernels", "checks.py")
LNC = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
ADD = os.path.join(EXAMPLES, "tensor_add.py")
TOOLS = os.path.dirname(NKISIM)
rng = np.random.default_rng(0)
a = save(d, "a.npy", rng.random((128, 512), dtype=np.float32))
b = save(d, "b.npy", rng.random((512, 64), dtype=np.float32))
at = save(d, "at.npy", rng.random((128, 128), dtype=np.float32))
c = save(d, "c.npy", rng.random((128, 64), dtype=np.float32))
y = save(d, "y.npy", rng.random((128, 512), dtype=np.float32))


def checked(name, *args, mode="--check"):
    """Runs kernel `name` of checks.py with --check: (exit code, stderr)."""
    rc, _, se = run(K, "-k", name, "-q", "-o", os.path.join(d, name), mode, *args, checked=False)
    return rc, se


# A tile read before all of it was written: the read, its line and the never-written range, and the output it reaches.
rc, se = checked("read_before_write", "--inputs", a)
check_equal((rc, se), (0, f"""{K}:15:5: warning: initcheck: tensor_copy (vector #0) reads never-written t[0:128, 448:512] (8192 elements of operand 'src')
   15 |     nisa.tensor_copy(dst=u, src=t)
      |     ^
{K}: note: the result reaches output 'out': out[0:128, 448:512] (8192 elements) computed from never-written data
"""), "read before write")

# A loop one tile short: the output rows never written.
rc, se = checked("short_loop", "--inputs", b)
check_equal((rc, se), (0, f"{K}: warning: initcheck: output 'out' is not fully written: out[384:512, 0:64] holds 8192 of "
                          "its 32768 elements never written by the kernel\n"), "loop one tile short")

# accumulate=True onto PSUM nothing wrote.
rc, se = checked("accumulate_fresh", "--inputs", at, c)
check_equal((rc, se), (0, f"""{K}:42:5: warning: initcheck: multiply_moving (tensor #1) accumulates onto never-written psum acc[0:128, 0:64] (8192 elements of 'dst'); the first matmul of a group needs accumulate=False
   42 |     nisa.nc_matmul(dst=acc, stationary=st, moving=mv, accumulate=True)
      |     ^
{K}: note: the result reaches output 'out': out[0:128, 0:64] (8192 elements) computed from never-written data
"""), "accumulate onto never-written PSUM")

# The result stored into the input instead of the output.
rc, se = checked("writes_input", "--inputs", c)
check_equal((rc, se), (0, f"""{K}: warning: initcheck: output 'out' is not fully written: out[0:128, 0:64] holds 8192 of its 8192 elements never written by the kernel
{K}: note: the kernel wrote its input 'a': was that store meant for 'out'?
"""), "kernel writing its input")

# The Tensor Engine's stationary carries what it was loaded from: garbage columns reach only their result rows.
rc, se = checked("stationary_partial", "--inputs", at, c)
check_equal((rc, se), (0, f"""{K}:72:5: warning: initcheck: load_stationary (tensor #0) reads never-written st[0:128, 64:128] (8192 elements of operand 'stationary')
   72 |     nisa.nc_matmul(dst=acc, stationary=st, moving=mv)
      |     ^
{K}: note: the result reaches output 'out': out[64:128, 0:64] (4096 elements) computed from never-written data
"""), "stationary partly loaded, all rows stored")
rc, se = checked("stationary_partial", "--inputs", at, c, "--arg", "store_all=False", mode="--check=error")
check_equal((rc, se), (0, ""), "stationary partly loaded, only its loaded columns' rows stored: no finding")

# --check=error: the same finding as an error, exit 1, in a functional run too; --check-json has every field.
js = os.path.join(d, "f.json")
rc, se = checked("read_before_write", "--inputs", a, "--functional", "--check-json", js, mode="--check=error")
check(rc == 1 and se.startswith(f"{K}:15:5: error: initcheck: tensor_copy (vector #0) reads never-written "
                                "t[0:128, 448:512]"), f"--check=error: {rc} {se!r}")
if os.path.exists(js):
    j = load_json(js)
    f0 = j["findings"][0] if j.get("findings") else {}
    check_equal({k: f0.get(k) for k in ("kind", "severity", "engine", "index", "opcode", "line", "col", "tensor")},
                {"kind": "initcheck", "severity": "error", "engine": "vector", "index": 0, "opcode": "tensor_copy",
                 "line": 15, "col": 5, "tensor": "t[0:128, 448:512]"}, "--check-json finding")
    check_equal(j.get("counts"), {"initcheck": 1}, "--check-json counts")
else:
    check(False, "--check-json wrote no file")

# Options: racecheck alone finds nothing here (the back end orders every access; tests/e2e/test_check_race.py has
# its findings), an unknown check is a usage error, a correct kernel says nothing and exits 0.
rc, _, se = run(K, "-k", "read_before_write", "--inputs", a, "--check=race,sync", "-q", "-o", os.path.join(d, "r"),
                checked=False)
check_equal((rc, se), (0, ""), "--check=race,sync on a kernel with only an initcheck mistake")
rc, _, se = run(K, "-k", "read_before_write", "--inputs", a, "--check=races", "-q", "-o", os.path.join(d, "r"))
check(rc == 2 and "--check: unknown item 'races' (expected init, race, sync, all, error or warn)" in se,
      f"--check=races: {rc} {se!r}")
rc, _, se = run(ADD, "--inputs", a, y, "--check=error", "-q", "-o", os.path.join(d, "ok"))
check_equal((rc, se), (0, ""), "a correct kernel has no finding")


def asm_program(name, edit):
    """tensor_add's assembly with `edit` applied, assembled by nki-as: the .nkibin path."""
    src = os.path.join(d, name + ".s")
    rc, _, se = run(ADD, "--inputs", a, y, "-q", "-o", os.path.join(d, "asm"), "--emit", "asm", src)
    check_equal(rc, 0, f"emit asm ({se})")
    text = open(src).read()
    check(" wait=s5>=1,s6>=1" in text, "tensor_add's tensor_tensor waits for both loads")
    with open(src, "w") as f:
        f.write(edit(text))
    out = os.path.join(d, name + ".nkibin")
    p = subprocess.run([os.path.join(TOOLS, "nki-as"), src, "-o", out], capture_output=True, text=True, timeout=60)
    check_equal(p.returncode, 0, f"nki-as {name} ({p.stderr})")
    return out


# An assembly program with its wait= removed: the add reads the tiles before the loads wrote them.
prog = asm_program("nowait", lambda t: t.replace(" wait=s5>=1,s6>=1", ""))
rc, _, se = run("--program", prog, "--inputs", a, y, "--check=init", "-q", "-o", os.path.join(d, "nw"), checked=False,
                same_as_functional=False)
check_equal((rc, se), (0, f"""{ADD}:27:13: warning: initcheck: tensor_tensor (vector #0) reads never-written sbuf[0:128, bytes 0:2048] (65536 elements of operand 'data1')
{ADD}: note: the result reaches output 'c_output': c_output[0:128, 0:512] (65536 elements) computed from never-written data
"""), "asm without its wait=")

# A wait that can never be satisfied names the update that ran and says none is left.
prog = asm_program("dead", lambda t: t.replace(" wait=s5>=1,s6>=1", " wait=s5>=2,s6>=1"))
rc, _, se = run("--program", prog, "--inputs", a, y, "-q", "-o", os.path.join(d, "dl"))
check_equal((rc, se), (1, f"""{ADD}:27:13: error: deadlock: vector waits for semaphore 5 >= 2 (value is 1)
{ADD}:23:13: note: the last update of semaphore 5 that ran: dma_copy (sync #0) (1 update ran in all)
nki-sim: note: no update of semaphore 5 is left to run: the wait can never be satisfied
"""), "deadlock names both sides")

# Two cores without their core_barrier: core 1 reads the shared scratch before core 0 wrote it.
p = save(d, "p.npy", rng.random((128, 64), dtype=np.float32))
for mode in ((), ("--functional",)):
    rc, _, se = run(LNC, "-k", "lnc_barrier", "--inputs", p, "--lnc", "2", "--arg", "use_barrier=False", "--check=init",
                    "-q", "-o", os.path.join(d, "lnc"), *mode, checked=False, same_as_functional=False)
    check_equal((rc, se), (0, f"""{LNC}:46:9: warning: initcheck: dma_copy (core 1 sync #0) reads never-written scratch[0:128, 0:64] (8192 elements of operand 'src')
   46 |         nisa.dma_copy(dst=t, src=scratch)
      |         ^
{LNC}: note: the result reaches output 'out': out[128:256, 0:64] (8192 elements) computed from never-written data
"""), f"two cores without core_barrier {mode}")
rc, _, se = run(LNC, "-k", "lnc_barrier", "--inputs", p, "--lnc", "2", "--check=error", "-q", "-o", os.path.join(d, "l2"))
check_equal((rc, se), (0, ""), "two cores with their core_barrier: no finding")

finish()
