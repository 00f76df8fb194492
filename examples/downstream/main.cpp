// A downstream program: one GEMM on the CPU backend through the installed tilekit, checked by
// hand, and the kernel "auto" chose. Exits 0 when the product is right.
#include <tilekit/tilekit.hpp>

#include <cstdio>
#include <vector>

int main() {
  const int64_t m = 3, n = 2, k = 4;
  std::vector<float> a(m * k), b(k * n), c(m * n, -1.0f);
  for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>(i % 5) - 2.0f;
  for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<float>(i % 3) - 1.0f;

  const tilekit::Context ctx = tilekit::Context::cpu();
  const tilekit::Status s =
      tilekit::gemm(ctx, tilekit::Layout::kRowMajor, tilekit::Op::kN, tilekit::Op::kN, m, n, k,
                    1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
  if (!s) {
    std::fprintf(stderr, "tilekit_example: %s\n", s.to_string().c_str());
    return 1;
  }
  int wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int64_t l = 0; l < k; ++l) want += a[i * k + l] * b[l * n + j];
      if (c[i * n + j] != want) ++wrong;
    }
  tilekit::GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.lda = k, p.ldb = n, p.ldc = n;
  p.a = a.data(), p.b = b.data(), p.c = c.data();
  tilekit::Selection<tilekit::GemmProblem> chosen;
  if (!tilekit::select_gemm_kernel(p, ctx, false, &chosen)) return 1;
  std::printf("tilekit_example: %s, %d wrong elements (auto chose %s: %s)\n",
              wrong ? "FAIL" : "ok", wrong, chosen.kernel->info.id.c_str(), chosen.reason.c_str());
  return wrong ? 1 : 0;
}
