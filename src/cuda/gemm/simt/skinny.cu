// skinny.cu — the SIMT family's kernel for C with a handful of rows (m ≤ 8 in the row-major view:
// a row vector, or a few, times a matrix). Such a GEMM reads all of B once and does only 2·m
// FLOPs per element of it: it is bound by memory bandwidth, and a tiled kernel wastes most of its
// tile rows and leaves most SMs idle. Here a block owns a strip of 128 columns of C: each lane of
// its 8 warps streams float4 pieces of B's rows through registers (no shared memory for B; a warp
// reads 512 contiguous bytes of a row), the warps taking every 8th row of the block's k range. k
// is cut into slices over grid.y so that 2 blocks of 8 warps per SM keep enough loads in flight.
// The reduction stays in the kernel: the warps' sums are added in shared memory, each slice
// publishes its strip's sums, and the strip's last block to arrive (an integer counter, zeroed
// before the launch) adds the slices in slice order — same bits every run, no float atomics, no
// second pass over a workspace.
// Requires: float32; m ≤ 8 rows of C in the row-major view and B's rows along n (op(B) = B
//           row-major, or Bᵀ column-major); any n, k, ld and op(A) (32-bit offsets).
// Cost:     the bytes of B over the copy bandwidth plus a fixed cost per call (launch, memset of
//           the counters, the first loads' latency, the reduction's round trips through L2);
//           docs/ladder.md has the measurements.
#include <algorithm>

#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"
#include "cuda/gemm/simt/instances.cuh"
#include "cuda/gemm/simt/skinny.hpp"

namespace tilekit::cuda {
namespace {

constexpr int kMaxRows = 8;
constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kColumnsPerLane = 4;                   // one float4 of a row of B
constexpr int kStripColumns = 32 * kColumnsPerLane;  // a warp reads 512 contiguous bytes
constexpr int kBatch = 8;                            // rows of B in flight per lane
constexpr int kMinSliceK = kWarps * 4;               // no warp gets fewer than 4 rows
constexpr int kBlocksPerSm = 2;  // measured: 2 ≥ 4 > 8 (more slices cost more than they hide)

struct SkinnyPlan {
  int strips = 1, slices = 1, k_slice = 0;
};

// kBlocksPerSm blocks per SM in all (or the problem's split_k, set by the tuner), no slice
// shorter than kMinSliceK rows of B.
SkinnyPlan plan_for(const RowMajorGemm& g, int sms, int requested) {
  SkinnyPlan s;
  s.strips = static_cast<int>((static_cast<int64_t>(g.n) + kStripColumns - 1) / kStripColumns);
  int64_t slices =
      requested > 0
          ? requested
          : std::max<int64_t>(1, int64_t{kBlocksPerSm} * std::max(sms, 1) / std::max(s.strips, 1));
  slices =
      std::max<int64_t>(1, std::min<int64_t>({slices, (g.k + kMinSliceK - 1) / kMinSliceK, 65535}));
  s.k_slice = static_cast<int>((g.k + slices - 1) / slices);
  s.slices =
      s.k_slice == 0 ? 1 : static_cast<int>((g.k + s.k_slice - 1) / s.k_slice);  // none empty
  return s;
}

// The workspace: one arrival counter per strip (zeroed by the launch), then the slices' sums.
struct SkinnyWorkspace {
  size_t counter_bytes = 0, partial_bytes = 0;
  size_t total() const { return counter_bytes + partial_bytes; }
};

SkinnyWorkspace workspace_for(const RowMajorGemm& g, const SkinnyPlan& s) {
  if (s.slices == 1) return {};
  const size_t counters = sizeof(unsigned) * static_cast<size_t>(s.strips);
  return {(counters + 255) / 256 * 256, sizeof(float) * s.slices * static_cast<size_t>(g.m) * g.n};
}

template <bool kWhole>
__device__ __forceinline__ float4 load_b_row(const RowMajorGemm& g, int p, int j) {
  const float* row = g.b + p * g.ldb + j;
  if (kWhole) return __ldg(reinterpret_cast<const float4*>(row));
  return make_float4(row[0], j + 1 < g.n ? row[1] : 0.0f, j + 2 < g.n ? row[2] : 0.0f,
                     j + 3 < g.n ? row[3] : 0.0f);
}

// acc[r][·] += op(A)(r, p) · B(p, j … j+3) over the rows p = first, first + kWarps, … < k_end,
// kBatch rows of B at a time so that their loads overlap (one load, then its FMAs, would wait a
// full memory latency per row).
template <int kRows, bool kWhole, bool kTransA>
__device__ __forceinline__ void accumulate(const RowMajorGemm& g, int j, int first, int k_end,
                                           float (&acc)[kRows][kColumnsPerLane]) {
  for (int p0 = first; p0 < k_end; p0 += kWarps * kBatch) {
    float4 b[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int p = p0 + u * kWarps;
      b[u] = p < k_end ? load_b_row<kWhole>(g, p, j) : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int p = min(p0 + u * kWarps, k_end - 1);  // past k_end b[u] is zero: any A will do
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const float a = __ldg(&g.a[kTransA ? p * g.lda + r : r * g.lda + p]);  // same for all
        acc[r][0] += a * b[u].x, acc[r][1] += a * b[u].y;
        acc[r][2] += a * b[u].z, acc[r][3] += a * b[u].w;
      }
    }
  }
}

// Adds the kWarps warps' sums of row r, column col of the strip, in warp order.
template <int kRows>
__device__ __forceinline__ float sum_of_warps(const float (&sums)[kWarps][kRows][kStripColumns],
                                              int r, int col) {
  float s = sums[0][r][col];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) s += sums[w][r][col];
  return s;
}

