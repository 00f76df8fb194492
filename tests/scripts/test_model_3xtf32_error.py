#!/usr/bin/env python3
"""scripts/maintainer/model-3xtf32-error.py (the CPU model of 3xTF32's error behind the sm90
kernels' promotion per k-step, docs/hopper.md): its roundings, and that it reproduces what the
H200 measured (a promotion per k-step beats one per k-tile at k = 32; the split alone is the
least)."""
import importlib.util
import os
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location(
    "model", os.path.join(ROOT, "scripts", "maintainer", "model-3xtf32-error.py"))
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


class Model3xTf32Error(unittest.TestCase):
    def test_tf32_rounds_to_nearest_ties_to_even(self):
        ulp = 2.0 ** -10  # TF32's unit at 1
        x = np.array([1 + ulp / 2, 1 + 1.5 * ulp, 1 + 0.75 * ulp, -(1 + 0.25 * ulp)], np.float32)
        np.testing.assert_array_equal(model.tf32_rn(x), np.array([1, 1 + 2 * ulp, 1 + ulp, -1], np.float32))

    def test_accumulation_truncates_toward_zero(self):
        below_two = np.nextafter(np.float32(2), np.float32(0))
        x = np.array([float(below_two) + 1e-9, -(float(below_two) + 1e-9), 1.0])
        np.testing.assert_array_equal(model.to_f32_toward_zero(x),
                                      np.array([below_two, -below_two, 1], np.float32))

    def test_step_promotion_beats_tile_promotion_at_one_k_tile(self):
        rng = np.random.default_rng(3)
        a = rng.uniform(-1, 1, (64, 32)).astype(np.float32)
        b = rng.uniform(-1, 1, (32, 64)).astype(np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        err = lambda c: np.abs(c.astype(np.float64) - ref).max()
        tile, step, exact = err(model.three_tf32(a, b, 4)), err(model.three_tf32(a, b, 1)), err(
            model.three_tf32_exact(a, b))
        self.assertGreater(tile, 1.5 * step)
        self.assertGreater(step, exact)
        self.assertGreater(exact, 0)


if __name__ == "__main__":
    unittest.main()
