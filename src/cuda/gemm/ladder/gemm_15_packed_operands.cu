// gemm_15_packed_operands.cu — step 15 of the GEMM ladder.
// Adds:     operand packing (BLIS's idea): before the main loop, every operand that step 14's own
//           loop cannot read straight by cp.async is copied into the workspace as k memory rows
//           of whole 16-byte chunks, zero-padded to a multiple of 4 floats. That is a K-major
//           operand (in the row-major view, A in NN and NT, B in NT and TT), which step 14
//           moves through registers (LDG, select, STS right before the barrier), and any
//           operand whose rows are not whole chunks (ld or size not a multiple of 4, or not
//           16-byte aligned: 4097, 8193), for which step 14 runs step 10's kernel. Then one kernel serves every op, layout and size: step 14's
//           loop with both operands by cp.async (its TN instantiation).
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld; 32-bit offsets for the
//           operands and for the padded copies (k · round_up(m or n, 4)); a workspace of the
//           copies plus split-K's planes (step 10).
// Expect:   every op at step 14's TN speed less the copies: one read and one write of each
//           packed operand, (m or n)·k·8 bytes, about 1.5% of the GEMM at 4096 for one operand.
//           Measured: docs/ladder.md, "Step 15".
#include <climits>
#include <string>

#include "cuda/gemm/ladder/cross_tile_fragments.cuh"
#include "cuda/gemm/ladder/split_k.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {

// The Loads type of this step's policies. The kernel is step 14's, but instantiated for a policy
// of its own: a non-RDC build registers a template kernel per file, and sharing step 14's
// instantiation made this file's shared-memory opt-in miss its launch (invalid argument).
struct PackedLoads {};

// One kernel for every launch: step 14's with both operands' memory rows along k.
template <typename W, int kStages, int kMinBlocks, typename Layout, typename Raster>
struct PipelineKernels<PipelinePolicy<W, kStages, kMinBlocks, PackedLoads>, Layout, Raster> {
  static PipelinedKernelFn at(int) {
    return cross_tile_gemm_kernel<PipelinePolicy<W, kStages, kMinBlocks, PackedLoads>, Layout,
                                  Raster, true, false>;
  }
  static PipelinedKernelFn for_args(const PipelineArgs&) { return at(0); }
  static constexpr int kCount = 1;
};

