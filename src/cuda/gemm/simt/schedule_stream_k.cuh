// schedule_stream_k.cuh — the SIMT family's stream-K schedulers: blocks that share k-ranges of
// the last tiles, publish the partial tiles they do not finish and add the others' in a fixed
// order (bit-identical run to run, no float atomics in C), over the packed operands and the
// cross-tile loop. With T tiles and S resident blocks, one block per tile runs ceil(T / S)
// rounds while the last keeps only T mod S blocks busy; here the k-tiles of the last rounds are
// shared evenly instead. The stream-K scheduler runs the whole tiles in the same persistent
// kernel; the hybrid one in the packed mainloop's
// 15's one-block-per-tile kernel, before it on the stream.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/schedules/stream_k.hpp"
#include "cuda/common/dependent_launch.cuh"
#include "cuda/common/per_device_cache.hpp"
#include "cuda/gemm/detail/stream_k_walk.hpp"
#include "cuda/gemm/simt/mainloop_cross_tile.cuh"
#include "cuda/gemm/simt/packed_operands.cuh"
#include "cuda/gemm/simt/tile_orders.cuh"

namespace tilekit::cuda {

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
  return stream_k_range_begin(a.stream_k_iters, gridDim.x, b);
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
  const int streamed_tile = seg.tile - a.whole_tiles;
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
    covered = k_tiles_left_below(a.stream_k_iters, gridDim.x, b, streamed_tile, a.k_tiles);
  }
}

// One segment: its k-tiles through the cross-tile loop, then either its partial tile published (the
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

// Block b's stream-K range, from the last segment back to the first: the partial tile a block
// publishes (at the end of its range) is the first thing it computes, and a tile it finishes (at
// the start) the last, by when the lower-numbered block holding the rest has long published it.
template <typename P, typename Layout, typename Raster>
__device__ __forceinline__ void walk_stream_k_range(const StreamKArgs& args, float* smem,
                                                    const ThreadOrigin& t) {
  const int64_t begin = stream_k_begin(args, blockIdx.x);
  for (int64_t end = stream_k_begin(args, blockIdx.x + 1); end > begin;) {
    const StreamKPiece piece = last_stream_k_piece(begin, end, args.k_tiles);
    run_segment<P, Layout, Raster>(
        args, smem, t,
        StreamKSegment{args.whole_tiles + piece.tile, piece.k_begin, piece.k_end});
    end -= piece.k_end - piece.k_begin;
  }
}

// kWholeTilesBefore false (stream-K): a block's whole tiles, then its stream-K range; true
// (hybrid): the whole tiles were another kernel's, the grid before this one on the stream, which
// this one may overlap (a programmatic dependent); it waits for that grid before it ends, so
// that what follows on the stream finds C complete. Blocks wait only for lower-numbered blocks,
// which were scheduled first.
template <typename P, typename Layout, typename Raster, bool kWholeTilesBefore>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    stream_k_gemm_kernel(StreamKArgs args) {
  extern __shared__ float4 smem_words[];
  float* smem = reinterpret_cast<float*>(smem_words);
  const ThreadOrigin t = thread_origin<P>();
  if constexpr (!kWholeTilesBefore) {
    for (int tile = blockIdx.x; tile < args.whole_tiles; tile += gridDim.x)
      run_segment<P, Layout, Raster>(args, smem, t, StreamKSegment{tile, 0, args.k_tiles});
  }
  if (args.stream_k_iters > 0) walk_stream_k_range<P, Layout, Raster>(args, smem, t);
  if constexpr (kWholeTilesBefore) wait_for_previous_grid();
}

// Host side.

template <typename P, typename Layout, typename Raster, bool kWholeTilesBefore>
constexpr auto kStreamKKernel = stream_k_gemm_kernel<P, Layout, Raster, kWholeTilesBefore>;

