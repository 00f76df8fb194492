"""tilekit.transpose and tilekit.dot on NumPy arrays (CPU backend) against NumPy."""

import numpy as np
import pytest

import tilekit
from conftest import gamma

SHAPES = [(1, 1), (0, 3), (3, 0), (7, 13), (64, 33), (129, 1), (1, 257), (100, 100)]


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_transpose(rng, rows, cols):
    a = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    got = tilekit.transpose(a)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    assert np.array_equal(got, a.T)  # a copy: bit for bit


@pytest.mark.parametrize("kernel", [k["id"] for k in tilekit.kernels("transpose.cpu.*")])
def test_transpose_kernels(rng, kernel):
    a = rng.uniform(-1, 1, (37, 45)).astype(np.float32)
    assert np.array_equal(tilekit.transpose(a, kernel=kernel), a.T)


def test_transpose_views_and_out(rng):
    base = rng.uniform(-1, 1, (20, 30)).astype(np.float32)
    for view in (base[::2], base[:, :17], np.asfortranarray(base), base[::-1], base[::2, ::3]):
        assert np.array_equal(tilekit.transpose(view), view.T)
    out = np.empty((30, 20), np.float32)
    assert tilekit.transpose(base, out=out) is out and np.array_equal(out, base.T)
    holder = np.full((60, 20), 5.0, np.float32)
    assert np.array_equal(tilekit.transpose(base, out=holder[::2]), base.T)
    assert (holder[1::2] == 5.0).all()
    fortran_out = np.empty((30, 20), np.float32, order="F")  # no ld describes it row-major: copied
    assert np.array_equal(tilekit.transpose(base, out=fortran_out), base.T)


def dot_bound(x, y):
    """2·γ(n)·Σ|x·y| plus the final rounding to float32."""
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    ref = float(x64 @ y64)
    return ref, 2 * gamma(max(len(x), 1)) * float(np.abs(x64 * y64).sum()) + 2.0 ** -24 * abs(ref)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000, 4099, 100003])
def test_dot(rng, n):
    x, y = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    got = tilekit.dot(x, y)
    assert isinstance(got, np.float32)
    ref, bound = dot_bound(x, y)
    assert abs(float(got) - ref) <= bound + 1e-30, f"seed={rng.seed_value} n={n}"


@pytest.mark.parametrize("kernel", [k["id"] for k in tilekit.kernels("dot.cpu.*")])
def test_dot_kernels_and_strides(rng, kernel):
    x = rng.uniform(-1, 1, 2001).astype(np.float32)
    y = rng.uniform(-1, 1, 4002).astype(np.float32)[::2]  # strided: copied first
    ref, bound = dot_bound(x, np.ascontiguousarray(y))
    assert abs(float(tilekit.dot(x, y, kernel=kernel)) - ref) <= bound
    ref, bound = dot_bound(x[::-1].copy(), x)
    assert abs(float(tilekit.dot(x[::-1], x, kernel=kernel)) - ref) <= bound
