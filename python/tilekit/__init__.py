"""tilekit — dense matrix kernels (GEMM, transpose, dot) on NumPy, PyTorch and CuPy arrays.

NumPy arrays (and any CPU array with ``__dlpack__``) run on tilekit's CPU backend; PyTorch and
CuPy CUDA arrays (and any CUDA ``__dlpack__`` producer) run on their GPU with zero copy, on the
producer's current stream unless ``stream=`` says otherwise. Results are arrays of the caller's
library on the caller's device. Strided and transposed views are read in place through leading
dimensions and op flags; a view that no leading dimension describes (a broadcast, a slice with a
step in both dimensions) is copied first. See docs/python.md.

Errors: ``TypeError`` for a non-array, an unsupported dtype (named) or a non-real alpha/beta,
``ValueError`` for bad shapes, devices, options, kernels or an alpha/beta that float32 cannot hold
(each message names the argument), ``RuntimeError`` carrying the CUDA error for runtime failures.
When an error is raised, nothing has been written to ``out``.
"""

from __future__ import annotations

import math
import numbers
import operator
import reprlib
import sys
from typing import Any, Optional

from . import _tilekit

__all__ = [
    "gemm", "matmul", "transpose", "dot", "devices", "kernels", "occupancy", "banks",
    "built_with_cuda", "__version__",
]
__version__ = "0.1.0"

Array = Any  # numpy.ndarray, torch.Tensor, cupy.ndarray, or any object with __dlpack__
Stream = Any  # an int (cudaStream_t), a torch.cuda.Stream or a cupy.cuda.Stream

# The codes _tilekit returns for an operand that needs a contiguous copy.
_NEEDS_COPY_A, _NEEDS_COPY_B, _NEEDS_COPY_OUT = 1, 2, 4
# GemmProblem::split_k is a C int.
_INT_MAX = 2**31 - 1


# ---- the caller's array library ------------------------------------------------------------------
# Looked up in sys.modules, never imported: a NumPy user never pays for importing torch.

def _is_torch(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _is_cupy(x: Any) -> bool:
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(x, cupy.ndarray)


def _is_cuda(x: Any) -> bool:
    """True for an array on a CUDA device (DLPack device types 2 and 13)."""
    if _is_torch(x):
        return x.is_cuda
    dev = getattr(x, "__dlpack_device__", None)
    return dev is not None and dev()[0] in (2, 13)


def _adopt(x: Any, arg: str) -> Any:
    """Returns x itself when tilekit can allocate and copy with its library (NumPy, PyTorch,
    CuPy); another DLPack producer is viewed, without a copy, as one of those."""
    if _is_torch(x):
        if x.requires_grad:
            raise TypeError(f"{arg}: tensor requires grad; tilekit does not track gradients "
                            f"(pass {arg}.detach())")
        return x
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.ndarray):
        _check_numpy_dtype(x.dtype, arg)
        return x
    if _is_cupy(x):
        return x
    if not hasattr(x, "__dlpack__"):
        return x  # _tilekit raises the TypeError naming the argument
    if not _is_cuda(x):
        import numpy
        return numpy.from_dlpack(x)
    for name in ("torch", "cupy"):
        try:
            lib = __import__(name)
            return lib.from_dlpack(x)
        except ImportError:
            continue
    raise TypeError(f"{arg}: a CUDA array of type {type(x).__name__}; tilekit allocates results "
                    "and copies with PyTorch or CuPy, and neither is installed")


def _check_numpy_dtype(dt: Any, arg: str) -> None:
    """Raises the TypeError naming a dtype that DLPack cannot carry, which nanobind would only
    report as "not an array"; a dtype it carries (float64, int32, …) is named by _tilekit."""
    # ml_dtypes' bfloat16 (kind "V") is left to _tilekit, as before.
    if dt.isnative and dt.fields is None and (dt.kind in "biufc" or dt.name == "bfloat16"):
        return
    if dt.fields is not None:
        raise TypeError(f"{arg}: unsupported structured dtype {reprlib.repr(dt.descr)} (tilekit "
                        "reads plain float32, float16, bfloat16 arrays)")
    if not dt.isnative:
        native = dt.newbyteorder("=")
        hint = native.str if native.kind == "f" and native.itemsize in (2, 4) else "<f4"
        order = "big" if dt.byteorder == ">" else "little"
        raise TypeError(f"{arg}: unsupported dtype {dt.str} ({order}-endian byte order; tilekit "
                        f"reads native {sys.byteorder}-endian float32, float16, bfloat16 — use "
                        f"{arg}.astype('{hint}'))")
    raise TypeError(f"{arg}: unsupported dtype {dt} (tilekit reads float32, float16, bfloat16)")


