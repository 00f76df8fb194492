// kernel_entry.hpp — what CUDA kernels' registry entries and launchers share (internal,
// host-only).
#pragma once

#include <cstdint>
#include <string>

#include "core/kernel_entry.hpp"

#ifndef TILEKIT_CUDA_MIN_SM
#define TILEKIT_CUDA_MIN_SM 0
#endif

namespace tilekit::cuda {

// An EntrySpec for a CUDA kernel of `family`, named `name` (the id's third segment).
inline EntrySpec cuda_spec(std::string family, std::string name, int step) {
  EntrySpec s;
  s.backend = Backend::kCuda;
  s.family = std::move(family);
  s.name = std::move(name);
  s.step = step;
  s.min_sm = TILEKIT_CUDA_MIN_SM;  // the oldest architecture the build targets (CMakeLists.txt)
  return s;
}

// A vendor library's kernel (cuBLAS, CUB, cudaMemcpy): a baseline, untiled, chosen by "auto" only
// when vendors are allowed.
inline EntrySpec vendor_spec(std::string name) {
  EntrySpec s = cuda_spec("vendor", std::move(name), 0);
  s.tile = "-";
  s.role = KernelRole::kVendor;
  return s;
}

// cudaFuncGetAttributes of a kernel, at a launch configuration (common/kernel_resources.cu).
Status kernel_resources(const void* kernel, int block_threads, size_t dynamic_smem,
                        KernelResources* out);

// float4 (16-byte) accesses need 16-byte-aligned addresses.
inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace tilekit::cuda
