// mainloop_straight.cuh — the straight mainloop of the SIMT family, as the Loads type of a
// PipelinePolicy (mainloop_cp_async.cuh): a main loop that is one basic block. BranchFreeLoads
// take the per-thread edge branches out of the loop, but it still branches on launch-uniform facts: whether each
// operand goes by cp.async or by registers, by whole 16-byte chunks or by elements, and whether a
// next k-tile exists (`next < k_tiles` around the fetch and the landing). ptxas schedules within
// a basic block, so every one of those branches walls the operand loads' address arithmetic off
// from the FFMAs: it runs as a serial run of dependent instructions (stall counts 2–13 each)
// before and after the FFMA block, where cuBLAS's loop (one branch, its own) spreads the same
// work among its FFMAs. Here:
//   - the operand paths are template facts: an instantiation for operands that both take whole
//     16-byte chunks (StraightPipe: cp.async where memory rows run along k, LDG.128 through
//     registers where they do not), and the edge-branch kernel for every other launch (a host-side
//     choice, WholeChunkKernels below);
//   - the fetch and the landing run on every iteration: past the last k-tile every chunk lies
//     outside the operand, so the branch-free edge rules already make it a zero fill into the stage
//     that the barrier has just freed, and no branch is needed.
#pragma once

#include "cuda/gemm/simt/loads_branch_free.cuh"

namespace tilekit::cuda {

// The Loads type that selects this mainloop's kernel (PipelineKernels' specialisation below).
struct StraightLoads {};

// One operand's tile into a stage, the path fixed by the operand's orientation alone: memory rows
// along k go by cp.async (BranchFreeLoads::copy_async), the others by one LDG.128 per chunk into
// registers, stored after the k-tile's math. Both need whole 16-byte chunks (whole_chunks), which
// the host checked before choosing this kernel. A chunk outside the operand reads its first
// element (the register path) or nothing (cp.async's zero fill) and lands as zeros.
template <typename T, typename Layout>
struct StraightPipe {
  float4 r[T::kChunksPerThread];  // the register path's chunks between fetch and land
  unsigned inside = 0;            // bit j: chunk j lies inside the operand

  __device__ __forceinline__ void fetch(const TileOrigin& o, float* stage, int tid) {
    if constexpr (T::kKRows) {
      BranchFreeLoads::copy_async<T, Layout>(o, stage, tid);
    } else {
      inside = 0;
#pragma unroll
      for (int j = 0; j < T::kChunksPerThread; ++j) {
        const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
        const int gr = o.row0 + chunk / T::kChunksPerRow;
        const int gc = o.col0 + chunk % T::kChunksPerRow * 4;
        const bool ok = gr < o.rows && gc < o.cols;  // whole chunks: all 4 or none
        r[j] = *reinterpret_cast<const float4*>(ok ? o.src + gr * o.ld + gc : o.src);
        inside |= ok ? 1u << j : 0u;
      }
    }
  }
  __device__ __forceinline__ void land(float* stage, int tid) const {
    if constexpr (!T::kKRows) {
      float4 v[T::kChunksPerThread];
#pragma unroll
      for (int j = 0; j < T::kChunksPerThread; ++j) {
        const bool ok = inside >> j & 1u;
        v[j] = make_float4(ok ? r[j].x : 0.0f, ok ? r[j].y : 0.0f, ok ? r[j].z : 0.0f,
                           ok ? r[j].w : 0.0f);
      }
      store_tile_registers<T, Layout>(v, stage, tid);
    }
  }
};

// What a block of a straight-loop kernel (straight, cross-tile) holds besides its accumulators: its
// stages, its C tile and k range, and both operand pipes; fetch and land move tile kt (zeros past
// the last one) without a branch.
template <typename P, typename Layout, bool kTransA, bool kTransB>
struct StraightBlock {
  using TileA = OperandTile<P::kBm, P::kBk, P::kThreads, kTransA>;   // Aᵀ in memory: k rows
  using TileB = OperandTile<P::kBn, P::kBk, P::kThreads, !kTransB>;  // B in memory: k rows
  static constexpr int kStageA = P::kBk * Layout::template stride<P::kBm>();
  static constexpr int kStageB = P::kBk * Layout::template stride<P::kBn>();

  const RowMajorGemm& g;
  float* s_a;
  float* s_b;
  int tid, row0, col0, k_begin, k_end, k_tiles;
  StraightPipe<TileA, Layout> pipe_a;
  StraightPipe<TileB, Layout> pipe_b;

