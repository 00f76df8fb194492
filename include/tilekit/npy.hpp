// npy.hpp — reading and writing matrices in NumPy's .npy format.
//
// Reads 2-D float32 or float64 arrays, little-endian, C or Fortran order, format versions 1–3,
// into a row-major float32 matrix. Writes row-major float32 (C order, version 1). A write goes
// to a temporary file renamed into place, so a failed write never leaves a partial file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/status.hpp"

namespace tilekit {

struct NpyMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> data;  // row-major, rows × cols
  std::string source_dtype;  // "float32" or "float64", as stored in the file
  bool source_fortran_order = false;
};

// `name` labels errors ("A.npy: expected a 2-D array, got shape (3,)").
Status parse_npy_matrix(const std::string& bytes, const std::string& name, NpyMatrix* out);
Status read_npy_matrix(const std::string& path, NpyMatrix* out);
// A vector: a 1-D array (n,), or a 2-D array with one row or one column. rows = 1, cols = n.
Status parse_npy_vector(const std::string& bytes, const std::string& name, NpyMatrix* out);
Status read_npy_vector(const std::string& path, NpyMatrix* out);
std::string npy_bytes_f32(const float* row_major, int64_t rows, int64_t cols);
Status write_npy_matrix(const std::string& path, const float* row_major, int64_t rows,
                        int64_t cols);

}  // namespace tilekit
