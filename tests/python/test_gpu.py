"""tilekit on PyTorch (and CuPy) CUDA arrays against torch.matmul in float64.

Skips without PyTorch, without a GPU, or in a build without the CUDA backend; with
TILEKIT_REQUIRE_GPU=1 (scripts/maintainer/gpu-python-check.sh) those skips are failures instead.
"""

import itertools
import os

import numpy as np
import pytest

import tilekit
from conftest import assert_gemm_close, gamma

REQUIRE_GPU = os.environ.get("TILEKIT_REQUIRE_GPU") == "1"


def _gpu_missing():
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device visible to PyTorch"
    if not tilekit.built_with_cuda():
        return "this tilekit was built without the CUDA backend"
    return None


_why = _gpu_missing()
if _why and REQUIRE_GPU:
    raise RuntimeError(f"TILEKIT_REQUIRE_GPU=1 but {_why}")
pytestmark = pytest.mark.skipif(_why is not None, reason=_why or "")

if _why is None:
    import torch

SHAPES = [(1, 1, 1), (7, 13, 5), (31, 1, 17), (1, 29, 3), (97, 2, 61), (2, 89, 3), (3, 5, 101),
          (0, 5, 3), (5, 0, 3), (5, 3, 0), (127, 61, 89), (128, 128, 128), (257, 129, 263),
          (1024, 1024, 512)]


class Gen:
    """A CUDA torch.Generator and its seed (failure messages print it)."""

    def __init__(self, seed_value):
        self.seed_value = seed_value
        self.generator = torch.Generator(device="cuda")
        self.generator.manual_seed(seed_value)


@pytest.fixture
def gen():
    return Gen(int(os.environ.get("TILEKIT_TEST_SEED", np.random.SeedSequence().entropy % 2**31)))


@pytest.fixture(params=[True, False], ids=["capsule", "__dlpack__"])
def export(request, monkeypatch):
    """Both ways tensors reach the module: torch's C exporter, or nanobind calling __dlpack__."""
    monkeypatch.setattr(tilekit, "_FAST_TORCH_EXPORT", request.param)
    return request.param


def rand(gen, rows, cols, dtype=None):
    x = torch.rand(rows, cols, device="cuda", generator=gen.generator) * 2 - 1
    return x.to(dtype or torch.float32)


def reference(a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False):
    """torch.matmul in float64 on the GPU, and the bound's magnitude term."""
    a64, b64 = a.double(), b.double()
    a64 = a64.T if trans_a else a64
    b64 = b64.T if trans_b else b64
    value = alpha * torch.matmul(a64, b64)
    magnitude = abs(alpha) * torch.matmul(a64.abs(), b64.abs())
    if c is not None and beta != 0.0:
        value += beta * c.double()
        magnitude += abs(beta) * c.double().abs()
    return value.cpu().numpy(), magnitude.cpu().numpy(), a64.shape[1]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("trans_a,trans_b", list(itertools.product([False, True], repeat=2)))
def test_gemm_float32(gen, export, m, n, k, trans_a, trans_b):
    a = rand(gen, k, m) if trans_a else rand(gen, m, k)
    b = rand(gen, n, k) if trans_b else rand(gen, k, n)
    got = tilekit.gemm(a, b, trans_a=trans_a, trans_b=trans_b)
    assert isinstance(got, torch.Tensor) and got.is_cuda and got.dtype == torch.float32
    assert got.device == a.device
    torch.cuda.synchronize()
    assert_gemm_close(got, *reference(a, b, trans_a=trans_a, trans_b=trans_b),
                      what=f"seed={gen.seed_value} {m}x{n}x{k}")


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (2.0, -1.5), (0.0, 1.0), (-0.5, 0.25)])
def test_alpha_beta_and_in_place(gen, export, alpha, beta):
    a, b, c = rand(gen, 65, 33), rand(gen, 33, 47), rand(gen, 65, 47)
    got = tilekit.gemm(a, b, c, alpha=alpha, beta=beta)
    assert_gemm_close(got, *reference(a, b, c, alpha, beta))
    c0 = c.clone()
    ptr = c.data_ptr()
    assert tilekit.gemm(a, b, c, alpha=alpha, beta=beta, out=c) is c
    assert c.data_ptr() == ptr
    assert_gemm_close(c, *reference(a, b, c0, alpha, beta))


