// ladder_common.cu — host helpers the GEMM ladder steps share.
#include <climits>
#include <initializer_list>
#include <string>
#include <utility>

#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {

namespace {

// kNotSupported naming the first value past INT_MAX; ok when none is.
Status first_past_int_max(std::initializer_list<std::pair<const char*, int64_t>> values) {
  for (const auto& [name, v] : values)
    if (v > INT_MAX)
      return not_supported(std::string("indexes with 32-bit int; ") + name + " = " +
                           std::to_string(v) + " exceeds 2^31 - 1");
  return Status::ok();
}

}  // namespace

Status check_32bit_extents(const GemmProblem& p) {
  return first_past_int_max(
      {{"m", p.m}, {"n", p.n}, {"k", p.k}, {"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc}});
}

Status check_32bit_indexing(const GemmProblem& p) {
  TILEKIT_RETURN_IF_ERROR(check_32bit_extents(p));
  return first_past_int_max(
      {{"A's span", p.a_span()}, {"B's span", p.b_span()}, {"C's span", p.c_span()}});
}

Status check_ladder_problem(const GemmProblem& p, int64_t tile_rows) {
  TILEKIT_RETURN_IF_ERROR(check_32bit_indexing(p));
  const int64_t rows = p.layout == Layout::kRowMajor ? p.m : p.n;  // to_row_major's m
  const int64_t blocks = (rows + tile_rows - 1) / tile_rows;
  if (blocks > 65535)
    return not_supported("needs " + std::to_string(blocks) + " row blocks of " +
                         std::to_string(tile_rows) + " in grid.y, more than 65535");
  return Status::ok();
}

RowMajorGemm to_row_major(const GemmProblem& p) {
  RowMajorGemm g;
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.k = static_cast<int>(p.k);
  g.c = p.c_f32();
  g.ldc = static_cast<int>(p.ldc);
  if (p.layout == Layout::kRowMajor) {
    g.m = static_cast<int>(p.m);
    g.n = static_cast<int>(p.n);
    g.a = p.a_f32();
    g.lda = static_cast<int>(p.lda);
    g.trans_a = p.op_a == Op::kT;
    g.b = p.b_f32();
    g.ldb = static_cast<int>(p.ldb);
    g.trans_b = p.op_b == Op::kT;
  } else {  // column-major C = op(A)·op(B)  ⇔  row-major Cᵀ = op(B)ᵀ·op(A)ᵀ
    g.m = static_cast<int>(p.n);
    g.n = static_cast<int>(p.m);
    g.a = p.b_f32();
    g.lda = static_cast<int>(p.ldb);
    g.trans_a = p.op_b == Op::kT;
    g.b = p.a_f32();
    g.ldb = static_cast<int>(p.lda);
    g.trans_b = p.op_a == Op::kT;
  }
  return g;
}

}  // namespace tilekit::cuda
