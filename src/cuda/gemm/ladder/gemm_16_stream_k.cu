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
#include <algorithm>
#include <string>

#include "cuda/gemm/detail/tile_walk_plan.hpp"
#include "cuda/gemm/ladder/cross_tile_fragments.cuh"
#include "cuda/gemm/ladder/packed_operands.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {

// The Loads type of this step's policies: a kernel instantiation of its own (see step 15).
struct StreamKLoads {};

struct StreamKArgs {
  RowMajorGemm g;  // packed: A stored as k rows of m (trans_a), B as k rows of n
  bool vec_c;
  int tiles_m, tiles_n, k_tiles;
  int whole_tiles;         // the first tiles of the walk, handed out whole, round robin
  int64_t stream_k_iters;  // k-tiles of the other tiles, end to end, cut into gridDim.x ranges
  float* partials;         // one partial C tile per block
  int* flags;              // one per block: set once its partial tile is published (zeroed first)
};

// k-tiles [k_begin, k_end) of the walk's tile `tile`.
struct StreamKSegment {
  int tile, k_begin, k_end;
};

// Where block b's stream-K range starts, in k-tiles of the streamed tiles (b = gridDim.x: end).
__device__ __forceinline__ int64_t stream_k_begin(const StreamKArgs& a, int b) {
  const int64_t per_block = a.stream_k_iters / gridDim.x, extra = a.stream_k_iters % gridDim.x;
  return b * per_block + min(static_cast<int64_t>(b), extra);
}

// Thread threadIdx.x's accumulators in block b's slot, element (i, j) kThreads floats apart, so
// that a warp's stores and loads are contiguous.
template <typename P>
__device__ __forceinline__ float* partial_slot(const StreamKArgs& a, int b) {
  return a.partials + static_cast<size_t>(b) * P::kThreads * P::kTm * P::kTn + threadIdx.x;
}

// Through L2 (st.cg), fenced, then the flag: another SM reads the slot once the flag is set.
template <typename P>
__device__ void publish_partial(const StreamKArgs& a, const float (&acc)[P::kTm][P::kTn]) {
  float* slot = partial_slot<P>(a, blockIdx.x);
#pragma unroll
  for (int i = 0; i < P::kTm; ++i)
#pragma unroll
    for (int j = 0; j < P::kTn; ++j) __stcg(slot + (i * P::kTn + j) * P::kThreads, acc[i][j]);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicExch(a.flags + blockIdx.x, 1);
}

// Adds the partial tiles of the blocks below this one that hold k-tiles [0, seg.k_begin) of the
// segment's tile, nearest block first: a fixed order, so the sum is the same every run.
template <typename P>
__device__ void add_partials(const StreamKArgs& a, float (&acc)[P::kTm][P::kTn],
                             const StreamKSegment& seg) {
  const int64_t tile_start = static_cast<int64_t>(seg.tile - a.whole_tiles) * a.k_tiles;
  for (int b = blockIdx.x - 1, covered = seg.k_begin; covered > 0; --b) {
    if (threadIdx.x == 0) {
      const volatile int* flag = a.flags + b;
      while (*flag == 0) {
      }
      __threadfence();
    }
    __syncthreads();
    const float* slot = partial_slot<P>(a, b);
#pragma unroll
    for (int i = 0; i < P::kTm; ++i)
#pragma unroll
      for (int j = 0; j < P::kTn; ++j) acc[i][j] += __ldcg(slot + (i * P::kTn + j) * P::kThreads);
    const int64_t piece_start = stream_k_begin(a, b) - tile_start;
    covered = piece_start > 0 ? static_cast<int>(piece_start) : 0;
  }
}

