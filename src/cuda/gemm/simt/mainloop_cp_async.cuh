// mainloop_cp_async.cuh — the SIMT family's pipelined mainloop: a ring of kStages shared-memory
// stages, filled by cp.async (global → shared without registers) for operands whose memory rows
// run along k and through registers for the others (OperandPipe), while the warps multiply the
// tile loaded kStages − 1 iterations earlier; one barrier per k-tile. The kernel takes the other
// axes as types:
//   Layout  how (k, m|n) maps into a shared tile (shared_layouts.cuh),
//   Raster  which C tile a block computes (tile_orders.cuh),
//   Loads   how operand tiles cross the matrix's edges (the policy's; EdgeBranchLoads here:
//           interior tiles unchecked, edge chunks on a branch; loads_branch_free.cuh, none),
// and reads split-K slices from blockIdx.z (schedule_split_k.cuh: one slice of k per z, partial
// sums to a workspace; without split-K there is one slice and C is written directly).
// Other mainloops (mainloop_straight.cuh, mainloop_cross_tile.cuh) reuse its arguments, launch
// and entry by specialising PipelineKernels for their Loads type.
#pragma once

#include <string>

#include "core/schedules/one_block_per_tile.hpp"
#include "cuda/common/dependent_launch.cuh"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/simt/epilogue_registers.cuh"
#include "cuda/gemm/simt/operand_tiles.cuh"
#include "cuda/gemm/simt/tile_orders.cuh"
#include "cuda/gemm/simt/warp_tile.cuh"

