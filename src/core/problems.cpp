// problems.cpp — argument rules and memory spans of the problem types (tilekit/problems.hpp).
#include <algorithm>
#include <limits>
#include <sstream>

#include "tilekit/problems.hpp"
#include "tilekit/sizes.hpp"

namespace tilekit {
namespace {

// The stored line length of a rows × cols matrix: a row in row-major, a column in col-major.
int64_t line_length(Layout layout, int64_t rows, int64_t cols) {
  return std::max<int64_t>(1, layout == Layout::kRowMajor ? cols : rows);
}

// *out = the elements from the first to one past the last of a rows × cols matrix stored with
// leading dimension ld; false (and nothing that overflows computed) when that does not fit int64.
bool span_fits(Layout layout, int64_t rows, int64_t cols, int64_t ld, int64_t* out) {
  if (rows <= 0 || cols <= 0) {
    *out = 0;
    return true;
  }
  const bool row_major = layout == Layout::kRowMajor;
  const int64_t lines = row_major ? rows : cols, line_length = row_major ? cols : rows;
  int64_t before_last_line = 0;
  return multiply_fits(lines - 1, ld, &before_last_line) &&
         add_fits(before_last_line, line_length, out);
}

// The span for callers that have validated the problem; an overflowing span (which validate()
// rejects) saturates instead of wrapping, so it can never pass for a small buffer.
int64_t span(Layout layout, int64_t rows, int64_t cols, int64_t ld) {
  int64_t elements = 0;
  return span_fits(layout, rows, cols, ld, &elements) ? elements
                                                      : std::numeric_limits<int64_t>::max();
}

std::string shape(int64_t r, int64_t c) { return std::to_string(r) + " x " + std::to_string(c); }

// An error naming `operand` when its span of `type` elements, in elements or in bytes, does not
// fit int64: no pointer into it could be formed, and a size computed from it would wrap.
Status check_span(const char* op, const char* operand, DType type, Layout layout, int64_t rows,
                  int64_t cols, const char* ld_name, int64_t ld) {
  int64_t elements = 0;
  size_t bytes = 0;
  if (span_fits(layout, rows, cols, ld, &elements) &&
      checked_bytes(elements, dtype_size(type), operand, &bytes).is_ok())
    return Status::ok();
  return invalid_argument(std::string(op) + ": " + operand + " (" + layout_name(layout) +
                          "-major " + shape(rows, cols) + ", " + ld_name + " = " +
                          std::to_string(ld) + ") spans more than 2^63 bytes of " +
                          dtype_name(type));
}

// The same for a vector of n float32 elements.
Status check_vector_span(const char* op, const char* operand, int64_t n) {
  size_t bytes = 0;
  if (checked_bytes(n, sizeof(float), operand, &bytes).is_ok()) return Status::ok();
  return invalid_argument(std::string(op) + ": " + operand + " (n = " + std::to_string(n) +
                          ") spans more than 2^63 bytes of f32");
}

}  // namespace

int64_t GemmProblem::min_lda() const { return line_length(layout, a_rows(), a_cols()); }
int64_t GemmProblem::min_ldb() const { return line_length(layout, b_rows(), b_cols()); }
int64_t GemmProblem::min_ldc() const { return line_length(layout, m, n); }
int64_t GemmProblem::a_span() const { return span(layout, a_rows(), a_cols(), lda); }
int64_t GemmProblem::b_span() const { return span(layout, b_rows(), b_cols(), ldb); }
int64_t GemmProblem::c_span() const { return span(layout, m, n, ldc); }

std::string GemmProblem::describe() const {
  std::ostringstream s;
  s << layout_name(layout) << "-major " << op_char(op_a) << op_char(op_b) << ' ' << m << 'x' << n
    << 'x' << k;
  if (types != GemmTypes{}) s << ' ' << types_tag(types);
  return s.str();
}

Status validate(const GemmProblem& p) {
  // Dimensions first, then leading dimensions, in the order the reference BLAS checks them.
  const std::pair<const char*, int64_t> dims[] = {{"m", p.m}, {"n", p.n}, {"k", p.k}};
  for (const auto& [name, value] : dims) {
    if (value < 0)
      return invalid_argument(std::string("gemm: ") + name + " = " + std::to_string(value) +
                              " must be >= 0");
  }
  if (Status types = validate(p.types); !types)
    return Status(types.code(), "gemm: " + types.message());
  if (p.split_k < 0)
    return invalid_argument("gemm: split_k = " + std::to_string(p.split_k) +
                            " must be >= 0 (0: the kernel chooses)");
  const char* layout = p.layout == Layout::kRowMajor ? "row-major" : "column-major";
  auto check_ld = [&](const char* name, int64_t ld, int64_t min_ld, const char* what,
                      int64_t rows, int64_t cols) -> Status {
    if (ld >= min_ld) return Status::ok();
    return invalid_argument(std::string("gemm: ") + name + " = " + std::to_string(ld) +
                            " must be >= " + std::to_string(min_ld) + " (" + layout + " " + what +
                            " is stored as " + shape(rows, cols) + ")");
  };
  TILEKIT_RETURN_IF_ERROR(check_ld("lda", p.lda, p.min_lda(), "A", p.a_rows(), p.a_cols()));
  TILEKIT_RETURN_IF_ERROR(check_ld("ldb", p.ldb, p.min_ldb(), "B", p.b_rows(), p.b_cols()));
  TILEKIT_RETURN_IF_ERROR(check_ld("ldc", p.ldc, p.min_ldc(), "C", p.m, p.n));
  // Then the memory each operand spans, so a_span() and friends never overflow past here.
  TILEKIT_RETURN_IF_ERROR(
      check_span("gemm", "A", p.types.a, p.layout, p.a_rows(), p.a_cols(), "lda", p.lda));
  TILEKIT_RETURN_IF_ERROR(
      check_span("gemm", "B", p.types.b, p.layout, p.b_rows(), p.b_cols(), "ldb", p.ldb));
  TILEKIT_RETURN_IF_ERROR(check_span("gemm", "C", p.types.c, p.layout, p.m, p.n, "ldc", p.ldc));

  // Pointers only where they will be used.
  if (is_quick_return(p)) return Status::ok();
  if (p.c == nullptr) return invalid_argument("gemm: C is null but C is " + shape(p.m, p.n));
  if (!only_scales_c(p)) {
    if (p.a == nullptr)
      return invalid_argument("gemm: A is null but op(A) is " + shape(p.m, p.k) +
                              " and alpha != 0");
    if (p.b == nullptr)
      return invalid_argument("gemm: B is null but op(B) is " + shape(p.k, p.n) +
                              " and alpha != 0");
  }
  return Status::ok();
}

std::string TransposeProblem::describe() const {
  return std::to_string(rows) + "x" + std::to_string(cols);
}
std::string DotProblem::describe() const { return "n=" + std::to_string(n); }
std::string CopyProblem::describe() const { return "n=" + std::to_string(n); }

Status validate(const TransposeProblem& p) {
  if (p.rows < 0) return invalid_argument("transpose: rows = " + std::to_string(p.rows) + " must be >= 0");
  if (p.cols < 0) return invalid_argument("transpose: cols = " + std::to_string(p.cols) + " must be >= 0");
  const int64_t min_lda = std::max<int64_t>(1, p.cols), min_ldb = std::max<int64_t>(1, p.rows);
  if (p.lda < min_lda)
    return invalid_argument("transpose: lda = " + std::to_string(p.lda) + " must be >= " +
                            std::to_string(min_lda) + " (A is " + shape(p.rows, p.cols) + ")");
  if (p.ldb < min_ldb)
    return invalid_argument("transpose: ldb = " + std::to_string(p.ldb) + " must be >= " +
                            std::to_string(min_ldb) + " (B = Aᵀ is " + shape(p.cols, p.rows) + ")");
  TILEKIT_RETURN_IF_ERROR(
      check_span("transpose", "A", DType::kF32, Layout::kRowMajor, p.rows, p.cols, "lda", p.lda));
  TILEKIT_RETURN_IF_ERROR(
      check_span("transpose", "B", DType::kF32, Layout::kRowMajor, p.cols, p.rows, "ldb", p.ldb));
  if (p.rows == 0 || p.cols == 0) return Status::ok();
  if (p.a == nullptr) return invalid_argument("transpose: A is null");
  if (p.b == nullptr) return invalid_argument("transpose: B is null");
  const float* a_end = p.a + span(Layout::kRowMajor, p.rows, p.cols, p.lda);
  const float* b_end = p.b + span(Layout::kRowMajor, p.cols, p.rows, p.ldb);
  if (p.a < b_end && p.b < a_end)
    return invalid_argument("transpose: A and B overlap (the transpose is out of place)");
  return Status::ok();
}

Status validate(const DotProblem& p) {
  if (p.n < 0) return invalid_argument("dot: n = " + std::to_string(p.n) + " must be >= 0");
  TILEKIT_RETURN_IF_ERROR(check_vector_span("dot", "x and y", p.n));
  if (p.result == nullptr) return invalid_argument("dot: result is null");
  if (p.n > 0 && p.x == nullptr) return invalid_argument("dot: x is null");
  if (p.n > 0 && p.y == nullptr) return invalid_argument("dot: y is null");
  return Status::ok();
}

Status validate(const CopyProblem& p) {
  if (p.n < 0) return invalid_argument("copy: n = " + std::to_string(p.n) + " must be >= 0");
  TILEKIT_RETURN_IF_ERROR(check_vector_span("copy", "x and y", p.n));
  if (p.n > 0 && (p.x == nullptr || p.y == nullptr)) return invalid_argument("copy: null pointer");
  return Status::ok();
}

bool is_quick_return(const GemmProblem& p) {
  return p.m == 0 || p.n == 0 || ((p.alpha == 0.0f || p.k == 0) && p.beta == 1.0f);
}

}  // namespace tilekit
