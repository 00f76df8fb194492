// gemm_03_smem_tiled_any.cu — step 3 of the GEMM ladder (TP k3).
// Adds:     any m, n, k. Blocks whose tile of C lies wholly inside C (interior blocks) run the
//           step-2 loop unchanged over every full k-tile; only edge blocks check rows and
//           columns, and only the last, partial k-tile checks k. Out-of-range elements are
//           loaded as zeros so the inner product needs no branch.
// Requires: float32; any m, n, k >= 0; any layout and op.
// Expect:   within a few % of step 2 where both run (the branch is uniform per block); at
//           n = 4097 about the 4096 rate, plus the cost of one extra row and column of tiles.
#include "core/schedules/one_block_per_tile.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {
namespace {

// One k-tile: stage op(A)[i, t..t+B) and op(B)[t..t+B), j] in shared memory and accumulate.
// kCheckMN: this block overhangs C (edge block); kCheckK: this is the last, partial k-tile.
template <int kBlock, bool kTransA, bool kTransB, bool kCheckMN, bool kCheckK>
__device__ __forceinline__ void tile_step(const RowMajorGemm& g, float (*s_a)[kBlock],
                                          float (*s_b)[kBlock], int i, int j, int t, float& acc) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool a_ok = (!kCheckMN || i < g.m) && (!kCheckK || t + tx < g.k);
  const bool b_ok = (!kCheckMN || j < g.n) && (!kCheckK || t + ty < g.k);
  s_a[ty][tx] = a_ok ? op_element<kTransA>(g.a, g.lda, i, t + tx) : 0.0f;
  s_b[ty][tx] = b_ok ? op_element<kTransB>(g.b, g.ldb, t + ty, j) : 0.0f;
  __syncthreads();
#pragma unroll
  for (int p = 0; p < kBlock; ++p) acc += s_a[ty][p] * s_b[p][tx];
  __syncthreads();
}

template <int kBlock, bool kTransA, bool kTransB, bool kCheckMN>
__device__ __forceinline__ void block_gemm(const RowMajorGemm& g, float (*s_a)[kBlock],
                                           float (*s_b)[kBlock]) {
  const int i = blockIdx.y * kBlock + threadIdx.y;
  const int j = blockIdx.x * kBlock + threadIdx.x;
  const int k_full = g.k / kBlock * kBlock;
  float acc = 0.0f;
  for (int t = 0; t < k_full; t += kBlock)
    tile_step<kBlock, kTransA, kTransB, kCheckMN, false>(g, s_a, s_b, i, j, t, acc);
  if (k_full < g.k)
    tile_step<kBlock, kTransA, kTransB, kCheckMN, true>(g, s_a, s_b, i, j, k_full, acc);
  if (!kCheckMN || (i < g.m && j < g.n)) store_c(g, i, j, acc);
}

template <int kBlock, bool kTransA, bool kTransB>
__global__ void smem_tiled_any_gemm_kernel(RowMajorGemm g) {
  __shared__ float s_a[kBlock][kBlock];
  __shared__ float s_b[kBlock][kBlock];
  // Uniform per block: interior blocks never test rows or columns.
  const bool interior = (blockIdx.y + 1) * kBlock <= g.m && (blockIdx.x + 1) * kBlock <= g.n;
  if (interior)
    block_gemm<kBlock, kTransA, kTransB, false>(g, s_a, s_b);
  else
    block_gemm<kBlock, kTransA, kTransB, true>(g, s_a, s_b);
}

template <int kBlock>
Status launch_smem_tiled_any(const GemmProblem& p, const Context& ctx, Workspace) {
  const RowMajorGemm g = to_row_major(p);
  const dim3 block(kBlock, kBlock);
  const dim3 grid(ceil_div(g.n, kBlock), ceil_div(g.m, kBlock));
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    smem_tiled_any_gemm_kernel<kBlock, decltype(ta)::value, decltype(tb)::value>
        <<<grid, block, 0, ctx.stream>>>(g);
    TILEKIT_CUDA_CHECK_LAUNCH("smem_tiled_any_gemm_kernel");
    return Status::ok();
  });
}

template <int kBlock>
GemmKernel make_entry() {
  const std::string b = std::to_string(kBlock);
  EntrySpec s = cuda_spec("ladder", "03_smem_tiled_any", 3);
  s.suffix = b;
  s.tiling.block_m = s.tiling.block_n = s.tiling.block_k = kBlock;
  s.tiling.schedule = schedule_tag<OneBlockPerTileSchedule>();
  s.tiling.threads = kBlock * kBlock;
  s.tile = b + "x" + b + " smem tiles, 1 element/thread";
  s.requirements = "any shape, layout and op; m < 65536·" + b;
  s.auto_rank = 3;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_ladder_problem(p, kBlock);
  };
  k.launch = launch_smem_tiled_any<kBlock>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(
        reinterpret_cast<const void*>(&smem_tiled_any_gemm_kernel<kBlock, false, false>),
        kBlock * kBlock, 0, out);
  };
  return k;
}

}  // namespace

// gemm.cuda.03_smem_tiled_any.f32.{16,32}
void register_gemm_03_smem_tiled_any(Registry& r) {
  r.add(make_entry<16>());
  r.add(make_entry<32>());
}

}  // namespace tilekit::cuda