namespace tilekit::cuda {

struct EdgeBranchLoads;

// A WarpTilePolicy with the ring depth and the blocks per SM of its Shape, and how its operand
// tiles are loaded at the matrix's edges (the mainloop's Loads type).
template <typename Shape_, typename Loads_ = EdgeBranchLoads>
struct PipelinePolicy : WarpTilePolicy<Shape_> {
  using Shape = Shape_;
  using Loads = Loads_;
  static constexpr int kStages = Shape::kShape.stages, kMinBlocks = Shape::kShape.min_blocks;
  static_assert(kStages >= 2, "a pipeline needs at least two stages");
  static TileDesc tiling() {
    TileDesc t = WarpTilePolicy<Shape_>::tiling();
    t.stages = kStages;
    return t;
  }
};

// ---- cp.async (sm_80+) ---------------------------------------------------------------------
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// 16 bytes, bypassing L1 (.cg). Both addresses 16-byte aligned.
__device__ __forceinline__ void cp_async_16(float* dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(dst)), "l"(src));
}
// 4 bytes, through L1 (.ca: the 4-byte form must).
__device__ __forceinline__ void cp_async_4(float* dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// One operand tile into one stage by 16-byte copies: memory rows along k, float4 allowed (ld a
// multiple of 4, 16-byte aligned base). A chunk partly outside the matrix is copied element by
// element and the rest written as zeros by plain shared stores: no copy ever names an address
// outside the operand (a zero-fill cp.async with a short src-size would, and compute-sanitizer
// reports it; BranchFreeLoads zero-fills whole chunks from a clamped address instead).
template <typename T, typename Layout>
__device__ __forceinline__ void copy_tile_async(const TileOrigin& o, float* s, int tid) {
  static_assert(T::kKRows, "shared rows are memory rows");
  constexpr int kThreads = T::kChunks / T::kChunksPerThread;
  const bool inside = o.row0 + T::kRows <= o.rows && o.col0 + T::kCols <= o.cols;
#pragma unroll
  for (int j = 0; j < T::kChunksPerThread; ++j) {
    const int chunk = tid + j * kThreads;
    const int rr = chunk / T::kChunksPerRow, cc = chunk % T::kChunksPerRow * 4;
    const int gr = o.row0 + rr, gc = o.col0 + cc;
    float* dst = s + Layout::template offset<T::kCols>(rr, cc);  // 4 contiguous floats
    const int valid = inside ? 4 : gr < o.rows ? min(4, o.cols - gc) : 0;
    if (valid == 4) {
      cp_async_16(dst, o.src + gr * o.ld + gc);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (q < valid)
          cp_async_4(dst + q, o.src + gr * o.ld + gc + q);
        else
          dst[q] = 0.0f;
    }
  }
}

// The default edge handling: a tile wholly inside the matrix skips every check; edge tiles decide
// per chunk, on branches (per element for cp.async, float4 or elements for registers).
struct EdgeBranchLoads {
  // Whether an operand whose memory rows run along k may go by cp.async: whenever float4 is.
  __device__ static __forceinline__ bool copies(bool vec, int) { return vec; }
  template <typename T, typename Layout>
  __device__ static __forceinline__ void copy_async(const TileOrigin& o, float* s, int tid) {
    copy_tile_async<T, Layout>(o, s, tid);
  }
  // The register path's tile between its loads (fetch) and its shared stores (land).
  template <typename T>
  struct Staged {
    float4 r[T::kChunksPerThread];
    __device__ __forceinline__ void load(const TileOrigin& o, bool vec, int tid) {
      load_tile_to_registers<T>(o, vec, r, tid);
    }
    template <typename Layout>
    __device__ __forceinline__ void store(float* s, int tid) const {
      store_tile_registers<T, Layout>(r, s, tid);
    }
  };
};

// How one operand's tiles travel to their stage. Memory rows along k and float4 allowed (and
// whatever else Loads::copies asks): cp.async, landing as they are. Otherwise (memory rows along m or n, or an ld that is not a
// multiple of 4): operand_tiles.cuh's loads into registers, stored (transposed where needed) after the
// current tile's math by `land`, so their latency hides behind it. 4-byte cp.async copies would
// cost an LSU instruction per element, and ptxas pads each with three NOP loads.
template <typename T, typename Layout, typename Loads>
struct OperandPipe {
  bool async;                                // uniform: this operand goes by cp.async
  typename Loads::template Staged<T> staged;  // the register path's tile

  // cols: the operand's memory columns (m for Aᵀ, n for B; only read when kKRows).
  __device__ OperandPipe(bool vec, int cols) : async(T::kKRows && Loads::copies(vec, cols)) {}
  __device__ __forceinline__ void fetch(const TileOrigin& o, bool vec, float* stage, int tid) {
    if constexpr (T::kKRows) {
      if (async) {
        Loads::template copy_async<T, Layout>(o, stage, tid);
        return;
      }
    }
    staged.load(o, vec, tid);
  }
  __device__ __forceinline__ void land(float* stage, int tid) {
    if (!async) staged.template store<Layout>(stage, tid);
  }
};

struct PipelineArgs {
  RowMajorGemm g;
  OperandFlags flags;
  int tiles_m, tiles_n;  // C tiles; the grid's x is their product
  int k_slice;           // k per blockIdx.z (a multiple of kBk; g.k without split-K)
  float* partials;       // split-K: slice z writes its raw sums to partials + z·m·n; else null
};

// Where this block's results go: C, or with split-K its slice's plane of the workspace.
__device__ __forceinline__ CTarget pipeline_target(const PipelineArgs& args) {
  const RowMajorGemm& g = args.g;
  if (args.partials == nullptr)
    return CTarget{g.c, g.ldc, g.m, g.n, g.alpha, g.beta, args.flags.vec_c};
  return CTarget{args.partials + static_cast<size_t>(blockIdx.z) * g.m * g.n, g.n, g.m, g.n, 1.0f,
                 0.0f, g.n % 4 == 0};
}

template <typename P, typename Layout>
constexpr size_t pipeline_smem_bytes() {
  return sizeof(float) * P::kStages * P::kBk *
         (Layout::template stride<P::kBm>() + Layout::template stride<P::kBn>());
}

template <typename P, typename Layout, typename Raster, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    pipelined_gemm_kernel(PipelineArgs args) {
  using TileA = OperandTile<P::kBm, P::kBk, P::kThreads, kTransA>;   // Aᵀ in memory: k rows
  using TileB = OperandTile<P::kBn, P::kBk, P::kThreads, !kTransB>;  // B in memory: k rows
  constexpr int kStageA = P::kBk * Layout::template stride<P::kBm>();
  constexpr int kStageB = P::kBk * Layout::template stride<P::kBn>();
  extern __shared__ float4 smem_words[];
  float* const s_a = reinterpret_cast<float*>(smem_words);
  float* const s_b = s_a + P::kStages * kStageA;

  // Split-K: the sum of the slices may be scheduled from now on (it waits for this grid before
  // reading the planes), so its launch overlaps this grid's last blocks.
  if (args.partials != nullptr) allow_dependent_launch();
  const RowMajorGemm& g = args.g;
  const int tid = threadIdx.x;
  const TileCoord tile = Raster::tile(blockIdx.x, args.tiles_m, args.tiles_n);
  const int row0 = tile.m * P::kBm, col0 = tile.n * P::kBn;
  const int k_begin = blockIdx.z * args.k_slice;
  const int k_end = min(g.k, k_begin + args.k_slice);
  const int k_tiles = (k_end - k_begin + P::kBk - 1) / P::kBk;
  OperandPipe<TileA, Layout, typename P::Loads> pipe_a(args.flags.vec_a, g.m);
  OperandPipe<TileB, Layout, typename P::Loads> pipe_b(args.flags.vec_b, g.n);
  auto fetch = [&](int kt) {
    const int k0 = k_begin + kt * P::kBk, stage = kt % P::kStages;
    pipe_a.fetch(TileA::origin(g.a, g.lda, row0, g.m, k0, k_end), args.flags.vec_a,
                 s_a + stage * kStageA, tid);
    pipe_b.fetch(TileB::origin(g.b, g.ldb, col0, g.n, k0, k_end), args.flags.vec_b,
                 s_b + stage * kStageB, tid);
  };
  auto land = [&](int kt) {
    const int stage = kt % P::kStages;
    pipe_a.land(s_a + stage * kStageA, tid);
    pipe_b.land(s_b + stage * kStageB, tid);
  };

  // Fill kStages − 1 stages; every iteration commits one group (empty past the end) so that
  // "all but kStages − 2 groups done" always means "tile kt has landed".
#pragma unroll
  for (int kt = 0; kt < P::kStages - 1; ++kt) {
    if (kt < k_tiles) {
      fetch(kt);
      land(kt);
    }
    cp_async_commit();
  }
  const ThreadOrigin t = thread_origin<P>();
  float acc[P::kTm][P::kTn] = {};
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<P::kStages - 2>();
    // One barrier: tile kt is visible to all, and every warp has finished tile kt − 1, whose
    // stage tile kt + kStages − 1 now overwrites.
    __syncthreads();
    const int next = kt + P::kStages - 1;
    if (next < k_tiles) fetch(next);
    cp_async_commit();
    const int stage = kt % P::kStages;
    multiply_k_tile<P, Layout>(s_a + stage * kStageA, s_b + stage * kStageB, t, acc);
    if (next < k_tiles) land(next);
  }
  cp_async_wait<0>();  // nothing may still be writing shared memory when the block exits

  store_c_tile<P>(pipeline_target(args), row0, col0, t, acc);
}

