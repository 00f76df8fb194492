// npy.hpp — reading and writing matrices in NumPy's .npy format.
//
// Reads 2-D float16, float32 or float64 arrays, little-endian, C or Fortran order, format
// versions 1.0, 2.0 and 3.0, into a row-major float32 matrix (float16 and float64 are converted;
// `source_dtype` says what the file held). Writes row-major float32 (C order, version 1.0), only
// to a regular file or a new path, whole or not at all (core/output_file.hpp).
//
// A pipe or device is read only as far as its header declares, after checking the magic in the
// first eight bytes, with the header held to 1 MiB: /dev/zero fails at once.
//
// The reader is total: any byte string gives a matrix or a Status whose message is one printable
// line naming the file (header bytes are escaped and cut to a short excerpt). It never throws.
//   kInvalidArgument  not a .npy file, a header that breaks the format's grammar, an unsupported
//                 dtype or dimensionality, a shape whose size overflows 64 bits, or data whose
//                 length is not exactly shape × itemsize (from a pipe: shorter than that);
//   kIoError      the file cannot be opened or read (missing, no permission, a read error);
//   kOutOfMemory  a shape larger than this machine's memory as float32 (check_host_allocation),
//                 counting a zero dimension as 1 — so an empty (n, 0) array cannot carry an n
//                 no real array could have.
// On error `*out` is left untouched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/status.hpp"

namespace tilekit {

struct NpyMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> data;  // row-major, rows × cols
  std::string source_dtype;  // "float16", "float32" or "float64", as stored in the file
  bool source_fortran_order = false;
};

// `name` labels errors ("A.npy: expected a 2-D array, got shape (3,)").
Status parse_npy_matrix(const std::string& bytes, const std::string& name, NpyMatrix* out);
Status read_npy_matrix(const std::string& path, NpyMatrix* out);
// A vector: a 1-D array (n,), or a 2-D array with one row or one column. rows = 1, cols = n.
Status parse_npy_vector(const std::string& bytes, const std::string& name, NpyMatrix* out);
Status read_npy_vector(const std::string& path, NpyMatrix* out);
// The bytes write_npy_matrix writes; empty when rows or cols is negative or the size overflows.
std::string npy_bytes_f32(const float* row_major, int64_t rows, int64_t cols);
Status write_npy_matrix(const std::string& path, const float* row_major, int64_t rows,
                        int64_t cols);
// The rows × cols float32 matrix at `data`, lines `ld` floats apart, straight from that buffer (no
// copy of it): C order (lines are rows), or with `fortran_order` Fortran order (lines are columns).
Status write_npy_strided(const std::string& path, const float* data, int64_t rows, int64_t cols,
                         int64_t ld, bool fortran_order);

}  // namespace tilekit
