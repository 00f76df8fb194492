#!/usr/bin/env python3
"""scripts/maintainer/tune-replay.py on a made-up table (CPU test): the selector's classes keep
the compute modes apart, as TuneBucket::same_class does."""
import importlib.util
import json
import os
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "tune_replay", os.path.join(ROOT, "scripts", "maintainer", "tune-replay.py"))
replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(replay)

TILING = {"block_m": 128, "block_n": 128, "block_k": 32, "chosen_at_run_time": False,
          "schedule": "persistent", "split_k": 0, "slots": 132}


def entry(compute, size, times):
    """An NN row-major entry of f32 inputs at size^3 with candidates {kernel: seconds}."""
    return {"op_a": "N", "op_b": "N", "layout": "row", "aligned16": True, "ld16": True,
            "types": {"a": "f32", "b": "f32", "c": "f32", "compute": compute},
            "m": size, "n": size, "k": size,
            "candidates": [{"kernel": k, "split_k": 0, "time_s": t} for k, t in times.items()]}


class TuneReplay(unittest.TestCase):
    def test_types_tag_matches_the_cli(self):
        tag = replay.types_tag
        self.assertEqual(tag({"a": "f32", "compute": "f32"}), "f32")
        self.assertEqual(tag({"a": "bf16", "compute": "bf16"}), "bf16")
        self.assertEqual(tag({"a": "f32", "compute": "tf32"}), "f32_tf32")
        self.assertEqual(tag({"a": "f32", "compute": "f32_3xtf32"}), "f32_3xtf32")
        self.assertEqual(tag({"a": "f16", "compute": "f32", "c": "f16"}), "f16_cf16")

    def test_modes_are_separate_classes(self):
        # Two f32 entries and two tf32 entries at the same shapes. Were the modes one class, the
        # tf32 entry at 1024 (where "tc" wins) would stand beside f32's and could be chosen from.
        entries = [entry("f32", 1024, {"simt": 1.0, "tc": 3.0}), entry("f32", 2048, {"simt": 8.0, "tc": 24.0}),
                   entry("tf32", 1024, {"tc": 0.5}), entry("tf32", 2048, {"tc": 4.0})]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "table.json")
            json.dump({"entries": entries}, open(path, "w"))
            table = replay.Table({"simt": dict(TILING), "tc": dict(TILING)}, path)
        f32 = replay.leave_one_out(table, table.ensemble, "f32")
        self.assertEqual(f32, [1.0, 1.0])  # each f32 entry chosen from the other: simt, its fastest
        tf32 = replay.leave_one_out(table, table.ensemble, "f32_tf32")
        self.assertEqual(tf32, [1.0, 1.0])
        self.assertEqual(len(replay.leave_one_out(table, table.ensemble, "bf16")), 0)

    def test_split_tiles_model_matches_tile_model(self):
        # tile_model.hpp's kSplitTiles case (tests/cpu/test_tune_cache.cpp, SplitTilesCounts...).
        t = dict(TILING, block_k=64, schedule="split_tiles")
        self.assertEqual(replay.split_tile_pieces(1, 469), 117)
        self.assertEqual(replay.split_tile_pieces(100, 512), 1)
        self.assertEqual(replay.model_cost(t, 0, 100, 100, 30000), (5 + replay.SPLIT_TILES_SUM, 0.0))
        self.assertEqual(replay.model_cost(t, 0, 512, 512, 8192), (16 + replay.SPLIT_TILES_SUM, 0.0))
        self.assertEqual(replay.model_cost(t, 0, 4096, 4096, 4096), (8 * 64, 0.0))

    def test_step_10_is_not_chosen_where_it_refuses(self):
        # As its can_implement: refused where a tile would get one k-piece (1408³: 121 tiles).
        split = dict(TILING, schedule="split_tiles")
        self.assertFalse(replay.refuses(split, 100, 100, 30000))
        self.assertTrue(replay.refuses(split, 1408, 1408, 1408))
        self.assertFalse(replay.refuses(TILING, 1408, 1408, 1408))
        # Its time at 1024³ (64 tiles, 2 pieces) is the fastest; carried to 1408 it refuses there.
        entries = [entry("tf32", 1024, {"split": 1.0, "whole": 1.5})]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "table.json")
            json.dump({"entries": entries}, open(path, "w"))
            table = replay.Table({"split": split, "whole": dict(TILING)}, path)
        self.assertEqual(table.ensemble(table.entries, 1024, 1024, 1024), ("split", 0))
        self.assertEqual(table.ensemble(table.entries, 1408, 1408, 1408), ("whole", 0))
        self.assertEqual(table.nearest(table.entries, 1408, 1408, 1408), ("whole", 0))


if __name__ == "__main__":
    unittest.main()
