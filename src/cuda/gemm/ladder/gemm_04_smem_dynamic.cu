// gemm_04_smem_dynamic.cu — step 4 of the GEMM ladder (Sheffield lab 06, exercise 02).
// Adds:     the tile side chosen at run time: shared memory sized at launch by
//           required_smem(block) = 2·block·sizeof(float) (two square tiles), the block size
//           picked by cudaOccupancyMaxPotentialBlockSizeVariableSMem, rounded down to a power
//           of 4 and square-rooted to the tile side, which kernels read from __constant__
//           memory. The step-3 interior/edge split keeps any m, n, k.
// Requires: float32; any m, n, k >= 0; any layout and op.
// Expect:   a little under step 3 at the same tile side: the inner loop's trip count is a
//           run-time value, so it cannot be fully unrolled.
#include <cmath>
#include <map>
#include <mutex>

#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"

namespace tilekit::cuda {
namespace {

__constant__ int c_tile_side;  // set once per device by configure()

size_t required_smem(int block_threads) { return 2 * static_cast<size_t>(block_threads) * sizeof(float); }

template <bool kTransA, bool kTransB, bool kCheckMN, bool kCheckK>
__device__ __forceinline__ void tile_step(const RowMajorGemm& g, float* s_a, float* s_b, int side,
                                          int i, int j, int t, float& acc) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool a_ok = (!kCheckMN || i < g.m) && (!kCheckK || t + tx < g.k);
  const bool b_ok = (!kCheckMN || j < g.n) && (!kCheckK || t + ty < g.k);
  s_a[ty * side + tx] = a_ok ? op_element<kTransA>(g.a, g.lda, i, t + tx) : 0.0f;
  s_b[ty * side + tx] = b_ok ? op_element<kTransB>(g.b, g.ldb, t + ty, j) : 0.0f;
  __syncthreads();
  for (int p = 0; p < side; ++p) acc += s_a[ty * side + p] * s_b[p * side + tx];
  __syncthreads();
}

template <bool kTransA, bool kTransB, bool kCheckMN>
__device__ __forceinline__ void block_gemm(const RowMajorGemm& g, float* s_a, float* s_b,
                                           int side) {
  const int i = blockIdx.y * side + threadIdx.y;
  const int j = blockIdx.x * side + threadIdx.x;
  const int k_full = g.k / side * side;
  float acc = 0.0f;
  for (int t = 0; t < k_full; t += side)
    tile_step<kTransA, kTransB, kCheckMN, false>(g, s_a, s_b, side, i, j, t, acc);
  if (k_full < g.k)
    tile_step<kTransA, kTransB, kCheckMN, true>(g, s_a, s_b, side, i, j, k_full, acc);
  if (!kCheckMN || (i < g.m && j < g.n)) store_c(g, i, j, acc);
}

template <bool kTransA, bool kTransB>
__global__ void smem_dynamic_gemm_kernel(RowMajorGemm g) {
  extern __shared__ float s_tiles[];  // [side·side] of A, then [side·side] of B
  const int side = c_tile_side;
  float* s_a = s_tiles;
  float* s_b = s_tiles + side * side;
  const bool interior = (blockIdx.y + 1) * side <= static_cast<unsigned>(g.m) &&
                        (blockIdx.x + 1) * side <= static_cast<unsigned>(g.n);
  if (interior)
    block_gemm<kTransA, kTransB, false>(g, s_a, s_b, side);
  else
    block_gemm<kTransA, kTransB, true>(g, s_a, s_b, side);
}

// What the occupancy API chose for one device.
struct Config {
  bool ready = false;
  int suggested_threads = 0;  // cudaOccupancyMaxPotentialBlockSizeVariableSMem's block size
  int side = 0;               // tile side: sqrt of the suggestion rounded down to a power of 4
  int blocks_per_sm = 0;      // at side², from cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy = 0;       // blocks_per_sm · side² / max threads per SM
};

const void* representative_kernel() {
  return reinterpret_cast<const void*>(&smem_dynamic_gemm_kernel<false, false>);
}

// Chooses the tile side for the current device once and writes it to __constant__ memory.
Status configure(int device, Config* out) {
  static std::mutex mutex;
  static std::map<int, Config> configs;  // per device, any number of devices
  std::lock_guard<std::mutex> lock(mutex);
  Config& c = configs[device];
  if (!c.ready) {
    int min_grid = 0, block = 0;
    TILEKIT_CUDA_TRY(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        &min_grid, &block, smem_dynamic_gemm_kernel<false, false>, required_smem, 1024));
    int power_of_4 = 1;
    while (power_of_4 * 4 <= block) power_of_4 *= 4;
    c.suggested_threads = block;
    c.side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(power_of_4))));
    TILEKIT_CUDA_TRY(cudaMemcpyToSymbol(c_tile_side, &c.side, sizeof(int)));
    const int threads = c.side * c.side;
    TILEKIT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &c.blocks_per_sm, smem_dynamic_gemm_kernel<false, false>, threads, required_smem(threads)));
    int max_threads_per_sm = 0;
    TILEKIT_CUDA_TRY(
        cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    c.occupancy = static_cast<double>(c.blocks_per_sm * threads) / max_threads_per_sm;
    c.ready = true;
  }
  *out = c;
  return Status::ok();
}