namespace {

constexpr int kPackTile = 32;  // the copy's square tile, through shared memory
constexpr int kPackRows = 8;   // threads per column of a tile: 32×8 threads a block

size_t round_up_256(size_t bytes) { return (bytes + 255) / 256 * 256; }
int64_t round_up_4(int64_t x) { return (x + 3) / 4 * 4; }

// dst (k rows of `outer` floats, ld_dst apart, columns outer … ld_dst − 1 zero) = the k-rows view
// of src: element (r, c) is src[r·ld + c] where src already stores k rows (a copy) and
// src[c·ld + r] where it stores `outer` rows of k (a transpose). Both sides are read and written
// along their contiguous index; the tile's 33-float rows keep the transposed writes into shared
// memory free of bank conflicts.
__global__ void __launch_bounds__(kPackTile * kPackRows)
    pack_k_rows_kernel(const float* src, int ld, bool src_k_rows, int k, int outer, float* dst,
                       int ld_dst) {
  __shared__ float tile[kPackTile][kPackTile + 1];  // [r][c]
  const int tx = threadIdx.x, c0 = blockIdx.x * kPackTile;
  const int k_tiles = (k + kPackTile - 1) / kPackTile;
  for (int kt = blockIdx.y; kt < k_tiles; kt += gridDim.y) {  // grid.y may be fewer than k_tiles
    const int r0 = kt * kPackTile;
    for (int j = threadIdx.y; j < kPackTile; j += kPackRows) {
      if (src_k_rows) {
        const int r = r0 + j, c = c0 + tx;
        tile[j][tx] = r < k && c < outer ? src[static_cast<size_t>(r) * ld + c] : 0.0f;
      } else {
        const int r = r0 + tx, c = c0 + j;
        tile[tx][j] = r < k && c < outer ? src[static_cast<size_t>(c) * ld + r] : 0.0f;
      }
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kPackTile; j += kPackRows) {
      const int r = r0 + j, c = c0 + tx;
      if (r < k && c < ld_dst) dst[static_cast<size_t>(r) * ld_dst + c] = tile[j][tx];
    }
    __syncthreads();  // the tile is refilled for the next kt
  }
}

Status pack_k_rows(const float* src, int ld, bool src_k_rows, int k, int outer, float* dst,
                   int ld_dst, cudaStream_t stream) {
  const unsigned k_tiles = static_cast<unsigned>((k + kPackTile - 1) / kPackTile);
  const dim3 grid(static_cast<unsigned>((ld_dst + kPackTile - 1) / kPackTile),
                  std::min(k_tiles, 65535u));
  pack_k_rows_kernel<<<grid, dim3(kPackTile, kPackRows), 0, stream>>>(src, ld, src_k_rows, k,
                                                                      outer, dst, ld_dst);
  TILEKIT_CUDA_CHECK_LAUNCH("pack_k_rows_kernel");
  return Status::ok();
}

// Which operands a launch copies, and where in the workspace: A's copy first, B's after it,
// split-K's planes last, each 256-byte aligned.
struct PackPlan {
  bool a = false, b = false;
  int lda = 0, ldb = 0;  // the copies' leading dimensions: m and n rounded up to 4
  size_t a_bytes = 0, b_bytes = 0;
  size_t bytes() const { return a_bytes + b_bytes; }
};

// Step 14's own loop reads an operand straight when its memory rows run along k in whole chunks
// (A stored transposed, B not): every other operand is copied. Nothing is read when k = 0.
PackPlan plan_packs(const RowMajorGemm& g) {
  PackPlan plan;
  if (g.m == 0 || g.n == 0 || g.k == 0) return plan;
  const OperandFlags f = operand_flags(g);
  plan.a = !(g.trans_a && whole_chunks(f.vec_a, g.m));
  plan.b = !(!g.trans_b && whole_chunks(f.vec_b, g.n));
  if (plan.a) {
    plan.lda = static_cast<int>(round_up_4(g.m));
    plan.a_bytes = round_up_256(sizeof(float) * static_cast<size_t>(g.k) * plan.lda);
  }
  if (plan.b) {
    plan.ldb = static_cast<int>(round_up_4(g.n));
    plan.b_bytes = round_up_256(sizeof(float) * static_cast<size_t>(g.k) * plan.ldb);
  }
  return plan;
}

size_t split_bytes(const Slices& s, const RowMajorGemm& g) {
  return s.count == 1 ? 0 : sizeof(float) * s.count * static_cast<size_t>(g.m) * g.n;
}

// The copies' offsets, k · round_up(m or n, 4), must fit the kernel's 32-bit indexing too.
Status check_packed_indexing(const GemmProblem& p) {
  TILEKIT_RETURN_IF_ERROR(check_32bit_indexing(p));
  const RowMajorGemm g = to_row_major(p);
  if (g.k * round_up_4(g.m) > INT_MAX || g.k * round_up_4(g.n) > INT_MAX)
    return Status(StatusCode::kNotSupported,
                  "k · round_up(m or n, 4) exceeds 32-bit offsets (the packed copies)");
  return Status::ok();
}

// Copies the operands `plan` names into `base` and points g at the copies: afterwards A is
// stored as k rows of m (trans_a) and B as k rows of n (not trans_b), both in whole chunks.
Status pack_operands(RowMajorGemm* g, const PackPlan& plan, char* base, cudaStream_t stream) {
  if (plan.a) {
    float* a = reinterpret_cast<float*>(base);
    TILEKIT_RETURN_IF_ERROR(pack_k_rows(g->a, g->lda, g->trans_a, g->k, g->m, a, plan.lda, stream));
    g->a = a;
    g->lda = plan.lda;
    g->trans_a = true;
  }
  if (plan.b) {
    float* b = reinterpret_cast<float*>(base + plan.a_bytes);
    TILEKIT_RETURN_IF_ERROR(pack_k_rows(g->b, g->ldb, !g->trans_b, g->k, g->n, b, plan.ldb, stream));
    g->b = b;
    g->ldb = plan.ldb;
    g->trans_b = false;
  }
  return Status::ok();
}

// After packing, step 14's TN kernel runs every problem. Only a copy can have a chunk that
// straddles the edge of m or n (an operand read in place has whole-chunk rows): it is read whole,
// its far elements are the copy's zero pad, and they only reach rows or columns of C that are
// never stored.
template <typename P, typename Layout, typename Raster>
Status launch_packed(const GemmProblem& p, const Context& ctx, Workspace ws) {
  RowMajorGemm g = to_row_major(p);
  const PackPlan plan = plan_packs(g);
  const Slices s = slices_for<P>(p, ctx.device);
  const size_t need = plan.bytes() + split_bytes(s, g);
  if (ws.bytes < need)
    return Status(StatusCode::kInternal, "packed operands: workspace of " +
                                             std::to_string(ws.bytes) + " bytes, " +
                                             std::to_string(need) + " needed");
  char* base = static_cast<char*>(ws.data);
  TILEKIT_RETURN_IF_ERROR(pack_operands(&g, plan, base, ctx.stream));
  PipelineArgs args = whole_k_args(g, P::kBm, P::kBn);
  if (s.count > 1) {
    args.k_slice = s.k;
    args.partials = reinterpret_cast<float*>(base + plan.bytes());
  }
  TILEKIT_RETURN_IF_ERROR((launch_pipelined<P, Layout, Raster>(args, s.count, ctx.stream)));
  if (s.count == 1) return Status::ok();
  return sum_slices(args.partials, s.count, g, ctx.device, ctx.stream);
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
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_packed_indexing(p); };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    const RowMajorGemm g = to_row_major(p);
    return plan_packs(g).bytes() + split_bytes(slices_for<P>(p, d != nullptr ? d->index : 0), g);
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
