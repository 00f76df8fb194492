// epilogue_split_sum.hpp — split-K's epilogue: the slices' raw sums, each slice in its own FP32
// plane of the workspace, added in plane order and scaled into C (same bits every run: no float
// atomics). Where a bias or an activation joins the epilogue, it joins here as well as in
// epilogue_registers.cuh.
#pragma once

#include <cuda_runtime.h>

#include "cuda/gemm/ladder/ladder.hpp"

namespace tilekit::cuda {

// C = alpha·(plane 0 + … + plane slices−1) + beta·C over
// `slices` planes of m·n raw sums (row-major, ld n), added in plane order; beta = 0 never reads C.
// Launched as a programmatic dependent of the GEMM grid that wrote the planes, on `device`.
Status sum_slices(const float* partials, int slices, const RowMajorGemm& g, int device,
                  cudaStream_t stream);

}  // namespace tilekit::cuda
