// wgmma_gemm.cuh — the warp-specialised TMA + wgmma GEMM the Hopper steps share (sm_90a).
//
// One block = three warpgroups around a ring of `kStages` shared-memory stages:
//   producer  (warpgroup 0, one thread): waits until a stage is empty, announces its bytes on
//             the stage's `full` mbarrier, and issues the TMA loads of the next A and B k-tile.
//   consumers (warpgroups 1, 2): each owns 64 rows of the 128-row C tile; waits until a stage
//             is full, issues 4 wgmma m64nBNk16 on it (k-tile of 64), keeps one wgmma group in
//             flight and frees the stage before last by arriving on its `empty` mbarrier.
// The producer gives registers away (setmaxnreg) so that each consumer thread can keep its
// 64 × BN / 128 FP32 accumulators. Odd m, n, k: TMA zero-fills what lies past the edges and
// the epilogue stores only elements inside C. Blocks walk the tile list from blockIdx.x with
// stride gridDim.x: one tile each in step 01, persistent (one block per SM) in step 02.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/sm90/hopper_ptx.cuh"
#include "cuda/gemm/sm90/tma_operands.hpp"
#include "cuda/gemm/sm90/wgmma_ops.cuh"

namespace tilekit::cuda::sm90 {

// A tile policy: 16-bit element type, C tile 128 × kBn, k-tile 64, ring depth. `kGroupRows`
// tile rows are walked together (1: row by row) so that blocks running at once share A and B
// tiles in L2.
template <typename T, int kBnN, int kStagesN>
struct WgmmaPolicy {
  using Element = T;
  static constexpr int kBm = 128, kBn = kBnN, kBk = 64, kStages = kStagesN;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kATileBytes = kBm * kBk * 2;
  static constexpr int kBTileBytes = kBn * kBk * 2;
  static constexpr int kAccumulators = kBn / 2;  // per consumer thread: 64 × kBn / 128
  // Ring, then 2 mbarriers per stage; 1 KB of slack to align the ring to the swizzle period.
  static constexpr size_t kSmemBytes =
      static_cast<size_t>(kStages) * (kATileBytes + kBTileBytes) + 16 * kStages + 1024;
  static_assert(kBn == 128 || kBn == 256, "wgmma_ops.cuh instantiates n = 128 and 256");
  static_assert(kSmemBytes <= 227 * 1024, "the ring must fit the H100/H200 shared memory");

