// gemm_07_warp_tiled.cu — step 7 of the GEMM ladder.
// Adds:     warp tiling. The block tile is split among warps (2×4 warps of 64×32 for 128×128),
//           and a warp's tile among its lanes as 8×4 lanes × 8×8 per thread — but a thread's
//           8×8 is four 4×4 sub-tiles 32 rows / 16 columns apart, not one contiguous block.
//           At one k, the 8 (or 4) distinct fragments a warp reads are then adjacent 16-byte
//           words of one shared row: each LDS.128 is one conflict-free wavefront (step 6's
//           contiguous 8-wide fragments were 32 bytes apart: 2-way conflicts), and C is
//           written as float4 rows (WarpTilePolicy, multiply_k_tile, store_c_tile in
//           simt_tiles.cuh). Loads as step 6, one buffer, two barriers per k-tile.
// Requires: float32; any m, n, k >= 0; any layout, op and ld (32-bit offsets).
// Expect:   step 6's 128×128 tile without its bank conflicts; still no overlap of global loads
//           with math (step 08's pipeline). Measured (H200, 4096): 128×128 38.9 TFLOP/s (step 6:
//           35.2); 64×64 40.5.
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/simt_tiles.cuh"

namespace tilekit::cuda {
namespace {

template <typename P, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(P::kThreads)
    warp_tiled_gemm_kernel(RowMajorGemm g, OperandFlags flags) {
  using TileA = OperandTile<P::kBm, P::kBk, P::kThreads, kTransA>;
  using TileB = OperandTile<P::kBn, P::kBk, P::kThreads, !kTransB>;
  __shared__ __align__(16) float s_a[P::kBk * PaddedLayout::stride<P::kBm>()];
  __shared__ __align__(16) float s_b[P::kBk * PaddedLayout::stride<P::kBn>()];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * P::kBm, col0 = blockIdx.x * P::kBn;
  const ThreadOrigin t = thread_origin<P>();
  float acc[P::kTm][P::kTn] = {};
  float4 r_a[TileA::kChunksPerThread], r_b[TileB::kChunksPerThread];
  for (int k0 = 0; k0 < g.k; k0 += P::kBk) {
    load_tile_to_registers<TileA>(TileA::origin(g.a, g.lda, row0, g.m, k0, g.k), flags.vec_a, r_a,
                                  tid);
    load_tile_to_registers<TileB>(TileB::origin(g.b, g.ldb, col0, g.n, k0, g.k), flags.vec_b, r_b,
                                  tid);
    store_tile_registers<TileA, PaddedLayout>(r_a, s_a, tid);
    store_tile_registers<TileB, PaddedLayout>(r_b, s_b, tid);
    __syncthreads();
    multiply_k_tile<P, PaddedLayout>(s_a, s_b, t, acc);
    __syncthreads();
  }
  store_c_tile<P>(CTarget{g.c, g.ldc, g.m, g.n, g.alpha, g.beta, flags.vec_c}, row0, col0, t, acc);
}

template <typename P>
Status launch_warp_tiled(const GemmProblem& p, const Context& ctx, Workspace) {
  const RowMajorGemm g = to_row_major(p);
  const dim3 grid(ceil_div(g.n, P::kBn), ceil_div(g.m, P::kBm));
  const OperandFlags flags = operand_flags(g);
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    warp_tiled_gemm_kernel<P, decltype(ta)::value, decltype(tb)::value>
        <<<grid, P::kThreads, 0, ctx.stream>>>(g, flags);
    TILEKIT_CUDA_CHECK_LAUNCH("warp_tiled_gemm_kernel");
    return Status::ok();
  });
}

template <typename P>
GemmKernel make_warp_tiled_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "07_warp_tiled", 7);
  s.auto_rank = auto_rank;
  return make_grid_tiled_entry<P>(s, launch_warp_tiled<P>,
                                  reinterpret_cast<const void*>(&warp_tiled_gemm_kernel<P, false, false>));
}

}  // namespace

// gemm.cuda.07_warp_tiled.f32.{128x128x8_w2x4_t8x8, 64x64x16_w2x2_t8x4}
void register_gemm_07_warp_tiled(Registry& r) {
  r.add(make_warp_tiled_entry<WarpTilePolicy<128, 128, 8, 2, 4, 8, 8, 8>>(11));
  r.add(make_warp_tiled_entry<WarpTilePolicy<64, 64, 16, 2, 2, 4, 8, 4>>(10));
}

}  // namespace tilekit::cuda
