#!/usr/bin/env python3
"""make-evaluation-suite.py — writes bench/suites/evaluation.json, the public evaluation suite.

    scripts/maintainer/make-evaluation-suite.py [OUT]   (default bench/suites/evaluation.json)

160 shapes per mode (f32, bf16, f16, tf32, 3xTF32), 40 per op (NN, NT, TN, TT), each timed with
kernel auto beside the mode's cuBLAS baseline: LLM projections and their decode shapes (m = 1 to
64 tokens against weights 4096 to 28672 wide; x·Wᵀ with W row-major is the NT op), small squares
64–1000, primes and off-grid sizes, skinny and deep-k shapes, and flat batch-like shapes. The
shapes are fixed by the lists and the seed below; none is a training shape of the shipped tune
table (src/core/tune_tables/) or of tune-shapes.sh's training sets, nor one of the autotuner's
own evaluation shapes (the auto-vs-cublas suite): a test (tests/cpu/test_suites.cpp) checks it.
"""
import json
import os
import random
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODES = [{"compute": "f32"}, {"dtype": "bf16"}, {"dtype": "f16"}, {"compute": "tf32"},
         {"compute": "f32_3xtf32"}]
OPS = ["NN", "NT", "TN", "TT"]
PER_OP = 40
WIDTHS = [4096, 5120, 8192, 11008, 14336, 28672]       # model widths and MLP sizes
WEIGHTS = [(4096, 4096), (8192, 8192), (28672, 8192), (8192, 28672), (14336, 4096),
           (4096, 14336), (11008, 4096), (5120, 5120)]  # (n, k) of x·Wᵀ
TOKENS = [1, 2, 4, 8, 16, 32, 64]
SQUARES = [64, 96, 128, 160, 192, 200, 320, 448, 576, 640, 720, 896, 960, 1000]
PRIMES = [97, 211, 331, 479, 601, 997, 1283, 1531, 2039, 3001, 4099, 6143, 7919]


def taken():
    """Every (m, n, k) the shipped table or the tuner's shape sets hold."""
    out = set()
    table = json.load(open(os.path.join(ROOT, "src/core/tune_tables/nvidia-h200.json")))
    for e in table["entries"]:
        out.add((e["m"], e["n"], e["k"]))
    text = open(os.path.join(ROOT, "scripts/maintainer/tune-shapes.sh")).read()
    for v in re.findall(r'"([0-9x,\\\n]+)"', text):
        for s in v.replace("\\\n", "").split(","):
            d = [int(x) for x in s.split("x")]
            out.add(tuple(d * 3 if len(d) == 1 else d))
    return out


def candidates(op, rng):
    """The op's shape pool, in a fixed order: projections, decode, squares, primes, skinny,
    deep-k, flat."""
    pool = []
    for n, k in WEIGHTS:  # decode: a few tokens against a weight
        for m in rng.sample(TOKENS, 2):
            pool.append((m, n, k))
    for m in rng.sample([128, 256, 512, 1024, 2048, 4096], 4):  # prefill projections
        n, k = rng.sample(WIDTHS, 2)
        pool.append((m, n, k))
    pool += [(s, s, s) for s in rng.sample(SQUARES, 6)]
    pool += [(p, p, p) for p in rng.sample(PRIMES, 4)]
    a, b, c = rng.sample(PRIMES, 3)
    pool.append((a, b, c))
    pool += [(16, rng.choice(WIDTHS), 2000), (rng.choice(WIDTHS), 48, 3000),
             (100, 12000, 300)]  # skinny
    pool += [(128, 128, 32768), (rng.choice([192, 320]), 256, 24576)]  # deep k
    pool += [(65536, 64, 64), (32768, 128, 96), (64, 64, 65536)]  # flat, batch-like
    return pool


def main(argv):
    out_path = argv[1] if len(argv) > 1 else os.path.join(ROOT, "bench/suites/evaluation.json")
    rng = random.Random(20261202)
    used = taken()
    parts = []
    for op in OPS:
        shapes, seen = [], set()
        for s in candidates(op, rng) + [(x, x, x) for x in range(66, 2000, 37)]:
            if s in used or s in seen:
                continue
            seen.add(s)
            shapes.append(list(s) if len(set(s)) > 1 else s[0])
            if len(shapes) == PER_OP:
                break
        assert len(shapes) == PER_OP, op
        for mode in MODES:
            parts.append(dict(op="gemm", **mode, ops=[op], shapes=shapes,
                              kernels=["auto"], max_time=0.2, interleave=2))
    suite = {
        "name": "evaluation",
        "description": "What auto gives against the mode's cuBLAS baseline (cuBLAS BF16, FP16 "
                       "and TF32; SGEMM for f32 and 3xTF32) over 160 shapes per mode, 40 per op, "
                       "none a training shape: LLM projections and decode shapes (m = 1-64 "
                       "against weights 4096-28672 wide), small squares, primes, skinny, deep-k "
                       "and flat shapes (scripts/maintainer/make-evaluation-suite.py).",
        "parts": parts,
    }
    with open(out_path, "w") as f:
        f.write("{\n")
        f.write(f'  "name": {json.dumps(suite["name"])},\n')
        f.write(f'  "description": {json.dumps(suite["description"], ensure_ascii=False)},\n')
        f.write('  "parts": [\n')
        f.write(",\n".join("    " + json.dumps(p) for p in parts))
        f.write("\n  ]\n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
