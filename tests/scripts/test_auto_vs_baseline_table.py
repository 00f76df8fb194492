#!/usr/bin/env python3
"""scripts/auto_vs_baseline_table.py on made-up `tilekit bench gemm --csv` files (CPU test)."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import auto_vs_baseline_table as table  # noqa: E402

HEAD = "op,kernel,size,outcome,gflops,detail"


def bench_csv(rows):
    return HEAD + "\n" + "\n".join(",".join(r) for r in rows) + "\n"


class AutoVsBaselineTable(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        files = {
            "bf16-NN.csv": [
                ["gemm", "gemm.cuda.cublas.bf16", "216", "ok", "100", "PASS max abs 1e-3"],
                ["gemm", "auto", "216", "ok", "50", "gemm.cuda.sm90_07_tma_store.bf16.x: PASS max abs 1e-3"],
                ["gemm", "gemm.cuda.cublas.bf16", "700", "ok", "200", "PASS"],
                ["gemm", "auto", "700", "ok", "210", "gemm.cuda.sm90_08.bf16.y: PASS"],
            ],
            "bf16-TN.csv": [  # auto's verification failed: no ratio, named as failed
                ["gemm", "gemm.cuda.cublas.bf16", "500", "ok", "100", "PASS"],
                ["gemm", "auto", "500", "ok", "400", "gemm.cuda.sm90_03.bf16.z: FAIL max abs 3"],
            ],
            "f32_3xtf32-NT.csv": [
                ["gemm", "gemm.cuda.cublas.f32", "320", "ok", "40", "PASS"],
                ["gemm", "auto", "320", "ok", "100", "gemm.cuda.sm90_04.f32_3xtf32.w: PASS"],
            ],
            "notes.csv": [["gemm", "auto", "1", "ok", "1", "not a mode-ops file"]],
        }
        for name, rows in files.items():
            with open(os.path.join(self.dir.name, name), "w") as f:
                f.write(bench_csv(rows))

    def tearDown(self):
        self.dir.cleanup()

    def test_ratios_and_kernels(self):
        rows = {(r["mode"], r["ops"], r["size"]): r for r in table.read_rows(self.dir.name)}
        self.assertEqual(set(rows), {("bf16", "NN", "216"), ("bf16", "NN", "700"),
                                     ("bf16", "TN", "500"), ("f32_3xtf32", "NT", "320")})
        self.assertAlmostEqual(rows[("bf16", "NN", "216")]["ratio"], 0.5)
        self.assertAlmostEqual(rows[("bf16", "NN", "700")]["ratio"], 1.05)
        self.assertEqual(rows[("bf16", "NN", "700")]["kernel"], "gemm.cuda.sm90_08.bf16.y")
        self.assertIsNone(rows[("bf16", "TN", "500")]["ratio"])  # a failed row is never timed
        self.assertIn("FAIL", rows[("bf16", "TN", "500")]["problem"])
        self.assertAlmostEqual(rows[("f32_3xtf32", "NT", "320")]["ratio"], 2.5)

    def test_summary(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            table.print_tables(table.read_rows(self.dir.name))
        lines = out.getvalue().splitlines()
        bf16 = next(line for line in lines if line.startswith("| bf16 | 3 |"))
        # 3 shapes, 1 at least as fast, 1 within 0.9x, median of 0.5 and 1.05, TN 500 failed
        self.assertEqual(bf16, "| bf16 | 3 | 1 | 1 | 0.78× | NN 216 0.50×, NN 700 1.05× | TN 500 |")
        self.assertLess(lines.index(bf16), next(i for i, x in enumerate(lines) if x.startswith("| f32_3xtf32 | 1")))

    def test_no_files_is_an_error(self):
        with tempfile.TemporaryDirectory() as empty, self.assertRaises(SystemExit):
            table.main(["auto_vs_baseline_table.py", empty])


if __name__ == "__main__":
    unittest.main()