  static std::string suffix() {
    return std::to_string(kBm) + "x" + std::to_string(kBn) + "x" + std::to_string(kBk) + "_s" +
           std::to_string(kStages);
  }
  static TileDesc tiling() {
    TileDesc t;
    t.block_m = kBm;
    t.block_n = kBn;
    t.block_k = kBk;
    t.warp_m = 64;  // one consumer warpgroup
    t.warp_n = kBn;
    t.stages = kStages;
    t.threads = kThreads;
    return t;
  }
};

// Registers per thread after setmaxnreg: 128·40 + 256·232 = 64512 ≤ 65536 per block.
constexpr int kProducerRegisters = 40;
constexpr int kConsumerRegisters = 232;

struct WgmmaArgs {
  int m = 0, n = 0, k = 0;  // the row-major view (tma_operands.hpp)
  int tiles_m = 0, tiles_n = 0;
  int group_rows = 1;       // tile rows walked together (L2-aware order)
  float alpha = 1, beta = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  bool c_pairs = false;     // ldc even and C 8-byte aligned: stores of 2 floats
};

// Tile `t` of the walk → its tile row and column: groups of `group_rows` tile rows, each group
// walked column by column so that consecutive blocks reuse the same B columns and A rows.
__device__ __forceinline__ void tile_coords(const WgmmaArgs& a, int t, int* tm, int* tn) {
  const int per_group = a.group_rows * a.tiles_n;
  const int first_row = t / per_group * a.group_rows;
  const int rows = min(a.group_rows, a.tiles_m - first_row);
  const int in_group = t % per_group;
  *tm = first_row + in_group % rows;
  *tn = in_group / rows;
}

// ---- producer -----------------------------------------------------------------------------------

// A k-tile of A into `dst`: one box of 64 k × 128 rows (K-major), or two of 64 m × 64 k
// (M-major, each 64-element chunk of m its own 8 KB block).
template <typename P, bool kMnMajor>
__device__ __forceinline__ void load_a(uint8_t* dst, const CUtensorMap* map, int tm, int kt,
                                       uint64_t* full) {
  if constexpr (!kMnMajor) {
    tma_load_2d(dst, map, kt * P::kBk, tm * P::kBm, full);
  } else {
#pragma unroll
    for (int j = 0; j < P::kBm / 64; ++j)
      tma_load_2d(dst + j * 64 * P::kBk * 2, map, tm * P::kBm + 64 * j, kt * P::kBk, full);
  }
}

template <typename P, bool kMnMajor>
__device__ __forceinline__ void load_b(uint8_t* dst, const CUtensorMap* map, int tn, int kt,
                                       uint64_t* full) {
  if constexpr (!kMnMajor) {
    tma_load_2d(dst, map, kt * P::kBk, tn * P::kBn, full);
  } else {
#pragma unroll
    for (int j = 0; j < P::kBn / 64; ++j)
      tma_load_2d(dst + j * 64 * P::kBk * 2, map, tn * P::kBn + 64 * j, kt * P::kBk, full);
  }
}

template <typename P, bool kAMn, bool kBMn>
__device__ void produce(const WgmmaArgs& args, const CUtensorMap* map_a, const CUtensorMap* map_b,
                        uint8_t* ring_a, uint8_t* ring_b, uint64_t* full, uint64_t* empty) {
  const int k_tiles = (args.k + P::kBk - 1) / P::kBk;
  const int tiles = args.tiles_m * args.tiles_n;
  int stage = 0;
  uint32_t phase = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int tm, tn;
    tile_coords(args, t, &tm, &tn);
    for (int kt = 0; kt < k_tiles; ++kt) {
      barrier_wait(&empty[stage], phase ^ 1);
      barrier_arrive_expect_bytes(&full[stage], P::kATileBytes + P::kBTileBytes);
      load_a<P, kAMn>(ring_a + stage * P::kATileBytes, map_a, tm, kt, &full[stage]);
      load_b<P, kBMn>(ring_b + stage * P::kBTileBytes, map_b, tn, kt, &full[stage]);
      if (++stage == P::kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
  }
}

// ---- consumers ----------------------------------------------------------------------------------

// Descriptors of the k16 step `kk` of a stage. K-major tiles advance 32 bytes along their
// 128-byte rows; MN-major tiles advance 16 rows of k (2 KB). Consumer `c` reads A rows
// 64c..64c+63: 8 KB into the tile either way.
template <typename P, bool kAMn>
__device__ __forceinline__ uint64_t a_descriptor(const uint8_t* tile, int consumer, int kk) {
  const uint8_t* base = tile + consumer * 64 * P::kBk * 2;
  return kAMn ? smem_descriptor(base + kk * 16 * 128, 64 * P::kBk * 2, 1024)
              : smem_descriptor(base + kk * 32, 16, 1024);
}
template <typename P, bool kBMn>
__device__ __forceinline__ uint64_t b_descriptor(const uint8_t* tile, int kk) {
  return kBMn ? smem_descriptor(tile + kk * 16 * 128, 64 * P::kBk * 2, 1024)
              : smem_descriptor(tile + kk * 32, 16, 1024);
}

template <typename P, bool kAMn, bool kBMn>
__device__ __forceinline__ void multiply_stage(float (&acc)[P::kAccumulators], const uint8_t* a_tile,
                                               const uint8_t* b_tile, int consumer, bool first) {
  wgmma_fence();
  fence_accumulators(acc);
#pragma unroll
  for (int kk = 0; kk < P::kBk / 16; ++kk) {
    const uint64_t da = a_descriptor<P, kAMn>(a_tile, consumer, kk);
    const uint64_t db = b_descriptor<P, kBMn>(b_tile, kk);
    const int accumulate = first && kk == 0 ? 0 : 1;
    if constexpr (P::kBn == 256)
      wgmma_m64n256k16<kAMn, kBMn>(acc, da, db, accumulate, typename P::Element{});
    else
      wgmma_m64n128k16<kAMn, kBMn>(acc, da, db, accumulate, typename P::Element{});
  }
  wgmma_commit();
  fence_accumulators(acc);
}

__device__ __forceinline__ void store_pair(const WgmmaArgs& a, int row, int col, float v0, float v1) {
  if (row >= a.m || col >= a.n) return;
  float* p = a.c + static_cast<int64_t>(row) * a.ldc + col;
  const bool both = col + 1 < a.n;
  if (a.beta == 0.0f) {  // BLAS: beta = 0 never reads C
    v0 *= a.alpha;
    v1 *= a.alpha;
  } else {
    v0 = a.alpha * v0 + a.beta * p[0];
    if (both) v1 = a.alpha * v1 + a.beta * p[1];
  }
  if (both && a.c_pairs) {
    *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
  } else {
    p[0] = v0;
    if (both) p[1] = v1;
  }
}

// wgmma's accumulator layout (m64nN, FP32): warp w of the warpgroup holds rows 16w..16w+15;
// for each 8-column group j, lane l holds rows l/4 and l/4 + 8, columns 8j + 2(l%4) + {0, 1}.
template <typename P>
__device__ __forceinline__ void store_tile(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                           int tm, int tn, int consumer) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row = tm * P::kBm + consumer * 64 + warp * 16 + lane / 4;
  const int col0 = tn * P::kBn + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < P::kBn / 8; ++j) {
    store_pair(a, row, col0 + 8 * j, acc[4 * j], acc[4 * j + 1]);
    store_pair(a, row + 8, col0 + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
  }
}

template <typename P, bool kAMn, bool kBMn>
__device__ void consume(const WgmmaArgs& args, const uint8_t* ring_a, const uint8_t* ring_b,
                        uint64_t* full, uint64_t* empty, int consumer) {
  const int k_tiles = (args.k + P::kBk - 1) / P::kBk;
  const int tiles = args.tiles_m * args.tiles_n;
  const bool releases = threadIdx.x % 32 == 0;  // one arrival per consumer warp
  int stage = 0;
  uint32_t phase = 0;
  float acc[P::kAccumulators] = {};  // overwritten by each tile's first wgmma (accumulate = 0)
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int tm, tn;
    tile_coords(args, t, &tm, &tn);
    int previous = -1;
    for (int kt = 0; kt < k_tiles; ++kt) {
      barrier_wait(&full[stage], phase);
      multiply_stage<P, kAMn, kBMn>(acc, ring_a + stage * P::kATileBytes,
                                    ring_b + stage * P::kBTileBytes, consumer, kt == 0);
      wgmma_wait<1>();  // the previous k-tile's group is done: its stage may be refilled
      if (previous >= 0 && releases) barrier_arrive(&empty[previous]);
      previous = stage;
      if (++stage == P::kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    if (releases) barrier_arrive(&empty[previous]);
    store_tile<P>(args, acc, tm, tn, consumer);
  }
}

// ---- the kernel -----------------------------------------------------------------------------------

// `Schedule` (the step's launch: TilePerBlock, Persistent) is part of the instantiation so that
// two steps never share one kernel symbol across translation units (non-RDC builds register a
// template kernel per file; sharing one made the second step's smem opt-in miss its launch).
template <typename P, typename Schedule, bool kAMn, bool kBMn>
__global__ void __launch_bounds__(P::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, const WgmmaArgs args) {
  extern __shared__ uint8_t smem_raw[];
  // TMA's 128-byte swizzle and the descriptors assume 1024-byte-aligned tiles.
  uint8_t* ring_a = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint8_t* ring_b = ring_a + P::kStages * P::kATileBytes;
  auto* full = reinterpret_cast<uint64_t*>(ring_b + P::kStages * P::kBTileBytes);
  uint64_t* empty = full + P::kStages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < P::kStages; ++s) {
      barrier_init(&full[s], 1);                       // the producer's arrive_expect_bytes
      barrier_init(&empty[s], P::kConsumers * 4);      // one arrival per consumer warp
    }
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    registers_shrink<kProducerRegisters>();
    if (threadIdx.x == 0) produce<P, kAMn, kBMn>(args, &map_a, &map_b, ring_a, ring_b, full, empty);
  } else {
    registers_grow<kConsumerRegisters>();
    consume<P, kAMn, kBMn>(args, ring_a, ring_b, full, empty, warpgroup - 1);
  }
}

