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

// A CPU entry for a memory-bound op: `name` and `dtype` make the id ("reference", "f64acc").
template <typename P>
Kernel<P> cpu_kernel(const std::string& name, const std::string& dtype, int step, KernelRole role,
                     int rank) {
  EntrySpec s;
  s.family = role == KernelRole::kOwn ? "cpu" : role == KernelRole::kVendor ? "vendor" : "reference";
  s.name = name;
  s.dtype = dtype;
  s.step = step;
  s.tile = "-";
  s.requirements = "any size";
  s.role = role;
  s.auto_rank = rank;
  return make_entry<P>(s);
}

constexpr int64_t kTransposeBlock = 32;

}  // namespace

namespace {

TransposeKernel transpose_reference_kernel() {
  auto k = cpu_kernel<TransposeProblem>("reference", "f32", 0, KernelRole::kReference, 0);
  k.launch = [](const TransposeProblem& p, const Context&, Workspace) {
        for (int64_t r = 0; r < p.rows; ++r)
          for (int64_t c = 0; c < p.cols; ++c) p.b[c * p.ldb + r] = p.a[r * p.lda + c];
        return Status::ok();
      };
  return k;
}

TransposeKernel transpose_blocked_kernel() {
  auto k = cpu_kernel<TransposeProblem>("blocked", "f32", 1, KernelRole::kOwn, 10);
  k.info.id += "." + std::to_string(kTransposeBlock);
  k.info.tile = "32x32 blocks";
  k.launch = [](const TransposeProblem& p, const Context& ctx, Workspace) {
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
      };
  return k;
}

DotKernel dot_reference_kernel() {
  auto k = cpu_kernel<DotProblem>("reference", "f64acc", 0, KernelRole::kReference, 0);
  k.launch = [](const DotProblem& p, const Context&, Workspace) {
                                    double sum = 0.0;
                                    for (int64_t i = 0; i < p.n; ++i)
                                      sum += static_cast<double>(p.x[i]) * p.y[i];
                                    *p.result = static_cast<float>(sum);
                                    return Status::ok();
  };
  return k;
}

DotKernel dot_openmp_kernel() {
  auto k = cpu_kernel<DotProblem>("openmp", "f64acc", 1, KernelRole::kOwn, 10);
  k.launch = [](const DotProblem& p, const Context& ctx, Workspace) {
                                  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(thread_count(ctx))
                                  for (int64_t i = 0; i < p.n; ++i)
                                    sum += static_cast<double>(p.x[i]) * p.y[i];
                                  *p.result = static_cast<float>(sum);
                                  return Status::ok();
  };
  return k;
}

CopyKernel copy_memcpy_kernel() {
  auto k = cpu_kernel<CopyProblem>("memcpy", "f32", 0, KernelRole::kVendor, 10);
  k.launch = [](const CopyProblem& p, const Context&, Workspace) {
    std::memcpy(p.y, p.x, static_cast<size_t>(p.n) * sizeof(float));
    return Status::ok();
  };
  return k;
}

}  // namespace

void register_memory_cpu(Registry& r) {
  r.add(transpose_reference_kernel());  // the oracle
  r.add(transpose_blocked_kernel());
  r.add(dot_reference_kernel());        // the oracle
  r.add(dot_openmp_kernel());
  r.add(copy_memcpy_kernel());          // the CPU copy ceiling
}

}  // namespace tilekit::cpu
