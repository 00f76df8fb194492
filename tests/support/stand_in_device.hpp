// stand_in_device.hpp — an H200 as query_device() reports it, for CPU tests that need a GPU's
// properties where there is none: the occupancy rules, the autotuner's search on the CUDA path.
#pragma once

#include "tilekit/device.hpp"

namespace tilekit::testing {

inline DeviceInfo stand_in_h200() {
  constexpr size_t kKiB = 1024;
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.regs_per_sm = d.regs_per_block = 65536;
  d.smem_per_sm_bytes = 228 * kKiB;
  d.smem_per_block_bytes = 48 * kKiB;
  d.smem_per_block_optin_bytes = 227 * kKiB;
  d.reserved_smem_per_block_bytes = kKiB;
  return d;
}

}  // namespace tilekit::testing
