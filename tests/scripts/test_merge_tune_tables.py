#!/usr/bin/env python3
"""scripts/maintainer/merge-tune-tables.py on made-up tune caches (CPU test): plain merges,
--anchored (kernels added to a table from another run) and --winners."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MERGE = os.path.join(ROOT, "scripts", "maintainer", "merge-tune-tables.py")
DEVICE = {"backend": "cuda", "compute_capability": 90, "driver_version": 13000, "name": "NVIDIA H200",
          "sm_count": 132}


def entry(m, kernel, candidates, a="f32"):
    """An entry of an m×m×m NN f32 shape choosing `kernel`; candidates: (kernel, split, s, screened)."""
    cands = [{"kernel": k, "split_k": sk, "time_s": t, **({"screened": True} if sc else {})}
             for k, sk, t, sc in candidates]
    best = next(c for c in cands if c["kernel"] == kernel)
    return {"aligned16": True, "ld16": True, "layout": "row", "op_a": "N", "op_b": "N", "m": m, "n": m,
            "k": m, "log2_m": m.bit_length() - 1, "log2_n": m.bit_length() - 1, "log2_k": m.bit_length() - 1,
            "types": {"a": a, "b": a, "c": "f32", "compute": a}, "kernel": kernel,
            "split_k": best["split_k"], "time_s": best["time_s"], "candidates": cands}


class MergeTuneTables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def write(self, name, entries, build="0.1.0+aaa"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump({"build": build, "device": DEVICE, "schema": "tilekit-tune-cache", "version": 2,
                       "entries": entries}, f)
        return path

    def merge(self, *args):
        return subprocess.run([sys.executable, MERGE, *args], capture_output=True, text=True)

    def entries(self, path):
        with open(path) as f:
            return {e["m"]: e for e in json.load(f)["entries"]}

    def test_a_later_file_replaces_the_entry_of_the_same_shape(self):
        a = self.write("a.json", [entry(256, "old", [("old", 0, 2e-3, False)]),
                                  entry(512, "old", [("old", 0, 1e-2, False)])])
        b = self.write("b.json", [entry(256, "new", [("new", 0, 1e-3, False)])])
        out = os.path.join(self.tmp, "out.json")
        r = self.merge(out, a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = self.entries(out)
        self.assertEqual((got[256]["kernel"], got[512]["kernel"]), ("new", "old"))
        self.assertEqual(len(got[256]["candidates"]), 1)

    def test_anchored_scales_the_fresh_times_by_the_anchors_and_keeps_the_rest(self):
        # The fresh run ran 10% slower: its anchors took 1.1x the table's times.
        table = self.write("table.json", [
            entry(256, "a", [("a", 4, 1.0e-3, False), ("b", 0, 1.2e-3, False), ("c", 0, 2.0e-3, True)]),
            entry(512, "a", [("a", 0, 8.0e-3, False)]),
            entry(1024, "b", [("b", 0, 5.0e-2, False)]),
            entry(4096, "b", [("b", 0, 2.0, False)])])
        fresh = self.write("fresh.json", [
            entry(256, "new", [("new", 2, 0.99e-3, False), ("a", 4, 1.1e-3, False), ("new", 8, 3e-3, True)]),
            entry(512, "a", [("a", 0, 8.8e-3, False), ("new", 0, 9.9e-3, False)]),
            entry(1024, "new", [("new", 0, 4.0e-2, False)]),  # no anchor: the table's entry stays
            # The old choice only screened (the new kernel beat it by more than the margin): its
            # screened time anchors.
            entry(4096, "new", [("new", 0, 0.5, False), ("b", 0, 2.2, True)]),
            entry(2048, "new", [("new", 0, 0.3, False)])], build="0.1.0+bbb")  # a new shape
        out = os.path.join(self.tmp, "out.json")
        r = self.merge("--anchored", out, table, fresh)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 entries joined; scale (table / fresh) 0.909 to 0.909", r.stdout)
        self.assertIn("1 entries without an anchor, left as they were: NN 1024x1024x1024", r.stdout)
        got = self.entries(out)
        e = got[256]
        self.assertEqual((e["kernel"], e["split_k"], e["time_s"]), ("new", 2, 0.0009))
        self.assertEqual([(c["kernel"], c["split_k"], c["time_s"], c.get("screened", False))
                          for c in e["candidates"]],
                         [("new", 2, 0.0009, False), ("a", 4, 0.001, False), ("b", 0, 0.0012, False),
                          ("c", 0, 0.002, True), ("new", 8, 0.002727, True)])
        self.assertEqual((got[512]["kernel"], got[512]["time_s"]), ("a", 0.008))
        self.assertEqual(got[512]["candidates"][1]["time_s"], 0.009)
        self.assertEqual(got[1024]["kernel"], "b")
        self.assertEqual((got[4096]["kernel"], got[4096]["time_s"]), ("new", 0.4545))
        self.assertEqual([(c["kernel"], c["time_s"], c.get("screened", False)) for c in got[4096]["candidates"]],
                         [("new", 0.4545, False), ("b", 2.0, False)])  # b's full measurement stays
        self.assertEqual(got[2048]["kernel"], "new")
        with open(out) as f:
            self.assertEqual(json.load(f)["build"], "0.1.0+aaa")  # the table's header

    def test_winners_lists_each_chosen_kernel_once_for_the_types_asked(self):
        table = self.write("table.json", [entry(256, "x", [("x", 0, 1e-3, False)]),
                                          entry(512, "y", [("y", 0, 1e-3, False)]),
                                          entry(1024, "x", [("x", 0, 1e-3, False)]),
                                          entry(2048, "z", [("z", 0, 1e-3, False)], a="bf16")])
        r = self.merge("--winners", table, "f32")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "x,y"), r.stderr)
        r = self.merge("--winners", table, "f32:tf32")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no entry of types f32:tf32", r.stderr)

    def test_drop_refused_removes_split_tiles_where_its_tiles_get_one_piece_and_chooses_anew(self):
        split = "gemm.cuda.sm90.f32_tf32.128x128x32_s6.a_regs.coop.split_tiles.tma_store"
        twin = "gemm.cuda.sm90.f32_tf32.128x128x32_s6.a_regs.coop.persistent.tma_store"
        # 1408³: 121 tiles of 128 × 128 on 132 SMs, one piece each: refused, the twin chosen.
        # 256³: 4 tiles of 8 k-tiles, 2 pieces each: kept, and still the choice.
        table = self.write("table.json", [
            entry(1408, split, [(split, 0, 1.0e-3, False), (twin, 0, 1.1e-3, False),
                                ("x", 0, 2e-3, False)]),
            entry(256, split, [(split, 0, 1.0e-5, False), (twin, 0, 2e-5, False)])])
        r = self.merge("--drop-refused", table)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 entries lost a refused candidate; 1 chose anew", r.stdout)
        e = self.entries(table)
        self.assertEqual([c["kernel"] for c in e[1408]["candidates"]], [twin, "x"])
        self.assertEqual((e[1408]["kernel"], e[1408]["time_s"]), (twin, 1.1e-3))
        self.assertEqual((e[256]["kernel"], len(e[256]["candidates"])), (split, 2))

    def test_usage_and_foreign_inputs_are_refused(self):
        r = self.merge("--anchored", "out.json", "only-one.json")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("usage", r.stderr)
        a = self.write("a.json", [])
        with open(os.path.join(self.tmp, "b.json"), "w") as f:
            json.dump({"schema": "something else"}, f)
        r = self.merge(os.path.join(self.tmp, "out.json"), a, os.path.join(self.tmp, "b.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a tilekit tune cache", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out.json")))


if __name__ == "__main__":
    unittest.main()
