// gemm_05_register_blocked.cu — step 5 of the GEMM ladder (UCSD CSE 260 PA2; Volkov's design).
// Adds:     register blocking. A block computes a 64×64 tile of C from 64×16 (A) and 16×64 (B)
//           tiles in shared memory (TW = 16); each thread keeps a TM×TN sub-tile of C in
//           registers (4×4 with 16×16 threads), so every value read from shared memory feeds
//           TM or TN FMAs instead of one. A is stored transposed in shared memory so a thread's
//           TM values of A (and TN of B) are contiguous: 128-bit shared loads.
//           Interior blocks run without bounds checks; only edge blocks and the last partial
//           k-tile check (the fast path for multiples of 64, the boundary path otherwise).
// Requires: float32; any m, n, k >= 0; any layout and op (32-bit offsets).
// Expect:   ≈ 30 TFLOP/s on an H200 at 4096 with 16×16 threads, ≈ 36 with 16×8 (8×4 per
//           thread: more reuse per shared load); the seed's design measured 23. No overlap of
//           global loads with math yet (one buffer, two barriers per k-tile): cuBLAS's 51 adds
//           double buffering, warp tiling and larger tiles.
#include "core/schedules/one_block_per_tile.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {
namespace {

// Tile parameters; the kernel id is generated from them.
template <int kThreadsX, int kThreadsY>
struct RegisterBlockedPolicy {
  static constexpr int kBm = 64, kBn = 64, kBk = 16;  // C tile and k-depth (TW)
  static constexpr int kBlockX = kThreadsX, kBlockY = kThreadsY;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kTm = kBm / kThreadsY;  // rows of C per thread
  static constexpr int kTn = kBn / kThreadsX;  // columns of C per thread
  static constexpr int kPadA = 4;  // keeps 16-byte alignment of s_a rows, spreads its stores
  static_assert(kBm % kThreadsY == 0 && kBn % kThreadsX == 0, "threads must tile the C tile");
  static_assert(kTm % 4 == 0 && kTn % 4 == 0, "fragments are read as float4");
  static_assert((kBm * kBk) % kThreads == 0 && (kBk * kBn) % kThreads == 0,
                "every thread loads the same number of elements");

  // The id's policy segment ("64x64x16_t4x4") and the structured tile, from the constants.
  static std::string suffix() {
    return std::to_string(kBm) + "x" + std::to_string(kBn) + "x" + std::to_string(kBk) + "_t" +
           std::to_string(kTm) + "x" + std::to_string(kTn);
  }
  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm, t.block_n = kBn, t.block_k = kBk;
    t.thread_m = kTm, t.thread_n = kTn;
    t.threads = kThreads;
    return t;
  }
};

template <typename P, bool kTransA, bool kTransB, bool kCheckMN, bool kCheckK>
__device__ __forceinline__ void load_tiles(const RowMajorGemm& g, float (*s_a)[P::kBm + P::kPadA],
                                           float (*s_b)[P::kBn], int row0, int col0, int t) {
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < P::kBm * P::kBk / P::kThreads; ++r) {
    const int idx = tid + r * P::kThreads;
    // Consecutive threads take consecutive addresses of A in memory: along k for A, along m for Aᵀ.
    const int i = kTransA ? idx % P::kBm : idx / P::kBk;
    const int p = kTransA ? idx / P::kBm : idx % P::kBk;
    const bool ok = (!kCheckMN || row0 + i < g.m) && (!kCheckK || t + p < g.k);
    s_a[p][i] = ok ? op_element<kTransA>(g.a, g.lda, row0 + i, t + p) : 0.0f;
  }
#pragma unroll
  for (int r = 0; r < P::kBk * P::kBn / P::kThreads; ++r) {
    const int idx = tid + r * P::kThreads;
    const int p = kTransB ? idx % P::kBk : idx / P::kBn;
    const int j = kTransB ? idx / P::kBk : idx % P::kBn;
    const bool ok = (!kCheckMN || col0 + j < g.n) && (!kCheckK || t + p < g.k);
    s_b[p][j] = ok ? op_element<kTransB>(g.b, g.ldb, t + p, col0 + j) : 0.0f;
  }
}

template <typename P>
__device__ __forceinline__ void multiply_tiles(const float (*s_a)[P::kBm + P::kPadA],
                                               const float (*s_b)[P::kBn],
                                               float (&r_acc)[P::kTm][P::kTn]) {
  const int row = threadIdx.y * P::kTm, col = threadIdx.x * P::kTn;
#pragma unroll
  for (int p = 0; p < P::kBk; ++p) {
    float r_a[P::kTm], r_b[P::kTn];
#pragma unroll
    for (int r = 0; r < P::kTm; r += 4) {
      const float4 v = *reinterpret_cast<const float4*>(&s_a[p][row + r]);
      r_a[r] = v.x, r_a[r + 1] = v.y, r_a[r + 2] = v.z, r_a[r + 3] = v.w;
    }
#pragma unroll
    for (int c = 0; c < P::kTn; c += 4) {
      const float4 v = *reinterpret_cast<const float4*>(&s_b[p][col + c]);
      r_b[c] = v.x, r_b[c + 1] = v.y, r_b[c + 2] = v.z, r_b[c + 3] = v.w;
    }
#pragma unroll
    for (int r = 0; r < P::kTm; ++r)
#pragma unroll
      for (int c = 0; c < P::kTn; ++c) r_acc[r][c] += r_a[r] * r_b[c];
  }
}

