// test_blas_api.cpp — libtilekit_blas's two entry points, linked directly (no preload), against a
// double-precision reference: every op in both CBLAS layouts with padded leading dimensions
// (padding must survive), the reference's special cases, and every argument error with the
// position the reference BLAS reports and C left untouched.
//
// This program defines xerbla_, cblas_xerbla and RowMajorStrg itself, as the netlib testers
// do (ENABLE_EXPORTS makes them visible to the library's dlsym): they record what the library
// reported instead of stopping the program.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

extern "C" {
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t transa_len, size_t transb_len);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);

// What the library reported last; reset by each test.
struct Report {
  int calls = 0;
  int info = 0;
  std::string routine;
  int row_major_flag = 0;  // RowMajorStrg when cblas_xerbla was called
};
Report g_report;
int RowMajorStrg = 0;  // NOLINT: the reference CBLAS's global, by its name

void xerbla_(const char* name, const int* info, size_t len) {
  ++g_report.calls;
  g_report.info = *info;
  g_report.routine.assign(name, len);
}
void cblas_xerbla(int info, const char* routine, const char*, ...) {
  ++g_report.calls;
  g_report.info = info;
  g_report.routine = routine;
  g_report.row_major_flag = RowMajorStrg;
}
}

namespace {

enum { kRow = 101, kCol = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113 };
constexpr float kSentinel = -12345.0f;

// Column-major view of an element of op(X) with X stored column-major (ld).
float at(const std::vector<float>& x, int ld, bool trans, int i, int j) {
  return trans ? x[static_cast<size_t>(i) * ld + j] : x[static_cast<size_t>(j) * ld + i];
}

struct Case {
  int m, n, k;
  bool ta, tb;
  float alpha, beta;
};

std::vector<float> random_matrix(size_t count, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& f : v) f = dist(*rng);
  return v;
}

// Runs one column-major case through sgemm_ (fortran) or cblas_sgemm (col or row layout, the
// row-major call given the transposed problem so one reference serves all three).
void check_case(const Case& t, int entry) {
  std::mt19937 rng(static_cast<unsigned>(t.m * 131 + t.n * 17 + t.k + entry));
  const int rows_a = t.ta ? t.k : t.m, cols_a = t.ta ? t.m : t.k;
  const int rows_b = t.tb ? t.n : t.k, cols_b = t.tb ? t.k : t.n;
  const int lda = rows_a + 3, ldb = rows_b + 2, ldc = t.m + 5;
  auto a = random_matrix(static_cast<size_t>(lda) * cols_a, &rng);
  auto b = random_matrix(static_cast<size_t>(ldb) * cols_b, &rng);
  auto c = random_matrix(static_cast<size_t>(ldc) * t.n, &rng);
  for (int j = 0; j < t.n; ++j)
    for (int i = t.m; i < ldc; ++i) c[static_cast<size_t>(j) * ldc + i] = kSentinel;
  const auto c0 = c;
  if (entry == 0) {
    const char ta = t.ta ? 't' : 'n', tb = t.tb ? 'T' : 'N';  // lower case is valid too
    sgemm_(&ta, &tb, &t.m, &t.n, &t.k, &t.alpha, a.data(), &lda, b.data(), &ldb, &t.beta,
           c.data(), &ldc, 1, 1);
  } else if (entry == 1) {
    cblas_sgemm(kCol, t.ta ? kConjTrans : kNoTrans, t.tb ? kTrans : kNoTrans, t.m, t.n, t.k,
                t.alpha, a.data(), lda, b.data(), ldb, t.beta, c.data(), ldc);
  } else {  // row-major: Cᵀ = op(B)ᵀ op(A)ᵀ with the same memory
    cblas_sgemm(kRow, t.tb ? kTrans : kNoTrans, t.ta ? kTrans : kNoTrans, t.n, t.m, t.k,
                t.alpha, b.data(), ldb, a.data(), lda, t.beta, c.data(), ldc);
  }
  for (int j = 0; j < t.n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      const size_t ci = static_cast<size_t>(j) * ldc + i;
      if (i >= t.m) {
        ASSERT_EQ(c[ci], kSentinel) << "padding of C written at " << i << "," << j;
        continue;
      }
      double dot = 0, mag = 0;
      for (int l = 0; l < t.k; ++l) {
        const double p = static_cast<double>(at(a, lda, t.ta, i, l)) * at(b, ldb, t.tb, l, j);
        dot += p;
        mag += std::fabs(p);
      }
      const double ref = (t.alpha == 0.0f ? 0.0 : t.alpha * dot) +
                         (t.beta == 0.0f ? 0.0 : t.beta * static_cast<double>(c0[ci]));
      const double bound = 2.0 * (t.k + 2) * std::ldexp(1.0, -24) *
                           (std::fabs(t.alpha) * mag + std::fabs(t.beta * c0[ci]));
      ASSERT_LE(std::fabs(c[ci] - ref), bound)
          << "entry " << entry << " m=" << t.m << " n=" << t.n << " k=" << t.k << " at " << i
          << "," << j;
    }
  }
}

