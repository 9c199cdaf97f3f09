"""Large real kernels (issue 20): nki-library's attention, MLP and MoE kernels at the biggest configurations of
their test files, through tests/corpora/run.py with the CLI backend. For each: PASS/FAIL of the corpus check,
nki-sim's simulate time and peak RSS, and RSS against the target 1.5 x (bytes of the HBM tensors) + 64 MiB.

    /usr/bin/python3 bench/large_kernels.py [--nki-sim build/nki-sim] [--nki-library /work/corpora/nki-library]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["attention_cte/lnc2_bs3_skv2048_sq2048_d128_float16_causal_tpq",
         "mlp/lnc2_b1_s1024_h1024_i448_no_norm_fused_add",
         "moe_cte/lnc2_shard_on_i_h3072_t1024_e8_b512_k4_i2048_SiLU_bias"]
MIB = 1 << 20


def run(case, exe, library):
    """{'status', 'simulate' (wall, cpu), 'rss_bytes', 'hbm_tensor_bytes'} of one corpus case."""
    with tempfile.TemporaryDirectory(prefix="nkisim-large-") as d:
        log = os.path.join(d, "log.jsonl")
        env = dict(os.environ, NKISIM_REAL=os.path.abspath(exe), NKISIM_BENCH_LOG=log)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "corpora", "run.py"), "--nki-library", library,
                            "--only", case, "--backend", "cli", "--nki-sim", os.path.join(ROOT, "bench", "sim_wrapper.py")],
                           capture_output=True, text=True, env=env)
        rows = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
        row = [l for l in p.stdout.splitlines() if l.startswith(case)]  # "case  STATUS  err  time  first error line"
        status = "PASS" if p.returncode == 0 and rows else "FAIL: " + " ".join((row or [p.stderr.strip()])[0].split()[1:])
        first = rows[0] if rows else {}  # a MISMATCH re-runs with --functional: the first run is the timed one
        return dict(first, status=status)


def target_bytes(hbm):
    return 1.5 * hbm + 64 * MIB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nki-sim", default=os.path.join(ROOT, "build", "nki-sim"))
    ap.add_argument("--nki-library", default="/work/corpora/nki-library")
    a = ap.parse_args()
    for case in CASES:
        r = run(case, a.nki_sim, a.nki_library)
        sim = r.get("simulate") or (0, 0)
        rss, hbm = r.get("rss_bytes", 0), r.get("hbm_tensor_bytes", 0)
        print(f"{case}: {r['status']}, simulate {sim[0]:.2f} s wall / {sim[1]:.2f} s cpu, peak RSS {rss / MIB:.0f} MiB, "
              f"HBM tensors {hbm / MIB:.1f} MiB, RSS / (1.5 x HBM + 64 MiB) = {rss / target_bytes(hbm):.2f}")


if __name__ == "__main__":
    main()
