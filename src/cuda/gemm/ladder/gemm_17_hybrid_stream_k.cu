// gemm_17_hybrid_stream_k.cu — step 17 of the GEMM ladder.
// Adds:     the whole rounds back in step 15's kernel, one block per tile, and only the rest on
//           step 16's stream-K walk, in a second kernel that starts as the first one's blocks
//           finish (a programmatic dependent). In step 16 every tile runs inside the persistent
//           loop, and there ptxas recomputes the k-loop's tile invariants every k-tile (operand
//           bounds, shared-memory addresses): 128×256×8's k-loop encodes 1223 stall cycles there
//           against 1166 in step 15's kernel (scripts/sass-loop.sh), and that policy ran 4–6%
//           below step 15. Here the tiles of the whole rounds run the loop of step 15, and the
//           stream-K kernel's slower loop (1183) only the last round's share. Which tiles are
//           streamed: hybrid_plan (tile_walk_plan.hpp), the partial round alone when it fills
//           half the SMs' slots or more, else with the last full round; none when it fills 95%
//           of them or more (2048² with 128×256 tiles: 128 of 132), where streaming lost.
// Requires: float32; sm_80+ (sm_90 for the overlap: below that the second kernel starts after
//           the first); any m, n, k >= 0; any layout, op and ld (32-bit offsets, the packed copies
//           too). Workspace: step 16's (the packed copies, a partial tile and a flag a block).
// Expect:   at 4096² with 128×256 tiles (512 tiles, 132 slots: 3.88 rounds) about 3.9 rounds'
//           time instead of step 15's 4, less the stream-K kernel's slower loop on 0.88 round
//           and its partial tiles: ≈ 2% over step 15; ≈ 3% at 8192 (15.5 rounds in 16).
//           Measured (H200, 128×256×8 against cuBLAS SGEMM in the same run, docs/ladder.md):
//           4096 NN 0.992× (step 15: 0.972×), TT 1.026×, 8192 1.016× (0.988×), 4097 1.008×,
//           3456×4096×4096 1.007×, 16384 0.963×.
#include "cuda/common/dependent_launch.cuh"
#include "cuda/gemm/detail/tile_walk_plan.hpp"
#include "cuda/gemm/ladder/stream_k_tail.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {

// The Loads type of this step's policies: kernel instantiations of their own (see step 15).
struct HybridLoads {};

// The whole rounds' kernel: step 15's (packed operands, A stored transposed, B not), letting
// the stream-K kernel start from its first block on.
template <typename W, int kStages, int kMinBlocks, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<W, kStages, kMinBlocks, HybridLoads>, Layout, Raster>
    : PackedOperandKernels<PipelinePolicy<W, kStages, kMinBlocks, HybridLoads>, Layout, Raster,
                           true> {};

namespace {

template <typename P, typename Layout, typename Raster>
constexpr auto kTailKernel = kStreamKKernel<P, Layout, Raster, true>;

// The copies, the flags zeroed, the whole rounds (tiles 0 … whole_tiles − 1 in the tile order,
// one block each), then the stream-K kernel over the rest. The flags are zeroed first so that
// nothing stands between the two kernels: the second may only overlap the grid just before it.
template <typename P, typename Layout, typename Raster>
Status launch_hybrid(const GemmProblem& p, const Context& ctx, Workspace ws) {
  StreamKLaunch l;
  TILEKIT_RETURN_IF_ERROR((prepare_stream_k<P, Layout, Raster, true>(p, ctx, ws, &l)));
  const TileWalkPlan plan = hybrid_plan(l.slots, l.tiles, l.k_tiles);
  StreamKArgs tail;
  TILEKIT_RETURN_IF_ERROR(stream_k_args<P>(l, plan, ctx.stream, &tail));
  constexpr size_t smem = pipeline_smem_bytes<P, Layout>();
  if (plan.whole_tiles > 0) {
    PipelineKernels<P, Layout, Raster>::at(0)<<<plan.whole_tiles, P::kThreads, smem, ctx.stream>>>(
        whole_k_args(l.g, P::kBm, P::kBn));
    TILEKIT_CUDA_CHECK_LAUNCH("cross_tile_gemm_kernel (whole rounds)");
  }
  if (!plan.stream_k()) return Status::ok();
  if (plan.whole_tiles == 0) {  // nothing to overlap: an ordinary launch after the memset
    kTailKernel<P, Layout, Raster><<<plan.blocks, P::kThreads, smem, ctx.stream>>>(tail);
    TILEKIT_CUDA_CHECK_LAUNCH("stream_k_gemm_kernel");
    return Status::ok();
  }
  return launch_as_dependent<kTailKernel<P, Layout, Raster>>(
      "stream_k_gemm_kernel", plan.blocks, P::kThreads, smem, ctx.stream, ctx.device, tail);
}

template <typename P, typename Layout, typename Raster>
GemmKernel make_hybrid_entry(int auto_rank) {
  GemmKernel k = stream_k_entry<P>("17_hybrid", 17, auto_rank);
  k.initialize = [](const GemmProblem&, const Context&, Workspace) -> Status {
    TILEKIT_RETURN_IF_ERROR((opt_into_pipeline_smem<P, Layout, Raster>()));
    return opt_into_stream_k_smem<P, Layout, Raster, true>();
  };
  k.resources = [](KernelResources* out) {  // the whole rounds' kernel: most of the work
    return kernel_resources(
        reinterpret_cast<const void*>(PipelineKernels<P, Layout, Raster>::at(0)), P::kThreads,
        pipeline_smem_bytes<P, Layout>(), out);
  };
  k.launch = launch_hybrid<P, Layout, Raster>;
  return k;
}

template <typename W, int kStages, int kMinBlocks>
using Hybrid = PipelinePolicy<W, kStages, kMinBlocks, HybridLoads>;

using Warp128x128x16 = WarpTilePolicy<128, 128, 16, 2, 4, 8, 8, 8>;
using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;

}  // namespace

// gemm.cuda.17_hybrid.f32.<tile>_w<warps>_t<thread tile>_s<stages>: step 15's two policies. Ranked
// below steps 14–16 until measured: untuned `auto` does not take them first.
void register_gemm_17_hybrid_stream_k(Registry& r) {
  r.add(make_hybrid_entry<Hybrid<Warp128x256x8, 2, 1>, PaddedLayout, GroupedRaster<8>>(3));
  r.add(make_hybrid_entry<Hybrid<Warp128x128x16, 3, 2>, PaddedLayout, GroupedRaster<8>>(2));
}

}  // namespace tilekit::cuda
