// occupancy.hpp — theoretical occupancy without a GPU and without the CUDA toolkit.
//
// tilekit's own implementation of the occupancy rules that NVIDIA's calculator (the toolkit's
// header cuda_occupancy.h, and the runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor)
// applies: warps, registers allocated per warp and per SM sub-partition, shared memory in
// allocation units plus the driver's reserve, the carveout, resident-block and barrier caps. It
// is fed by a per-architecture table from the CUDA Programming Guide, or by a live device's
// properties. The test suite checks it against cuda_occupancy.h case by case where the toolkit is
// installed (tests/cpu/test_occupancy_vs_header.cpp); the library never includes that header.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/status.hpp"

namespace tilekit {

// What the occupancy rules need to know about an architecture: the sizes a device reports, and
// the allocation rules no device query returns (units, sub-partitions, carveout steps, barriers).
struct ArchProperties {
  std::string name;          // "sm_90"
  std::string example;       // the device whose SM count is used ("H100/H200 SXM")
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;  // resident blocks per SM
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  int warp_size = 32;
  size_t smem_per_sm = 0;              // bytes usable by blocks on one SM (the largest carveout)
  size_t smem_per_block = 48 * 1024;   // without opt-in
  size_t smem_per_block_optin = 0;     // with cudaFuncSetAttribute opt-in
  size_t reserved_smem_per_block = 0;  // driver-reserved per block (1 KB from sm_80)

  // ---- allocation rules (0 or empty: unknown for this architecture) ----
  int reg_alloc_unit = 0;       // registers are given to a warp in multiples of this (256)
  int sub_partitions = 0;       // SM sub-partitions, each holding 1/n of the registers (4)
  size_t smem_alloc_unit = 0;   // shared memory is given to a block in multiples of this (bytes)
  int barriers_per_sm = 0;      // block-barrier slots per SM from sm_90 (0: not a limit before)
  // Shared-memory sizes an SM can be configured to (Volta on), ascending; empty: a fixed split.
  std::vector<size_t> smem_carveouts;

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

// The table: sm_61, 70, 75, 80, 86, 87, 89, 90, 100, 120.
const std::vector<ArchProperties>& known_architectures();
// "sm_90", "90", "9.0" or "compute_90" name the same row; an unknown name is kInvalidArgument
// listing the known ones.
Status find_architecture(const std::string& name, ArchProperties* out);
// The live device's own sizes, with the allocation rules of its compute capability.
ArchProperties architecture_of(const DeviceInfo& device);

// The preferred shared-memory carveout left to the driver (cudaSharedmemCarveoutDefault).
constexpr int kCarveoutDefault = -1;

struct OccupancyQuery {
  int threads = 0;       // per block
  int regs = 0;          // per thread
  size_t smem = 0;       // static shared memory per block, bytes
  size_t dyn_smem = 0;   // dynamic shared memory per block, bytes
  // Preferred shared-memory carveout in percent of smem_per_sm, as set with
  // cudaFuncAttributePreferredSharedMemoryCarveout (Volta on); kCarveoutDefault: none.
  int carveout_percent = kCarveoutDefault;
};

struct OccupancyResult {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double occupancy = 0;               // active warps / max warps per SM, 0..1
  std::vector<std::string> limiters;  // "warps", "registers", "shared memory", "blocks", "barriers"
  // Each resource's own limit on resident blocks per SM (-1: that resource does not limit).
  int limit_warps = 0, limit_registers = 0, limit_shared_memory = 0, limit_blocks = 0;
  int limit_barriers = -1;              // from sm_90 (one barrier per block)
  int allocated_registers_per_block = 0;
  size_t allocated_smem_per_block = 0;  // rounded to the allocation unit, reserve included
  size_t smem_config_per_sm = 0;        // the SM's shared-memory size these blocks share
  bool opted_in = false;                // dynamic shared memory above 48 KB counts as opted in
  std::string why_zero;                 // when blocks_per_sm == 0: why it cannot launch
  // The Sheffield formula, device-wide: maxActiveBlocks·TPB / (maxThreadsPerSM·SMs).
  long long device_active_blocks = 0;
};

// Validates the query against the architecture (threads 1..max per block, regs 0..255, shared
// memory within the per-block opt-in limit, carveout -1 or 0..100): a violation is
// kInvalidArgument naming the value; an architecture whose rules are unknown is kNotSupported.
Status compute_occupancy(const ArchProperties& arch, const OccupancyQuery& q, OccupancyResult* out);

// The block size that NVIDIA's launch configurator (cudaOccupancyMaxPotentialBlockSize) picks
// for a kernel with these registers and shared memory — the largest of the sizes giving the most
// resident threads — and the minimum grid for full occupancy.
Status suggest_block_size(const ArchProperties& arch, int regs, size_t smem, size_t dyn_smem,
                          int max_threads_per_block, int* block_size, int* min_grid);

}  // namespace tilekit
