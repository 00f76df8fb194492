#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/npy_fuzzer.cpp: .npy files made by NumPy itself.

Deterministic (values from arange), so re-running it reproduces the committed files:

    python3 tests/fuzz/make_npy_seeds.py tests/fuzz/corpus/npy

Covers the dtypes the reader takes and some it refuses, both orders, 0-sized, 1-D, 2-D and 3-D
shapes, and format versions 1.0, 2.0 and 3.0; plus hand-made files of the defects found
by a reliability probe.
"""
import io
import os
import sys

import numpy as np
from numpy.lib import format as npy_format


def npy_bytes(array, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, array)
    else:
        npy_format.write_array(buf, array, version=version)
    return buf.getvalue()


def hand_made(header, payload=b"", version=1):
    """A .npy file with any header text, the way a hostile or broken writer makes one."""
    text = header.encode("latin-1") + b"\n"
    length = len(text).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + length + text + payload


def seeds():
    for dtype in ("<f2", "<f4", "<f8"):
        for shape in ((2, 3), (1, 1), (0, 4), (3, 0), (0, 0), (5,), (0,), (2, 1, 3), (1, 5), (4, 1)):
            a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
            order_name = dtype[1:] + "_" + "x".join(map(str, shape))
            yield "c_" + order_name, npy_bytes(a)
            if len(shape) >= 2:
                yield "f_" + order_name, npy_bytes(np.asfortranarray(a))
    yield "special_f2", npy_bytes(np.array([[0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 6e-8]], "<f2"))
    yield "special_f4", npy_bytes(np.array([[np.nan, np.inf, -0.0, 1e-45, 3.4e38]], "<f4"))
    for version in ((1, 0), (2, 0), (3, 0)):
        yield "version_%d_%d" % version, npy_bytes(np.arange(6, dtype="<f4").reshape(2, 3), version)
    yield "refused_i4", npy_bytes(np.arange(4, dtype="<i4").reshape(2, 2))
    yield "refused_big_endian", npy_bytes(np.arange(4, dtype=">f4").reshape(2, 2))
    yield "refused_scalar", npy_bytes(np.float32(1.5))
    yield "refused_structured", npy_bytes(np.zeros((2,), dtype=[("a", "<f4"), ("b", "<f8")]))
    # The reliability probe's findings.
    f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }"
    yield "issue9_empty_shape_value", hand_made("{'descr': '<f4', 'fortran_order': False, 'shape': }")
    yield "issue9_huge_times_zero", hand_made(f4 % "(9223372036854775807, 0)")
    yield "issue9_product_past_2_64", hand_made(f4 % "(4294967296, 4294967297)")
    yield "issue9_garbage_in_shape", hand_made(f4 % "(4 7, 3)", b"\0" * 48)
    yield "issue9_escape_codes", hand_made("{'descr': '\x1b[2J\x07', 'fortran_order': False, 'shape': (1, 1), }", b"\0" * 4)
    # The fuzzer's own finds, once fixed.
    yield "found_empty_billion_rows", hand_made("{'descr': '<f2', 'fortran_order': False, 'shape': (929223744, 0), }")
    yield "python2_longs", hand_made(f4 % "(1L, 2L)", b"\0" * 8)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "npy")
    os.makedirs(out, exist_ok=True)
    count = 0
    for name, data in seeds():
        with open(os.path.join(out, name + ".npy"), "wb") as f:
            f.write(data)
        count += 1
    print("make_npy_seeds: wrote %d seeds to %s" % (count, out))


if __name__ == "__main__":
    main()
