"""tilekit.gemm and tilekit.matmul on NumPy arrays (CPU backend) against float64 NumPy."""

import itertools
import threading
import time

import numpy as np
import pytest

import tilekit
from conftest import assert_gemm_close, gemm_reference

# (m, n, k): ones, primes, skinny both ways, empty in each dimension, a few tiles.
SHAPES = [(1, 1, 1), (7, 13, 5), (31, 1, 17), (1, 29, 3), (97, 2, 61), (2, 89, 3), (3, 5, 101),
          (0, 5, 3), (5, 0, 3), (5, 3, 0), (0, 0, 0), (127, 61, 89), (128, 96, 64)]


def operand(rng, rows, cols, dtype=np.float32):
    return rng.uniform(-1, 1, (rows, cols)).astype(dtype)


def stored(rng, m, n, k, trans_a, trans_b, dtype=np.float32):
    a = operand(rng, k, m, dtype) if trans_a else operand(rng, m, k, dtype)
    b = operand(rng, n, k, dtype) if trans_b else operand(rng, k, n, dtype)
    return a, b


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("trans_a,trans_b", list(itertools.product([False, True], repeat=2)))
def test_shapes_and_ops(rng, m, n, k, trans_a, trans_b):
    a, b = stored(rng, m, n, k, trans_a, trans_b)
    got = tilekit.gemm(a, b, trans_a=trans_a, trans_b=trans_b)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (m, n)
    assert_gemm_close(got, *gemm_reference(a, b, trans_a=trans_a, trans_b=trans_b),
                      what=f"seed={rng.seed_value} {m}x{n}x{k} {trans_a} {trans_b}")


def views(rng, rows, cols):
    """The same logical rows × cols matrix under different strides: (name, array, copies?)."""
    base = operand(rng, rows, cols)
    wide = operand(rng, rows, cols + 7)
    wide[:, :cols] = base
    tall = operand(rng, 2 * rows, cols)
    tall[::2] = base
    both = operand(rng, 2 * rows, 2 * cols)
    both[::2, ::2] = base
    return [
        ("contiguous", base, False),
        ("fortran", np.asfortranarray(base), False),
        ("transposed view", np.ascontiguousarray(base.T).T, False),
        ("column slice (ld > cols)", wide[:, :cols], False),
        ("row step", tall[::2], False),
        ("reversed rows", np.ascontiguousarray(base[::-1])[::-1], True),
        ("step in both dims", both[::2, ::2], True),
        ("broadcast row", np.broadcast_to(base[:1], (rows, cols)), True),
    ]


@pytest.mark.parametrize("which", ["a", "b"])
@pytest.mark.parametrize("trans", [False, True])
def test_strided_views(rng, monkeypatch, which, trans):
    m, n, k = 23, 19, 11
    rows, cols = {("a", False): (m, k), ("a", True): (k, m),
                  ("b", False): (k, n), ("b", True): (n, k)}[(which, trans)]
    other = operand(rng, n, k) if which == "a" else operand(rng, m, k)
    copies = []
    real_contiguous = tilekit._contiguous
    monkeypatch.setattr(tilekit, "_contiguous", lambda x: copies.append(1) or real_contiguous(x))
    for name, view, needs_copy in views(rng, rows, cols):
        copies.clear()
        if which == "a":
            args = dict(a=view, b=other.T, trans_a=trans, trans_b=False)
        else:
            args = dict(a=other, b=view, trans_a=False, trans_b=trans)
        got = tilekit.gemm(**args)
        assert_gemm_close(got, *gemm_reference(**args), what=f"{which} {name}")
        # Zero copy wherever a leading dimension describes the view; one copy otherwise.
        assert len(copies) == int(needs_copy), f"{which} {name}: {len(copies)} copies"


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (0.5, 0.0), (2.0, -1.5), (0.0, 1.0),
                                        (0.0, 0.0), (-1.0, 1.0), (1.0, 0.25)])
def test_alpha_beta(rng, alpha, beta):
    m, n, k = 17, 9, 33
    a, b = stored(rng, m, n, k, False, True)
    c = operand(rng, m, n)
    c_before = c.copy()
    got = tilekit.gemm(a, b, c, alpha=alpha, beta=beta, trans_b=True)
    assert_gemm_close(got, *gemm_reference(a, b, c, alpha, beta, trans_b=True))
    assert np.array_equal(c, c_before), "c must not change unless it is out"
    inplace = c.copy()
    assert tilekit.gemm(a, b, inplace, alpha=alpha, beta=beta, trans_b=True, out=inplace) is inplace
    assert_gemm_close(inplace, *gemm_reference(a, b, c, alpha, beta, trans_b=True))