def _empty_like_lib(x: Any, shape: tuple, dtype_name: str) -> Any:
    """An uninitialised array of x's library and device."""
    if _is_torch(x):
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype_name), device=x.device)
    if _is_cupy(x):
        import cupy
        with x.device:
            return cupy.empty(shape, dtype=dtype_name)
    import numpy
    return numpy.empty(shape, dtype=dtype_name)


def _contiguous(x: Any) -> Any:
    """A C-contiguous copy of x in its own library (the fallback for undescribable views)."""
    if _is_torch(x):
        return x.contiguous()
    if _is_cupy(x):
        import cupy
        return cupy.ascontiguousarray(x)
    import numpy
    return numpy.ascontiguousarray(x)


def _copy(x: Any) -> Any:
    if _is_torch(x):
        return x.clone()
    if _is_cupy(x):
        return x.copy()
    import numpy
    return numpy.array(x, copy=True)


# torch's C exporter: the capsule Tensor.__dlpack__() returns, without that method's Python-level
# checks (grad, conj, layout, stream), which cost microseconds per tensor. tilekit has made the
# checks that matter (_adopt refuses tensors that require grad; only real dtypes get through;
# streams are ordered in _resolve_stream). False: hand nanobind the tensors, which then calls
# __dlpack__() itself (scripts/maintainer/python_overhead.py times both).
_FAST_TORCH_EXPORT = True


def _export(x: Any) -> Any:
    """What _tilekit receives for x: a DLPack capsule for a torch tensor, else x itself."""
    if _FAST_TORCH_EXPORT and _is_torch(x):
        to_dlpack = getattr(sys.modules["torch"]._C, "_to_dlpack", None)
        if to_dlpack is not None:
            return to_dlpack(x)
    return x


def _assign(dst: Any, src: Any) -> None:
    dst[...] = src


def _dtype_name(x: Any) -> str:
    return str(x.dtype).replace("torch.", "")


# ---- streams -------------------------------------------------------------------------------------

def _stream_handle(stream: Stream) -> int:
    if stream is None:
        return 0
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"stream: {stream} is not a CUDA stream handle")
        return stream
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(f"stream: expected an int (cudaStream_t), a torch.cuda.Stream or a "
                    f"cupy.cuda.Stream, got {type(stream).__name__}")


def _current_stream(x: Any) -> int:
    """The producer's current stream for CUDA array x (0, the legacy default stream, for a
    producer whose current stream tilekit cannot ask)."""
    if _is_torch(x):
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        dev = x.get_device()
        return raw(dev) if raw is not None else torch.cuda.current_stream(dev).cuda_stream
    if _is_cupy(x):
        import cupy
        with x.device:
            return cupy.cuda.get_current_stream().ptr
    return 0


class _OnStream:
    """Makes `handle` the current stream of x's library for the block, so that the copies and
    allocations tilekit makes for the call are ordered with its kernels on that stream."""

    def __init__(self, x: Any, handle: int):
        self._ctx = None
        if _is_torch(x):
            import torch
            self._ctx = torch.cuda.stream(torch.cuda.ExternalStream(handle, device=x.device))
        elif _is_cupy(x):
            import cupy
            self._ctx = cupy.cuda.ExternalStream(handle, x.device.id)

    def __enter__(self):
        if self._ctx is not None:
            self._ctx.__enter__()

    def __exit__(self, *exc):
        if self._ctx is not None:
            self._ctx.__exit__(*exc)