using WgmmaKernelFn = void (*)(CUtensorMap, CUtensorMap, WgmmaArgs);

template <typename P, typename Schedule>
WgmmaKernelFn wgmma_kernel(bool a_mn_major, bool b_mn_major) {
  if (!a_mn_major && !b_mn_major) return wgmma_gemm_kernel<P, Schedule, false, false>;
  if (!a_mn_major && b_mn_major) return wgmma_gemm_kernel<P, Schedule, false, true>;
  if (a_mn_major && !b_mn_major) return wgmma_gemm_kernel<P, Schedule, true, false>;
  return wgmma_gemm_kernel<P, Schedule, true, true>;
}

// ---- host ---------------------------------------------------------------------------------------

template <typename P>
constexpr DType element_dtype() {
  return std::is_same_v<typename P::Element, __nv_bfloat16> ? DType::kBF16 : DType::kF16;
}

// Repacks the operands TMA cannot read in place (workspace: A's copy, then B's).
inline Status place_operands(WgmmaView* v, Workspace ws, cudaStream_t stream) {
  auto* next = static_cast<uint8_t*>(ws.data);
  for (TmaOperand* o : {&v->a, &v->b}) {
    const size_t bytes = repack_bytes(*o);
    if (bytes == 0) continue;
    TILEKIT_RETURN_IF_ERROR(repack_operand(o, next, stream));
    next += bytes;
  }
  return Status::ok();
}

