"""--check=race and --check=sync (docs/checks.md, issue 16 parts 2-3): an assembly program with a wait= removed (run
as assembled binary), two DMA queues writing one tile, a two-core kernel without its core_barrier, a semaphore update past 32 bits and semaphores
nothing waits for are reported with both instructions' kernel lines and the tensor range, the same in timed and
--functional runs; --check (all) counts every kind; correct programs have no finding."""
import os
import subprocess

import numpy as np

from common import EXAMPLES, NKISIM, SRC, check, check_equal, finish, load_json, run, save, tmpdir

d = tmpdir()
LNC = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
ADD = os.path.join(EXAMPLES, "tensor_add.py")
TOOLS = os.path.dirname(NKISIM)
rng = np.random.default_rng(16)
a = save(d, "a.npy", rng.random((128, 512), dtype=np.float32))
y = save(d, "y.npy", rng.random((128, 512), dtype=np.float32))
MODES = ((), ("--functional",))


def asm_program(name, old, new):
    """tensor_add's assembly with `old` replaced by `new`, assembled by nki-as: the .nkibin path."""
    src = os.path.join(d, name + ".s")
    rc, _, se = run(ADD, "--inputs", a, y, "-q", "-o", os.path.join(d, "asm"), "--emit", "asm", src)
    check_equal(rc, 0, f"emit asm ({se})")
    text = open(src).read()
    check(old in text, f"tensor_add's assembly has {old!r}")
    with open(src, "w") as f:
        f.write(text.replace(old, new))
    out = os.path.join(d, name + ".nkibin")
    p = subprocess.run([os.path.join(TOOLS, "nki-as"), src, "-o", out], capture_output=True, text=True, timeout=60)
    check_equal(p.returncode, 0, f"nki-as {name} ({p.stderr})")
    return out


def program(prog, *args):
    """Runs binary program `prog` on tensor_add's inputs: (exit code, stderr)."""
    rc, _, se = run("--program", prog, "--inputs", a, y, "-q", "-o", os.path.join(d, "o"), *args, checked=False,
                    same_as_functional=False)
    return rc, se


# The add's wait= removed: it reads both tiles while the loads write them. Both instructions, both lines, the range.
nowait = asm_program("nowait", " wait=s5>=1,s6>=1", "")
RACES = f"""{ADD}:23:13: warning: racecheck: dma_copy (sync #0) on DMA queue 0 writes sbuf[0:128, bytes 0:2048] while tensor_tensor (vector #0) reads it, and nothing orders the two (no semaphore wait, DMA completion or barrier between them)
{ADD}:27:13: note: the other access: tensor_tensor (vector #0) reads sbuf[0:128, bytes 0:2048]
{ADD}:24:13: warning: racecheck: dma_copy (sync #1) on DMA queue 1 writes sbuf[0:128, bytes 2048:4096] while tensor_tensor (vector #0) reads it, and nothing orders the two (no semaphore wait, DMA completion or barrier between them)
{ADD}:27:13: note: the other access: tensor_tensor (vector #0) reads sbuf[0:128, bytes 2048:4096]
"""
for mode in MODES:
    check_equal(program(nowait, "--check=race", *mode), (0, RACES), f"racecheck: asm without its wait= {mode}")

# Both loads into the same tile from two DMA queues: a write-write race (the add waits for both, so its read is
# ordered).
both = asm_program("waw", "dst=sbuf:float32@p0:128+0x800[[1,512]] src=hbm", "dst=sbuf:float32@p0:128+0x0[[1,512]] src=hbm")
for mode in MODES:
    check_equal(program(both, "--check=race", *mode), (0, f"""{ADD}:24:13: warning: racecheck: dma_copy (sync #1) on DMA queue 1 writes sbuf[0:128, bytes 0:2048] while dma_copy (sync #0) on DMA queue 0 also writes it, and nothing orders the two (no semaphore wait, DMA completion or barrier between them)
{ADD}:23:13: note: the other access: dma_copy (sync #0) on DMA queue 0 writes sbuf[0:128, bytes 0:2048]
"""), f"racecheck: two queues write one tile {mode}")