  template <typename Raster>
  __device__ __forceinline__ StraightBlock(const PipelineArgs& args, float* smem, Raster)
      : g(args.g), s_a(smem), s_b(smem + P::kStages * kStageA), tid(threadIdx.x) {
    const TileCoord tile = Raster::tile(blockIdx.x, args.tiles_m, args.tiles_n);
    row0 = tile.m * P::kBm;
    col0 = tile.n * P::kBn;
    k_begin = blockIdx.z * args.k_slice;
    k_end = min(g.k, k_begin + args.k_slice);
    k_tiles = (k_end - k_begin + P::kBk - 1) / P::kBk;
  }
  // A block that computes k range [k_begin_, k_end_) of the C tile at (row0_, col0_) (stream-K:
  // a persistent block walks several such segments).
  __device__ __forceinline__ StraightBlock(const RowMajorGemm& g_, float* smem, int row0_,
                                           int col0_, int k_begin_, int k_end_)
      : g(g_), s_a(smem), s_b(smem + P::kStages * kStageA), tid(threadIdx.x), row0(row0_),
        col0(col0_), k_begin(k_begin_), k_end(k_end_),
        k_tiles((k_end_ - k_begin_ + P::kBk - 1) / P::kBk) {}
  __device__ __forceinline__ const float* a_stage(int kt) const {
    return s_a + kt % P::kStages * kStageA;
  }
  __device__ __forceinline__ const float* b_stage(int kt) const {
    return s_b + kt % P::kStages * kStageB;
  }
  __device__ __forceinline__ void fetch(int kt) {
    const int k0 = k_begin + kt * P::kBk, stage = kt % P::kStages;
    pipe_a.fetch(TileA::origin(g.a, g.lda, row0, g.m, k0, k_end), s_a + stage * kStageA, tid);
    pipe_b.fetch(TileB::origin(g.b, g.ldb, col0, g.n, k0, k_end), s_b + stage * kStageB, tid);
  }
  __device__ __forceinline__ void land(int kt) {
    const int stage = kt % P::kStages;
    pipe_a.land(s_a + stage * kStageA, tid);
    pipe_b.land(s_b + stage * kStageB, tid);
  }
  // The first kStages − 1 tiles, one commit group each. Only with k_tiles > 0: an operand of
  // k = 0 may have no first element to read.
  __device__ __forceinline__ void fill() {
#pragma unroll
    for (int kt = 0; kt < P::kStages - 1; ++kt) {
      fetch(kt);
      land(kt);
      cp_async_commit();
    }
  }
};

// The pipelined kernel (mainloop_cp_async.cuh) with StraightPipe's fixed paths and a fetch and
// landing on every iteration. Only launched when both operands take whole 16-byte chunks.
template <typename P, typename Layout, typename Raster, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    straight_gemm_kernel(PipelineArgs args) {
  extern __shared__ float4 smem_words[];
  if (args.partials != nullptr) allow_dependent_launch();  // split-K's sum
  StraightBlock<P, Layout, kTransA, kTransB> b(args, reinterpret_cast<float*>(smem_words), Raster{});
  if (b.k_tiles > 0) b.fill();
  const ThreadOrigin t = thread_origin<P>();
  float acc[P::kTm][P::kTn] = {};
  for (int kt = 0; kt < b.k_tiles; ++kt) {
    cp_async_wait<P::kStages - 2>();
    // One barrier: tile kt is visible to all, and every warp has finished tile kt − 1, whose
    // stage tile kt + kStages − 1 (zeros past the last tile) now overwrites.
    __syncthreads();
    b.fetch(kt + P::kStages - 1);
    cp_async_commit();
    multiply_k_tile<P, Layout>(b.a_stage(kt), b.b_stage(kt), t, acc);
    b.land(kt + P::kStages - 1);
  }
  cp_async_wait<0>();  // nothing may still be writing shared memory when the block exits
  store_c_tile<P>(pipeline_target(args), b.row0, b.col0, t, acc);
}

// Both operands in whole 16-byte chunks: A's memory columns are k (or m, transposed), B's n (or k).
inline bool whole_chunk_operands(const PipelineArgs& a) {
  return whole_chunks(a.flags.vec_a, a.g.trans_a ? a.g.m : a.g.k) &&
         whole_chunks(a.flags.vec_b, a.g.trans_b ? a.g.k : a.g.n);
}

// The kernel choice of a mainloop whose own kernel needs whole-chunk operands (straight,
// cross-tile): `Own::get` gives its kernel for an op; every other launch runs the policy's
// edge-branch twin (the same tiles and stages with EdgeBranchLoads: its edge branches measured faster than the branch-free element
// loads there, 4097 with 64×128×16 tiles 39.1 against 34.0 TFLOP/s on the H200).
template <typename P, typename Layout, typename Raster, typename Own>
struct WholeChunkKernels {
  using Fallback = PipelineKernels<
PipelinePolicy<typename P::Shape, EdgeBranchLoads>, Layout, Raster>;
  static PipelinedKernelFn own(bool trans_a, bool trans_b) {
    if (!trans_a && !trans_b) return Own::template get<P, Layout, Raster, false, false>();
    if (!trans_a && trans_b) return Own::template get<P, Layout, Raster, false, true>();
    if (trans_a && !trans_b) return Own::template get<P, Layout, Raster, true, false>();
    return Own::template get<P, Layout, Raster, true, true>();
  }
  static PipelinedKernelFn for_args(const PipelineArgs& a) {
    return whole_chunk_operands(a) ? own(a.g.trans_a, a.g.trans_b) : Fallback::for_args(a);
  }
  static constexpr int kCount = 4 + Fallback::kCount;
  static PipelinedKernelFn at(int i) { return i < 4 ? own(i & 1, i & 2) : Fallback::at(i - 4); }
};

struct StraightKernel {
  template <typename P, typename Layout, typename Raster, bool kTransA, bool kTransB>
  static PipelinedKernelFn get() {
    return straight_gemm_kernel<P, Layout, Raster, kTransA, kTransB>;
  }
};

template <typename Shape, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<Shape, StraightLoads>, Layout, Raster>
    : WholeChunkKernels<PipelinePolicy<Shape, StraightLoads>, Layout, Raster, StraightKernel> {};

}  // namespace tilekit::cuda
