#!/usr/bin/env python3
"""compare-bench.py — the same kernels measured by two builds, as one markdown table.

    scripts/maintainer/compare-bench.py ALIASES BEFORE_DIR AFTER_DIR

BEFORE_DIR and AFTER_DIR hold `tilekit bench gemm --csv` files of the two builds (any number,
e.g. one per mode and round); ALIASES is `tilekit list --aliases` of the later build, so that a
kernel measured under its former id in BEFORE_DIR is paired with its new id. Each (kernel, shape,
mode) that both measured is one pair: the mean of its medians after over before. Prints, per
mode and family, the pairs, their geometric mean, the extremes and how many lie within 3%, and
the spread between repeated measurements of one build (the noise the ratios stand against).
"""
import collections
import csv
import glob
import math
import os
import statistics
import sys


def load(folder, alias):
    t = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        for r in csv.DictReader(open(f)):
            if r["outcome"] != "ok" or ".cublas" in r["kernel"]:
                continue
            mode = r["command"].split("--dtype ")[1].split(" --sizes")[0].replace(" --compute ", ", compute ")
            t[(mode, alias.get(r["kernel"], r["kernel"]), r["size"])].append(float(r["median_ms"]))
    return t


def family(kernel):
    return kernel.split(".")[2] if kernel.split(".")[2] in ("simt", "sm90") else "ladder"


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    alias = dict(line.strip().split(" -> ") for line in open(argv[1]) if " -> " in line)
    before, after = load(argv[2], alias), load(argv[3], alias)
    groups, spread = collections.defaultdict(list), []
    for key in sorted(set(before) & set(after)):
        groups[(key[0], family(key[1]))].append(statistics.mean(after[key]) / statistics.mean(before[key]))
        for runs in (before[key], after[key]):
            if len(runs) > 1:
                spread.append(max(runs) / min(runs))
    print("| mode | family | pairs | after / before, geomean | min | max | within 3% |")
    print("|---|---|--:|--:|--:|--:|--:|")
    every = []
    for (mode, fam), v in sorted(groups.items()):
        every += v
        print(f"| {mode} | {fam} | {len(v)} | {geomean(v):.3f} | {min(v):.3f} | {max(v):.3f} | {sum(abs(x - 1) < 0.03 for x in v)} |")
    print(f"| all | | {len(every)} | {geomean(every):.3f} | {min(every):.3f} | {max(every):.3f} | {sum(abs(x - 1) < 0.03 for x in every)} |")
    if spread:
        spread.sort()
        print(f"\nRepeated measurements of one build differ by {statistics.median(spread):.3f}× "
              f"(median) and {spread[int(0.9 * len(spread))]:.3f}× (90th percentile).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
