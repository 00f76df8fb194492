// kernel_entry.hpp — registry entries for CUDA kernels, and what their launchers share
// (internal, host-only).
#pragma once

#include <cstdint>
#include <string>

#include "core/kernel_entry.hpp"

namespace tilekit::cuda {

template <typename P>
Kernel<P> cuda_entry(std::string id, const char* op, int step, std::string tile,
                     std::string requirements, int auto_rank) {
  return make_entry<P>(std::move(id), op, Backend::kCuda, step, std::move(tile),
                       std::move(requirements), auto_rank);
}

// float4 (16-byte) accesses need 16-byte-aligned addresses.
inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace tilekit::cuda
