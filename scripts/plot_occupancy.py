#!/usr/bin/env python3
"""Draws an occupancy sweep (CSV from `tilekit occupancy --plot`) as the calculator's graph.

Usage: plot_occupancy.py SWEEP.csv OUT.png [TITLE]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_files import save_figure  # noqa: E402


def main():
    src, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "occupancy"
    with open(src) as f:
        rows = list(csv.DictReader(f))
    threads = [int(r["threads"]) for r in rows]
    occ = [100 * float(r["occupancy"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(threads, occ, marker="o", markersize=3)
    ax.set_xlabel("threads per block")
    ax.set_ylabel("theoretical occupancy (%)")
    ax.set_ylim(0, 105)
    ax.set_xlim(0, max(threads) + 32)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    fig.tight_layout()
    save_figure(fig, out, dpi=120)


if __name__ == "__main__":
    main()