using PipelinedKernelFn = void (*)(PipelineArgs);

// The instantiation of one (policy, layout, raster) for the runtime ops.
template <typename P, typename Layout, typename Raster>
PipelinedKernelFn pipelined_kernel(bool trans_a, bool trans_b) {
  if (!trans_a && !trans_b) return pipelined_gemm_kernel<P, Layout, Raster, false, false>;
  if (!trans_a && trans_b) return pipelined_gemm_kernel<P, Layout, Raster, false, true>;
  if (trans_a && !trans_b) return pipelined_gemm_kernel<P, Layout, Raster, true, false>;
  return pipelined_gemm_kernel<P, Layout, Raster, true, true>;
}

// Which kernel function a launch of (policy, layout, raster) runs: here one per op. A mainloop
// whose kernel also depends on the operands (StraightLoads: a loop specialised for whole 16-byte
// chunks, with a fallback) specialises this for its Loads type; the launch, the shared-memory
// opt-in and the resources below go through it.
template <typename P, typename Layout, typename Raster>
struct PipelineKernels {
  static PipelinedKernelFn for_args(const PipelineArgs& a) {
    return pipelined_kernel<P, Layout, Raster>(a.g.trans_a, a.g.trans_b);
  }
  static constexpr int kCount = 4;  // every function for_args may return: at(0) … at(kCount − 1)
  static PipelinedKernelFn at(int i) { return pipelined_kernel<P, Layout, Raster>(i & 1, i & 2); }
};