def test_beta_zero_never_reads_c(rng):
    a, b = operand(rng, 4, 3), operand(rng, 3, 5)
    c = np.full((4, 5), np.nan, np.float32)
    got = tilekit.gemm(a, b, c, beta=0.0)
    assert np.isfinite(got).all()
    assert_gemm_close(got, *gemm_reference(a, b))


@pytest.mark.parametrize("layout", ["contiguous", "fortran", "row step", "step in both dims"])
@pytest.mark.parametrize("with_c", [False, True])
def test_out(rng, layout, with_c):
    m, n, k = 12, 10, 7
    a, b = operand(rng, m, k), operand(rng, k, n)
    c = operand(rng, m, n) if with_c else None
    beta = 0.5 if with_c else 0.0
    holder = np.full((2 * m, 2 * n), -7.0, np.float32)
    index = {"contiguous": (slice(0, m), slice(0, n)),
             "row step": (slice(None, None, 2), slice(0, n)),
             "step in both dims": (slice(None, None, 2), slice(None, None, 2))}.get(layout)
    out = np.empty((m, n), np.float32, order="F") if index is None else holder[index]
    got = tilekit.gemm(a, b, c, alpha=1.5, beta=beta, out=out)
    assert got is out
    assert_gemm_close(out, *gemm_reference(a, b, c, 1.5, beta), what=layout)
    if index is not None:
        outside = np.ones(holder.shape, bool)
        outside[index] = False
        assert (holder[outside] == -7.0).all(), f"{layout}: elements outside out were written"


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (9, 7, 33), (64, 48, 40), (0, 3, 2)])
def test_float16(rng, m, n, k):
    a, b = operand(rng, m, k, np.float16), operand(rng, k, n, np.float16)
    got = tilekit.gemm(a, b)  # 16-bit inputs: compute bf16 mode, products exact in FP32
    assert got.dtype == np.float32
    assert_gemm_close(got, *gemm_reference(a, b))
    prod = tilekit.matmul(a, b)
    assert prod.dtype == np.float16
    assert_gemm_close(prod, *gemm_reference(a, b), result_roundoff=2.0 ** -11)


@pytest.mark.parametrize("compute", ["f32", "f32_3xtf32", "tf32", "bf16"])
def test_compute_modes(rng, compute):
    a, b = operand(rng, 20, 30), operand(rng, 30, 10)
    got = tilekit.gemm(a, b, compute=compute)
    # Inputs rounded to TF32 (2^-11) or BF16 (2^-8), or split in two TF32 parts (2^-21).
    roundoff = {"f32": 0.0, "f32_3xtf32": 2.0 ** -21, "tf32": 2.0 ** -11, "bf16": 2.0 ** -8}
    assert_gemm_close(got, *gemm_reference(a, b), input_roundoff=roundoff[compute], what=compute)


@pytest.mark.parametrize("kernel", [k["id"] for k in tilekit.kernels("gemm.cpu.*.f32*")
                                    if k["dtype"] == "f32"])
def test_named_kernels(rng, kernel):
    a, b = operand(rng, 33, 17), operand(rng, 17, 29)
    got = tilekit.gemm(a, b, kernel=kernel, allow_vendor=True)
    assert_gemm_close(got, *gemm_reference(a, b), what=kernel)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (5, 7, 3), (0, 4, 2), (33, 1, 65)])
def test_matmul_float32(rng, m, n, k):
    a, b = operand(rng, m, k), operand(rng, k, n)
    got = tilekit.matmul(a, b)
    assert got.dtype == np.float32
    assert_gemm_close(got, *gemm_reference(a, b))
    out = np.empty((m, n), np.float32)
    assert tilekit.matmul(a, b, out=out) is out
    assert_gemm_close(out, *gemm_reference(a, b))


def longest_stall_during(call):
    """Runs call() on a worker thread; returns how long, at most, this thread went without running
    meanwhile (it needs the GIL for every loop iteration)."""
    worker = threading.Thread(target=call)
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return longest