// One segment: its k-tiles through step 14's loop, then either its partial tile published (the
// tile's last k-tile is another block's) or the tile finished and stored.
template <typename P, typename Layout, typename Raster>
__device__ __forceinline__ void run_segment(const StreamKArgs& a, float* smem,
                                            const ThreadOrigin& t, const StreamKSegment& seg) {
  const TileCoord tile = Raster::tile(seg.tile, a.tiles_m, a.tiles_n);
  const int k_begin = seg.k_begin * P::kBk, k_end = min(a.g.k, seg.k_end * P::kBk);
  __syncthreads();  // the previous segment's warps may still read its last stage
  StraightBlock<P, Layout, true, false> b(a.g, smem, tile.m * P::kBm, tile.n * P::kBn, k_begin,
                                          k_end);
  float acc[P::kTm][P::kTn] = {};
  if (b.k_tiles > 0) cross_tile_k_loop<P, Layout>(b, t, acc);
  if (seg.k_end < a.k_tiles) {
    publish_partial<P>(a, acc);
    return;
  }
  if (seg.k_begin > 0) add_partials<P>(a, acc, seg);
  const RowMajorGemm& g = a.g;
  store_c_tile<P>(CTarget{g.c, g.ldc, g.m, g.n, g.alpha, g.beta, a.vec_c}, b.row0, b.col0, t, acc);
}

// Its whole tiles, then its stream-K range from the last segment back to the first: the
// partial tile a block publishes (at the end of its range) is the first thing it computes, and
// a tile it finishes (at the start) the last, by when the lower-numbered block holding the rest
// has long published it. Blocks wait only for lower-numbered blocks, which were scheduled first.
template <typename P, typename Layout, typename Raster>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    stream_k_gemm_kernel(StreamKArgs args) {
  extern __shared__ float4 smem_words[];
  float* smem = reinterpret_cast<float*>(smem_words);
  const ThreadOrigin t = thread_origin<P>();
  for (int tile = blockIdx.x; tile < args.whole_tiles; tile += gridDim.x)
    run_segment<P, Layout, Raster>(args, smem, t, StreamKSegment{tile, 0, args.k_tiles});
  if (args.stream_k_iters == 0) return;
  const int64_t begin = stream_k_begin(args, blockIdx.x);
  for (int64_t end = stream_k_begin(args, blockIdx.x + 1); end > begin;) {
    const int tile = static_cast<int>((end - 1) / args.k_tiles);
    const int64_t tile_start = static_cast<int64_t>(tile) * args.k_tiles;
    const int64_t from = max(begin, tile_start);
    run_segment<P, Layout, Raster>(
        args, smem, t,
        StreamKSegment{args.whole_tiles + tile, static_cast<int>(from - tile_start),
                       static_cast<int>(end - tile_start)});
    end = from;
  }
}

namespace {

template <typename P, typename Layout, typename Raster>
constexpr auto kStreamKKernel = stream_k_gemm_kernel<P, Layout, Raster>;

// The blocks that can be resident at once on `sms` SMs: what occupancy allows an SM, at most the
// kMinBlocks the registers are capped for (the workspace is sized for that many).
template <typename P, typename Layout, typename Raster>
Status resident_slots(int sms, int* slots) {
  int per_sm = 0;
  TILEKIT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kStreamKKernel<P, Layout, Raster>, P::kThreads, pipeline_smem_bytes<P, Layout>()));
  if (per_sm < 1)
    return Status(StatusCode::kInternal, "stream-K: occupancy gives no resident block");
  *slots = sms * std::min(per_sm, P::kMinBlocks);
  return Status::ok();
}

// Workspace: the packed copies, then kMinBlocks × SMs partial tiles and as many flags.
struct StreamKLayout {
  PackPlan packs;
  size_t copies = 0, partials = 0, flags = 0;
  size_t total() const { return copies + partials + flags; }
};

template <typename P>
StreamKLayout stream_k_layout(const RowMajorGemm& g, int sms) {
  const size_t blocks = static_cast<size_t>(sms) * P::kMinBlocks;
  StreamKLayout l;
  l.packs = plan_packs(g);
  l.copies = l.packs.bytes();
  l.partials = round_up_256(blocks * P::kThreads * P::kTm * P::kTn * sizeof(float));
  l.flags = round_up_256(blocks * sizeof(int));
  return l;
}

