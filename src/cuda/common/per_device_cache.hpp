// per_device_cache.hpp — a positive int asked of the CUDA runtime once per device and kept
// (a kernel's attributes, its occupancy): the launches that use it are timed.
#pragma once

#include <array>
#include <atomic>

#include "tilekit/status.hpp"

namespace tilekit::cuda {

// Devices past kDevices are asked every time. One static instance per question; concurrent
// first calls may both ask, and store the same answer.
class PerDeviceCache {
 public:
  // *out = the value kept for `device`, or what `ask(int*)` gives (it returns a Status and
  // writes a value ≥ 1), kept when the ask succeeds.
  template <typename Ask>
  Status get(int device, int* out, Ask ask) {
    const bool cacheable = device >= 0 && device < kDevices;
    const int kept = cacheable ? known_[device].load(std::memory_order_relaxed) : 0;
    if (kept > 0) {
      *out = kept;
      return Status::ok();
    }
    TILEKIT_RETURN_IF_ERROR(ask(out));
    if (cacheable) known_[device].store(*out, std::memory_order_relaxed);
    return Status::ok();
  }

 private:
  static constexpr int kDevices = 64;
  std::array<std::atomic<int>, kDevices> known_{};  // 0: not asked yet
};

}  // namespace tilekit::cuda