def _resolve_stream(first: Any, arrays: tuple, stream: Stream) -> tuple:
    """(handle, context): the stream to run on and a context making it current for copies.

    Default: the producer's current stream, nothing to order. An explicit stream: each CUDA
    array is exported with ``__dlpack__(stream=handle)``, the protocol's request that its producer
    order the pending work on it before `handle` (capsules are dropped: the export is the point).
    """
    if not _is_cuda(first):
        if stream is not None:
            _stream_handle(stream)  # a bad stream is still an error on the CPU
        return 0, None
    if stream is None:
        return _current_stream(first), None
    handle = _stream_handle(stream)
    for x in arrays:
        if x is not None and hasattr(x, "__dlpack__"):
            x.__dlpack__(stream=handle)
    return handle, _OnStream(first, handle)


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


# ---- GEMM ----------------------------------------------------------------------------------------

def _result_shape(a: Any, b: Any, trans_a: bool, trans_b: bool) -> Optional[tuple]:
    """op(a)·op(b)'s shape, or None when a or b is not 2-D (then _tilekit raises, naming it)."""
    sa, sb = getattr(a, "shape", None), getattr(b, "shape", None)
    if sa is None or sb is None or len(sa) != 2 or len(sb) != 2:
        return None
    return (sa[1] if trans_a else sa[0], sb[0] if trans_b else sb[1])


# The doubles that float32 rounding (to nearest, ties to even) takes to inf or to 0: from the
# midpoint between float32's max and 2^128 up, and up to half the smallest subnormal.
_F32_OVERFLOW = 2.0**128 - 2.0**103
_F32_UNDERFLOW = 2.0**-150


def _scalar(value: Any, arg: str) -> float:
    """alpha or beta as the float the library takes, by the CLI's rule for --alpha/--beta: a real
    number, finite in float32, and not a nonzero that float32 rounds to 0 (the library computes
    in float32: a value that overflows or vanishes there would give inf or a silent 0)."""
    # bool is an int to Python, but alpha=True is a slip; str and bytes are not numbers here.
    if type(value) not in (float, int) and (isinstance(value, bool) or
                                            not isinstance(value, numbers.Real)):
        raise TypeError(f"{arg}: expected a real number, got {type(value).__name__} "
                        f"{reprlib.repr(value)}")
    x = _double(value, arg)
    if not abs(x) < _F32_OVERFLOW:  # NaN too
        why = "is outside float32's range (|x| <= 3.4e38)" if math.isfinite(x) else "is not finite"
        raise ValueError(f"{arg}: {x!r} {why}")
    if 0.0 < abs(x) <= _F32_UNDERFLOW:
        raise ValueError(f"{arg}: {x!r} rounds to 0 in float32 (the smallest nonzero is 1.4e-45)")
    return x


def _double(value: Any, arg: str) -> float:
    try:
        return float(value)
    except OverflowError:  # an int (or Fraction) beyond any double, so beyond float32 too
        raise ValueError(f"{arg}: {type(value).__name__} beyond float64's range is outside "
                         "float32's range (|x| <= 3.4e38)") from None


def _split_k(split_k: Any) -> int:
    """split_k as the int the library takes, or the error naming it."""
    # bool is an int to Python, but split_k=True is a slip, not one slice.
    if isinstance(split_k, bool):
        raise TypeError("split_k: expected an int, got bool")
    try:
        value = operator.index(split_k)  # int and NumPy integers; not float
    except TypeError:
        raise TypeError(f"split_k: expected an int, got {type(split_k).__name__}") from None
    if value < 0:
        raise ValueError(f"split_k: {value} must be >= 0 (0: the kernel or the tuner chooses)")
    if value > _INT_MAX:
        raise ValueError(f"split_k: {value} is more than {_INT_MAX}")
    return value


def _tune_budget(budget: Any) -> float:
    """tune_budget_ms as the float the library takes, or the error naming it."""
    if isinstance(budget, (bool, str, bytes)) or not isinstance(budget, numbers.Real):
        raise TypeError(f"tune_budget_ms: expected a real number of milliseconds, got "
                        f"{type(budget).__name__}")
    value = float(budget)
    if not value >= 0:  # negative or NaN
        raise ValueError(f"tune_budget_ms: {value} must be >= 0 (0: no tuning on line)")
    return value


