#!/usr/bin/env python3
"""Draws the plots of a `tilekit report` folder from its rows.csv and report.json.

Usage: plot_report.py REPORT_DIR
Writes gflops_vs_n.png, speedup.png, roofline.png and occupancy.png into REPORT_DIR.
"""
import csv
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_files import save_figure  # noqa: E402


def load(folder):
    with open(os.path.join(folder, "rows.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["outcome"] == "ok"]
    with open(os.path.join(folder, "report.json")) as f:
        meta = json.load(f)
    return rows, meta


def rates(rows):
    by_kernel = defaultdict(dict)
    for r in rows:
        by_kernel[r["kernel"]][int(r["m"])] = float(r["gflops"])
    return by_kernel


STEPS = {}


def step_of(kernel):
    """The ladder step of a kernel (report.json lists them); None for baselines and references."""
    return STEPS.get(kernel)


def best_per_step(by_kernel):
    """step -> n -> the fastest rate of that step's configurations at n."""
    best = defaultdict(dict)
    for kernel, pts in by_kernel.items():
        step = step_of(kernel)
        if step is None:
            continue
        for n, v in pts.items():
            best[step][n] = max(best[step].get(n, 0), v)
    return best


def plot_gflops(by_kernel, folder, title):
    """One line a ladder step (its fastest configuration at each n; report.md's table has every
    configuration) and one dashed line a baseline: 17 steps of 2-7 configurations each are
    unreadable as 50 lines."""
    fig, ax = plt.subplots(figsize=(11, 6))
    colors = plt.cm.tab20.colors
    lines = [("step " + step, pts, "-") for step, pts in sorted(best_per_step(by_kernel).items())]
    lines += [(kernel, pts, "--") for kernel, pts in sorted(by_kernel.items()) if kernel not in STEPS]
    for i, (label, pts, style) in enumerate(lines):
        ns = sorted(pts)
        ax.plot(ns, [pts[n] / 1000 for n in ns], marker="o", markersize=3, label=label,
                color=colors[i % len(colors)], linestyle=style)
    ax.set_xlabel("n (n×n×n)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(title + " (each step: its fastest configuration at each n)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    save_figure(fig, os.path.join(folder, "gflops_vs_n.png"), dpi=110)


def plot_speedup(by_kernel, folder, naive, blas):
    best = best_per_step(by_kernel)
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    for ax, base, label in [(axes[0], naive, "over the naive kernel"), (axes[1], blas, "over the CPU BLAS")]:
        ref = by_kernel.get(base, {})
        for step in sorted(best):
            ns = sorted(n for n in best[step] if n in ref)
            if ns:
                ax.plot(ns, [best[step][n] / ref[n] for n in ns], marker="o", markersize=3, label="step " + step)
        ax.set_xlabel("n")
        ax.set_ylabel("speedup (×)")
        ax.set_title("speedup " + label)
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, os.path.join(folder, "speedup.png"), dpi=110)


def plot_roofline(meta, folder):
    c = meta["ceilings"]
    peak, bw = c["peak_gflops"], c["bandwidth_gbps"]
    fig, ax = plt.subplots(figsize=(8, 6))
    qs = [10 ** (x / 20) for x in range(-40, 61)]
    ax.plot(qs, [min(peak, q * bw) for q in qs], color="black", label=f"measured roof: {peak:.0f} GFLOP/s, {bw:.0f} GB/s")
    if c.get("datasheet_peak_gflops", 0) > 0:
        dp, db = c["datasheet_peak_gflops"], c["datasheet_bandwidth_gbps"]
        ax.plot(qs, [min(dp, q * db) for q in qs], color="gray", linestyle="--", label="datasheet roof")
    for t in meta["traffic"]:
        if t["measured_gflops"] > 0:
            ax.scatter([t["q"]], [t["measured_gflops"]], zorder=3)
            ax.annotate(t["kernel"].split(".")[2] + "." + t["kernel"].split(".")[-1], (t["q"], t["measured_gflops"]),
                        fontsize=7, xytext=(4, 4), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity q (FLOP per byte requested from global memory)")
    ax.set_ylabel("GFLOP/s")
    n = meta["traffic"][0]["n"] if meta["traffic"] else "?"
    ax.set_title(f"roofline, n = {n}")
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, os.path.join(folder, "roofline.png"), dpi=110)


def plot_occupancy(meta, folder):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for curve in meta["occupancy"]:
        ax.plot(curve["threads"], [100 * o for o in curve["occupancy"]], marker="o", markersize=3,
                label=f'{curve["kernel"]} ({curve["regs"]} regs, {curve["arch"]})')
    ax.set_xlabel("threads per block (2 floats of shared memory each)")
    ax.set_ylabel("theoretical occupancy (%)")
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, os.path.join(folder, "occupancy.png"), dpi=110)


def main():
    folder = sys.argv[1]
    rows, meta = load(folder)
    for k in meta.get("kernels", []):
        if k["step"] > 0 and not k["is_baseline"] and not k["is_reference"]:
            STEPS[k["id"]] = "%02d" % k["step"]
    by_kernel = rates(rows)
    gpu = meta["backend"] == "cuda"
    naive = "gemm.cuda.01_naive.f32.16x16" if gpu else "gemm.cpu.reference.f32"
    plot_gflops(by_kernel, folder, "GEMM on " + meta["device"])
    plot_speedup(by_kernel, folder, naive, "gemm.cpu.openblas.f32")
    plot_roofline(meta, folder)
    plot_occupancy(meta, folder)


if __name__ == "__main__":
    main()
