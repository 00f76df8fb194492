// gemm_10_split_k.cu — step 10 of the GEMM ladder.
// Adds:     split-K for shapes with too few C tiles to fill the GPU (small m·n, large k: 64×4096,
//           256×8192 by 8192, squares up to ~1024). k is cut into `slices` ranges of whole
//           k-tiles; grid.z = slices, so slices × tiles blocks run instead of tiles. Each slice
//           writes its raw sums to its own FP32 plane of the workspace (never to C, never with
//           atomics); a second kernel adds the planes in slice order and applies alpha and beta
//           (beta = 0 never reads C), four columns a thread where C's rows allow float4. The
//           result is the same bits on every run. The second kernel is launched as a
//           programmatic dependent of the first (sm_90+, dependent_launch.cuh), so its launch
//           overlaps the GEMM grid's last blocks instead of following them.
//           slices = min(resident blocks / tiles, k / 64), 1 when the tiles already fill one
//           wave, unless the problem names a count (GemmProblem::split_k: the autotuner measures
//           2, 4, … 128 and keeps the fastest per shape, docs/tuning.md); with one slice it is
//           step 09 exactly (no workspace, no second kernel).
// Requires: float32; sm_80+; any m, n, k >= 0; any layout, op and ld (32-bit offsets); a
//           workspace of slices·m·n floats (workspace_bytes).
// Expect:   ≥ 2× step 09 where tiles < SMs (64×4096×4096: 32 tiles on 132 SMs); nothing
//           elsewhere. The extra pass costs slices·m·n·4 bytes read + m·n written. Measured
//           (H200): 64×4096×4096 3.9 → 31.2 TFLOP/s (0.85× cuBLAS); n = 512 2.5 → 11.1 with the
//           128×256 tile; with the tuner's choice 1.20× / 0.985× / 1.02× cuBLAS at n = 256 /
//           512 / 1024 (1.03× / 0.90× / 0.97× before the dependent launch and float4 sum).
//           Tiles 16 deep in k (H200, same-run ratios; docs/results.md): 128×128×16 (two a
//           SM) is the fastest own FP32 kernel at 1024 (1.05×), 8192 (0.88×), 3456×4096×4096
//           (0.86×), 8192×8192×256 (1.04×), 4096×4096×64 (1.08×), 16384×16384×128 (1.08×) and
//           256×8192×8192 (0.95×), level with step 12's 128×256 at 4096 (0.87×); 64×128×16
//           (three a SM) at 4097 (0.89×) and 64×4096×4096 (0.87×, 0.88× tuned); 128×256×16
//           at 4096 NT (0.87×).
#include <algorithm>
#include <cstdint>

#include "cuda/common/dependent_launch.cuh"
#include "cuda/gemm/ladder/split_k.cuh"
#include "cuda/gemm/ladder/swizzle_raster.cuh"

