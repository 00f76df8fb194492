"""Every bad input: the exception type, the argument named in its message, and `out` untouched."""

import numpy as np
import pytest

import tilekit

SENTINEL = -123.0


def f32(*shape):
    return np.ones(shape, np.float32)


def fresh_out(shape=(4, 5)):
    return np.full(shape, SENTINEL, np.float32)


# (name, call(out) -> None, exception, words the message must contain)
GEMM_CASES = [
    ("a not an array", lambda o: tilekit.gemm([[1.0]], f32(1, 5), out=o), TypeError, ["a:", "list"]),
    ("b not an array", lambda o: tilekit.gemm(f32(4, 3), "x", out=o), TypeError, ["b:", "str"]),
    ("a float64", lambda o: tilekit.gemm(np.ones((4, 3)), f32(3, 5), out=o), TypeError,
     ["a:", "float64"]),
    ("a int32", lambda o: tilekit.gemm(f32(4, 3).astype(np.int32), f32(3, 5), out=o), TypeError,
     ["a:", "int32"]),
    ("a 1-D", lambda o: tilekit.gemm(f32(4), f32(3, 5), out=o), ValueError, ["a:", "2-D"]),
    ("b 3-D", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5, 1), out=o), ValueError, ["b:", "2-D"]),
    ("a 0-D", lambda o: tilekit.gemm(np.float32(1), f32(3, 5), out=o), ValueError, ["a:", "0-D"]),
    ("dtypes differ", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5).astype(np.float16), out=o),
     TypeError, ["b:", "float16", "float32"]),
    ("inner dims", lambda o: tilekit.gemm(f32(4, 3), f32(2, 5), out=o), ValueError, ["b:", "3"]),
    ("inner dims transposed", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), trans_a=True, out=o),
     ValueError, ["b:", "transposed"]),
    ("c shape", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), f32(5, 4), beta=1.0, out=o),
     ValueError, ["c:", "(4, 5)"]),
    ("c dtype", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), np.ones((4, 5)), beta=1.0, out=o),
     TypeError, ["c:", "float64"]),
    ("c shape with beta 0", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), f32(2, 2), out=o),
     ValueError, ["c:"]),
    ("compute unknown", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), compute="fp64", out=o),
     ValueError, ["compute", "fp64"]),
    ("compute for 16-bit", lambda o: tilekit.gemm(f32(4, 3).astype(np.float16),
                                                  f32(3, 5).astype(np.float16), compute="f32",
                                                  out=o), ValueError, ["compute", "bf16"]),
    ("kernel unknown", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), kernel="gemm.nope", out=o),
     ValueError, ["kernel", "gemm.nope"]),
    ("kernel of another op", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5),
                                                    kernel="transpose.cpu.reference.f32", out=o),
     ValueError, ["kernel"]),
    ("kernel of another dtype", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5),
                                                       kernel="gemm.cpu.reference.bf16", out=o),
     ValueError, ["gemm.cpu.reference.bf16"]),
    ("beta without c", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), beta=2.0), ValueError,
     ["beta"]),
    ("stream type", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), stream="s", out=o), TypeError,
     ["stream"]),
    ("stream negative", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), stream=-1, out=o),
     ValueError, ["stream"]),
    ("split_k negative", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), split_k=-1, out=o),
     ValueError, ["split_k", "-1", ">= 0"]),
    ("split_k too large", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), split_k=2**31, out=o),
     ValueError, ["split_k", "2147483648"]),
    ("split_k float", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), split_k=2.0, out=o),
     TypeError, ["split_k", "float"]),
    ("split_k bool", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), split_k=True, out=o),
     TypeError, ["split_k", "bool"]),
    ("tune_budget_ms negative", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), tune_budget_ms=-1,
                                                       out=o),
     ValueError, ["tune_budget_ms", ">= 0"]),
    ("tune_budget_ms nan", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5),
                                                  tune_budget_ms=float("nan"), out=o),
     ValueError, ["tune_budget_ms"]),
    ("tune_budget_ms str", lambda o: tilekit.gemm(f32(4, 3), f32(3, 5), tune_budget_ms="5",
                                                  out=o),
     TypeError, ["tune_budget_ms", "str"]),
]