// Above 48 KB a kernel's dynamic shared memory must be opted into, per function and device
// (the kernels' `initialize`, outside the timed launch).
template <typename P, typename Layout, typename Raster>
Status opt_into_pipeline_smem() {
  constexpr size_t bytes = pipeline_smem_bytes<P, Layout>();
  if constexpr (bytes > 48 * 1024) {
    using Kernels = PipelineKernels<P, Layout, Raster>;
    for (int i = 0; i < Kernels::kCount; ++i)
      TILEKIT_CUDA_TRY(cudaFuncSetAttribute(Kernels::at(i),
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
  }
  return Status::ok();
}

// Launches one slice per z of `args` (args.k_slice, args.partials set by the caller).
template <typename P, typename Layout, typename Raster>
Status launch_pipelined(PipelineArgs args, int slices, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(args.tiles_m * args.tiles_n), 1, static_cast<unsigned>(slices));
  PipelineKernels<P, Layout, Raster>::for_args(args)
      <<<grid, P::kThreads, pipeline_smem_bytes<P, Layout>(), stream>>>(args);
  TILEKIT_CUDA_CHECK_LAUNCH("pipelined_gemm_kernel");
  return Status::ok();
}

// The arguments of a launch without split-K.
inline PipelineArgs whole_k_args(const RowMajorGemm& g, int bm, int bn) {
  return PipelineArgs{g, operand_flags(g), static_cast<int>(ceil_div(g.m, bm)),
                      static_cast<int>(ceil_div(g.n, bn)), g.k, nullptr};
}

// One launch over the whole k (one tile per block), or one per piece where an operand spans
// more than 32-bit offsets reach (for_each_32bit_piece: 65536² FP32 operands run in pieces).
template <typename P, typename Layout, typename Raster>
Status launch_whole_k(const GemmProblem& p, const Context& ctx, Workspace) {
  return for_each_32bit_piece(to_row_major(p), [&](const RowMajorGemm& g) {
    return launch_pipelined<P, Layout, Raster>(whole_k_args(g, P::kBm, P::kBn), 1, ctx.stream);
  });
}

// A registry entry for a pipelined kernel: its tiling, 32-bit sizes as the only limit (larger
// operand spans run in pieces), the shared-memory opt-in as `initialize`, resources of the NN
// instantiation, and the launch over the whole k (make_split_k_entry sets its split-K launch, and with it
// the 32-bit spans it needs, instead).
template <typename P, typename Layout, typename Raster>
GemmKernel make_pipelined_entry(EntrySpec s) {
  s.tiling = P::tiling();
  s.tiling.schedule = schedule_tag<OneBlockPerTileSchedule>();
  s.requirements = "any shape, layout, op and ld (32-bit sizes; larger spans in pieces)";
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) { return check_32bit_extents(p); };
  k.initialize = [](const GemmProblem&, const Context&, Workspace) {
    return opt_into_pipeline_smem<P, Layout, Raster>();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(PipelineKernels<P, Layout, Raster>::at(0)),
                            P::kThreads, pipeline_smem_bytes<P, Layout>(), out);
  };
  k.launch = launch_whole_k<P, Layout, Raster>;
  return k;
}

}  // namespace tilekit::cuda
