// accumulators.cuh — where a consumer thread's wgmma accumulators lie in the C tile, and the
// named barrier of one consumer warpgroup: shared by the mainloops and the epilogues.
#pragma once

#include "cuda/gemm/sm90/tile_config.cuh"

namespace tilekit::cuda::sm90 {

// The row of the C tile (and so of the A tile) that a consumer thread's accumulator row r holds
// (r = 0 … 15 of its warp's 16: lane/4, or lane/4 + 8). In order, but for an MN-major A read into
// registers (kPermuted, mainloop_a_registers.cuh): stored m-contiguous, the 8 rows a k column's loads take would
// fill only two of a 128-byte row's eight 16-byte chunks, and the four k columns of one load
// would meet in the same banks. A warp's rows are instead rows {0–3, 16–19} (r < 8) and
// {4–7, 20–23} (r ≥ 8) of a 32-row chunk, 8 further for the odd warp: chunks four apart, which the
// 128-byte swizzle (chunk XOR k % 8) spreads over all eight for the four k of one load.
template <bool kPermuted>
__device__ __forceinline__ int accumulator_row(int half, int warp, int r) {
  if constexpr (!kPermuted) return half * 64 + warp * 16 + r;
  return half * 64 + (warp / 2) * 32 + (warp % 2) * 8 + ((r % 8) / 4) * 16 + (r / 8) * 4 + r % 4;
}

// Synchronises the 128 threads of one consumer warpgroup (named barrier 1 + consumer; 0 is
// __syncthreads). The ids are immediates: with an id in a register ptxas reserves all 16
// barriers, and the runtime then fits only 4 blocks per SM whatever their size. No part uses
// other barriers: the runtime's occupancy counts every one a kernel uses, tilekit's occupancy
// model does not (OccupancyGpu.EveryKernelAgreesWithTheRuntimeOccupancyApi checks they agree).
__device__ __forceinline__ void consumer_barrier(int consumer) {
  if (consumer == 0)
    asm volatile("bar.sync 1, 128;\n" ::: "memory");
  else
    asm volatile("bar.sync 2, 128;\n" ::: "memory");
}

}  // namespace tilekit::cuda::sm90