// slot[0] + slot[plane] + … over the gridDim.y slices, in slice order. The loads go kBatch at a
// time ahead of their adds (one load, then its add, would wait an L2 round trip per slice), and
// through L2 (__ldcg): other SMs wrote them, so this SM's L1 holds nothing valid.
__device__ __forceinline__ float sum_of_slices(const float* slot, size_t plane) {
  float s = -0.0f;  // -0 + x == x for every x: the sum is exactly slot[0] + slot[plane] + …
  for (unsigned z0 = 0; z0 < gridDim.y; z0 += kBatch) {
    float v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (z0 + u < gridDim.y) v[u] = __ldcg(slot + (z0 + u) * plane);
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (z0 + u < gridDim.y) s += v[u];
  }
  return s;
}

// Block (strip x, slice y): C's columns [128x, 128x + 128) over k rows [y·k_slice, …). With one
// slice it stores C; otherwise it publishes its sums, and the strip's last block stores C.
template <int kRows, bool kTransA>
__global__ void __launch_bounds__(kThreads)
    skinny_rows_kernel(RowMajorGemm g, bool vec_b, int k_slice, unsigned* arrivals,
                       float* partials) {
  __shared__ float sums[kWarps][kRows][kStripColumns];
  __shared__ bool last_to_arrive;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int strip = blockIdx.x * kStripColumns, j = strip + lane * kColumnsPerLane;
  const int k_begin = blockIdx.y * k_slice, k_end = min(g.k, k_begin + k_slice);
  float acc[kRows][kColumnsPerLane] = {};
  if (vec_b && j + 3 < g.n)
    accumulate<kRows, true, kTransA>(g, j, k_begin + warp, k_end, acc);
  else if (j < g.n)
    accumulate<kRows, false, kTransA>(g, j, k_begin + warp, k_end, acc);
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int q = 0; q < kColumnsPerLane; ++q) sums[warp][r][lane * kColumnsPerLane + q] = acc[r][q];
  __syncthreads();

  const size_t plane = static_cast<size_t>(kRows) * g.n;
  for (int e = threadIdx.x; e < kRows * kStripColumns; e += kThreads) {
    const int r = e / kStripColumns, col = strip + e % kStripColumns;
    if (col >= g.n) continue;
    const float s = sum_of_warps<kRows>(sums, r, col - strip);
    if (gridDim.y == 1)
      store_c(g, r, col, s);
    else
      partials[blockIdx.y * plane + static_cast<size_t>(r) * g.n + col] = s;
  }
  if (gridDim.y == 1) return;

  // Publish, then count arrivals: the block that brings the count to gridDim.y sees every
  // slice's sums (each block's fence orders its stores before its arrival).
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_to_arrive = atomicAdd(&arrivals[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last_to_arrive) return;
  __threadfence();
  for (int e = threadIdx.x; e < kRows * kStripColumns; e += kThreads) {
    const int r = e / kStripColumns, col = strip + e % kStripColumns;
    if (col >= g.n) continue;
    store_c(g, r, col, sum_of_slices(partials + static_cast<size_t>(r) * g.n + col, plane));
  }
}