// Runs p with the blocks and tile order of `Schedule` (the step's: Schedule::blocks(device,
// tiles, &blocks) and Schedule::kGroupRows).
template <typename P, typename Schedule>
Status launch_wgmma(const GemmProblem& p, const Context& ctx, Workspace ws) {
  WgmmaView v = wgmma_view(p);
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  TILEKIT_RETURN_IF_ERROR(place_operands(&v, ws, stream));
  constexpr DType type = element_dtype<P>();
  CUtensorMap map_a, map_b;
  TILEKIT_RETURN_IF_ERROR(encode_tile_map(&map_a, v.a, type, 64, v.a_mn_major ? 64 : P::kBm));
  TILEKIT_RETURN_IF_ERROR(encode_tile_map(&map_b, v.b, type, 64, v.b_mn_major ? 64 : P::kBn));
  WgmmaArgs args;
  args.m = static_cast<int>(v.m);
  args.n = static_cast<int>(v.n);
  args.k = static_cast<int>(v.k);
  args.tiles_m = static_cast<int>((v.m + P::kBm - 1) / P::kBm);
  args.tiles_n = static_cast<int>((v.n + P::kBn - 1) / P::kBn);
  args.group_rows = Schedule::kGroupRows;
  args.alpha = v.alpha;
  args.beta = v.beta;
  args.c = v.c;
  args.ldc = v.ldc;
  args.c_pairs = v.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(v.c) % 8 == 0;
  int grid = 0;
  TILEKIT_RETURN_IF_ERROR(Schedule::blocks(ctx.device, args.tiles_m * args.tiles_n, &grid));
  wgmma_kernel<P, Schedule>(v.a_mn_major, v.b_mn_major)<<<grid, P::kThreads, P::kSmemBytes, stream>>>(map_a, map_b, args);
  TILEKIT_CUDA_CHECK_LAUNCH("wgmma_gemm_kernel");
  return Status::ok();
}

template <typename P, typename Schedule>
Status opt_into_wgmma_smem() {
  for (int majors = 0; majors < 4; ++majors)
    TILEKIT_CUDA_TRY(cudaFuncSetAttribute(wgmma_kernel<P, Schedule>(majors & 1, majors & 2),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(P::kSmemBytes)));
  return Status::ok();
}

// The registry entry of policy P run by `Schedule` (its step's name and number).
template <typename P, typename Schedule>
GemmKernel make_wgmma_entry(int auto_rank) {
  EntrySpec s = cuda_spec("sm90", Schedule::kName, Schedule::kStep);
  s.types = GemmTypes{element_dtype<P>(), element_dtype<P>(), DType::kF32, Compute::kBF16};
  s.suffix = P::suffix();
  s.tiling = P::tiling();
  s.requirements = "16-bit A and B, f32 C; any shape, layout, op and ld (an ld TMA cannot read "
                   "is repacked into the workspace)";
  s.auto_rank = auto_rank;
  s.min_sm = 90;
  s.max_sm = 90;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_wgmma_problem(p); };
  k.workspace_bytes = [](const GemmProblem& p, const DeviceInfo*) {
    const WgmmaView v = wgmma_view(p);
    return repack_bytes(v.a) + repack_bytes(v.b);
  };
  k.initialize = [](const GemmProblem&, const Context&, Workspace) {
    return opt_into_wgmma_smem<P, Schedule>();
  };
  k.launch = launch_wgmma<P, Schedule>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(wgmma_kernel<P, Schedule>(false, true)), P::kThreads,
                            P::kSmemBytes, out);
  };
  return k;
}

}  // namespace tilekit::cuda::sm90
