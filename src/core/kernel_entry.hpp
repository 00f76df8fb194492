// kernel_entry.hpp — filling in a registry entry (internal, host-only): every kernel, CPU or
// CUDA, of every op, starts from this and adds what is particular to it.
#pragma once

#include <string>

#include "tilekit/registry.hpp"

namespace tilekit {

// A float32 entry that accepts every problem until the caller sets can_implement.
template <typename P>
Kernel<P> make_entry(std::string id, const char* op, Backend backend, int step, std::string tile,
                     std::string requirements, int auto_rank) {
  Kernel<P> k;
  k.info.id = std::move(id);
  k.info.op = op;
  k.info.backend = backend;
  k.info.dtype = "f32";
  k.info.step = step;
  k.info.tile = std::move(tile);
  k.info.requirements = std::move(requirements);
  k.info.auto_rank = auto_rank;
  k.can_implement = [](const P&, const DeviceInfo*) { return Status::ok(); };
  return k;
}

}  // namespace tilekit
