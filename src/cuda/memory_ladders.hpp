// memory_ladders.hpp — the CUDA copy, transpose and dot kernels (host-only declarations).
// Each returns its registry entry; src/register_all.cpp lists them.
#pragma once

#include "tilekit/registry.hpp"

namespace tilekit::cuda {

// src/cuda/memory/copy.cu
CopyKernel copy_coalesced_entry();
CopyKernel copy_uncoalesced_entry();
CopyKernel copy_float4_grid_stride_entry();
CopyKernel copy_memcpy_entry();  // cudaMemcpyAsync device to device: the ceiling

// src/cuda/transpose/transpose_NN_*.cu, one step per file
TransposeKernel transpose_serial_entry();              // 01
TransposeKernel transpose_thread_per_row_entry();      // 02
TransposeKernel transpose_thread_per_element_entry();  // 03
TransposeKernel transpose_smem_tiled_entry();          // 04
TransposeKernel transpose_smem_padded_entry();         // 05
TransposeKernel transpose_vectorized_entry();          // 06
TransposeKernel transpose_cublas_geam_entry();         // baseline (src/cuda/baselines/cublas.cu)

// src/cuda/reduce/dot_NN_*.cu
DotKernel dot_shared_atomic_entry();            // 01
DotKernel dot_warp_shuffle_entry();             // 02
DotKernel dot_two_pass_entry(bool f64_accumulate);  // 03
DotKernel dot_cublas_entry();                   // baseline (src/cuda/baselines/cublas.cu)
DotKernel dot_cub_entry();                      // baseline (src/cuda/baselines/cub_dot.cu)

}  // namespace tilekit::cuda
