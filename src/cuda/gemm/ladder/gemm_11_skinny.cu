// gemm_11_skinny.cu — step 11 of the GEMM ladder.
// Adds:     a path for C with a handful of rows (m ≤ 8 in the row-major view: a row vector, or a
//           few, times a matrix). Such a GEMM reads all of B once and does only 2·m FLOPs per
//           element of it: it is bound by memory bandwidth, and a tiled kernel wastes 127 of its
//           128 tile rows and leaves most SMs idle (10_split_k: 0.34× cuBLAS at 1×4096×4096).
//           Here each thread owns 4 adjacent columns of C and streams float4 rows of B through
//           registers (no shared memory); k is cut into slices over grid.y so that ~4 blocks
//           per SM keep enough loads in flight, and the slices' partial rows are added by step
//           10's deterministic reduction (same bits every run, no atomics).
// Requires: float32; m ≤ 8 rows of C in the row-major view and B's rows along n (op(B) = B
//           row-major, or Bᵀ column-major); any n, k, ld and op(A) (32-bit offsets).
// Expect:   close to the bytes of B over the copy bandwidth (≈ 16 µs at 1×4096×4096 on the H200)
//           plus one short reduction. Measured: 44 µs (0.52× cuBLAS; ncu: this kernel 35 µs at
//           41% of DRAM bandwidth, the reduction 11.6 µs); 1.62× cuBLAS at 4×4096×4096.
#include <algorithm>

#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kMaxRows = 8;
constexpr int kThreads = 256;
constexpr int kColumnsPerThread = 4;
constexpr int kMinSliceK = 16;

struct SkinnyPlan {
  int col_blocks = 1, slices = 1, k_slice = 0;
};

// ~4 blocks per SM in all (or the problem's split_k, set by the tuner), no slice shorter than
// kMinSliceK rows of B.
SkinnyPlan plan_for(const RowMajorGemm& g, int sms, int requested) {
  SkinnyPlan s;
  const int64_t threads = (static_cast<int64_t>(g.n) + kColumnsPerThread - 1) / kColumnsPerThread;
  s.col_blocks = static_cast<int>((threads + kThreads - 1) / kThreads);
  int64_t slices = requested > 0 ? requested
                                 : std::max<int64_t>(1, 4LL * std::max(sms, 1) / s.col_blocks);
  slices = std::max<int64_t>(1, std::min<int64_t>({slices, (g.k + kMinSliceK - 1) / kMinSliceK, 65535}));
  s.k_slice = static_cast<int>((g.k + slices - 1) / slices);
  s.slices = static_cast<int>((g.k + s.k_slice - 1) / s.k_slice);  // no empty slice
  return s;
}

constexpr int kBatch = 8;  // rows of B in flight per thread: loads first, then the FMAs

template <bool kWhole>
__device__ __forceinline__ float4 load_b_row(const RowMajorGemm& g, int p, int j) {
  const float* row = g.b + p * g.ldb + j;
  if (kWhole) return __ldg(reinterpret_cast<const float4*>(row));
  return make_float4(row[0], j + 1 < g.n ? row[1] : 0.0f, j + 2 < g.n ? row[2] : 0.0f,
                     j + 3 < g.n ? row[3] : 0.0f);
}

// acc[r][·] += op(A)(r, p) · B(p, j … j+3) over p in [k_begin, k_end), kBatch rows of B at a time
// so that their loads overlap (one load, then its FMAs, would wait a full memory latency per row).
template <bool kWhole, bool kTransA>
__device__ __forceinline__ void accumulate(const RowMajorGemm& g, int j, int k_begin, int k_end,
                                           float (&acc)[kMaxRows][kColumnsPerThread]) {
  for (int p0 = k_begin; p0 < k_end; p0 += kBatch) {
    float4 b[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      b[u] = p0 + u < k_end ? load_b_row<kWhole>(g, p0 + u, j) : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int p = min(p0 + u, k_end - 1);  // past k_end b[u] is zero: any valid A element will do
#pragma unroll
      for (int r = 0; r < kMaxRows; ++r)
        if (r < g.m) {
          const float a = __ldg(&g.a[kTransA ? p * g.lda + r : r * g.lda + p]);  // same for all
          acc[r][0] += a * b[u].x, acc[r][1] += a * b[u].y;
          acc[r][2] += a * b[u].z, acc[r][3] += a * b[u].w;
        }
    }
  }
}