// The SMs the workspace is sized for. Without the device's figures (none was queried) an H200's
// 132; the launch counts them itself and refuses a workspace that is too small.
int sm_count(const DeviceInfo* d) {
  constexpr int kH200Sms = 132;
  return d != nullptr && d->sm_count > 0 ? d->sm_count : kH200Sms;
}

template <typename P, typename Layout, typename Raster>
Status launch_stream_k(const GemmProblem& p, const Context& ctx, Workspace ws) {
  RowMajorGemm g = to_row_major(p);
  int sms = 0, slots = 0;
  TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device));
  TILEKIT_RETURN_IF_ERROR((resident_slots<P, Layout, Raster>(sms, &slots)));
  // Context::sm_limit leaves SMs to work beside this kernel (the multi-GPU GEMM's copies).
  if (ctx.sm_limit > 0) slots = std::min(slots, ctx.sm_limit * P::kMinBlocks);
  const StreamKLayout layout = stream_k_layout<P>(g, sms);
  if (ws.bytes < layout.total())
    return Status(StatusCode::kInternal, "stream-K: workspace of " + std::to_string(ws.bytes) +
                                             " bytes, " + std::to_string(layout.total()) +
                                             " needed");
  char* base = static_cast<char*>(ws.data);
  TILEKIT_RETURN_IF_ERROR(pack_operands(&g, layout.packs, base, ctx.stream));
  StreamKArgs args{};
  args.g = g;
  args.vec_c = operand_flags(g).vec_c;
  args.tiles_m = static_cast<int>(ceil_div(g.m, P::kBm));
  args.tiles_n = static_cast<int>(ceil_div(g.n, P::kBn));
  args.k_tiles = static_cast<int>(ceil_div(g.k, P::kBk));
  // The Hopper family's step 03 plan: the last partial round plus one full round streamed.
  const TileWalkPlan plan = stream_k_tail_plan(slots, args.tiles_m * args.tiles_n, args.k_tiles);
  args.whole_tiles = plan.whole_tiles;
  args.stream_k_iters = plan.stream_k_iters;
  args.partials = reinterpret_cast<float*>(base + layout.copies);
  args.flags = reinterpret_cast<int*>(base + layout.copies + layout.partials);
  if (plan.stream_k())
    TILEKIT_CUDA_TRY(cudaMemsetAsync(args.flags, 0, sizeof(int) * plan.blocks, ctx.stream));
  kStreamKKernel<P, Layout, Raster><<<plan.blocks, P::kThreads, pipeline_smem_bytes<P, Layout>(),
                                      ctx.stream>>>(args);
  TILEKIT_CUDA_CHECK_LAUNCH("stream_k_gemm_kernel");
  return Status::ok();
}

template <typename P, typename Layout, typename Raster>
GemmKernel make_stream_k_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "16_stream_k", 16);
  s.suffix = P::suffix();
  s.tiling = P::tiling();
  s.tiling.schedule = TileSchedule::kStreamK;
  s.requirements = "any shape, layout, op and ld (32-bit offsets, the packed copies too)";
  s.auto_rank = auto_rank;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_packed_indexing(p);
  };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    return stream_k_layout<P>(to_row_major(p), sm_count(d)).total();
  };
  k.initialize = [](const GemmProblem&, const Context&, Workspace) -> Status {
    constexpr size_t bytes = pipeline_smem_bytes<P, Layout>();
    if constexpr (bytes > 48 * 1024)
      TILEKIT_CUDA_TRY(cudaFuncSetAttribute(kStreamKKernel<P, Layout, Raster>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
    return Status::ok();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(kStreamKKernel<P, Layout, Raster>),
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
