// gemm_16_stream_k.cu — step 16 of the GEMM ladder.
// Adds:     a stream-K tail on persistent blocks, over step 15's packed operands and step 14's
//           loop. With T tiles and S resident blocks (SMs × blocks an SM), one block per tile
//           runs ceil(T / S) rounds while the last keeps only T mod S blocks busy (4096² with
//           128×256 tiles: 512 tiles = 3.88 rounds take 4; 3456×4096×4096: 3.27 take 4). Here S
//           persistent blocks take the first tiles whole, round robin; the k-tiles of the last
//           partial round plus one full round, laid end to end, are cut into S equal ranges, one
//           per block. A tile cut between blocks is finished by the block holding its last
//           k-tile, which adds the partial tiles the others published (a slot per block in the
//           workspace, a flag each) nearest block first: the same order every run, so results
//           are bit-identical run to run, and no float atomics touch C. The Hopper family's
//           step 03 does the same for wgmma.
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit offsets, the
//           packed copies too); every block resident at once (a block may wait for a
//           lower-numbered one, scheduled before it): the grid is SMs × the blocks an SM holds.
//           Workspace: step 15's copies, one partial C tile per block, one flag per block.
// Expect:   the last round's idle SMs put to work: up to (rounds − T/S) / rounds faster than
//           step 15 (3% at 4096, 18% at 3456×4096×4096), less the partial tiles' traffic (one
//           tile written and read per cut) and the waits. Measured (H200, against cuBLAS
//           SGEMM, 128×128×16): 4097 1.01× (step 15's best 0.91×), 3456×4096×4096 0.98× (0.89×),
//           8193 0.99× (0.97×); where the last round is nearly full it loses: 4096 0.96×, 8192
//           0.98× (step 15: 0.98×, 0.99×). docs/ladder.md, "Step 16".
#include "cuda/gemm/detail/tile_walk_plan.hpp"
#include "cuda/gemm/ladder/stream_k_tail.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {

// The Loads type of this step's policies: a kernel instantiation of its own (see step 15).
struct StreamKLoads {};

namespace {

template <typename P, typename Layout, typename Raster>
constexpr auto kStep16Kernel = kStreamKKernel<P, Layout, Raster, false>;

template <typename P, typename Layout, typename Raster>
Status launch_stream_k(const GemmProblem& p, const Context& ctx, Workspace ws) {
  StreamKLaunch l;
  TILEKIT_RETURN_IF_ERROR((prepare_stream_k<P, Layout, Raster, false>(p, ctx, ws, &l)));
  // The Hopper family's step 03 plan: the last partial round plus one full round streamed.
  const TileWalkPlan plan = stream_k_tail_plan(l.slots, l.tiles, l.k_tiles);
  StreamKArgs args;
  TILEKIT_RETURN_IF_ERROR(stream_k_args<P>(l, plan, ctx.stream, &args));
  kStep16Kernel<P, Layout, Raster><<<plan.blocks, P::kThreads, pipeline_smem_bytes<P, Layout>(),
                                     ctx.stream>>>(args);
  TILEKIT_CUDA_CHECK_LAUNCH("stream_k_gemm_kernel");
  return Status::ok();
}

template <typename P, typename Layout, typename Raster>
GemmKernel make_stream_k_entry(int auto_rank) {
  GemmKernel k = stream_k_entry<P>("16_stream_k", 16, auto_rank);
  k.initialize = [](const GemmProblem&, const Context&, Workspace) {
    return opt_into_stream_k_smem<P, Layout, Raster, false>();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(kStep16Kernel<P, Layout, Raster>),
                            P::kThreads, pipeline_smem_bytes<P, Layout>(), out);
  };
  k.launch = launch_stream_k<P, Layout, Raster>;
  return k;
}

template <typename W, int kStages, int kMinBlocks>
using StreamK = PipelinePolicy<W, kStages, kMinBlocks, StreamKLoads>;

using Warp128x128x16 = WarpTilePolicy<128, 128, 16, 2, 4, 8, 8, 8>;

}  // namespace

// gemm.cuda.16_stream_k.f32.128x128x16_w2x4_t8x8_s3. Where nothing was tuned `auto` takes it
// first: it led step 15 at every large shape measured but 4096, 8192 and 64×4096×4096. Step 15's
// other policy, 128×256×8, took 253 registers here (217 in step 15) and ran 4–6% below step 15's
// at 4096–8192: not registered (docs/ladder.md, "Step 16").
void register_gemm_16_stream_k(Registry& r) {
  r.add(make_stream_k_entry<StreamK<Warp128x128x16, 3, 2>, PaddedLayout, GroupedRaster<8>>(24));
}

}  // namespace tilekit::cuda