def test_zero_copy(gen, export, monkeypatch):
    """Transposed and sliced views go to the kernel in place: no copy is made, out is written
    where it lies."""
    monkeypatch.setattr(tilekit, "_contiguous", lambda x: pytest.fail("a copy was made"))
    monkeypatch.setattr(tilekit, "_copy", lambda x: pytest.fail("a copy was made"))
    base_a, base_b = rand(gen, 80, 70), rand(gen, 90, 60)
    a = base_a[:40, :50]       # 40 × 50, row-major with ld 70
    b = base_b[:45, :50].T     # 50 × 45, a transposed view: column-major with ld 60
    holder = torch.zeros(100, 60, device="cuda")
    out = holder[:80:2, 5:50]  # 40 × 45, row-major with ld 120
    ptrs = (a.data_ptr(), b.data_ptr(), out.data_ptr())
    got = tilekit.gemm(a, b, out=out)
    assert got is out and (a.data_ptr(), b.data_ptr(), got.data_ptr()) == ptrs
    assert_gemm_close(out, *reference(a, b))
    outside = torch.ones_like(holder, dtype=torch.bool)
    outside[:80:2, 5:50] = False
    assert (holder[outside] == 0).all(), "elements outside out were written"


def test_copy_for_undescribable_views(gen):
    a = rand(gen, 60, 80)[::2, ::2]  # steps in both dimensions: copied
    b = rand(gen, 40, 20)
    out = torch.full((60, 40), 9.0, device="cuda")[::2, ::2]
    assert tilekit.gemm(a, b, out=out) is out
    assert_gemm_close(out, *reference(a, b))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (33, 17, 65), (128, 256, 64), (200, 100, 300)])
def test_16_bit(gen, export, dtype, m, n, k):
    tag = {"bfloat16": "bf16", "float16": "f16"}[dtype]
    # What "auto" can run: tilekit's own kernels (cuBLAS's bf16/f16 baselines need allow_vendor).
    have = {kern["dtype"] for kern in tilekit.kernels("gemm.cuda.*") if kern["role"] == "tilekit"}
    if tag not in have:  # kernel ids name their types: gemm.cuda.<family>.<types>...
        pytest.skip(f"no own CUDA GEMM kernel for {dtype} inputs in this build "
                    f"(own kernels' types: {sorted(have)})")
    dt = getattr(torch, dtype)
    a, b = rand(gen, m, k, dt), rand(gen, k, n, dt)
    got = tilekit.gemm(a, b)  # compute bf16: 16-bit products (exact in FP32), FP32 accumulation
    assert got.dtype == torch.float32
    value, magnitude, kk = reference(a, b)
    assert_gemm_close(got, value, magnitude, kk, what=f"{dtype} seed={gen.seed_value}")
    if dtype == "bfloat16" and "bf16_cbf16" not in have:
        return  # matmul's bfloat16 result needs a kernel writing C in bf16
    prod = tilekit.matmul(a, b)
    assert prod.dtype == dt and prod.is_cuda
    assert_gemm_close(prod, value, magnitude, kk,
                      result_roundoff=2.0 ** -8 if dtype == "bfloat16" else 2.0 ** -11)
    if dtype == "bfloat16":
        out = torch.empty(m, n, device="cuda", dtype=dt)
        assert tilekit.gemm(a, b, out=out) is out
        assert_gemm_close(out, value, magnitude, kk, result_roundoff=2.0 ** -8)


def test_explicit_stream_orders_after_the_producer(gen, export):
    """Inputs written on torch's current stream behind a long sleep; tilekit on another stream
    must wait for them (the DLPack stream handshake), or it reads the old contents."""
    src_a, src_b = rand(gen, 256, 256), rand(gen, 256, 256)
    a, b = torch.zeros_like(src_a), torch.zeros_like(src_b)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on the current stream
    a.copy_(src_a)
    b.copy_(src_b)
    got = tilekit.gemm(a, b, stream=s)
    torch.cuda.current_stream().wait_stream(s)
    assert_gemm_close(got, *reference(src_a, src_b))
    got_int = tilekit.gemm(a, b, stream=s.cuda_stream)  # a raw handle works the same
    torch.cuda.current_stream().wait_stream(s)
    assert_gemm_close(got_int, *reference(src_a, src_b))