template <typename P, bool kTransA, bool kTransB, bool kCheckMN>
__device__ __forceinline__ void block_gemm(const RowMajorGemm& g, float (*s_a)[P::kBm + P::kPadA],
                                           float (*s_b)[P::kBn]) {
  const int row0 = blockIdx.y * P::kBm, col0 = blockIdx.x * P::kBn;
  float r_acc[P::kTm][P::kTn] = {};
  const int k_full = g.k / P::kBk * P::kBk;
  for (int t = 0; t < k_full; t += P::kBk) {
    load_tiles<P, kTransA, kTransB, kCheckMN, false>(g, s_a, s_b, row0, col0, t);
    __syncthreads();
    multiply_tiles<P>(s_a, s_b, r_acc);
    __syncthreads();
  }
  if (k_full < g.k) {  // the last, partial k-tile: zero-filled past k
    load_tiles<P, kTransA, kTransB, kCheckMN, true>(g, s_a, s_b, row0, col0, k_full);
    __syncthreads();
    multiply_tiles<P>(s_a, s_b, r_acc);
  }
#pragma unroll
  for (int r = 0; r < P::kTm; ++r) {
    const int i = row0 + threadIdx.y * P::kTm + r;
#pragma unroll
    for (int c = 0; c < P::kTn; ++c) {
      const int j = col0 + threadIdx.x * P::kTn + c;
      if (!kCheckMN || (i < g.m && j < g.n)) store_c(g, i, j, r_acc[r][c]);
    }
  }
}

template <typename P, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(P::kThreads) register_blocked_gemm_kernel(RowMajorGemm g) {
  __shared__ __align__(16) float s_a[P::kBk][P::kBm + P::kPadA];  // A tile, transposed
  __shared__ __align__(16) float s_b[P::kBk][P::kBn];
  const bool interior = (blockIdx.y + 1) * P::kBm <= static_cast<unsigned>(g.m) &&
                        (blockIdx.x + 1) * P::kBn <= static_cast<unsigned>(g.n);
  if (interior)
    block_gemm<P, kTransA, kTransB, false>(g, s_a, s_b);
  else
    block_gemm<P, kTransA, kTransB, true>(g, s_a, s_b);
}

template <typename P>
Status launch_register_blocked(const GemmProblem& p, const Context& ctx, Workspace) {
  const RowMajorGemm g = to_row_major(p);
  const dim3 block(P::kBlockX, P::kBlockY);
  const dim3 grid(ceil_div(g.n, P::kBn), ceil_div(g.m, P::kBm));
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    register_blocked_gemm_kernel<P, decltype(ta)::value, decltype(tb)::value>
        <<<grid, block, 0, ctx.stream>>>(g);
    TILEKIT_CUDA_CHECK_LAUNCH("register_blocked_gemm_kernel");
    return Status::ok();
  });
}

// auto_rank: the policies in the order they measure on the H200 at 4096 (t8x4 36.5 TFLOP/s, t8x8
// 30.8, t4x4 30.3; docs/results.md), so that "auto" runs the fastest of them.
template <int kThreadsX, int kThreadsY>
GemmKernel make_entry(int auto_rank) {
  using P = RegisterBlockedPolicy<kThreadsX, kThreadsY>;
  EntrySpec s = cuda_spec("ladder", "05_register_blocked", 5);
  s.suffix = P::suffix();
  s.tiling = P::tiling();
  s.tiling.schedule = schedule_tag<OneBlockPerTileSchedule>();
  s.tile = std::to_string(P::kBm) + "x" + std::to_string(P::kBn) + "x" + std::to_string(P::kBk) +
           ", " + std::to_string(kThreadsX) + "x" + std::to_string(kThreadsY) + " threads, " +
           std::to_string(P::kTm) + "x" + std::to_string(P::kTn) + "/thread";
  s.requirements = "any shape, layout and op; m < 65536·64";
  s.auto_rank = auto_rank;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) {
    return check_ladder_problem(p, P::kBm);
  };
  k.launch = launch_register_blocked<P>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(
        reinterpret_cast<const void*>(&register_blocked_gemm_kernel<P, false, false>),
        P::kThreads, 0, out);
  };
  return k;
}

}  // namespace

// gemm.cuda.05_register_blocked.f32.64x64x16_t{4x4,8x4,8x8}
void register_gemm_05_register_blocked(Registry& r) {
  r.add(make_entry<16, 16>(5));
  r.add(make_entry<16, 8>(7));
  r.add(make_entry<8, 8>(6));
}

}  // namespace tilekit::cuda
