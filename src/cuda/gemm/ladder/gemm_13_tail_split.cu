// gemm_13_tail_split.cu — step 13 of the GEMM ladder.
// Adds:     a split of the last round's tiles only. One block per tile runs in rounds of the
//           blocks resident at once (SMs × blocks per SM); when the last round is at most half
//           full, its SMs mostly idle while it runs (4097² with 128×256 tiles: 561 tiles, 4
//           full rounds of 132 and 33 tiles in a fifth, which costs as much time as a full
//           one). Here the tiles of that round are cut into k-ranges, as many as fill the
//           resident blocks, and every other tile takes the whole k as in step 09: one grid,
//           the whole-k tiles first in launch order, then the tail's slices. Each slice writes
//           its raw sums to a box of its own in the workspace (never to C, no atomics); a
//           second kernel, a programmatic dependent of the first (dependent_launch.cuh), adds
//           each tail tile's boxes in slice order and applies alpha and beta (beta = 0 never
//           reads C): the same bits on every run. With fewer tiles than half a round it splits
//           every tile, as step 10 does; with a last round more than half full, nothing.
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit offsets); a
//           workspace of (tail tiles) × slices × kBm·kBn floats (workspace_bytes).
// Expect:   the fifth round's time cut to about a quarter where a round has one tile per SM
//           (4097: 5 rounds → 4.25, up to +18%), and 3456×4096×4096 (432 tiles of 128×256:
//           3 rounds and 36 tiles) 4 → 3.3 rounds; level with step 09 where the last round is
//           more than half full (4096: 512 tiles, 3 rounds and 116). Measured: docs/ladder.md.
#include <algorithm>
#include <cstdint>

#include "core/tile_model.hpp"
#include "cuda/common/dependent_launch.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {
namespace {

// Which tiles are cut, into how many k-ranges of k_slice each. slices = 1: none (step 09).
struct TailPlan {
  int split_from = 0, slices = 1, k_slice = 0;
};

// The last round holds tiles mod resident blocks (all of them when they do not fill one round).
// At most half full, it is cut into as many slices as fill the resident blocks, none shorter
// than kSplitKMinSliceK and no more than step 10 would take (clamp_k_slices).
TailPlan plan_tail(int64_t tiles, int k, int bk, int64_t resident_blocks) {
  TailPlan plan{static_cast<int>(tiles), 1, k};
  if (tiles == 0 || resident_blocks <= 0) return plan;
  const int64_t last_round = tiles % resident_blocks == 0 ? resident_blocks : tiles % resident_blocks;
  if (2 * last_round > resident_blocks) return plan;
  const int64_t k_tiles = (k + bk - 1) / bk;
  const int64_t count =
      clamp_k_slices(std::min<int64_t>(resident_blocks / last_round, k / kSplitKMinSliceK), k_tiles);
  if (count < 2) return plan;
  plan.k_slice = static_cast<int>((k_tiles + count - 1) / count * bk);
  plan.slices = (k + plan.k_slice - 1) / plan.k_slice;  // no empty slice
  plan.split_from = static_cast<int>(tiles - last_round);
  return plan;
}

template <typename P>
TailPlan plan_for(const RowMajorGemm& g, int device) {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) sms = 0;
  const int64_t tiles = int64_t{ceil_div(g.m, P::kBm)} * ceil_div(g.n, P::kBn);
  return plan_tail(tiles, g.k, P::kBk, int64_t{sms} * P::kMinBlocks);  // what __launch_bounds__ caps for
}

size_t tail_box_floats(const TailPlan& plan, int tiles, int bm, int bn) {
  return static_cast<size_t>(tiles - plan.split_from) * plan.slices * bm * bn;
}

// The tail's sum: for each element of a tail tile inside C, its boxes added in slice order,
// then alpha and beta as sum_slices_kernel applies them. Four columns a thread (a box row is
// kBn floats, a multiple of 4); float4 stores to C where its rows allow them.
struct TailSum {
  int split_from, slices, tail_tiles, tiles_m, tiles_n;
  float* c;
  int ldc, m, n;
  float alpha, beta;
  bool vec_c;
};

__device__ __forceinline__ float scale(const TailSum& s, float sum, const float* c) {
  return s.beta == 0.0f ? s.alpha * sum : alpha_acc_beta_c(s.alpha, sum, s.beta, *c);
}