// The blocks that can be resident at once on `device`'s `sms` SMs: what occupancy allows an SM,
// at most the kMinBlocks the registers are capped for (the workspace is sized for that many).
// Occupancy is asked once per device (the launch is timed; `initialize` has opted into the
// shared memory by then).
template <typename P, typename Layout, typename Raster, bool kWholeTilesBefore>
Status resident_slots(int device, int sms, int* slots) {
  static PerDeviceCache blocks_per_sm;
  int per_sm = 0;
  TILEKIT_RETURN_IF_ERROR(blocks_per_sm.get(device, &per_sm, [](int* out) {
    TILEKIT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        out, kStreamKKernel<P, Layout, Raster, kWholeTilesBefore>, P::kThreads,
        pipeline_smem_bytes<P, Layout>()));
    if (*out < 1)
      return Status(StatusCode::kInternal, "stream-K: occupancy gives no resident block");
    return Status::ok();
  }));
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
inline StreamKLayout stream_k_layout(const RowMajorGemm& g, int sms) {
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
inline int workspace_sm_count(const DeviceInfo* d) {
  constexpr int kH200Sms = 132;
  return d != nullptr && d->sm_count > 0 ? d->sm_count : kH200Sms;
}

// What both schedulers' launches begin with: the operands (packed where needed), the
// blocks that can be resident, and the workspace's layout, checked against its size.
struct StreamKLaunch {
  RowMajorGemm g;
  int slots = 0;
  StreamKLayout layout;
  char* base = nullptr;
  int tiles = 0, k_tiles = 0;
};

template <typename P, typename Layout, typename Raster, bool kWholeTilesBefore>
Status prepare_stream_k(const GemmProblem& p, const Context& ctx, Workspace ws,
                        StreamKLaunch* out) {
  out->g = to_row_major(p);
  int sms = 0;
  TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device));
  // Context::sm_limit leaves SMs to work beside this kernel (the multi-GPU GEMM's copies); the
  // dispatcher sized the workspace for that many SMs (dispatch.hpp), so the layout follows it.
  if (ctx.sm_limit > 0) sms = std::min(sms, ctx.sm_limit);
  TILEKIT_RETURN_IF_ERROR(
      (resident_slots<P, Layout, Raster, kWholeTilesBefore>(ctx.device, sms, &out->slots)));
  out->layout = stream_k_layout<P>(out->g, sms);
  if (ws.bytes < out->layout.total())
    return Status(StatusCode::kInternal, "stream-K: workspace of " + std::to_string(ws.bytes) +
                                             " bytes, " + std::to_string(out->layout.total()) +
                                             " needed");
  out->base = static_cast<char*>(ws.data);
  TILEKIT_RETURN_IF_ERROR(pack_operands(&out->g, out->layout.packs, out->base, ctx.stream));
  out->tiles = static_cast<int>(ceil_div(out->g.m, P::kBm) * ceil_div(out->g.n, P::kBn));
  out->k_tiles = static_cast<int>(ceil_div(out->g.k, P::kBk));
  return Status::ok();
}

// The stream-K kernel's arguments for `plan`, with its flags zeroed on the stream where it
// streams any k-tiles.
template <typename P>
Status stream_k_args(const StreamKLaunch& l, const TileWalkPlan& plan, cudaStream_t stream,
                     StreamKArgs* args) {
  *args = StreamKArgs{};
  args->g = l.g;
  args->vec_c = operand_flags(l.g).vec_c;
  args->tiles_m = static_cast<int>(ceil_div(l.g.m, P::kBm));
  args->tiles_n = static_cast<int>(ceil_div(l.g.n, P::kBn));
  args->k_tiles = l.k_tiles;
  args->whole_tiles = plan.whole_tiles;
  args->stream_k_iters = plan.stream_k_iters;
  args->partials = reinterpret_cast<float*>(l.base + l.layout.copies);
  args->flags = reinterpret_cast<int*>(l.base + l.layout.copies + l.layout.partials);
  if (plan.stream_k())
    TILEKIT_CUDA_TRY(cudaMemsetAsync(args->flags, 0, sizeof(int) * plan.blocks, stream));
  return Status::ok();
}