Status check_skinny(const GemmProblem& p) {
  TILEKIT_RETURN_IF_ERROR(check_32bit_indexing(p));
  const RowMajorGemm g = to_row_major(p);
  if (g.m > kMaxRows)
    return not_supported("for C with at most " + std::to_string(kMaxRows) +
                         " rows in the row-major view; it has " + std::to_string(g.m));
  if (g.trans_b)
    return not_supported("needs B's rows along n (op(B) = B row-major or Bᵀ column-major)");
  return Status::ok();
}

int sm_count(int device) {
  int sms = 0;
  return cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess ? sms
                                                                                             : 1;
}

template <int kRows, bool kTransA>
void launch_rows(const RowMajorGemm& g, const SkinnyPlan& s, bool vec_b, unsigned* arrivals,
                 float* partials, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(s.strips), static_cast<unsigned>(s.slices));
  skinny_rows_kernel<kRows, kTransA>
      <<<grid, kThreads, 0, stream>>>(g, vec_b, s.k_slice, arrivals, partials);
}

// One instantiation per row count (1 … kMaxRows): a row vector keeps 4 accumulators, not 32.
template <bool kTransA, int kRows = 1>
void launch_for_rows(const RowMajorGemm& g, const SkinnyPlan& s, bool vec_b, unsigned* arrivals,
                     float* partials, cudaStream_t stream) {
  if constexpr (kRows < kMaxRows) {
    if (g.m != kRows)
      return launch_for_rows<kTransA, kRows + 1>(g, s, vec_b, arrivals, partials, stream);
  }
  launch_rows<kRows, kTransA>(g, s, vec_b, arrivals, partials, stream);
}

Status launch_skinny(const GemmProblem& p, const Context& ctx, Workspace ws) {
  const RowMajorGemm g = to_row_major(p);
  if (g.m == 0 || g.n == 0) return Status::ok();  // an empty grid is not a launch
  const SkinnyPlan s = plan_for(g, sm_count(ctx.device), p.split_k);
  const SkinnyWorkspace layout = workspace_for(g, s);
  const bool vec_b = aligned16(g.b) && g.ldb % 4 == 0;
  unsigned* arrivals = nullptr;
  float* partials = nullptr;
  if (s.slices > 1) {
    if (ws.bytes < layout.total())
      return Status(StatusCode::kInternal, "skinny: workspace of " + std::to_string(ws.bytes) +
                                               " bytes, " + std::to_string(layout.total()) +
                                               " needed");
    arrivals = static_cast<unsigned*>(ws.data);
    partials = reinterpret_cast<float*>(static_cast<char*>(ws.data) + layout.counter_bytes);
    TILEKIT_CUDA_TRY(cudaMemsetAsync(arrivals, 0, sizeof(unsigned) * s.strips, ctx.stream));
  }
  if (g.trans_a)
    launch_for_rows<true>(g, s, vec_b, arrivals, partials, ctx.stream);
  else
    launch_for_rows<false>(g, s, vec_b, arrivals, partials, ctx.stream);
  TILEKIT_CUDA_CHECK_LAUNCH("skinny_rows_kernel");
  return Status::ok();
}

}  // namespace

// The row's spec in `s` (instances.cuh); the tiling, limits and launch are this kernel's.
GemmKernel make_skinny_entry(EntrySpec s) {
  s.tiling.block_m = kMaxRows;
  s.tiling.block_n = kStripColumns;
  s.tiling.threads = kThreads;
  s.tiling.split_k = -1;  // chosen per shape
  s.tile = "m<=8 rows x 128 columns, 8 warps along k, k sliced";
  s.requirements = "m <= 8 (row-major view), B's rows along n; any n, k, ld";
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_skinny(p); };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    const RowMajorGemm g = to_row_major(p);
    return workspace_for(g, plan_for(g, d != nullptr ? d->sm_count : 1, p.split_k)).total();
  };
  k.launch = launch_skinny;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&skinny_rows_kernel<kMaxRows, false>),
                            kThreads, 0, out);
  };
  return k;
}

}  // namespace tilekit::cuda

namespace tilekit::cuda::simt {

void make_skinny_rows(std::vector<IndexedEntry>* out) {
  add_rows_of<Mainloop::kSkinnyRows>(out, [](auto row_index) {
    return make_skinny_entry(instance_spec(kInstances[decltype(row_index)::value]));
  });
}

}  // namespace tilekit::cuda::simt