template <typename Raster, int kBm, int kBn>
__global__ void sum_tail_boxes_kernel(const float4* __restrict__ boxes, TailSum s) {
  wait_for_previous_grid();
  constexpr unsigned kQuadsPerRow = kBn / 4, kQuadsPerBox = kBm * kQuadsPerRow;
  const unsigned quads = static_cast<unsigned>(s.tail_tiles) * kQuadsPerBox;
  for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
    const unsigned item = q / kQuadsPerBox, in_box = q % kQuadsPerBox;
    const TileCoord tile = Raster::tile(s.split_from + static_cast<int>(item), s.tiles_m, s.tiles_n);
    const int row = tile.m * kBm + static_cast<int>(in_box / kQuadsPerRow);
    const int col = tile.n * kBn + static_cast<int>(in_box % kQuadsPerRow) * 4;
    if (row >= s.m || col >= s.n) continue;
    const float4* box = boxes + static_cast<size_t>(item) * s.slices * kQuadsPerBox + in_box;
    float4 sum = box[0];
    for (int z = 1; z < s.slices; ++z) {
      const float4 p = box[static_cast<size_t>(z) * kQuadsPerBox];
      sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
    }
    float* out = s.c + static_cast<size_t>(row) * s.ldc + col;
    if (s.vec_c && col + 3 < s.n) {
      *reinterpret_cast<float4*>(out) =
          make_float4(scale(s, sum.x, out), scale(s, sum.y, out + 1), scale(s, sum.z, out + 2),
                      scale(s, sum.w, out + 3));
    } else {
      const float v[4] = {sum.x, sum.y, sum.z, sum.w};
      for (int j = 0; j < 4 && col + j < s.n; ++j) out[j] = scale(s, v[j], out + j);
    }
  }
}

constexpr unsigned kSumThreads = 256, kSumMaxBlocks = 8192;

template <typename P, typename Layout, typename Raster>
Status launch_tail_split(const GemmProblem& p, const Context& ctx, Workspace ws) {
  const RowMajorGemm g = to_row_major(p);
  PipelineArgs args = whole_k_args(g, P::kBm, P::kBn);
  const TailPlan plan = plan_for<P>(g, ctx.device);
  if (plan.slices == 1) return launch_pipelined<P, Layout, Raster>(args, 1, ctx.stream);
  const int tiles = args.tiles_m * args.tiles_n;
  const size_t need = sizeof(float) * tail_box_floats(plan, tiles, P::kBm, P::kBn);
  if (ws.bytes < need)
    return Status(StatusCode::kInternal, "tail split: workspace of " + std::to_string(ws.bytes) +
                                             " bytes, " + std::to_string(need) + " needed");
  args.k_slice = plan.k_slice;
  args.tail_boxes = static_cast<float*>(ws.data);
  args.split_from = plan.split_from;
  args.tail_slices = plan.slices;
  TILEKIT_RETURN_IF_ERROR((launch_pipelined<P, Layout, Raster, true>(args, 1, ctx.stream)));
  const TailSum sum{plan.split_from, plan.slices,  tiles - plan.split_from, args.tiles_m,
                    args.tiles_n,    g.c,          g.ldc,                   g.m,
                    g.n,             g.alpha,      g.beta,                  args.flags.vec_c};
  const size_t quads = static_cast<size_t>(sum.tail_tiles) * P::kBm * P::kBn / 4;
  const auto blocks = static_cast<unsigned>(
      std::min<size_t>((quads + kSumThreads - 1) / kSumThreads, kSumMaxBlocks));
  return launch_as_dependent<sum_tail_boxes_kernel<Raster, P::kBm, P::kBn>>(
      "sum_tail_boxes_kernel", blocks, kSumThreads, ctx.stream, ctx.device,
      reinterpret_cast<const float4*>(args.tail_boxes), sum);
}

template <typename P, typename Layout, typename Raster>
GemmKernel make_tail_split_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "13_tail_split", 13);
  s.auto_rank = auto_rank;
  GemmKernel k = make_pipelined_entry<P, Layout, Raster>(s);
  k.info.requirements = "any shape, layout, op and ld (32-bit offsets)";
  // Its tail and its workspace are planned for the whole problem: no pieces.
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_32bit_indexing(p); };
  k.initialize = [](const GemmProblem&, const Context&, Workspace) -> Status {
    TILEKIT_RETURN_IF_ERROR((opt_into_pipeline_smem<P, Layout, Raster>()));
    return opt_into_pipeline_smem<P, Layout, Raster, true>();
  };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    const RowMajorGemm g = to_row_major(p);
    const TailPlan plan = plan_for<P>(g, d != nullptr ? d->index : 0);
    const int tiles = static_cast<int>(ceil_div(g.m, P::kBm) * ceil_div(g.n, P::kBn));
    return plan.slices == 1 ? 0 : sizeof(float) * tail_box_floats(plan, tiles, P::kBm, P::kBn);
  };
  k.launch = launch_tail_split<P, Layout, Raster>;
  return k;
}

using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;
using Warp128x128x8 = WarpTilePolicy<128, 128, 8, 2, 4, 8, 8, 8>;
using Warp64x128x16 = WarpTilePolicy<64, 128, 16, 2, 2, 4, 8, 8>;

}  // namespace

// gemm.cuda.13_tail_split.f32.<tile>_w<warps>_t<thread tile>_s<stages>: step 10's tiles on
// step 09's layout and tile order.
void register_gemm_13_tail_split(Registry& r) {
  using Grouped = GroupedRaster<8>;
  r.add(make_tail_split_entry<PipelinePolicy<Warp128x256x8, 2, 1>, PaddedLayout, Grouped>(8));
  r.add(make_tail_split_entry<PipelinePolicy<Warp128x128x8, 3, 2>, PaddedLayout, Grouped>(7));
  r.add(make_tail_split_entry<PipelinePolicy<Warp64x128x16, 4, 3>, PaddedLayout, Grouped>(6));
}

}  // namespace tilekit::cuda
