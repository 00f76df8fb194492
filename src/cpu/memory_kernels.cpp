// memory_kernels.cpp — the CPU backend's transpose, dot and copy kernels.
//   transpose.cpu.reference.f32   two loops: the oracle (transposes are exact)
//   transpose.cpu.blocked.f32.32  32×32 blocks (both A's rows and B's rows stay in cache), OpenMP
//   dot.cpu.reference.f64acc      one double accumulator, in order: the oracle
//   dot.cpu.openmp.f64acc         double partial sums per thread (static schedule), OpenMP
//   copy.cpu.memcpy.f32           std::memcpy, the CPU copy ceiling
#include <cstring>

#include <omp.h>

#include "core/kernel_entry.hpp"
#include "cpu/cpu_kernels.hpp"

namespace tilekit::cpu {
namespace {

template <typename P>
Kernel<P> cpu_kernel(const std::string& id, int step, const std::string& tile, const char* op,
                     int rank, std::function<Status(const P&, const Context&)> launch) {
  Kernel<P> k = make_entry<P>(id, op, Backend::kCpu, step, tile, "any size", rank);
  k.launch = std::move(launch);
  return k;
}

constexpr int64_t kTransposeBlock = 32;

}  // namespace

TransposeKernel transpose_reference_kernel() {
  auto k = cpu_kernel<TransposeProblem>(
      "transpose.cpu.reference.f32", 0, "", "transpose", 0,
      [](const TransposeProblem& p, const Context&) {
        for (int64_t r = 0; r < p.rows; ++r)
          for (int64_t c = 0; c < p.cols; ++c) p.b[c * p.ldb + r] = p.a[r * p.lda + c];
        return Status::ok();
      });
  k.info.is_reference = true;
  return k;
}

TransposeKernel transpose_blocked_kernel() {
  return cpu_kernel<TransposeProblem>(
      "transpose.cpu.blocked.f32.32", 1, "32x32 blocks", "transpose", 10,
      [](const TransposeProblem& p, const Context& ctx) {
        const int64_t row_blocks = (p.rows + kTransposeBlock - 1) / kTransposeBlock;
        const int64_t col_blocks = (p.cols + kTransposeBlock - 1) / kTransposeBlock;
#pragma omp parallel for collapse(2) schedule(static) num_threads(thread_count(ctx))
        for (int64_t rb = 0; rb < row_blocks; ++rb)
          for (int64_t cb = 0; cb < col_blocks; ++cb) {
            // Through a local tile: A's block is read row by row and B's written row by row.
            // Going straight from A to B would touch 32 lines a power-of-two stride apart,
            // which share cache sets and evict each other (2048² ran at 3 GB/s that way).
            const int64_t r0 = rb * kTransposeBlock, c0 = cb * kTransposeBlock;
            const int64_t nr = std::min(p.rows - r0, kTransposeBlock);
            const int64_t nc = std::min(p.cols - c0, kTransposeBlock);
            float tile[kTransposeBlock][kTransposeBlock];
            for (int64_t r = 0; r < nr; ++r)
              for (int64_t c = 0; c < nc; ++c) tile[c][r] = p.a[(r0 + r) * p.lda + c0 + c];
            for (int64_t c = 0; c < nc; ++c)
              for (int64_t r = 0; r < nr; ++r) p.b[(c0 + c) * p.ldb + r0 + r] = tile[c][r];
          }
        return Status::ok();
      });
}

DotKernel dot_reference_kernel() {
  auto k = cpu_kernel<DotProblem>("dot.cpu.reference.f64acc", 0, "", "dot", 0,
                                  [](const DotProblem& p, const Context&) {
                                    double sum = 0.0;
                                    for (int64_t i = 0; i < p.n; ++i)
                                      sum += static_cast<double>(p.x[i]) * p.y[i];
                                    *p.result = static_cast<float>(sum);
                                    return Status::ok();
                                  });
  k.info.is_reference = true;
  return k;
}

DotKernel dot_openmp_kernel() {
  return cpu_kernel<DotProblem>("dot.cpu.openmp.f64acc", 1, "", "dot", 10,
                                [](const DotProblem& p, const Context& ctx) {
                                  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(thread_count(ctx))
                                  for (int64_t i = 0; i < p.n; ++i)
                                    sum += static_cast<double>(p.x[i]) * p.y[i];
                                  *p.result = static_cast<float>(sum);
                                  return Status::ok();
                                });
}

CopyKernel copy_memcpy_kernel() {
  auto k = cpu_kernel<CopyProblem>("copy.cpu.memcpy.f32", 0, "", "copy", 10,
                                   [](const CopyProblem& p, const Context&) {
                                     std::memcpy(p.y, p.x, static_cast<size_t>(p.n) * sizeof(float));
                                     return Status::ok();
                                   });
  k.info.is_baseline = true;
  return k;
}

}  // namespace tilekit::cpu