def test_gil_released_while_running(rng):
    """The kernel runs without the GIL: this thread keeps running while another multiplies. With
    the GIL held, this loop would stall for the whole call, every time; a busy machine can stall
    it once for other reasons (seen on the 16-core GPU host), so the best of three attempts counts."""
    a, b = operand(rng, 500, 500), operand(rng, 500, 500)
    kernel = "gemm.cpu.reference.f32"  # slow on purpose: a long call makes a stall unmistakable
    start = time.perf_counter()
    tilekit.gemm(a, b, kernel=kernel)
    alone = time.perf_counter() - start
    stalls = []
    for _ in range(3):
        stalls.append(longest_stall_during(lambda: tilekit.gemm(a, b, kernel=kernel)))
        if stalls[-1] < alone / 2:
            break
    assert min(stalls) < alone / 2, (f"this thread stalled {min(stalls) * 1e3:.0f} ms (best of "
                                     f"{len(stalls)}) during a {alone * 1e3:.0f} ms GEMM: the GIL was held")


class OnlyDLPack:
    """An array known only through the DLPack protocol (like a JAX or TensorFlow CPU array)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_any_cpu_dlpack_producer(rng):
    a, b = operand(rng, 9, 4), operand(rng, 4, 6)
    got = tilekit.gemm(OnlyDLPack(a), OnlyDLPack(b))
    assert isinstance(got, np.ndarray)  # allocated with NumPy, the CPU arrays' library
    assert_gemm_close(got, *gemm_reference(a, b))
    assert np.array_equal(tilekit.transpose(OnlyDLPack(a)), a.T)


def test_split_k_reaches_the_problem_and_changes_no_cpu_result(rng):
    """split_k is GemmProblem::split_k. No CPU kernel takes a run-time k split, so any valid
    value gives the bits of the call without it; the library's own check of the problem (which
    the binding is called past the Python layer's check to reach) shows the value arrives."""
    a, b = operand(rng, 37, 300), operand(rng, 300, 23)
    for kernel in ["auto", "gemm.cpu.reference.f32"]:
        want = tilekit.gemm(a, b, kernel=kernel)
        assert_gemm_close(want, *gemm_reference(a, b), what=kernel)
        for split_k in (0, 1, 4, np.int64(7), 2**31 - 1):
            got = tilekit.gemm(a, b, kernel=kernel, split_k=split_k)
            assert np.array_equal(got, want), f"{kernel} split_k={split_k}"
    assert np.array_equal(tilekit.matmul(a, b, split_k=3), tilekit.matmul(a, b))
    out = np.zeros((37, 23), np.float32)
    with pytest.raises(ValueError, match="split_k = -1"):
        tilekit._tilekit.gemm(a=a, b=b, c=None, out=out, alpha=1.0, beta=0.0, trans_a=False,
                              trans_b=False, compute="", kernel="auto", allow_vendor=False,
                              split_k=-1, tune_budget_ms=0.0, stream=0)
    assert not out.any()


def test_stream_argument_is_accepted_on_the_cpu(rng):
    a, b = operand(rng, 3, 2), operand(rng, 2, 5)
    assert_gemm_close(tilekit.gemm(a, b, stream=0), *gemm_reference(a, b))


def test_tune_budget_measures_a_new_shape_into_the_cache_once(rng, tmp_path, monkeypatch):
    """tune_budget_ms: the first call at a shape writes its measurements to the cache (and the
    result is the product, beta reading c once); the second measures nothing."""
    monkeypatch.setenv("TILEKIT_CACHE_DIR", str(tmp_path))
    a, b = operand(rng, 45, 38), operand(rng, 38, 52)
    c = operand(rng, 45, 52)
    got = tilekit.gemm(a, b, c, beta=0.5, allow_vendor=True, tune_budget_ms=100)
    assert_gemm_close(got, *gemm_reference(a, b, c, 1.0, 0.5))
    files = sorted(tmp_path.glob("gemm-*.json"))
    assert len(files) == 1
    text = files[0].read_text()
    assert '"m":45' in text.replace(" ", "") and '"k":38' in text.replace(" ", "")
    tilekit.gemm(a, b, c, beta=0.5, allow_vendor=True, tune_budget_ms=100)
    assert files[0].read_text() == text


def test_tune_budget_without_a_cache_directory_is_a_value_error(rng, monkeypatch):
    for var in ("TILEKIT_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(var, raising=False)
    out = np.zeros((6, 4), np.float32)
    with pytest.raises(ValueError, match="no tune cache to record in"):
        tilekit.gemm(operand(rng, 6, 5), operand(rng, 5, 4), out=out, tune_budget_ms=5)
    assert not out.any()
