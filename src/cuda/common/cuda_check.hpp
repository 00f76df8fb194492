// cuda_check.hpp — turning CUDA runtime errors into tilekit Status values (internal, host code).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "tilekit/status.hpp"

namespace tilekit::cuda {

// A Status naming the failed call, CUDA's error name and text, and where it happened. Errors
// that leave the context unusable (illegal address, launch failure) say so.
Status error_status(cudaError_t err, const char* call, const char* file, int line);

}  // namespace tilekit::cuda

// Evaluates a CUDA runtime call; on failure returns a Status naming it from the enclosing function.
#define TILEKIT_CUDA_TRY(call)                                                          \
  do {                                                                                  \
    const cudaError_t tilekit_err_ = (call);                                            \
    if (tilekit_err_ != cudaSuccess)                                                    \
      return ::tilekit::cuda::error_status(tilekit_err_, #call, __FILE__, __LINE__);   \
  } while (0)

// After a kernel launch: configuration errors surface in cudaGetLastError(), not in the launch.
#define TILEKIT_CUDA_CHECK_LAUNCH(kernel_name)                                              \
  do {                                                                                      \
    const cudaError_t tilekit_err_ = cudaGetLastError();                                    \
    if (tilekit_err_ != cudaSuccess)                                                        \
      return ::tilekit::cuda::error_status(tilekit_err_, "launch of " kernel_name, __FILE__, \
                                           __LINE__);                                       \
  } while (0)
