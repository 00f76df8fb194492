// mainloop_registers.cuh — the register-staged mainloops of the SIMT family: each k-tile is loaded
// into registers (float4 where the operand allows, operand_tiles.cuh), stored to one k-major
// shared buffer (A transposed on the way in, rows padded so those stores hit every bank), and
// multiplied after a barrier; a second barrier before the next tile's stores. No overlap of
// global loads with math: the cp.async ring (mainloop_cp_async.cuh) adds that.
//   ThreadTiles:  threads own contiguous thread_m × thread_n tiles of a 2-D block; the fragments of
//                 neighbouring threads are 32 bytes apart (2-way bank conflicts on B at 8×8).
//   WarpTiles:    the warp tiling of warp_tile.cuh: conflict-free fragments, float4 C rows.
// Both run on a 2-D grid of tiles (one tile per block, row order) over any shape, op and ld.
#pragma once

#include <string>

#include "core/schedules/one_block_per_tile.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/simt/epilogue_registers.cuh"
#include "cuda/gemm/simt/operand_tiles.cuh"

namespace tilekit::cuda {

// A registry entry for a policy P on a 2-D grid of tiles: its tiling from P; 32-bit indexing and
// P::kBm-row blocks in grid.y as its limits; the resources of its NN instantiation `nn_kernel`.
// `s` holds the row's id and rank (instances.cuh).
template <typename P>
GemmKernel make_grid_tiled_entry(EntrySpec s, decltype(GemmKernel::launch) launch,
                                 const void* nn_kernel) {
  s.tiling = P::tiling();
  s.tiling.schedule = schedule_tag<OneBlockPerTileSchedule>();
  s.requirements = "any shape, layout, op and ld; m < 65536·" + std::to_string(P::kBm);
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_ladder_problem(p, P::kBm);
  };
  k.launch = std::move(launch);
  k.resources = [nn_kernel](KernelResources* out) {
    return kernel_resources(nn_kernel, P::kThreads, 0, out);
  };
  return k;
}


// ---- contiguous thread tiles ----

// A block of (block_n / thread_n) × (block_m / thread_m) threads, each owning a contiguous
// thread_m × thread_n tile of C. `Shape` as WarpTilePolicy's, without a warp grid.
template <typename Shape>
struct ThreadTilePolicy {
  static constexpr simt::TileShape kShape = Shape::kShape;
  static constexpr int kBm = kShape.block_m, kBn = kShape.block_n, kBk = kShape.block_k;
  static constexpr int kTm = kShape.thread_m, kTn = kShape.thread_n;
  static constexpr int kThreads = (kBm / kTm) * (kBn / kTn);
  static_assert(!kShape.warp_tiled(), "threads own contiguous tiles");
  static_assert(kTm % 4 == 0 && kTn % 4 == 0, "fragments are read as float4");

  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm, t.block_n = kBn, t.block_k = kBk;
    t.thread_m = kTm, t.thread_n = kTn;
    t.threads = kThreads;
    return t;
  }
};

// Thread (tx, ty) owns rows ty·TM.. and columns tx·TN.. of the tile.
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
GemmKernel make_thread_tiles_entry(const EntrySpec& s) {
  return make_grid_tiled_entry<P>(s, launch_vectorized<P>,
                                  reinterpret_cast<const void*>(&vectorized_gemm_kernel<P, false, false>));
}

// ---- warp tiles ----

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
GemmKernel make_warp_tiles_entry(const EntrySpec& s) {
  return make_grid_tiled_entry<P>(s, launch_warp_tiled<P>,
                                  reinterpret_cast<const void*>(&warp_tiled_gemm_kernel<P, false, false>));
}

}  // namespace tilekit::cuda