def test_default_stream_is_the_current_stream(gen, export):
    """Under `with torch.cuda.stream(s)` the call runs on s: work queued on s before it (behind a
    sleep) is seen, which the legacy default stream would not wait for (torch's streams do not
    block on it)."""
    src = rand(gen, 192, 192)
    a = torch.zeros_like(src)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)
        a.copy_(src)
        got = tilekit.gemm(a, a)
        r = tilekit.dot(a[0].contiguous(), a[0].contiguous())
    s.synchronize()
    assert_gemm_close(got, *reference(src, src))
    ref = float((src[0].double() ** 2).sum())
    assert abs(float(r) - ref) <= 2 * gamma(192) * ref + 1e-6


def test_transpose_and_dot(gen, export):
    a = rand(gen, 300, 517)
    t = tilekit.transpose(a)
    assert t.is_cuda and torch.equal(t, a.T)
    assert torch.equal(tilekit.transpose(a[::2]), a[::2].T)
    x, y = rand(gen, 1, 100003)[0], rand(gen, 1, 100003)[0]
    r = tilekit.dot(x, y)
    assert isinstance(r, torch.Tensor) and r.is_cuda and r.dim() == 0
    ref = float((x.double() * y.double()).sum())
    mag = float((x.double() * y.double()).abs().sum())
    assert abs(float(r) - ref) <= 2 * gamma(100003) * mag + 2.0 ** -24 * abs(ref)


def test_errors_on_cuda(gen):
    a = rand(gen, 4, 3)
    out = torch.full((4, 5), -1.0, device="cuda")
    with pytest.raises(ValueError, match="b: on cpu but a is on cuda:0"):
        tilekit.gemm(a, torch.ones(3, 5), out=out)
    with pytest.raises(ValueError, match="out: on cpu"):
        tilekit.gemm(a, rand(gen, 3, 5), out=torch.empty(4, 5))
    with pytest.raises(TypeError, match="a: dtype float64"):
        tilekit.gemm(a.double(), rand(gen, 3, 5).double(), out=out)
    with pytest.raises(ValueError, match="b:"):
        tilekit.gemm(a, rand(gen, 4, 5), out=out)
    with pytest.raises(TypeError, match="requires grad"):
        tilekit.gemm(a.requires_grad_(), rand(gen, 3, 5), out=out)
    assert (out == -1.0).all()


def test_kernels_and_devices():
    gpus = [d for d in tilekit.devices() if d["backend"] == "cuda"]
    assert gpus and gpus[0]["sm_count"] == torch.cuda.get_device_properties(0).multi_processor_count
    assert tilekit.kernels("gemm.cuda.*")


@pytest.mark.parametrize("kernel", [k["id"] for k in tilekit.kernels("gemm.cuda.*")
                                    if k["dtype"] == "f32" and k["role"] != "reference"]
                         if _why is None else [])
def test_named_cuda_kernels(gen, kernel):
    a, b = rand(gen, 256, 256), rand(gen, 256, 128)
    try:
        got = tilekit.gemm(a, b, kernel=kernel)
    except ValueError as e:  # a kernel may refuse a problem (its requirements): say so
        assert kernel in str(e) or "kernel" in str(e), str(e)
        pytest.skip(f"{kernel} refuses 256x128x256: {e}")
    assert_gemm_close(got, *reference(a, b), what=kernel)


def test_cupy():
    cupy = pytest.importorskip("cupy")
    a = cupy.random.rand(37, 21, dtype=cupy.float32)
    b = cupy.random.rand(21, 15, dtype=cupy.float32)
    got = tilekit.gemm(a, b.T.copy().T)
    assert isinstance(got, cupy.ndarray)
    a64, b64 = cupy.asnumpy(a).astype(np.float64), cupy.asnumpy(b).astype(np.float64)
    assert_gemm_close(got, a64 @ b64, np.abs(a64) @ np.abs(b64), 21)
    t = tilekit.transpose(a)
    assert isinstance(t, cupy.ndarray) and bool((t == a.T).all())
    s = cupy.cuda.Stream(non_blocking=True)
    got_s = tilekit.gemm(a, b, stream=s)
    s.synchronize()
    assert_gemm_close(got_s, a64 @ b64, np.abs(a64) @ np.abs(b64), 21)
