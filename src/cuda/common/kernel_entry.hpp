// kernel_entry.hpp — filling in a registry entry for a CUDA kernel (internal, host-only).
#pragma once

#include <string>

#include "tilekit/registry.hpp"

namespace tilekit::cuda {

template <typename P>
Kernel<P> cuda_entry(std::string id, const char* op, int step, std::string tile,
                     std::string requirements, int auto_rank) {
  Kernel<P> k;
  k.info.id = std::move(id);
  k.info.op = op;
  k.info.backend = Backend::kCuda;
  k.info.dtype = "f32";
  k.info.step = step;
  k.info.tile = std::move(tile);
  k.info.requirements = std::move(requirements);
  k.info.auto_rank = auto_rank;
  k.can_implement = [](const P&, const DeviceInfo*) { return Status::ok(); };
  return k;
}

}  // namespace tilekit::cuda