TEST(BlasApi, AllOpsAndLayoutsMatchTheReference) {
  const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {130, 70, 90}, {64, 129, 1}};
  for (const auto& s : shapes)
    for (int ops = 0; ops < 4; ++ops)
      for (int entry = 0; entry < 3; ++entry)
        check_case(Case{s[0], s[1], s[2], (ops & 1) != 0, (ops & 2) != 0, 0.7f, 1.3f}, entry);
}

TEST(BlasApi, BetaZeroNeverReadsC) {
  const int m = 9, n = 8, k = 7;
  std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f), c(m * n, NAN);
  const float alpha = 1.0f, beta = 0.0f;
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m, 1, 1);
  for (float v : c) ASSERT_EQ(v, 14.0f);
}

TEST(BlasApi, AlphaZeroScalesCWithoutReadingAOrB) {
  const int m = 4, n = 3, k = 5;
  std::vector<float> a(m * k, NAN), b(k * n, NAN), c(m * n, 3.0f);
  const float alpha = 0.0f, beta = 2.0f;
  sgemm_("T", "T", &m, &n, &k, &alpha, a.data(), &k, b.data(), &n, &beta, c.data(), &m, 1, 1);
  for (float v : c) ASSERT_EQ(v, 6.0f);
  const float beta0 = 0.0f;
  std::vector<float> d(m * n, NAN);
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta0, d.data(), &m, 1, 1);
  for (float v : d) ASSERT_EQ(v, 0.0f);
}

TEST(BlasApi, QuickReturnsLeaveCAlone) {
  const int m = 3, n = 3, zero = 0;
  std::vector<float> a(9, 1.0f), b(9, 1.0f), c(9, NAN);
  const float one = 1.0f;
  sgemm_("N", "N", &m, &n, &zero, &one, a.data(), &m, b.data(), &m, &one, c.data(), &m, 1, 1);
  for (float v : c) ASSERT_TRUE(std::isnan(v));  // k = 0, beta = 1: C unchanged
}

