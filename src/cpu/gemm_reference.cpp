// gemm_reference.cpp — the CPU reference GEMM (the oracle every other kernel is checked against).
// Adds:     nothing clever: one dot product per element of C, accumulated in double, with the
//           inputs decoded from their storage type and rounded as the compute mode says (TF32,
//           BF16), so every mode has an exact oracle: products of the rounded inputs are exact
//           in double and the sum is far more accurate than any FP32 accumulation.
// Requires: any supported storage types and compute mode; any layout, ops, sizes and leading
//           dimensions.
// Expect:   slow (about a GFLOP/s per core); its value is being obviously right.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernel_entry.hpp"
#include "core/strides.hpp"
#include "cpu/cpu_kernels.hpp"

namespace tilekit::cpu {
namespace {

float decode(float x) { return x; }
float decode(bf16_t x) { return bf16_to_float(x); }
float decode(f16_t x) { return f16_to_float(x); }

// Σ_l op(A)[i][l] · op(B)[l][j] and Σ |·| in double, over inputs as the mode multiplies them.
template <typename T>
void dot_row(const GemmProblem& p, int64_t i, double* value, double* magnitude) {
  const Strides sa = op_strides(p.layout, p.op_a, p.lda);
  const Strides sb = op_strides(p.layout, p.op_b, p.ldb);
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  const DType stored = p.types.a;
  const Compute compute = p.types.compute;
  for (int64_t j = 0; j < p.n; ++j) {
    double sum = 0.0, abs_sum = 0.0;
    for (int64_t l = 0; l < p.k; ++l) {
      const double prod =
          static_cast<double>(round_for_compute(decode(a[i * sa.row + l * sa.col]), stored, compute)) *
          static_cast<double>(round_for_compute(decode(b[l * sb.row + j * sb.col]), stored, compute));
      sum += prod;
      abs_sum += std::fabs(prod);
    }
    value[j] = sum;
    if (magnitude) magnitude[j] = abs_sum;
  }
}

void dot_row_any(const GemmProblem& p, int64_t i, double* value, double* magnitude) {
  switch (p.types.a) {
    case DType::kF32: return dot_row<float>(p, i, value, magnitude);
    case DType::kBF16: return dot_row<bf16_t>(p, i, value, magnitude);
    case DType::kF16: return dot_row<f16_t>(p, i, value, magnitude);
  }
}

double load_c(const GemmProblem& p, int64_t offset) {
  return p.types.c == DType::kBF16 ? bf16_to_float(static_cast<const bf16_t*>(p.c)[offset])
                                   : static_cast<const float*>(p.c)[offset];
}

void store_c(const GemmProblem& p, int64_t offset, double v) {
  if (p.types.c == DType::kBF16)
    static_cast<bf16_t*>(p.c)[offset] = float_to_bf16(static_cast<float>(v));
  else
    static_cast<float*>(p.c)[offset] = static_cast<float>(v);
}

}  // namespace

void reference_gemm_f64(const GemmProblem& p, double* value, double* magnitude) {
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
  const double alpha = p.alpha, beta = p.beta;
  const bool use_product = p.alpha != 0.0f && p.k > 0;
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t i = 0; i < p.m; ++i) {
    double* v = value + i * p.n;
    double* mag = magnitude ? magnitude + i * p.n : nullptr;
    if (use_product) {
      dot_row_any(p, i, v, mag);
    } else {
      std::fill(v, v + p.n, 0.0);
      if (mag) std::fill(mag, mag + p.n, 0.0);
    }
    for (int64_t j = 0; j < p.n; ++j) {
      v[j] *= alpha;
      if (mag) mag[j] *= std::fabs(alpha);
      if (beta != 0.0) {  // beta = 0 never reads C: NaN there must not leak
        const double c0 = load_c(p, i * sc.row + j * sc.col);
        v[j] += beta * c0;
        if (mag) mag[j] += std::fabs(beta * c0);
      }
    }
  }
}

namespace {

Status reference_launch(const GemmProblem& p, const Context& ctx, Workspace) {
  const Strides sc = op_strides(p.layout, Op::kN, p.ldc);
#pragma omp parallel num_threads(thread_count(ctx))
  {
    std::vector<double> row(static_cast<size_t>(p.n));
#pragma omp for schedule(dynamic, 4)
    for (int64_t i = 0; i < p.m; ++i) {
      dot_row_any(p, i, row.data(), nullptr);
      for (int64_t j = 0; j < p.n; ++j) {
        const int64_t offset = i * sc.row + j * sc.col;
        double v = static_cast<double>(p.alpha) * row[static_cast<size_t>(j)];
        if (p.beta != 0.0f) v += static_cast<double>(p.beta) * load_c(p, offset);
        store_c(p, offset, v);
      }
    }
  }
  return Status::ok();
}

GemmKernel reference_entry(GemmTypes types) {
  EntrySpec s;
  s.family = "reference";
  s.name = "reference";
  s.types = types;
  s.tiling.block_m = s.tiling.block_n = 1;  // a dot product per element, like the naive GPU step
  s.tile = "-";
  s.requirements = "any layout, op, size and leading dimension";
  s.role = KernelRole::kReference;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.launch = reference_launch;
  return k;
}

}  // namespace

// gemm.cpu.reference.<types>: one entry per type combination tilekit defines, so that every
// compute mode has an oracle (and a CPU kernel) under its own id.
void register_gemm_cpu_reference(Registry& r) {
  const Compute kModes[] = {Compute::kF32, Compute::kTF32, Compute::kF32x3TF32, Compute::kBF16};
  for (Compute mode : kModes) r.add(reference_entry({DType::kF32, DType::kF32, DType::kF32, mode}));
  for (DType in : {DType::kBF16, DType::kF16})
    for (DType out : {DType::kF32, DType::kBF16})
      r.add(reference_entry({in, in, out, Compute::kBF16}));
}

}  // namespace tilekit::cpu
