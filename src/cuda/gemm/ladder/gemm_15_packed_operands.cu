// gemm_15_packed_operands.cu — step 15 of the GEMM ladder.
// Adds:     operand packing (BLIS's idea, packed_operands.cuh): before the main loop, every
//           operand that step 14's own loop cannot read straight by cp.async is copied into the
//           workspace as k memory rows of whole 16-byte chunks, zero-padded to a multiple of 4
//           floats. That is a K-major operand (in the row-major view, A in NN and NT, B in NT
//           and TT), which step 14 moves through registers (LDG, select, STS right before the
//           barrier), and any operand whose rows are not whole chunks (ld or size not a
//           multiple of 4, or not 16-byte aligned: 4097, 8193), for which step 14 runs step
//           10's kernel. Then one kernel serves every op, layout and size: step 14's loop with
//           both operands by cp.async (its TN instantiation).
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld; 32-bit offsets for the
//           operands and for the padded copies (k · round_up(m or n, 4)); a workspace of the
//           copies plus split-K's planes (step 10).
// Expect:   every op at step 14's TN speed less the copies: one read and one write of each
//           packed operand, (m or n)·k·8 bytes, about 1.5% of the GEMM at 4096 for one operand.
//           Measured: docs/ladder.md, "Step 15".
#include <string>

#include "cuda/gemm/ladder/cross_tile_fragments.cuh"
#include "cuda/gemm/ladder/packed_operands.cuh"
#include "cuda/gemm/ladder/split_k.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {

// The Loads type of this step's policies. The kernel is step 14's, but instantiated for a policy
// of its own: a non-RDC build registers a template kernel per file, and sharing step 14's
// instantiation made this file's shared-memory opt-in miss its launch (invalid argument).
struct PackedLoads {};

// One kernel for every launch: step 14's with both operands' memory rows along k.
template <typename W, int kStages, int kMinBlocks, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<W, kStages, kMinBlocks, PackedLoads>, Layout, Raster>
    : PackedOperandKernels<PipelinePolicy<W, kStages, kMinBlocks, PackedLoads>, Layout, Raster> {};

namespace {

// After packing, step 14's TN kernel runs every problem. Only a copy can have a chunk that
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

template <typename W, int kStages, int kMinBlocks>
using Packed = PipelinePolicy<W, kStages, kMinBlocks, PackedLoads>;

template <typename P>
GemmKernel make_packed_entry(int auto_rank) {
  using Layout = PaddedLayout;
  using Raster = GroupedRaster<8>;
  EntrySpec s = cuda_spec("ladder", "15_packed", 15);
  s.auto_rank = auto_rank;
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

using Warp128x128x16 = WarpTilePolicy<128, 128, 16, 2, 4, 8, 8, 8>;
using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;

}  // namespace

// gemm.cuda.15_packed.f32.<tile>_w<warps>_t<thread tile>_s<stages>: step 14's two policies.
void register_gemm_15_packed_operands(Registry& r) {
  r.add(make_packed_entry<Packed<Warp128x128x16, 3, 2>>(23));
  r.add(make_packed_entry<Packed<Warp128x256x8, 2, 1>>(22));
}

}  // namespace tilekit::cuda
