#!/usr/bin/env python3
"""ncu_ladder_table.py — the table of scripts/maintainer/ncu-ladder.sh from its ncu CSVs.

    scripts/maintainer/ncu_ladder_table.py OUT_DIR
    scripts/maintainer/ncu_ladder_table.py --extra-metrics   (the metrics ncu-ladder.sh asks
                                                   for besides its sections, comma-separated)

Reads OUT_DIR/ncu-SHAPE-KERNEL.csv (`ncu --csv --page raw`: a header row of metric names, a row
of units, one row per profiled launch) and prints a markdown table: per launch its duration, FMA
pipe busy, SM and DRAM throughput, instructions and instructions per active SM cycle,
registers, achieved occupancy, shared-memory bank conflicts and its four largest stall reasons
(cycles per issued instruction; `selected`, the cycle of issue itself, is not a stall). Launches
whose name says they fill the inputs are marked. A metric the file lacks shows as "-".
"""
import csv
import glob
import os
import re
import sys

COLUMNS = [  # (heading, metric, scale, format)
    ("ms", "gpu__time_duration.sum", 1e-6, "{:.3f}"),  # in ns after UNIT_SCALE
    ("FMA pipe %", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
    ("SM busy %", "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1, "{:.1f}"),
    ("DRAM %", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1, "{:.1f}"),
    ("inst (G)", "smsp__inst_executed.sum", 1e-9, "{:.3f}"),
    ("IPC", "sm__inst_executed.avg.per_cycle_active", 1, "{:.2f}"),
    ("regs", "launch__registers_per_thread", 1, "{:.0f}"),
    ("occ %", "sm__warps_active.avg.pct_of_peak_sustained_active", 1, "{:.1f}"),
]
CONFLICTS = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
# Metrics outside ncu-ladder.sh's sections: it asks for them by name.
EXTRA_METRICS = ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",) + CONFLICTS
UNIT_SCALE = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}
STALL = re.compile(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def kernels(path):
    """(kernel name, {metric: value}) per profiled launch, values in the file's units."""
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own messages start otherwise
    if len(lines) < 3:
        return []
    rows = list(csv.reader(lines))
    head, units = rows[0], rows[1]
    out = []
    for r in rows[2:]:
        vals = {h: (v, u) for h, v, u in zip(head, r, units)}
        out.append((vals.get("Kernel Name", ("?", ""))[0], vals))
    return out


def cell(vals, metric, scale=1, fmt="{:.0f}"):
    if metric not in vals:
        return "-"
    v, unit = vals[metric]
    x = number(v)
    if x is None:
        return v
    if metric == "gpu__time_duration.sum":
        x *= UNIT_SCALE.get(unit, 1)
    return fmt.format(x * scale)


def stalls(vals, top=4):
    found = []
    for name, (v, _) in vals.items():
        m, x = STALL.search(name), number(v)
        if m and x and m.group(1) != "selected":
            found.append((x, m.group(1)))
    return ", ".join(f"{n} {x:.2f}" for x, n in sorted(found, reverse=True)[:top]) or "-"


def row(shape, kid, name, vals):
    short = re.sub(r"\(.*", "", name)[:48]
    if re.search(r"fill|random|curand|philox", name, re.I):
        short += " (input fill)"
    cells = [cell(vals, metric, scale, fmt) for _, metric, scale, fmt in COLUMNS]
    cells.append(" / ".join(cell(vals, metric) for metric in CONFLICTS))
    return f"| {shape} | `{kid}` | `{short}` | " + " | ".join(cells) + f" | {stalls(vals)} |"


def table(out_dir):
    """The markdown table of every CSV in out_dir, as lines."""
    lines = ["| shape | kernel id | launched kernel | " + " | ".join(c[0] for c in COLUMNS) +
             " | bank conflicts ld / st | top stalls (cycles per issued instruction) |",
             "|---|---|---|" + "---|" * (len(COLUMNS) + 2)]
    for path in sorted(glob.glob(os.path.join(out_dir, "ncu-*.csv"))):
        shape, _, kid = os.path.basename(path)[4:-4].partition("-")
        for name, vals in kernels(path):
            lines.append(row(shape, kid, name, vals))
    return lines


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    if sys.argv[1] == "--extra-metrics":
        print(",".join(EXTRA_METRICS))
    else:
        print("\n".join(table(sys.argv[1])))
