"""Shared helpers of the Python suite: float64 references and the error bounds results must meet.

The suite imports the `tilekit` found on sys.path: CTest's `python_tests` puts the build folder's
package first (BUILD/python); after `pip install .` it is the installed one.
"""

import os

import numpy as np
import pytest

U32 = 2.0 ** -24  # float32 unit roundoff


def gamma(n):
    nu = n * U32
    return nu / (1.0 - nu)


def seed():
    """Fresh inputs each run; TILEKIT_TEST_SEED replays a failure (the seed is in its message)."""
    return int(os.environ.get("TILEKIT_TEST_SEED", np.random.SeedSequence().entropy % 2**32))


class Rng:
    """numpy's Generator that remembers its seed (failure messages print it)."""

    def __init__(self, seed_value):
        self.seed_value = seed_value
        self._generator = np.random.default_rng(seed_value)

    def __getattr__(self, name):
        return getattr(self._generator, name)


@pytest.fixture
def rng():
    return Rng(seed())


def to64(x):
    """Any array (NumPy, torch, CuPy) as a float64 NumPy array."""
    if hasattr(x, "detach"):  # torch
        return x.detach().to("cpu").double().numpy()
    if hasattr(x, "get"):  # CuPy
        return np.asarray(x.get(), dtype=np.float64)
    return np.asarray(x, dtype=np.float64)


def gemm_reference(a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False):
    """alpha·op(a)·op(b) + beta·c in float64, and the magnitude term of the error bound."""
    a64, b64 = to64(a), to64(b)
    if trans_a:
        a64 = a64.T
    if trans_b:
        b64 = b64.T
    value = alpha * (a64 @ b64)
    magnitude = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if c is not None and beta != 0.0:
        c64 = to64(c)
        value = value + beta * c64
        magnitude = magnitude + abs(beta) * np.abs(c64)
    return value, magnitude, a64.shape[1]


def assert_gemm_close(got, value, magnitude, k, result_roundoff=0.0, input_roundoff=0.0, what=""):
    """|got − value| ≤ (2·γ(k+2) + 2·input_roundoff)·magnitude + result_roundoff·|value|
    elementwise: the library's own bound (include/tilekit/verify.hpp), with the rounding of the
    inputs a compute mode makes (one per factor) and of a 16-bit result."""
    got64 = to64(got)
    assert got64.shape == value.shape, f"{what}: shape {got64.shape} != {value.shape}"
    bound = ((2.0 * gamma(k + 2) + 2.0 * input_roundoff) * magnitude
             + result_roundoff * np.abs(value) + 1e-30)
    err = np.abs(got64 - value)
    bad = ~(err <= bound)
    assert not bad.any(), (f"{what}: {int(bad.sum())} elements outside the bound, worst "
                           f"{float(np.max(err / bound)):.3g} x bound")