// Above 48 KB the stream-K kernel's shared memory must be opted into (the entries' `initialize`).
template <typename P, typename Layout, typename Raster, bool kWholeTilesBefore>
Status opt_into_stream_k_smem() {
  constexpr size_t bytes = pipeline_smem_bytes<P, Layout>();
  if constexpr (bytes > 48 * 1024)
    TILEKIT_CUDA_TRY(cudaFuncSetAttribute(kStreamKKernel<P, Layout, Raster, kWholeTilesBefore>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
  return Status::ok();
}

// The registry entry both schedulers start from: the row's spec, the tiling, the packed copies'
// limits (their offsets) and the workspace above; each sets `initialize`, `resources`, `launch`.
template <typename P>
GemmKernel stream_k_entry(EntrySpec s) {
  s.tiling = P::tiling();
  s.tiling.schedule = schedule_tag<StreamKSchedule>();
  s.requirements = "any shape, layout, op and ld (32-bit offsets, the packed copies too)";
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_packed_indexing(p);
  };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    return stream_k_layout<P>(to_row_major(p), workspace_sm_count(d)).total();
  };
  return k;
}

// ---- stream-K over the whole walk ----

// The Loads type of the stream-K scheduler's policies: a kernel instantiation of its own
// (mainloop_packed.cuh says why).
struct StreamKLoads {};

template <typename P, typename Layout, typename Raster>
constexpr auto kStreamKWalkKernel = kStreamKKernel<P, Layout, Raster, false>;

template <typename P, typename Layout, typename Raster>
Status launch_stream_k(const GemmProblem& p, const Context& ctx, Workspace ws) {
  StreamKLaunch l;
  TILEKIT_RETURN_IF_ERROR((prepare_stream_k<P, Layout, Raster, false>(p, ctx, ws, &l)));
  // The last partial round plus one full round streamed (stream_k_walk.hpp, as the Hopper
  // family's stream-K tail).
  const TileWalkPlan plan = stream_k_tail_plan(l.slots, l.tiles, l.k_tiles);
  StreamKArgs args;
  TILEKIT_RETURN_IF_ERROR(stream_k_args<P>(l, plan, ctx.stream, &args));
  kStreamKWalkKernel<P, Layout, Raster><<<plan.blocks, P::kThreads, pipeline_smem_bytes<P, Layout>(),
                                     ctx.stream>>>(args);
  TILEKIT_CUDA_CHECK_LAUNCH("stream_k_gemm_kernel");
  return Status::ok();
}

template <typename P, typename Layout, typename Raster>
GemmKernel make_stream_k_entry(const EntrySpec& s) {
  GemmKernel k = stream_k_entry<P>(s);
  k.initialize = [](const GemmProblem&, const Context&, Workspace) {
    return opt_into_stream_k_smem<P, Layout, Raster, false>();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(kStreamKWalkKernel<P, Layout, Raster>),
                            P::kThreads, pipeline_smem_bytes<P, Layout>(), out);
  };
  k.launch = launch_stream_k<P, Layout, Raster>;
  return k;
}

// ---- whole rounds one block a tile, the rest stream-K ----

// The Loads type of the hybrid scheduler's policies: kernel instantiations of their own
// (mainloop_packed.cuh says why).
struct HybridLoads {};

// The whole rounds' kernel: the packed mainloop's (A stored transposed, B not), letting the
// stream-K kernel start from its first block on.
template <typename Shape, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<Shape, HybridLoads>, Layout, Raster>
    : PackedOperandKernels<PipelinePolicy<Shape, HybridLoads>, Layout, Raster, true> {};

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
GemmKernel make_hybrid_entry(const EntrySpec& s) {
  GemmKernel k = stream_k_entry<P>(s);
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

}  // namespace tilekit::cuda
