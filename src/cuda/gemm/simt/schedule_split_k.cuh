// schedule_split_k.cuh — the split-K scheduler of the SIMT family, for shapes with too few C
// tiles to fill the GPU (small m·n, long k): k cut into slices of whole k-tiles, one grid.z per
// slice, so slices × tiles blocks run instead of tiles; each slice's raw sums go to its own FP32
// plane of the workspace (never to C, never with atomics) and sum_slices (epilogue_split_sum.hpp)
// adds the planes in slice order, launched as a programmatic dependent so its launch overlaps
// the GEMM grid's last blocks: the same bits every run. slices = min(resident blocks / tiles,
// k / 64), 1 where the tiles fill a wave, unless the problem names a count (GemmProblem::split_k,
// set by the tuner); with one slice it is the one-tile-per-block launch exactly. Its cost: the
// planes, slices·m·n·4 bytes written and read, and m·n written.
#pragma once

#include <cstdint>
#include <string>

#include "core/tile_model.hpp"
#include "cuda/gemm/simt/epilogue_split_sum.hpp"
#include "cuda/gemm/simt/mainloop_cp_async.cuh"

namespace tilekit::cuda {

// k-ranges of whole k-tiles: `count` slices of `k` each (the last may be shorter).
struct Slices {
  int count = 1, k = 0;
};

// `requested` slices when the problem names a count (GemmProblem::split_k, set by the tuner);
// otherwise default_k_slices (core/schedules/one_block_per_tile.hpp, shared with the tile
// model: as many as fill the resident blocks, none shorter than kSplitKMinSliceK); either way
// clamp_k_slices (at most 64, the reduction's cost, and no more than there are k-tiles).
inline Slices choose_slices(const RowMajorGemm& g, int bm, int bn, int bk, int resident_blocks,
                            int requested) {
  const int64_t k_tiles = (g.k + bk - 1) / bk;
  int64_t count = requested > 0 ? requested
                                : default_k_slices(g.m, g.n, g.k, bm, bn, bk, resident_blocks);
  count = clamp_k_slices(count, k_tiles);
  Slices s;
  s.k = static_cast<int>((k_tiles + count - 1) / count * bk);
  s.count = static_cast<int>((g.k + s.k - 1) / s.k);  // no empty slice
  return s;
}

template <typename P>
int resident_blocks(int device) {
  int sms = 0, per_sm = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
  per_sm = P::kMinBlocks;  // what __launch_bounds__ caps registers for
  return sms * per_sm;
}

template <typename P>
Slices slices_for(const GemmProblem& p, int device) {
  return choose_slices(to_row_major(p), P::kBm, P::kBn, P::kBk, resident_blocks<P>(device),
                       p.split_k);
}

// The workspace `s` takes: one FP32 plane of m × n per slice, none without split-K.
inline size_t split_k_bytes(const Slices& s, const RowMajorGemm& g) {
  return s.count == 1 ? 0 : sizeof(float) * s.count * static_cast<size_t>(g.m) * g.n;
}

// g in s.count slices, their planes at `partials` (split_k_bytes of them; unused with one slice)
// summed into C in slice order: the operands as the caller stores them, or the packed mainloop's
// copies.
template <typename P, typename Layout, typename Raster>
Status launch_slices(const RowMajorGemm& g, const Slices& s, float* partials, const Context& ctx) {
  PipelineArgs args = whole_k_args(g, P::kBm, P::kBn);
  if (s.count == 1) return launch_pipelined<P, Layout, Raster>(args, 1, ctx.stream);
  args.k_slice = s.k;
  args.partials = partials;
  TILEKIT_RETURN_IF_ERROR((launch_pipelined<P, Layout, Raster>(args, s.count, ctx.stream)));
  return sum_slices(partials, s.count, g, ctx.device, ctx.stream);
}

template <typename P, typename Layout, typename Raster>
Status launch_split_k(const GemmProblem& p, const Context& ctx, Workspace ws) {
  const RowMajorGemm g = to_row_major(p);
  const Slices s = slices_for<P>(p, ctx.device);
  const size_t need = split_k_bytes(s, g);
  if (ws.bytes < need)
    return Status(StatusCode::kInternal, "split-K: workspace of " + std::to_string(ws.bytes) +
                                             " bytes, " + std::to_string(need) + " needed");
  return launch_slices<P, Layout, Raster>(g, s, static_cast<float*>(ws.data), ctx);
}

// A registry entry for a pipelined kernel with split-K: the row's id and rank in `s`.
template <typename P, typename Layout, typename Raster>
GemmKernel make_split_k_entry(EntrySpec s) {
  GemmKernel k = make_pipelined_entry<P, Layout, Raster>(s);
  k.info.requirements = "any shape, layout, op and ld (32-bit offsets)";
  // Its slices and their workspace are planned for the whole problem: no pieces.
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_32bit_indexing(p); };
  k.info.tiling.split_k = -1;  // chosen per shape, or GemmProblem::split_k
  k.info.tiling.max_split_k = static_cast<int>(kMaxKSlices);  // clamp_k_slices
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    return split_k_bytes(slices_for<P>(p, d != nullptr ? d->index : 0), to_row_major(p));
  };
  k.launch = launch_split_k<P, Layout, Raster>;
  return k;
}

}  // namespace tilekit::cuda