Status launch_smem_dynamic(const GemmProblem& p, const Context& ctx, Workspace) {
  Config cfg;
  TILEKIT_RETURN_IF_ERROR(configure(ctx.device, &cfg));
  const RowMajorGemm g = to_row_major(p);
  const dim3 block(cfg.side, cfg.side);
  const dim3 grid(ceil_div(g.n, cfg.side), ceil_div(g.m, cfg.side));
  const size_t smem = required_smem(cfg.side * cfg.side);
  return dispatch_ops(g.trans_a, g.trans_b, [&](auto ta, auto tb) -> Status {
    smem_dynamic_gemm_kernel<decltype(ta)::value, decltype(tb)::value>
        <<<grid, block, smem, ctx.stream>>>(g);
    TILEKIT_CUDA_CHECK_LAUNCH("smem_dynamic_gemm_kernel");
    return Status::ok();
  });
}

}  // namespace

// gemm.cuda.04_smem_dynamic.f32
void register_gemm_04_smem_dynamic(Registry& r) {
  EntrySpec s = cuda_spec("ladder", "04_smem_dynamic", 4);
  s.tiling.chosen_at_run_time = true;  // the side comes from the occupancy API
  s.requirements = "any shape, layout and op; row blocks <= 65535";
  s.auto_rank = 4;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.can_implement = [](const GemmProblem& p, const DeviceInfo*) -> Status {
    int device = 0;
    TILEKIT_CUDA_TRY(cudaGetDevice(&device));
    Config cfg;
    TILEKIT_RETURN_IF_ERROR(configure(device, &cfg));
    return check_ladder_problem(p, cfg.side);
  };
  // The occupancy query and the __constant__ write happen once per device, before any timed
  // launch.
  k.initialize = [](const GemmProblem&, const Context& ctx, Workspace) {
    Config cfg;
    return configure(ctx.device, &cfg);
  };
  k.launch = launch_smem_dynamic;
  k.resources = [](KernelResources* out) -> Status {
    int device = 0;
    TILEKIT_CUDA_TRY(cudaGetDevice(&device));
    Config cfg;
    TILEKIT_RETURN_IF_ERROR(configure(device, &cfg));
    const int threads = cfg.side * cfg.side;
    return kernel_resources(representative_kernel(), threads, required_smem(threads), out);
  };
  k.launch_notes = [](std::string* out) -> Status {
    int device = 0;
    TILEKIT_CUDA_TRY(cudaGetDevice(&device));
    Config cfg;
    TILEKIT_RETURN_IF_ERROR(configure(device, &cfg));
    const int threads = cfg.side * cfg.side;
    *out = "occupancy API suggested " + std::to_string(cfg.suggested_threads) +
           " threads; power of 4 below: " + std::to_string(threads) + " = tile " +
           std::to_string(cfg.side) + "x" + std::to_string(cfg.side) + ", " +
           std::to_string(required_smem(threads)) + " B dynamic smem, " +
           std::to_string(cfg.blocks_per_sm) + " blocks/SM, theoretical occupancy " +
           std::to_string(static_cast<int>(std::lround(cfg.occupancy * 100))) + "%";
    return Status::ok();
  };
  r.add(std::move(k));
}

}  // namespace tilekit::cuda
