#!/usr/bin/env python3
"""model-3xtf32-error.py — a CPU model of 3xTF32's normwise error on Hopper's tensor cores.

The model behind the promotion of the sm90 3xTF32 kernels (docs/hopper.md, "Promotion per
k-step"). FP32 inputs are split into big + small TF32 parts (to nearest, ties to even, as the
kernels' pre-pass does); each wgmma k8 step adds its exact products into the FP32 accumulator
and truncates the sum toward zero (the tensor cores do not round to nearest); a promotion adds
the wgmma sum into FP32 registers with an IEEE add. Prints, per k, the normwise error
max|C - C_ref| / max(|A||B|) against the FP64 product for:
  sgemm     one FMA per k, rounded to nearest (a model, not cuBLAS's kernel)
  tile      3xTF32, one promotion per k-tile of 32 (the kernels' long segments)
  step      3xTF32, one promotion per k8 step (segments of one k-tile)
  exact     3xTF32 with exact accumulation: what the split alone costs

Usage: scripts/maintainer/model-3xtf32-error.py [--k 16,32,64,256] [--seeds 1,2,3] [--size 256]
Needs numpy. Runs in seconds at the default size; the GPU's own figures come from
`tilekit accuracy` (docs/accuracy.md).
"""
import argparse

import numpy as np


def tf32_rn(x):
    """FP32 to TF32 (10 stored mantissa bits), to nearest, ties to even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~np.uint64(0x1FFF)
    return bits.astype(np.uint32).view(np.float32)


def to_f32_toward_zero(x):
    f = x.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(x)
    f[over] = np.nextafter(f[over], np.float32(0))
    return f


def split(x):
    """FP32 into big + small TF32 parts, as the kernels' pre-pass splits it."""
    big = tf32_rn(x)
    return big, tf32_rn(x - big)


def wgmma_step(acc, a, b):
    """One k8 step: exact products (TF32 x TF32 fits a double) added to acc, truncated."""
    return to_f32_toward_zero(acc.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64))


def three_tf32(a, b, steps_per_promotion):
    (a_big, a_small), (b_big, b_small) = split(a), split(b)
    k = a.shape[1]
    zero = np.zeros((a.shape[0], b.shape[1]), np.float32)
    total, acc = zero, zero
    for step, k0 in enumerate(range(0, k, 8)):
        s = slice(k0, k0 + 8)
        # small terms first, as the kernels issue them
        acc = wgmma_step(acc, a_small[:, s], b_big[s])
        acc = wgmma_step(acc, a_big[:, s], b_small[s])
        acc = wgmma_step(acc, a_big[:, s], b_big[s])
        if (step + 1) % steps_per_promotion == 0 or k0 + 8 >= k:
            total, acc = total + acc, zero
    return total


def three_tf32_exact(a, b):
    (a_big, a_small), (b_big, b_small) = split(a), split(b)
    f = lambda x: x.astype(np.float64)
    return (f(a_small) @ f(b_big) + f(a_big) @ f(b_small) + f(a_big) @ f(b_big)).astype(np.float32)


def sgemm(a, b):
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        acc = (acc.astype(np.float64) + np.outer(a[:, p], b[p]).astype(np.float64)).astype(np.float32)
    return acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", default="16,32,64,256")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--size", type=int, default=256, help="m = n")
    args = ap.parse_args()
    print("%6s %5s %10s %10s %10s %10s" % ("seed", "k", "sgemm", "tile", "step", "exact"))
    for seed in (int(s) for s in args.seeds.split(",")):
        rng = np.random.default_rng(seed)
        for k in (int(x) for x in args.k.split(",")):
            a = rng.uniform(-1, 1, (args.size, k)).astype(np.float32)
            b = rng.uniform(-1, 1, (k, args.size)).astype(np.float32)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            scale = (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)).max()
            err = lambda c: np.abs(c.astype(np.float64) - ref).max() / scale
            print("%6d %5d %10.3g %10.3g %10.3g %10.3g" % (seed, k, err(sgemm(a, b)), err(three_tf32(a, b, 4)),
                                                         err(three_tf32(a, b, 1)), err(three_tf32_exact(a, b))))


if __name__ == "__main__":
    main()
