#!/usr/bin/env python3
"""auto_vs_baseline_table.py — the table of scripts/auto-vs-cublas.sh.

    scripts/auto_vs_baseline_table.py LOGS

Reads LOGS/<mode>-<ops>.csv (`tilekit bench gemm --kernels auto --csv`, one per mode and ops)
and prints, per mode, how many shapes `auto` runs at least as fast as the same-run baseline
(the cuBLAS row), within 10% of it, the median ratio and the five worst shapes; then every row.
A row whose run or verification failed is counted and named, never given a ratio.
"""
import csv
import glob
import os
import re
import statistics
import sys

NAME = re.compile(r"(?P<mode>[a-z0-9_]+)-(?P<ops>NN|NT|TN|TT)\.csv")


def read_rows(logs):
    """One dict per (mode, ops, size): auto's and the baseline's GFLOP/s, auto's kernel, or why not."""
    out = []
    for path in sorted(glob.glob(os.path.join(logs, "*.csv"))):
        m = NAME.fullmatch(os.path.basename(path))
        if not m:
            continue
        by_size = {}
        for r in csv.DictReader(open(path, newline="")):
            by_size.setdefault(r["size"], []).append(r)
        for size, rows in by_size.items():
            out.append(compare(m["mode"], m["ops"], size, rows))
    return out


def compare(mode, ops, size, rows):
    row = {"mode": mode, "ops": ops, "size": size, "ratio": None, "kernel": "-", "problem": ""}
    auto = [r for r in rows if r["kernel"] == "auto"]
    base = [r for r in rows if r["kernel"].startswith("gemm.cuda.cublas")]
    if not auto or not base:
        row["problem"] = "no auto row" if not auto else "no baseline row"
        return row
    a, b = auto[0], base[0]
    row["kernel"] = a["detail"].split(":", 1)[0] if ":" in a["detail"] else "-"
    for who, r in (("auto", a), ("baseline", b)):
        if r["outcome"] != "ok" or "FAIL" in r["detail"]:
            row["problem"] = f"{who}: {r['outcome']} {r['detail']}".strip()
            return row
    row["ratio"] = float(a["gflops"]) / float(b["gflops"])
    row["auto_gflops"], row["base_gflops"] = float(a["gflops"]), float(b["gflops"])
    return row


def short(kernel):
    return kernel.replace("gemm.cuda.", "")


MODE_ORDER = ["bf16", "tf32", "f32_3xtf32", "f32"]


def summary_line(mode, mine):
    ok = sorted((r for r in mine if r["ratio"] is not None), key=lambda r: r["ratio"])
    ratios = [r["ratio"] for r in ok]
    median = f"{statistics.median(ratios):.2f}×" if ratios else "-"
    worst = ", ".join(f"{r['ops']} {r['size']} {r['ratio']:.2f}×" for r in ok[:5])
    failed = ", ".join(f"{r['ops']} {r['size']}" for r in mine if r["ratio"] is None) or "none"
    return (f"| {mode} | {len(mine)} | {sum(x >= 1.0 for x in ratios)} | "
            f"{sum(x >= 0.9 for x in ratios)} | {median} | {worst} | {failed} |")


def print_tables(rows):
    modes = sorted({r["mode"] for r in rows},
                   key=lambda m: (MODE_ORDER.index(m) if m in MODE_ORDER else len(MODE_ORDER), m))
    print("| mode | shapes | auto ≥ 1.0× cuBLAS | ≥ 0.9× | median | worst five (auto / cuBLAS) | failed |")
    print("|---|---|---|---|---|---|---|")
    for mode in modes:
        print(summary_line(mode, [r for r in rows if r["mode"] == mode]))
    print()
    print("| mode | ops | size | cuBLAS GFLOP/s | auto GFLOP/s | auto / cuBLAS | auto ran |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if r["ratio"] is None:
            print(f"| {r['mode']} | {r['ops']} | {r['size']} | - | - | - | {r['problem'][:80]} |")
        else:
            print(f"| {r['mode']} | {r['ops']} | {r['size']} | {r['base_gflops']:,.0f} | "
                  f"{r['auto_gflops']:,.0f} | {r['ratio']:.2f}× | {short(r['kernel'])} |")


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    rows = read_rows(argv[1])
    if not rows:
        sys.exit(f"no <mode>-<ops>.csv files in {argv[1]}")
    print_tables(rows)


if __name__ == "__main__":
    main(sys.argv)
