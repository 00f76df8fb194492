// mainloop_packed.cuh — the packed mainloop of the SIMT family (BLIS's idea): before the main
// loop, every operand that the cross-tile loop cannot read straight by cp.async is copied into the
// workspace as k memory rows of whole 16-byte chunks, zero-padded to a multiple of 4 floats
// (packed_operands.cuh). That is a K-major operand (in the row-major view, A in NN and NT, B in NT
// and TT), which the cross-tile loop moves through registers, and any operand whose rows are not
// whole chunks (ld or size not a multiple of 4, or not 16-byte aligned), for which it falls back
// to the edge-branch kernel. Then one kernel serves every op, layout and size: the cross-tile
// loop with both operands by cp.async (its TN instantiation), at the cost of one read and one
// write of each packed operand, (m or n)·k·8 bytes (about 1.5% of the GEMM at 4096 for one).
// Its split-K launch is here; the stream-K schedulers over it are in schedule_stream_k.cuh.
#pragma once

#include <string>

#include "cuda/gemm/simt/mainloop_cross_tile.cuh"
#include "cuda/gemm/simt/packed_operands.cuh"
#include "cuda/gemm/simt/schedule_split_k.cuh"
#include "cuda/gemm/simt/tile_orders.cuh"

namespace tilekit::cuda {

// The Loads type of the packed mainloop's policies. The kernel is the cross-tile one, instantiated
// for a policy of its own: a non-RDC build registers a template kernel per translation unit, and
// sharing another unit's instantiation made the shared-memory opt-in miss its launch (invalid
// argument).
struct PackedLoads {};

// One kernel for every launch: the cross-tile kernel with both operands' memory rows along k.
template <typename Shape, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<Shape, PackedLoads>, Layout, Raster>
    : PackedOperandKernels<PipelinePolicy<Shape, PackedLoads>, Layout, Raster> {};

// After packing, the cross-tile TN kernel runs every problem. Only a copy can have a chunk that
// straddles the edge of m or n (an operand read in place has whole-chunk rows): it is read whole,
// its far elements are the copy's zero pad, and they only reach rows or columns of C that are
// never stored.
template <typename P, typename Layout, typename Raster>
Status launch_packed(const GemmProblem& p, const Context& ctx, Workspace ws) {
  RowMajorGemm g = to_row_major(p);
  const PackPlan plan = plan_packs(g);
  const Slices s = slices_for<P>(p, ctx.device);
  const size_t need = plan.bytes() + split_k_bytes(s, g);
  if (ws.bytes < need)
    return Status(StatusCode::kInternal, "packed operands: workspace of " +
                                             std::to_string(ws.bytes) + " bytes, " +
                                             std::to_string(need) + " needed");
  char* base = static_cast<char*>(ws.data);
  TILEKIT_RETURN_IF_ERROR(pack_operands(&g, plan, base, ctx.stream));
  return launch_slices<P, Layout, Raster>(g, s, reinterpret_cast<float*>(base + plan.bytes()),
                                          ctx);
}

// A registry entry for the packed mainloop under split-K (the row's spec in `s`).
template <typename P, typename Layout, typename Raster>
GemmKernel make_packed_entry(const EntrySpec& s) {
  GemmKernel k = make_split_k_entry<P, Layout, Raster>(s);
  k.info.requirements = "any shape, layout, op and ld (32-bit offsets, the padded copies too)";
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_packed_indexing(p);
  };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    const RowMajorGemm g = to_row_major(p);
    const Slices s = slices_for<P>(p, d != nullptr ? d->index : 0);
    return plan_packs(g).bytes() + split_k_bytes(s, g);
  };
  k.launch = launch_packed<P, Layout, Raster>;
  return k;
}

}  // namespace tilekit::cuda
