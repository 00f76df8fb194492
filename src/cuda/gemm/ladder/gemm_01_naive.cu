// gemm_01_naive.cu — step 1 of the GEMM ladder (TP k1; Sheffield's starting code; Wisconsin).
// Adds:     one thread per element of C, a dot product straight from global memory.
// Requires: float32; any m, n, k; any layout and op (32-bit offsets).
// Expect:   ≈ 5 TFLOP/s on an H200 at any size: every thread re-reads a row of A and a column
//           of B (2·m·n·k loads); the caches absorb much of it, but the loads bound it.
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kBlockX = 16, kBlockY = 16;

// threadIdx.x walks along a row of C: neighbouring threads read neighbouring elements of B and
// write neighbouring elements of C (coalesced), and share the same element of A (broadcast).
template <bool kTransA, bool kTransB>
__global__ void naive_gemm_kernel(RowMajorGemm g) {
  const int j = blockIdx.x * kBlockX + threadIdx.x;
  const int i = blockIdx.y * kBlockY + threadIdx.y;
  if (i >= g.m || j >= g.n) return;
  float acc = 0.0f;
  for (int p = 0; p < g.k; ++p)
    acc += op_element<kTransA>(g.a, g.lda, i, p) * op_element<kTransB>(g.b, g.ldb, p, j);
  store_c(g, i, j, acc);
}

Status launch_naive(const GemmProblem& p, const Context& ctx, Workspace) {
  const RowMajorGemm g = to_row_major(p);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceil_div(g.n, kBlockX), ceil_div(g.m, kBlockY));
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    naive_gemm_kernel<decltype(ta)::value, decltype(tb)::value><<<grid, block, 0, ctx.stream>>>(g);
    TILEKIT_CUDA_CHECK_LAUNCH("naive_gemm_kernel");
    return Status::ok();
  });
}

}  // namespace

// gemm.cuda.01_naive.f32.16x16
void register_gemm_01_naive(Registry& r) {
  EntrySpec s = cuda_spec("ladder", "01_naive", 1);
  s.suffix = std::to_string(kBlockX) + "x" + std::to_string(kBlockY);
  s.tiling.block_m = s.tiling.block_n = 1;  // every thread reads its own row of A, column of B
  s.tiling.threads = kBlockX * kBlockY;
  s.tile = "1 element/thread, block " + s.suffix;
  s.requirements = "any shape, layout and op; m < 2^20";
  s.auto_rank = 1;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_ladder_problem(p, kBlockY);
  };
  k.launch = launch_naive;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&naive_gemm_kernel<false, false>),
                            kBlockX * kBlockY, 0, out);
  };
  r.add(std::move(k));
}

}  // namespace tilekit::cuda