namespace tilekit::cuda {
namespace {

using Warp128x256x8 = WarpTilePolicy<128, 256, 8, 2, 4, 8, 8, 16>;
using Warp128x128x8 = WarpTilePolicy<128, 128, 8, 2, 4, 8, 8, 8>;
using Warp64x64x16 = WarpTilePolicy<64, 64, 16, 2, 2, 4, 8, 4>;
using Warp64x128x16 = WarpTilePolicy<64, 128, 16, 2, 2, 4, 8, 8>;
using Warp128x128x16 = WarpTilePolicy<128, 128, 16, 2, 4, 8, 8, 8>;
using Warp128x256x16 = WarpTilePolicy<128, 256, 16, 2, 4, 8, 8, 16>;

template <typename P, typename Layout, typename Raster>
GemmKernel make_step_10_entry(int auto_rank) {
  EntrySpec s = cuda_spec("ladder", "10_split_k", 10);
  s.suffix = "_splitk";
  s.auto_rank = auto_rank;
  return make_split_k_entry<P, Layout, Raster>(s);
}

}  // namespace

// C = alpha·(plane 0 + plane 1 + …) + beta·C, the planes added in order: the same bits every run.
// Both kernels are launched as programmatic dependents of the GEMM grid (dependent_launch.cuh):
// they may be scheduled while its last blocks run, and wait for it before reading a plane.
namespace {

// One element of C a thread: any n, ldc and alignment.
__global__ void sum_slices_kernel(const float* __restrict__ partials, int slices, int m, int n,
                                  float* c, int ldc, float alpha, float beta) {
  wait_for_previous_grid();
  const size_t plane = static_cast<size_t>(m) * n;
  for (size_t idx = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; idx < plane;
       idx += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float sum = partials[idx];
    for (int z = 1; z < slices; ++z) sum += partials[z * plane + idx];
    float* out = c + (idx / n) * ldc + idx % n;
    *out = beta == 0.0f ? alpha * sum : alpha_acc_beta_c(alpha, sum, beta, *out);
  }
}

// Four columns of C a thread, one float4 per plane, where C's rows allow it (n and ldc multiples
// of 4, C 16-byte aligned): a quarter of the loads and stores, and a 32-bit division for the row.
// Each lane adds and rounds as sum_slices_kernel does, so either kernel gives the same bits.
__global__ void sum_slices_float4_kernel(const float4* __restrict__ partials, int slices,
                                         unsigned quads, unsigned quads_per_row, float* c, int ldc,
                                         float alpha, float beta) {
  wait_for_previous_grid();
  for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
    float4 sum = partials[q];
#pragma unroll 4  // four planes' loads in flight
    for (int z = 1; z < slices; ++z) {
      const float4 p = partials[static_cast<size_t>(z) * quads + q];
      sum.x += p.x;
      sum.y += p.y;
      sum.z += p.z;
      sum.w += p.w;
    }
    const unsigned row = q / quads_per_row;
    float4* out = reinterpret_cast<float4*>(c + static_cast<size_t>(row) * ldc) +
                  (q - row * quads_per_row);
    if (beta == 0.0f) {
      *out = make_float4(alpha * sum.x, alpha * sum.y, alpha * sum.z, alpha * sum.w);
    } else {
      const float4 o = *out;
      *out = make_float4(alpha_acc_beta_c(alpha, sum.x, beta, o.x),
                         alpha_acc_beta_c(alpha, sum.y, beta, o.y),
                         alpha_acc_beta_c(alpha, sum.z, beta, o.z),
                         alpha_acc_beta_c(alpha, sum.w, beta, o.w));
    }
  }
}

constexpr unsigned kSumThreads = 256, kSumMaxBlocks = 8192;

unsigned sum_blocks(size_t items) {
  return static_cast<unsigned>(
      std::min<size_t>((items + kSumThreads - 1) / kSumThreads, kSumMaxBlocks));
}

}  // namespace

Status sum_slices(const float* partials, int slices, const RowMajorGemm& g, int device,
                  cudaStream_t stream) {
  const size_t plane = static_cast<size_t>(g.m) * g.n;
  // (The plane fits unsigned quads: step 10 refuses a C span past 2^31 − 1, check_32bit_indexing.)
  if (g.n % 4 == 0 && g.ldc % 4 == 0 && reinterpret_cast<uintptr_t>(g.c) % sizeof(float4) == 0) {
    const unsigned quads = static_cast<unsigned>(plane / 4);
    return launch_as_dependent<sum_slices_float4_kernel>(
        "sum_slices_float4_kernel", sum_blocks(quads), kSumThreads, 0, stream, device,
        reinterpret_cast<const float4*>(partials), slices, quads, static_cast<unsigned>(g.n / 4),
        g.c, g.ldc, g.alpha, g.beta);
  }
  return launch_as_dependent<sum_slices_kernel>("sum_slices_kernel", sum_blocks(plane),
                                                kSumThreads, 0, stream, device, partials, slices,
                                                g.m, g.n, g.c, g.ldc, g.alpha, g.beta);
}

// gemm.cuda.10_split_k.f32.<tile>_w<warps>_t<thread tile>_s<stages>_splitk
void register_gemm_10_split_k(Registry& r) {
  using Grouped = GroupedRaster<8>;
  // 16-deep k-tiles: half the barriers and stage switches per FFMA of the 8-deep ones. The
  // 128×128×16 tile (two blocks a SM) leads or ties at more shapes than any other tile (H100: 7
  // of 14; H200: 8 of 13 and level at 4096), so `auto` takes it first where nothing was tuned;
  // the others where the tuner measures them faster (docs/ladder.md, "Step 10's tiles").
  r.add(make_step_10_entry<PipelinePolicy<Warp128x128x16, 3, 2>, PaddedLayout, Grouped>(18));
  r.add(make_step_10_entry<PipelinePolicy<Warp128x256x8, 2, 1>, PaddedLayout, Grouped>(17));
  r.add(make_step_10_entry<PipelinePolicy<Warp128x128x8, 3, 2>, PaddedLayout, Grouped>(16));
  r.add(make_step_10_entry<PipelinePolicy<Warp64x64x16, 4, 4>, PaddedLayout, Grouped>(10));
  r.add(make_step_10_entry<PipelinePolicy<Warp64x128x16, 3, 3>, PaddedLayout, Grouped>(9));
  r.add(make_step_10_entry<PipelinePolicy<Warp128x256x16, 2, 1>, PaddedLayout, Grouped>(8));
}

}  // namespace tilekit::cuda