// Fortran: each bad argument, the reference position, "SGEMM ", and C untouched.
TEST(BlasApi, FortranErrorsReportTheReferencePositions) {
  struct Bad {
    const char *ta, *tb;
    int m, n, k, lda, ldb, ldc, info;
  };
  const Bad cases[] = {{"X", "N", 2, 2, 2, 2, 2, 2, 1},  {"N", "/", 2, 2, 2, 2, 2, 2, 2},
                       {"N", "N", -1, 2, 2, 2, 2, 2, 3}, {"N", "N", 2, -1, 2, 2, 2, 2, 4},
                       {"N", "N", 2, 2, -1, 2, 2, 2, 5}, {"N", "N", 2, 2, 2, 1, 2, 2, 8},
                       {"T", "N", 3, 2, 2, 1, 2, 3, 8},  {"N", "N", 2, 2, 3, 2, 2, 2, 10},
                       {"N", "T", 2, 3, 2, 2, 2, 2, 10}, {"N", "N", 2, 2, 2, 2, 2, 1, 13}};
  for (const Bad& t : cases) {
    g_report = Report{};
    std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 7.0f);
    const float alpha = 1.0f, beta = 0.0f;
    sgemm_(t.ta, t.tb, &t.m, &t.n, &t.k, &alpha, a.data(), &t.lda, b.data(), &t.ldb, &beta,
           c.data(), &t.ldc, 1, 1);
    EXPECT_EQ(g_report.calls, 1) << "expected info " << t.info;
    EXPECT_EQ(g_report.info, t.info);
    EXPECT_EQ(g_report.routine, "SGEMM ");
    for (float v : c) ASSERT_EQ(v, 7.0f) << "C written on an argument error";
  }
}

// CBLAS: the position the caller sees, after the handler's row-major swap (as netlib's tester
// undoes it: 4↔5 and 9↔11 when RowMajorStrg is set).
int callers_position(const Report& r) {
  if (!r.row_major_flag) return r.info;
  switch (r.info) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return r.info;
  }
}

TEST(BlasApi, CblasErrorsReportTheReferencePositions) {
  struct Bad {
    int layout, ta, tb, m, n, k, lda, ldb, ldc, position;
  };
  const Bad cases[] = {
      {7, kNoTrans, kNoTrans, 2, 2, 2, 2, 2, 2, 1},
      {kCol, 0, kNoTrans, 2, 2, 2, 2, 2, 2, 2},       {kRow, 0, kNoTrans, 2, 2, 2, 2, 2, 2, 2},
      {kCol, kNoTrans, 5, 2, 2, 2, 2, 2, 2, 3},       {kRow, kNoTrans, 5, 2, 2, 2, 2, 2, 2, 3},
      {kCol, kNoTrans, kNoTrans, -1, 2, 2, 2, 2, 2, 4}, {kRow, kNoTrans, kNoTrans, -1, 2, 2, 2, 2, 2, 4},
      {kCol, kNoTrans, kNoTrans, 2, -1, 2, 2, 2, 2, 5}, {kRow, kNoTrans, kNoTrans, 2, -1, 2, 2, 2, 2, 5},
      {kCol, kNoTrans, kNoTrans, 2, 2, -1, 2, 2, 2, 6}, {kRow, kNoTrans, kNoTrans, 2, 2, -1, 2, 2, 2, 6},
      // row-major A is m × k: lda >= k; column-major: lda >= m
      {kCol, kNoTrans, kNoTrans, 3, 2, 2, 2, 3, 3, 9}, {kRow, kNoTrans, kNoTrans, 2, 2, 3, 2, 3, 3, 9},
      {kCol, kNoTrans, kNoTrans, 2, 2, 3, 2, 2, 2, 11}, {kRow, kNoTrans, kNoTrans, 2, 3, 2, 2, 2, 3, 11},
      {kCol, kNoTrans, kNoTrans, 3, 2, 2, 3, 2, 2, 14}, {kRow, kNoTrans, kNoTrans, 2, 3, 2, 2, 3, 2, 14},
  };
  for (const Bad& t : cases) {
    g_report = Report{};
    std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 7.0f);
    cblas_sgemm(t.layout, t.ta, t.tb, t.m, t.n, t.k, 1.0f, a.data(), t.lda, b.data(), t.ldb,
                0.0f, c.data(), t.ldc);
    EXPECT_EQ(g_report.calls, 1) << "layout " << t.layout << " position " << t.position;
    EXPECT_EQ(callers_position(g_report), t.position) << "layout " << t.layout;
    EXPECT_EQ(g_report.routine, "cblas_sgemm");
    EXPECT_EQ(RowMajorStrg, 0) << "RowMajorStrg left set";
    for (float v : c) ASSERT_EQ(v, 7.0f) << "C written on an argument error";
  }
}

}  // namespace
