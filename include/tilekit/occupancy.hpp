// occupancy.hpp — theoretical occupancy without a GPU.
//
// The engine is NVIDIA's own calculator, the header-only cuda_occupancy.h shipped with the CUDA
// toolkit (it runs on the host), fed either by a per-architecture property table taken from the
// CUDA Programming Guide's compute-capability table, or by a live device's properties.
#pragma once

#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/status.hpp"

namespace tilekit {

// What the occupancy calculator needs to know about an architecture.
struct ArchProperties {
  std::string name;          // "sm_90"
  std::string example;       // the device whose SM count is used ("H100/H200 SXM")
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;  // documentation only: the calculator knows it per arch
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  int warp_size = 32;
  size_t smem_per_sm = 0;              // bytes usable by blocks on one SM
  size_t smem_per_block = 48 * 1024;   // without opt-in
  size_t smem_per_block_optin = 0;     // with cudaFuncSetAttribute opt-in
  size_t reserved_smem_per_block = 0;  // driver-reserved per block (1 KB from sm_80)
  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

// The table: sm_61, 70, 75, 80, 86, 87, 89, 90, 100, 120.
const std::vector<ArchProperties>& known_architectures();
// "sm_90", "90", "9.0" or "compute_90" name the same row; an unknown name is kInvalidArgument
// listing the known ones.
Status find_architecture(const std::string& name, ArchProperties* out);
ArchProperties architecture_of(const DeviceInfo& device);  // the live device's own values

struct OccupancyQuery {
  int threads = 0;       // per block
  int regs = 0;          // per thread
  size_t smem = 0;       // static shared memory per block, bytes
  size_t dyn_smem = 0;   // dynamic shared memory per block, bytes
};

struct OccupancyResult {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double occupancy = 0;               // active warps / max warps per SM, 0..1
  std::vector<std::string> limiters;  // "warps", "registers", "shared memory", "blocks", ...
  // Each resource's own limit on resident blocks per SM (-1: that resource does not limit).
  int limit_warps = 0, limit_registers = 0, limit_shared_memory = 0, limit_blocks = 0;
  int allocated_registers_per_block = 0;
  size_t allocated_smem_per_block = 0;  // rounded to the allocation unit, reserve included
  bool opted_in = false;                // dynamic shared memory above 48 KB counts as opted in
  std::string why_zero;                 // when blocks_per_sm == 0: why it cannot launch
  // The Sheffield formula, device-wide: maxActiveBlocks·TPB / (maxThreadsPerSM·SMs).
  long long device_active_blocks = 0;
};

// Validates the query against the architecture (threads 1..max per block, regs 0..255, shared
// memory within the per-block opt-in limit): a violation is kInvalidArgument naming the value.
Status compute_occupancy(const ArchProperties& arch, const OccupancyQuery& q, OccupancyResult* out);

// The block size (a multiple of the warp size) that the calculator's launch configurator picks
// for a kernel with these registers and shared memory, and the minimum grid for full occupancy.
Status suggest_block_size(const ArchProperties& arch, int regs, size_t smem, size_t dyn_smem,
                          int max_threads_per_block, int* block_size, int* min_grid);

}  // namespace tilekit
