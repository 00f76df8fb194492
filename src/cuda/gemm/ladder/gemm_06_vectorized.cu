// gemm_06_vectorized.cu — step 6 of the GEMM ladder.
// Adds:     vectorized global loads. Each thread reads its share of the A and B tiles as float4
//           chunks along the operand's contiguous dimension (LDG.128: a quarter of the load
//           instructions of step 5) whenever the operand allows it (ld a multiple of 4, base
//           16-byte aligned, the chunk inside the matrix); other chunks are read element by
//           element with zeros outside. Both shared tiles are k-major ([k][m] and [k][n]), so
//           A is stored transposed on the way in and the inner loop reads every fragment with
//           LDS.128; rows are padded by 4 floats so the transposed stores hit every bank.
//           Loaders: load_tile_to_registers / store_tile_registers in simt_tiles.cuh.
//           Also a larger policy: 128×128 tiles with 8×8 per thread (more reuse per load).
// Requires: float32; any m, n, k >= 0; any layout, op and ld (32-bit offsets).
// Expect:   a few % over step 5 at the same tile (its loads were already coalesced; fewer
//           instructions); 128×128 t8×8 suffers 2-way bank conflicts on the B fragments (16
//           lanes read 32-byte-strided words) that step 07's warp tiling removes.
//           Measured (H200, 4096): 64×64 t8×4 40.4 TFLOP/s (step 5: 36.4); 128×128 t8×8 35.2.
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/simt_tiles.cuh"

namespace tilekit::cuda {
namespace {

template <int kBm_, int kBn_, int kBk_, int kThreadsX, int kThreadsY>
struct VectorizedPolicy {
  static constexpr int kBm = kBm_, kBn = kBn_, kBk = kBk_;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kTm = kBm / kThreadsY, kTn = kBn / kThreadsX;  // thread tile, contiguous
  static_assert(kTm % 4 == 0 && kTn % 4 == 0, "fragments are read as float4");

  static std::string suffix() {
    return std::to_string(kBm) + "x" + std::to_string(kBn) + "x" + std::to_string(kBk) + "_t" +
           std::to_string(kTm) + "x" + std::to_string(kTn);
  }
  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm, t.block_n = kBn, t.block_k = kBk;
    t.thread_m = kTm, t.thread_n = kTn;
    t.threads = kThreads;
    return t;
  }
};

// Step 5's inner product: thread (tx, ty) owns rows ty·TM.. and columns tx·TN.. of the tile.
template <typename P>
__device__ __forceinline__ void multiply_tiles(const float* s_a, const float* s_b,
                                               float (&acc)[P::kTm][P::kTn]) {
  const int row = threadIdx.y * P::kTm, col = threadIdx.x * P::kTn;
#pragma unroll
  for (int k = 0; k < P::kBk; ++k) {
    float a[P::kTm], b[P::kTn];
#pragma unroll
    for (int r = 0; r < P::kTm; r += 4) {
      const float4 v = *reinterpret_cast<const float4*>(
          s_a + PaddedLayout::offset<P::kBm>(k, row + r));
      a[r] = v.x, a[r + 1] = v.y, a[r + 2] = v.z, a[r + 3] = v.w;
    }
#pragma unroll
    for (int c = 0; c < P::kTn; c += 4) {
      const float4 v = *reinterpret_cast<const float4*>(
          s_b + PaddedLayout::offset<P::kBn>(k, col + c));
      b[c] = v.x, b[c + 1] = v.y, b[c + 2] = v.z, b[c + 3] = v.w;
    }
#pragma unroll
    for (int r = 0; r < P::kTm; ++r)
#pragma unroll
      for (int c = 0; c < P::kTn; ++c) acc[r][c] += a[r] * b[c];
  }
}

template <typename P, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(P::kThreads)
    vectorized_gemm_kernel(RowMajorGemm g, OperandFlags flags) {
  using TileA = OperandTile<P::kBm, P::kBk, P::kThreads, kTransA>;   // Aᵀ in memory: k rows
  using TileB = OperandTile<P::kBn, P::kBk, P::kThreads, !kTransB>;  // B in memory: k rows
  __shared__ __align__(16) float s_a[P::kBk * PaddedLayout::stride<P::kBm>()];
  __shared__ __align__(16) float s_b[P::kBk * PaddedLayout::stride<P::kBn>()];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int row0 = blockIdx.y * P::kBm, col0 = blockIdx.x * P::kBn;
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
    multiply_tiles<P>(s_a, s_b, acc);
    __syncthreads();
  }
  const CTarget out{g.c, g.ldc, g.m, g.n, g.alpha, g.beta, flags.vec_c};
#pragma unroll
  for (int r = 0; r < P::kTm; ++r) {
    const int i = row0 + threadIdx.y * P::kTm + r;
#pragma unroll
    for (int c = 0; c < P::kTn; ++c) {
      const int j = col0 + threadIdx.x * P::kTn + c;
      if (i < g.m && j < g.n) g.c[i * g.ldc + j] = scale_c(out, acc[r][c], g.c + i * g.ldc + j);
    }
  }
}

template <typename P>
Status launch_vectorized(const GemmProblem& p, const Context& ctx, Workspace) {
  const RowMajorGemm g = to_row_major(p);
  const dim3 block(P::kBn / P::kTn, P::kBm / P::kTm);
  const dim3 grid(ceil_div(g.n, P::kBn), ceil_div(g.m, P::kBm));
  const OperandFlags flags = operand_flags(g);
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    vectorized_gemm_kernel<P, decltype(ta)::value, decltype(tb)::value>
        <<<grid, block, 0, ctx.stream>>>(g, flags);
    TILEKIT_CUDA_CHECK_LAUNCH("vectorized_gemm_kernel");
    return Status::ok();
  });
}

template <typename P>
GemmKernel make_vectorized_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "06_vectorized", 6);
  s.auto_rank = auto_rank;
  return make_grid_tiled_entry<P>(s, launch_vectorized<P>,
                                  reinterpret_cast<const void*>(&vectorized_gemm_kernel<P, false, false>));
}

}  // namespace

// gemm.cuda.06_vectorized.f32.{64x64x16_t8x4, 128x128x8_t8x8}
void register_gemm_06_vectorized(Registry& r) {
  r.add(make_vectorized_entry<VectorizedPolicy<64, 64, 16, 16, 8>>(8));
  r.add(make_vectorized_entry<VectorizedPolicy<128, 128, 8, 16, 16>>(9));
}

}  // namespace tilekit::cuda
