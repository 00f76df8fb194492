// mainloop_cross_tile.cuh — the cross-tile mainloop, as the Loads type of a PipelinePolicy: the
// straight loop with the barrier moved into each k-tile's last k-step. The straight loop meets the
// barrier at the top of a k-tile and only then loads the tile's first fragments, so every warp
// waits first for the slowest warp and then for its own shared loads before its first FFMA.
// Here the last k-step of tile kt lands the register path's tile, waits for tile kt + 1, passes
// the barrier and loads tile kt + 1's first fragments, all while its own FFMAs (on fragments
// already in registers) can still issue: the barrier is not blocking until an instruction needs
// it (BAR.SYNC.DEFER_BLOCKING), and the fragment loads of tile kt + 1 overlap the FFMAs of kt.
#pragma once

#include "cuda/gemm/simt/mainloop_straight.cuh"

namespace tilekit::cuda {

// The Loads type that selects this mainloop's kernel (PipelineKernels' specialisation below).
struct CrossTileLoads {};

// Block b's k-tiles into `acc`; only with b.k_tiles > 0. Leaves every stage free of cp.async
// writes but may still read the last one: a caller that refills the stages syncs first.
template <typename P, typename Layout, bool kTransA, bool kTransB>
__device__ __forceinline__ void cross_tile_k_loop(StraightBlock<P, Layout, kTransA, kTransB>& b,
                                                  const ThreadOrigin& t,
                                                  float (&acc)[P::kTm][P::kTn]) {
  b.fill();
  float frag_a[2][P::kTm], frag_b[2][P::kTn];  // k's fragments and k + 1's
  cp_async_wait<P::kStages - 2>();
  __syncthreads();
  load_fragments<P, Layout>(b.a_stage(0), b.b_stage(0), t, 0, frag_a[0], frag_b[0]);
  for (int kt = 0; kt < b.k_tiles; ++kt) {
    b.fetch(kt + P::kStages - 1);  // into tile kt − 1's stage, freed by the last barrier
    cp_async_commit();
#pragma unroll
    for (int k = 0; k < P::kBk; ++k) {
      const int next = (k + 1) % 2;
      if (k + 1 < P::kBk) {
        load_fragments<P, Layout>(b.a_stage(kt), b.b_stage(kt), t, k + 1, frag_a[next],
                                  frag_b[next]);
      } else {
        // Tile kt + kStages − 1 lands (into tile kt − 1's stage) and tile kt + 1 is awaited
        // before the barrier, which also tells every warp that tile kt is no longer read.
        b.land(kt + P::kStages - 1);
        cp_async_wait<P::kStages - 2>();
        __syncthreads();
        load_fragments<P, Layout>(b.a_stage(kt + 1), b.b_stage(kt + 1), t, 0, frag_a[next],
                                  frag_b[next]);
      }
      add_outer_product<P>(acc, frag_a[k % 2], frag_b[k % 2]);
    }
  }
  cp_async_wait<0>();  // nothing may still be writing shared memory afterwards
}

// kAllowDependents: the next grid on the stream may start from the first block on (the hybrid
// scheduler's stream-K kernel, which takes other tiles); otherwise only split-K's sum.
template <typename P, typename Layout, typename Raster, bool kTransA, bool kTransB,
          bool kAllowDependents = false>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    cross_tile_gemm_kernel(PipelineArgs args) {
  extern __shared__ float4 smem_words[];
  if (kAllowDependents || args.partials != nullptr) allow_dependent_launch();
  StraightBlock<P, Layout, kTransA, kTransB> b(args, reinterpret_cast<float*>(smem_words), Raster{});
  const ThreadOrigin t = thread_origin<P>();
  float acc[P::kTm][P::kTn] = {};
  if (b.k_tiles > 0) cross_tile_k_loop<P, Layout>(b, t, acc);
  store_c_tile<P>(pipeline_target(args), b.row0, b.col0, t, acc);
}

struct CrossTileKernel {
  template <typename P, typename Layout, typename Raster, bool kTransA, bool kTransB>
  static PipelinedKernelFn get() {
    return cross_tile_gemm_kernel<P, Layout, Raster, kTransA, kTransB>;
  }
};

// The kernels of a policy whose operands were packed (mainloop_packed.cuh): this kernel for A
// stored transposed and B not, the one layout the copies leave.
template <typename P, typename Layout, typename Raster, bool kAllowDependents = false>
struct PackedOperandKernels {
  static PipelinedKernelFn at(int) {
    return cross_tile_gemm_kernel<P, Layout, Raster, true, false, kAllowDependents>;
  }
  static PipelinedKernelFn for_args(const PipelineArgs&) { return at(0); }
  static constexpr int kCount = 1;
};

// Whole-chunk operands run this kernel; the others the edge-branch one (WholeChunkKernels).
template <typename Shape, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<Shape, CrossTileLoads>, Layout, Raster>
    : WholeChunkKernels<PipelinePolicy<Shape, CrossTileLoads>, Layout, Raster, CrossTileKernel> {};

}  // namespace tilekit::cuda
