// kernel_resources.cu — what `tilekit list` and `inspect` show of a CUDA kernel function.
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"

namespace tilekit::cuda {

Status kernel_resources(const void* kernel, int block_threads, size_t dynamic_smem,
                        KernelResources* out) {
  cudaFuncAttributes attr{};
  TILEKIT_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
  out->available = true;
  out->registers_per_thread = attr.numRegs;
  out->static_smem_bytes = attr.sharedSizeBytes;
  out->local_bytes_per_thread = attr.localSizeBytes;
  out->max_threads_per_block = attr.maxThreadsPerBlock;
  out->dynamic_smem_bytes = dynamic_smem;
  out->block_threads = block_threads;
  out->function = kernel;
  return Status::ok();
}

}  // namespace tilekit::cuda