def gemm(a: Array, b: Array, c: Optional[Array] = None, *, alpha: float = 1.0, beta: float = 0.0,
         trans_a: bool = False, trans_b: bool = False, compute: Optional[str] = None,
         kernel: str = "auto", out: Optional[Array] = None, allow_vendor: bool = False,
         split_k: int = 0, tune_budget_ms: float = 0.0, stream: Stream = None) -> Array:
    """General matrix multiply: ``alpha · op(a) · op(b) + beta · c``, op(x) = xᵀ when trans_x.

    Args:
        a, b: 2-D arrays of one dtype (float32, float16 or bfloat16) on one device; op(a) is
            m × k and op(b) k × n. Any strides that a leading dimension describes (transposed
            views, column slices, Fortran order) are read in place.
        c: optional m × n array, read only when beta != 0 (BLAS rule: beta = 0 never reads c).
        alpha, beta: real numbers (int, float, NumPy real scalars; computed as float32): finite
            in float32 and, unless 0, not rounding to 0 there. Not str, bool or complex.
        trans_a, trans_b: multiply by the transpose of a / b.
        compute: "f32" (IEEE FP32, the default for float32 inputs), "f32_3xtf32", "tf32" or
            "bf16" (the only mode of float16/bfloat16 inputs, their default). tilekit never runs
            a lower precision than asked.
        kernel: a kernel id from ``tilekit.kernels("gemm.*")`` or "auto".
        out: optional m × n array to write: float32, or bfloat16 for 16-bit inputs. ``out=c``
            updates c in place; otherwise c is copied into the result first. Default: a new
            float32 array of a's library and device.
        allow_vendor: let "auto" choose cuBLAS / OpenBLAS too.
        split_k: how many k-slices a kernel that takes a run-time k split (such as
            ``gemm.cuda.simt.*.split_k``) cuts k into; 0 (default): the kernel, or the tune cache
            entry that "auto" chose, decides. Other kernels ignore it. The result stays within
            the same error bound whatever the value.
        tune_budget_ms: with kernel "auto", at a shape the device's tune cache has not
            measured: time the kernels that can run it for about this many milliseconds first
            (each on a copy of the result), record them in the cache and run the fastest; later
            calls at the shape measure nothing. 0 (default): off. Needs a cache directory
            ($TILEKIT_CACHE_DIR, $XDG_CACHE_HOME or $HOME) and waits for the stream
            (docs/tuning.md, "Tuning on line").
        stream: CUDA stream to run on (int handle, torch.cuda.Stream, cupy.cuda.Stream);
            default: the producer's current stream. Never synchronises the device.

    Returns:
        ``out`` (or the new result array).

    Raises:
        TypeError: a non-array, an unsupported dtype, or an alpha/beta that is not a real number
            (the message names the argument).
        ValueError: mismatched shapes, devices, a bad compute mode or kernel, a negative split_k
            or tune_budget_ms, an alpha/beta outside float32's range or rounding to 0 in it, no
            cache directory for tune_budget_ms.
        RuntimeError: a CUDA failure, with the CUDA error.
    """
    split_k = _split_k(split_k)
    tune_budget_ms = _tune_budget(tune_budget_ms)
    alpha = _scalar(alpha, "alpha")
    beta = _scalar(beta, "beta")
    a = _adopt(a, "a")
    b = _adopt(b, "b")
    if c is not None:
        c = _adopt(c, "c")
    if out is not None:
        out = _adopt(out, "out")
    handle, on_stream = _resolve_stream(a, (a, b, c, out), stream)
    args = (a, b, c, out, alpha, beta, bool(trans_a), bool(trans_b), compute or "",
            kernel, bool(allow_vendor), split_k, tune_budget_ms, handle)
    if on_stream is None:  # the common case, kept free of a context manager's cost
        return _gemm_on(*args)
    with on_stream:
        return _gemm_on(*args)


