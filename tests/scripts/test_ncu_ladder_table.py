#!/usr/bin/env python3
"""scripts/maintainer/ncu_ladder_table.py on a made-up `ncu --csv --page raw` file (CPU test)."""
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "maintainer"))
import ncu_ladder_table  # noqa: E402

STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
HEAD = ["ID", "Kernel Name", "gpu__time_duration.sum",
        "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum",
        "sm__inst_executed.avg.per_cycle_active", "launch__registers_per_thread",
        STALL.format("selected"), STALL.format("wait"), STALL.format("barrier"),
        STALL.format("short_scoreboard"), STALL.format("dispatch_stall"),
        STALL.format("long_scoreboard"), ncu_ladder_table.CONFLICTS[0],
        ncu_ladder_table.CONFLICTS[1]]
UNITS = ["", "", "usecond", "%", "inst", "inst/cycle", "register/thread", "", "", "", "", "", "",
         "", ""]
FILL = ["0", "fill_uniform_kernel(float*, int)", "12.5", "0.1", "1,000", "0.2", "16", "1", "0.5",
        "0", "0", "0", "0", "0", "0"]
GEMM = ["1", "cross_tile_gemm_kernel<P>(Args)", "2,714.0", "76.4", "2,444,000,000", "3.481", "217",
        "1.00", "0.30", "0.90", "0.70", "0.20", "0.10", "2", "10,800"]


def quoted(row):
    return ",".join(f'"{v}"' for v in row)


class NcuLadderTable(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        path = os.path.join(self.dir.name, "ncu-4096x4096x4096-17_hybrid.f32.128x256x8.csv")
        with open(path, "w") as f:
            f.write("==PROF== Connected to process 1 (tilekit)\n")  # ncu's own lines are skipped
            f.write("\n".join(quoted(r) for r in [HEAD, UNITS, FILL, GEMM]) + "\n")
            f.write("==PROF== Disconnected from process 1\n")

    def tearDown(self):
        self.dir.cleanup()

    def rows(self):
        lines = ncu_ladder_table.table(self.dir.name)
        self.assertEqual(len(lines), 4)  # heading, rule, one row per launch
        return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]

    def test_one_row_per_launch_named_by_shape_and_kernel(self):
        fill, gemm = self.rows()
        self.assertEqual(gemm[:3], ["4096x4096x4096", "`17_hybrid.f32.128x256x8`",
                                    "`cross_tile_gemm_kernel<P>`"])
        self.assertTrue(fill[2].endswith("(input fill)`"))

    def test_units_and_scales(self):
        gemm = self.rows()[1]
        self.assertEqual(gemm[3], "2.714")  # 2714 us in ms
        self.assertEqual(gemm[4], "76.4")
        self.assertEqual(gemm[5], "-")  # a metric the file lacks
        self.assertEqual(gemm[7], "2.444")  # instructions in G
        self.assertEqual(gemm[8], "3.48")
        self.assertEqual(gemm[9], "217")
        self.assertEqual(gemm[11], "2 / 10800")

    def test_the_four_largest_stalls_in_order(self):  # `selected` (1.00) is issue, not a stall
        self.assertEqual(self.rows()[1][12],
                         "barrier 0.90, short_scoreboard 0.70, wait 0.30, dispatch_stall 0.20")

    def test_extra_metrics_include_the_conflicts(self):
        self.assertTrue(set(ncu_ladder_table.CONFLICTS) <= set(ncu_ladder_table.EXTRA_METRICS))


if __name__ == "__main__":
    unittest.main()