# The loads' semaphores are left raised with nothing waiting for them.
check_equal(program(nowait, "--check=sync"), (0, f"""{ADD}:23:13: warning: synccheck: semaphore 5 ends the run at 1 but no instruction of the program waits for it: its last update, by dma_copy (sync #0), orders nothing (is a wait= missing?)
{ADD}:24:13: warning: synccheck: semaphore 6 ends the run at 1 but no instruction of the program waits for it: its last update, by dma_copy (sync #1), orders nothing (is a wait= missing?)
"""), "synccheck: signals nothing waits for")

# --check (all) as errors: exit 1, every kind counted in --check-json.
js = os.path.join(d, "all.json")
rc, se = program(nowait, "--check=error", "--check-json", js)
check(rc == 1 and ": error: racecheck: " in se, f"--check=error: {rc} {se!r}")
check_equal(load_json(js).get("counts") if os.path.exists(js) else None,
            {"initcheck": 1, "racecheck": 2, "synccheck": 2}, "--check-json counts")
f0 = [f for f in load_json(js)["findings"] if f["kind"] == "racecheck"][0] if os.path.exists(js) else {}
check_equal({k: f0.get(k) for k in ("severity", "engine", "index", "opcode", "line", "col", "tensor")},
            {"severity": "error", "engine": "sync", "index": 0, "opcode": "dma_copy", "line": 23, "col": 13,
             "tensor": "sbuf[0:128, bytes 0:2048]"}, "--check-json racecheck finding")
check_equal([(n["line"], n["message"]) for n in f0.get("notes", [])],
            [(27, "the other access: tensor_tensor (vector #0) reads sbuf[0:128, bytes 0:2048]")], "its note")

# A semaphore update past 32 bits (two updates of one instruction: 2^32 - 1, then 1).
over = asm_program("overflow", " signal=s5+1 @L1", " signal=s5+4294967295,s5+1 @L1")
for mode in MODES:
    check_equal(program(over, "--check=sync", *mode), (0, f"""{ADD}:23:13: warning: synccheck: dma_copy (sync #0) raises semaphore 5 to 4294967296, past the largest value of a 32-bit semaphore (4294967295)
{ADD}:23:13: warning: synccheck: semaphore 5 ends the run at 4294967296 but no wait of the program needs more than 1: its last update, by dma_copy (sync #0), orders nothing (is a wait= missing?)
"""), f"synccheck: overflow {mode}")

# The unmodified program: no finding of any kind.
check_equal(program(asm_program("same", "", ""), "--check=error"), (0, ""), "assembled tensor_add: no finding")

# Two cores without their core_barrier: core 1 reads the shared scratch while core 0 writes it.
p = save(d, "p.npy", rng.random((128, 64), dtype=np.float32))
for mode in MODES:
    rc, _, se = run(LNC, "-k", "lnc_barrier", "--inputs", p, "--lnc", "2", "--arg", "use_barrier=False",
                    "--check=race", "-q", "-o", os.path.join(d, "lnc"), *mode, checked=False, same_as_functional=False)
    check_equal((rc, se), (0, f"""{LNC}:41:9: warning: racecheck: dma_copy (core 0 scalar #0) on DMA queue 8 writes scratch[0:128, 0:64] while dma_copy (core 1 sync #0) on DMA queue 0 reads it, and nothing orders the two (no semaphore wait, DMA completion or barrier between them)
   41 |         nisa.dma_copy(dst=scratch, src=u)
      |         ^
{LNC}:46:9: note: the other access: dma_copy (core 1 sync #0) on DMA queue 0 reads scratch[0:128, 0:64]
   46 |         nisa.dma_copy(dst=t, src=scratch)
      |         ^
"""), f"racecheck: two cores without core_barrier {mode}")
    rc, _, se = run(LNC, "-k", "lnc_barrier", "--inputs", p, "--lnc", "2", "--check=error", "-q", "-o",
                    os.path.join(d, "l2"), *mode)
    check_equal((rc, se), (0, ""), f"two cores with their core_barrier: no finding {mode}")

finish()