@pytest.mark.parametrize("name,call,exc,words", GEMM_CASES, ids=[c[0] for c in GEMM_CASES])
def test_gemm_bad_input(name, call, exc, words):
    out = fresh_out()
    with pytest.raises(exc) as info:
        call(out)
    for word in words:
        assert word in str(info.value), f"{name}: {word!r} not in {info.value}"
    assert (out == SENTINEL).all(), f"{name}: out was written"


OUT_CASES = [
    ("out shape", np.full((5, 4), SENTINEL, np.float32), ValueError, ["out:", "(4, 5)"]),
    ("out float64", np.full((4, 5), SENTINEL), TypeError, ["out:", "float64"]),
    ("out float16", np.full((4, 5), SENTINEL, np.float16), ValueError, ["out", "f16"]),
    ("out 1-D", np.full(20, SENTINEL, np.float32), ValueError, ["out:", "2-D"]),
    ("out list", [[SENTINEL] * 5] * 4, TypeError, ["out:"]),
]


@pytest.mark.parametrize("name,out,exc,words", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_gemm_bad_out(name, out, exc, words):
    before = np.array(out, copy=True)
    with pytest.raises(exc) as info:
        tilekit.gemm(f32(4, 3), f32(3, 5), out=out)
    for word in words:
        assert word in str(info.value), f"{name}: {word!r} not in {info.value}"
    assert np.array_equal(np.asarray(out), before), f"{name}: out was written"


def test_gemm_read_only_out():
    out = fresh_out()
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out: the array is read-only"):
        tilekit.gemm(f32(4, 3), f32(3, 5), out=out)


def test_error_with_c_and_out_leaves_out_untouched():
    """c is copied to a temporary, never into out, before the call can fail."""
    out = fresh_out()
    with pytest.raises(ValueError, match="kernel"):
        tilekit.gemm(f32(4, 3), f32(3, 5), f32(4, 5), beta=1.0, kernel="gemm.nope", out=out)
    assert (out == SENTINEL).all()


def test_out_overlapping_an_input():
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    before = a.copy()
    with pytest.raises(ValueError, match="out: overlaps a"):
        tilekit.gemm(a, f32(4, 4), out=a)
    with pytest.raises(ValueError, match="out: overlaps b"):
        tilekit.gemm(f32(4, 4), a, out=a.T)
    holder = np.zeros((4, 8), np.float32)  # interleaved columns: the spans overlap, refused
    with pytest.raises(ValueError, match="out: overlaps a"):
        tilekit.gemm(holder[:, ::2], f32(4, 4), out=holder[:, 1::2])
    with pytest.raises(ValueError, match="out: overlaps a"):
        tilekit.transpose(a, out=a)
    assert np.array_equal(a, before)


def test_matmul_bad_input():
    with pytest.raises(ValueError, match="b:"):
        tilekit.matmul(f32(4, 3), f32(4, 3))
    with pytest.raises(TypeError, match="a:.*float64"):
        tilekit.matmul(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="split_k: -2"):
        tilekit.matmul(f32(4, 3), f32(3, 5), split_k=-2)


@pytest.mark.parametrize("call,exc,words", [
    (lambda o: tilekit.transpose(f32(5, 4).astype(np.float16), out=o), TypeError, ["a:", "float16"]),
    (lambda o: tilekit.transpose(f32(5), out=o), ValueError, ["a:", "2-D"]),
    (lambda o: tilekit.transpose(f32(4, 5), out=o), ValueError, ["out:", "(5, 4)"]),
    (lambda o: tilekit.transpose(f32(5, 4), kernel="nope", out=o), ValueError, ["kernel", "nope"]),
    (lambda o: tilekit.transpose("a", out=o), TypeError, ["a:", "str"]),
])
def test_transpose_bad_input(call, exc, words):
    out = fresh_out()
    with pytest.raises(exc) as info:
        call(out)
    for word in words:
        assert word in str(info.value)
    assert (out == SENTINEL).all()


@pytest.mark.parametrize("call,exc,words", [
    (lambda: tilekit.dot(f32(3, 1), f32(3)), ValueError, ["x:", "1-D"]),
    (lambda: tilekit.dot(f32(3), f32(4)), ValueError, ["y:", "4", "3"]),
    (lambda: tilekit.dot(np.ones(3), f32(3)), TypeError, ["x:", "float64"]),
    (lambda: tilekit.dot(f32(3), f32(3).astype(np.float16)), TypeError, ["y:", "float16"]),
    (lambda: tilekit.dot(f32(3), None), TypeError, ["y:"]),
    (lambda: tilekit.dot(f32(3), f32(3), kernel="dot.nope"), ValueError, ["kernel"]),
])
def test_dot_bad_input(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: tilekit.occupancy(2000), ValueError, ["threads", "2000"]),
    (lambda: tilekit.occupancy(256, 300), ValueError, ["regs"]),
    (lambda: tilekit.occupancy(256, arch="sm_1"), ValueError, ["arch", "sm_1"]),
    (lambda: tilekit.occupancy(256, carveout=101), ValueError, ["carveout"]),
    (lambda: tilekit.occupancy(256, dyn_smem=10**7), ValueError, ["shared memory", "10000000"]),
    (lambda: tilekit.banks(elem_bytes=3), ValueError, ["elem_bytes"]),
    (lambda: tilekit.banks(index="z,x"), ValueError, ["index"]),
    (lambda: tilekit.banks(shape=32), TypeError, ["shape"]),
    (lambda: tilekit.banks(block=(0, 1)), ValueError, ["block"]),
    (lambda: tilekit.kernels(5), TypeError, ["glob"]),
])
def test_query_bad_input(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{word!r} not in {info.value}"


# alpha and beta follow the CLI's --alpha/--beta rule: a real number that float32 holds.
BAD_SCALARS = [
    (1e39, ValueError, ["outside float32's range", "1e+39"]),
    (-1e39, ValueError, ["outside float32's range", "-1e+39"]),
    (1e300, ValueError, ["outside float32's range", "1e+300"]),
    (3.4028236e38, ValueError, ["outside float32's range"]),  # just past float32's max
    (10**400, ValueError, ["outside float32's range"]),  # beyond float64 too
    (float("inf"), ValueError, ["finite", "inf"]),
    (float("-inf"), ValueError, ["finite", "-inf"]),
    (float("nan"), ValueError, ["finite", "nan"]),
    (1e-50, ValueError, ["rounds to 0", "1e-50"]),
    ("2", TypeError, ["real number", "str", "'2'"]),
    ("nan", TypeError, ["real number", "str", "'nan'"]),
    (b"1", TypeError, ["real number", "bytes", "b'1'"]),
    (True, TypeError, ["real number", "bool"]),
    (np.True_, TypeError, ["real number", "bool"]),
    (1 + 2j, TypeError, ["real number", "complex"]),
    (np.complex64(1), TypeError, ["real number", "complex64"]),
    (None, TypeError, ["real number", "NoneType"]),
]


@pytest.mark.parametrize("arg", ["alpha", "beta"])
@pytest.mark.parametrize("value,exc,words", BAD_SCALARS, ids=[repr(s[0])[:20] for s in BAD_SCALARS])
def test_gemm_bad_scalar(arg, value, exc, words):
    c, out = f32(4, 5), fresh_out()
    with pytest.raises(exc) as info:
        tilekit.gemm(f32(4, 3), f32(3, 5), c, out=out, **{arg: value})
    message = str(info.value)
    assert message.startswith(f"{arg}: "), message
    for word in words:
        assert word in message, f"{word!r} not in {message}"
    assert (out == SENTINEL).all(), "out was written"
    assert (c == 1.0).all(), "c was written"


@pytest.mark.parametrize("value", [np.float32(2), np.int64(2), 2, np.float64(2), 2.0])
def test_gemm_real_scalars_accepted(value):
    c = f32(4, 5)
    got = tilekit.gemm(f32(4, 3), f32(3, 5), c, alpha=value, beta=value)
    assert np.array_equal(got, np.full((4, 5), 2.0 * 3 + 2.0, np.float32))


def test_gemm_scalars_at_float32_limits():
    """float32's max and its smallest subnormal are float32 values: accepted, as the CLI does."""
    a, b = np.zeros((4, 3), np.float32), np.zeros((3, 5), np.float32)
    assert (tilekit.gemm(a, b, alpha=float(np.finfo(np.float32).max)) == 0).all()
    assert (tilekit.gemm(a, b, alpha=1e-45) == 0).all()
    assert (tilekit.gemm(a, b, alpha=0.0) == 0).all()


STRUCTURED = np.dtype([("x", "<f4"), ("y", "<f4")])

# NumPy dtypes that DLPack cannot carry: the message names the dtype, not "expected an array".
BAD_DTYPES = [
    ("big-endian", np.dtype(">f4"), [">f4", "big-endian", "astype('<f4')"]),
    ("big-endian float16", np.dtype(">f2"), [">f2", "big-endian", "astype('<f2')"]),
    ("big-endian float64", np.dtype(">f8"), [">f8", "big-endian"]),
    ("structured", STRUCTURED, ["structured dtype", "('x', '<f4')", "('y', '<f4')"]),
    ("object", np.dtype(object), ["dtype object"]),
    ("str", np.dtype("<U3"), ["dtype <U3"]),
    ("datetime", np.dtype("M8[s]"), ["dtype datetime64[s]"]),
]


@pytest.mark.parametrize("name,dtype,words", BAD_DTYPES, ids=[d[0] for d in BAD_DTYPES])
@pytest.mark.parametrize("arg", ["a", "b", "c", "out"])
def test_gemm_dtype_named(name, dtype, words, arg):
    args = {"a": f32(4, 3), "b": f32(3, 5), "c": f32(4, 5), "out": fresh_out()}
    odd = np.zeros(args[arg].shape, dtype)
    args[arg] = odd
    with pytest.raises(TypeError) as info:
        tilekit.gemm(args["a"], args["b"], args["c"], beta=1.0, out=args["out"])
    message = str(info.value)
    assert message.startswith(f"{arg}: "), message
    assert "expected an array" not in message and "expected a writable array" not in message
    for word in words:
        assert word in message, f"{name}: {word!r} not in {message}"
    if arg != "out":
        assert (args["out"] == SENTINEL).all(), f"{name}: out was written"


@pytest.mark.parametrize("dtype,word", [(np.int32, "int32"), (np.float64, "float64"),
                                        (np.complex64, "complex64"), (np.bool_, "bool")])
def test_gemm_dtype_dlpack_carries_is_named(dtype, word):
    out = fresh_out()
    with pytest.raises(TypeError) as info:
        tilekit.gemm(f32(4, 3).astype(dtype), f32(3, 5), out=out)
    assert "a:" in str(info.value) and word in str(info.value), str(info.value)
    assert (out == SENTINEL).all()


def test_transpose_and_dot_name_the_dtype():
    with pytest.raises(TypeError, match=r"a: unsupported dtype >f4"):
        tilekit.transpose(np.zeros((4, 5), ">f4"))
    with pytest.raises(TypeError, match=r"out: unsupported structured dtype"):
        tilekit.transpose(f32(4, 5), out=np.zeros((5, 4), STRUCTURED))
    with pytest.raises(TypeError, match=r"y: unsupported dtype >f4"):
        tilekit.dot(f32(3), np.zeros(3, ">f4"))
    with pytest.raises(TypeError, match=r"a: unsupported dtype >f4"):
        tilekit.matmul(np.zeros((4, 3), ">f4"), f32(3, 5))


def call_module_gemm(a, b, out):
    return tilekit._tilekit.gemm(a=a, b=b, c=None, out=out, alpha=1.0, beta=0.0, trans_a=False,
                                 trans_b=False, compute="", kernel="auto", allow_vendor=False,
                                 split_k=0, tune_budget_ms=0.0, stream=0)


def test_module_names_a_dtype_dlpack_cannot_carry():
    """The compiled module names the dtype too, for arrays that reach it without the package."""
    out = fresh_out()
    with pytest.raises(TypeError, match=r"a: unsupported dtype >f4 \(ndarray;"):
        call_module_gemm(np.zeros((4, 3), ">f4"), f32(3, 5), out)
    with pytest.raises(TypeError, match=r"out: unsupported dtype \[\('x', '<f4'\)"):
        call_module_gemm(f32(4, 3), f32(3, 5), np.zeros((4, 5), STRUCTURED))
    with pytest.raises(TypeError, match=r"b: expected an array .* got list"):
        call_module_gemm(f32(4, 3), [[1.0]], out)
    assert (out == SENTINEL).all()