def _gemm_on(a, b, c, out, alpha, beta, trans_a, trans_b, compute, kernel, allow_vendor, split_k,
             tune_budget_ms, handle):
    reads_c = c is not None and beta != 0.0
    if out is None and c is None and beta != 0.0:
        raise ValueError(f"beta: {beta} scales c, but no c (or out) was given")
    target = out
    if out is None:
        shape = _result_shape(a, b, trans_a, trans_b)
        # A copy of c is the result's starting value; else fresh memory of the result's dtype.
        # Without a shape, a stands in: _tilekit rejects a or b before it looks at out.
        target = _copy(c) if reads_c else (a if shape is None else
                                           _empty_like_lib(a, shape, "float32"))
    elif reads_c and c is not out:
        # Computed in a copy of c and assigned only on success: out is untouched on error.
        target = _copy(c)
    code = _tilekit.gemm(_export(a), _export(b), None if c is None else _export(c),
                         _export(target), alpha, beta, trans_a, trans_b, compute, kernel,
                         allow_vendor, split_k, tune_budget_ms, handle)
    if code == _NEEDS_COPY_A or code == _NEEDS_COPY_B:
        a = _contiguous(a) if code == _NEEDS_COPY_A else a
        b = _contiguous(b) if code == _NEEDS_COPY_B else b
        return _gemm_on(a, b, c, out, alpha, beta, trans_a, trans_b, compute, kernel,
                        allow_vendor, split_k, tune_budget_ms, handle)
    if code == _NEEDS_COPY_OUT:
        # target is the caller's out (or holds c's values): compute in a contiguous copy of it,
        # which then plays C, and assign back only on success.
        tmp = _contiguous(target)
        _gemm_on(a, b, None, tmp, alpha, beta, trans_a, trans_b, compute, kernel, allow_vendor,
                 split_k, tune_budget_ms, handle)
        if out is None:
            return tmp
        _assign(out, tmp)
        return out
    if out is not None and target is not out:
        _assign(out, target)
        return out
    return target


def matmul(a: Array, b: Array, *, out: Optional[Array] = None, kernel: str = "auto",
           split_k: int = 0, stream: Stream = None) -> Array:
    """``a @ b`` for 2-D arrays, NumPy's semantics: the result has the inputs' dtype.

    float32 and bfloat16 results are computed directly (bfloat16 with FP32 accumulation);
    float16 is computed into float32 and rounded once to float16 (tilekit has no float16 C).
    See ``gemm`` for the arguments.
    """
    split_k = _split_k(split_k)  # before anything is allocated
    a = _adopt(a, "a")
    b = _adopt(b, "b")
    dtype = _dtype_name(a)
    if dtype != "float16":
        shape = _result_shape(a, b, False, False)
        if out is None and shape is not None and dtype == "bfloat16":
            out = _empty_like_lib(a, shape, "bfloat16")
        return gemm(a, b, out=out, kernel=kernel, split_k=split_k, stream=stream)
    result = gemm(a, b, kernel=kernel, split_k=split_k, stream=stream)
    handle, on_stream = _resolve_stream(a, (), stream)
    with on_stream or _Nothing():
        if out is None:
            return result.astype("float16") if not _is_torch(result) else result.half()
        _assign(out, result)
        return out


# ---- transpose and dot ---------------------------------------------------------------------------

def transpose(a: Array, *, out: Optional[Array] = None, kernel: str = "auto",
              stream: Stream = None) -> Array:
    """``aᵀ`` computed by tilekit's transpose kernels into a new (or the given) array.

    Args:
        a: 2-D float32 array, rows × cols (rows read with their stride; a view whose columns
            are not adjacent is copied first).
        out: optional cols × rows float32 array to write; default: a new array of a's library.
        kernel: a kernel id from ``tilekit.kernels("transpose.*")`` or "auto".
        stream: as in ``gemm``.

    Returns:
        The cols × rows transpose, stored row-major (a real copy, unlike ``a.T``).
    """
    a = _adopt(a, "a")
    if out is not None:
        out = _adopt(out, "out")
    handle, on_stream = _resolve_stream(a, (a, out), stream)
    with on_stream or _Nothing():
        target = out
        if out is None:
            shape = tuple(getattr(a, "shape", ()))
            target = _empty_like_lib(a, shape[::-1] if len(shape) == 2 else (1, 1), "float32")
        code = _tilekit.transpose(_export(a), _export(target), kernel, handle)
        if code == _NEEDS_COPY_A:
            return transpose(_contiguous(a), out=out, kernel=kernel, stream=stream)
        if code == _NEEDS_COPY_B:
            tmp = _contiguous(target)
            _tilekit.transpose(_export(a), _export(tmp), kernel, handle)
            _assign(out, tmp)
        return out if out is not None else target