// Thread t of the grid owns columns 4t … 4t+3 of every row of C (partial over its k slice).
template <bool kTransA>
__global__ void __launch_bounds__(kThreads)
    skinny_rows_kernel(RowMajorGemm g, bool vec_b, int k_slice, float* partials) {
  const int j = (blockIdx.x * kThreads + threadIdx.x) * kColumnsPerThread;
  if (j >= g.n) return;  // no barriers below
  const int k_begin = blockIdx.y * k_slice, k_end = min(g.k, k_begin + k_slice);
  float acc[kMaxRows][kColumnsPerThread] = {};
  if (vec_b && j + 3 < g.n)
    accumulate<true, kTransA>(g, j, k_begin, k_end, acc);
  else
    accumulate<false, kTransA>(g, j, k_begin, k_end, acc);
#pragma unroll
  for (int r = 0; r < kMaxRows; ++r)
#pragma unroll
    for (int q = 0; q < kColumnsPerThread; ++q)
      if (r < g.m && j + q < g.n) {
        if (partials != nullptr)
          partials[(static_cast<size_t>(blockIdx.y) * g.m + r) * g.n + j + q] = acc[r][q];
        else
          store_c(g, r, j + q, acc[r][q]);
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

Status launch_skinny(const GemmProblem& p, const Context& ctx, Workspace ws) {
  const RowMajorGemm g = to_row_major(p);
  const SkinnyPlan s = plan_for(g, sm_count(ctx.device), p.split_k);
  const bool vec_b = aligned16(g.b) && g.ldb % 4 == 0;
  float* partials = nullptr;
  if (s.slices > 1) {
    const size_t need = sizeof(float) * s.slices * static_cast<size_t>(g.m) * g.n;
    if (ws.bytes < need)
      return Status(StatusCode::kInternal, "skinny: workspace of " + std::to_string(ws.bytes) +
                                               " bytes, " + std::to_string(need) + " needed");
    partials = static_cast<float*>(ws.data);
  }
  const dim3 grid(static_cast<unsigned>(s.col_blocks), static_cast<unsigned>(s.slices));
  if (g.trans_a)
    skinny_rows_kernel<true><<<grid, kThreads, 0, ctx.stream>>>(g, vec_b, s.k_slice, partials);
  else
    skinny_rows_kernel<false><<<grid, kThreads, 0, ctx.stream>>>(g, vec_b, s.k_slice, partials);
  TILEKIT_CUDA_CHECK_LAUNCH("skinny_rows_kernel");
  return partials == nullptr ? Status::ok() : sum_slices(partials, s.slices, g, ctx.stream);
}

}  // namespace

// gemm.cuda.11_skinny.f32
void register_gemm_11_skinny(Registry& r) {
  EntrySpec s = cuda_spec("ladder", "11_skinny", 11);
  s.tiling.block_m = kMaxRows;
  s.tiling.block_n = kThreads * kColumnsPerThread;
  s.tiling.threads = kThreads;
  s.tiling.split_k = -1;  // chosen per shape
  s.tile = "m<=8 rows x 1024 columns, 4 columns/thread, k sliced";
  s.requirements = "m <= 8 (row-major view), B's rows along n; any n, k, ld";
  s.auto_rank = 19;  // where it applies, the memory-bound path beats every tiled kernel
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_skinny(p); };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo* d) -> size_t {
    const RowMajorGemm g = to_row_major(p);
    const SkinnyPlan s = plan_for(g, d != nullptr ? d->sm_count : 1, p.split_k);
    return s.slices == 1 ? 0 : sizeof(float) * s.slices * static_cast<size_t>(g.m) * g.n;
  };
  k.launch = launch_skinny;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&skinny_rows_kernel<false>), kThreads, 0,
                            out);
  };
  r.add(std::move(k));
}

}  // namespace tilekit::cuda
