// gemm_02_smem_tiled.cu — step 2 of the GEMM ladder (the Programming Guide's Muld; TP k2).
// Adds:     square BLOCK_SIZE × BLOCK_SIZE tiles of A and B staged in shared memory: each
//           element loaded from global memory is used BLOCK_SIZE times, cutting global loads
//           from 2·m·n·k to 2·m·n·k / BLOCK_SIZE.
// Requires: float32; m, n, k multiples of BLOCK_SIZE (16 or 32); any layout and op.
// Expect:   ≈ 8 (16) and 9 (32) TFLOP/s on an H200: now bound by shared-memory loads, two per
//           FMA (Bs is read along a row, As broadcast).
#include "core/schedules/one_block_per_tile.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {
namespace {

template <int kBlock, bool kTransA, bool kTransB>
__global__ void smem_tiled_gemm_kernel(RowMajorGemm g) {
  __shared__ float s_a[kBlock][kBlock];
  __shared__ float s_b[kBlock][kBlock];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * kBlock + ty;
  const int j = blockIdx.x * kBlock + tx;
  float acc = 0.0f;
  for (int t = 0; t < g.k; t += kBlock) {
    s_a[ty][tx] = op_element<kTransA>(g.a, g.lda, i, t + tx);
    s_b[ty][tx] = op_element<kTransB>(g.b, g.ldb, t + ty, j);
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kBlock; ++p) acc += s_a[ty][p] * s_b[p][tx];
    __syncthreads();
  }
  store_c(g, i, j, acc);
}

template <int kBlock>
Status launch_smem_tiled(const GemmProblem& p, const Context& ctx, Workspace) {
  const RowMajorGemm g = to_row_major(p);
  const dim3 block(kBlock, kBlock);
  const dim3 grid(ceil_div(g.n, kBlock), ceil_div(g.m, kBlock));
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    smem_tiled_gemm_kernel<kBlock, decltype(ta)::value, decltype(tb)::value>
        <<<grid, block, 0, ctx.stream>>>(g);
    TILEKIT_CUDA_CHECK_LAUNCH("smem_tiled_gemm_kernel");
    return Status::ok();
  });
}

template <int kBlock>
GemmKernel make_entry() {
  const std::string b = std::to_string(kBlock);
  EntrySpec s = cuda_spec("ladder", "02_smem_tiled", 2);
  s.suffix = b;
  s.tiling.block_m = s.tiling.block_n = s.tiling.block_k = kBlock;
  s.tiling.schedule = schedule_tag<OneBlockPerTileSchedule>();
  s.tiling.threads = kBlock * kBlock;
  s.tile = b + "x" + b + " smem tiles, 1 element/thread";
  s.requirements = "m, n, k multiples of " + b + "; m/" + b + " <= 65535";
  s.auto_rank = 2;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [b](const GemmProblem& p, const DeviceInfo*) -> Status {
    if (p.m % kBlock || p.n % kBlock || p.k % kBlock)
      return not_supported("needs m, n, k multiples of BLOCK_SIZE " + b + " (got " +
                           std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                           std::to_string(p.k) + "); step 03 takes any size");
    return check_ladder_problem(p, kBlock);
  };
  k.launch = launch_smem_tiled<kBlock>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(
        reinterpret_cast<const void*>(&smem_tiled_gemm_kernel<kBlock, false, false>),
        kBlock * kBlock, 0, out);
  };
  return k;
}

}  // namespace

// gemm.cuda.02_smem_tiled.f32.{16,32}
void register_gemm_02_smem_tiled(Registry& r) {
  r.add(make_entry<16>());
  r.add(make_entry<32>());
}

}  // namespace tilekit::cuda