def dot(x: Array, y: Array, *, kernel: str = "auto", stream: Stream = None) -> Any:
    """``x · y`` = Σ x[i]·y[i] of two 1-D float32 arrays of one length.

    Returns:
        For NumPy, a numpy.float32; for CUDA arrays, a 0-d array of the caller's library left on
        the device (no synchronisation: reading it waits for the stream).
    """
    x = _adopt(x, "x")
    y = _adopt(y, "y")
    handle, on_stream = _resolve_stream(x, (x, y), stream)
    with on_stream or _Nothing():
        result = _empty_like_lib(x, (1,), "float32")
        code = _tilekit.dot(_export(x), _export(y), _export(result), kernel, handle)
        if code:
            x = _contiguous(x) if code == _NEEDS_COPY_A else x
            y = _contiguous(y) if code == _NEEDS_COPY_B else y
            return dot(x, y, kernel=kernel, stream=stream)
        return result[0]


# ---- queries -------------------------------------------------------------------------------------

def devices() -> list:
    """The CPU and each CUDA device tilekit can use, as dicts (``backend`` "cpu" or "cuda",
    ``name``, and for GPUs compute capability, SMs, clocks, memory, L2)."""
    return _tilekit.devices()


def kernels(glob: str = "*") -> list:
    """Registered kernels whose id matches the shell-style glob, as dicts (id, op, backend,
    dtype, family, ladder step, role, tile, requirements, min_sm, and input_rounding: how a GEMM
    kernel rounds float32 inputs for a tf32, f32_3xtf32 or bf16 mode, "nearest" or "faithful";
    None where the mode rounds no input)."""
    if not isinstance(glob, str):
        raise TypeError(f"glob: expected a str, got {type(glob).__name__}")
    return _tilekit.kernels(glob)


def occupancy(threads: int, regs: int = 0, smem: int = 0, *, arch: str = "sm_90",
              dyn_smem: int = 0, carveout: Optional[int] = None) -> dict:
    """Theoretical occupancy of a launch configuration, no GPU needed (``tilekit occupancy``).

    Args:
        threads: threads per block.
        regs: registers per thread (``ptxas -v``).
        smem, dyn_smem: static and dynamic shared memory per block, bytes.
        arch: "sm_61" … "sm_120" (also "90", "9.0", "compute_90").
        carveout: preferred shared-memory carveout, % of the SM's; None: the driver's choice.

    Returns:
        dict with blocks_per_sm, warps_per_sm, occupancy (0..1), limiters and each limit.
    """
    return _tilekit.occupancy(threads, regs, smem, arch, dyn_smem,
                              -1 if carveout is None else carveout)


def banks(shape: tuple = (32, 32), pad: int = 0, index: str = "y,x", *, elem_bytes: int = 4,
          block: Optional[tuple] = None, warp: int = 0) -> dict:
    """Which shared-memory bank each lane of one warp touches (``tilekit banks``).

    The array is ``T s[rows][cols + pad]`` with sizeof(T) = elem_bytes; lane (x, y) reads
    ``s[ROW][COL]`` for ``index`` = "ROW,COL" in x and y. ``block`` is (x, y) threads, default
    (cols, rows).

    Returns:
        dict with lanes (lane, x, y, row, col, byte_offset, banks), phases, wavefronts,
        ideal_wavefronts, conflict_degree (1 = conflict-free) and words_per_bank.
    """
    rows, cols = _pair(shape, "shape")
    bx, by = _pair(block, "block") if block is not None else (cols, rows)
    return _tilekit.banks(rows, cols, pad, index, elem_bytes, bx, by, warp)


def _pair(value: Any, arg: str) -> tuple:
    try:
        first, second = value
    except (TypeError, ValueError):
        raise TypeError(f"{arg}: expected a pair of ints, got {value!r}") from None
    return first, second


def built_with_cuda() -> bool:
    """True when this build of tilekit includes the CUDA backend."""
    return _tilekit.built_with_cuda()
