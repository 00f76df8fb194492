// occupancy.cpp — tilekit's occupancy front end over NVIDIA's cuda_occupancy.h.
#include "tilekit/occupancy.hpp"

#include <algorithm>
#include <cctype>
#include <climits>

// Host-only header from the CUDA toolkit (include/cuda_occupancy.h); needs no GPU and no runtime.
#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define TILEKIT_HAVE_CUDA_OCCUPANCY 1
#else
#define TILEKIT_HAVE_CUDA_OCCUPANCY 0
#endif

namespace tilekit {
namespace {

constexpr size_t kKiB = 1024;

// From the CUDA Programming Guide, "Compute Capabilities" (technical specifications per compute
// capability), with the SM count of one representative device so the device-wide Sheffield
// formula has a number to use. smem_per_sm is what blocks may use on one SM (the carve-out
// maximum); smem_per_block_optin the per-block maximum after cudaFuncSetAttribute.
std::vector<ArchProperties> make_table() {
  auto row = [](const char* name, const char* example, int major, int minor, int sms,
                int threads_per_sm, int blocks_per_sm, size_t smem_sm, size_t smem_optin,
                size_t reserved) {
    ArchProperties a;
    a.name = name;
    a.example = example;
    a.cc_major = major;
    a.cc_minor = minor;
    a.sm_count = sms;
    a.max_threads_per_sm = threads_per_sm;
    a.max_blocks_per_sm = blocks_per_sm;
    a.smem_per_sm = smem_sm;
    a.smem_per_block_optin = smem_optin;
    a.reserved_smem_per_block = reserved;
    return a;
  };
  return {
      row("sm_61", "GeForce GTX 1080", 6, 1, 20, 2048, 32, 96 * kKiB, 48 * kKiB, 0),
      row("sm_70", "Tesla V100", 7, 0, 80, 2048, 32, 96 * kKiB, 96 * kKiB, 0),
      row("sm_75", "Tesla T4", 7, 5, 40, 1024, 16, 64 * kKiB, 64 * kKiB, 0),
      row("sm_80", "A100", 8, 0, 108, 2048, 32, 164 * kKiB, 163 * kKiB, kKiB),
      row("sm_86", "GeForce RTX 3090", 8, 6, 82, 1536, 16, 100 * kKiB, 99 * kKiB, kKiB),
      row("sm_87", "Jetson AGX Orin", 8, 7, 16, 1536, 16, 164 * kKiB, 163 * kKiB, kKiB),
      row("sm_89", "GeForce RTX 4090", 8, 9, 128, 1536, 24, 100 * kKiB, 99 * kKiB, kKiB),
      row("sm_90", "H100/H200 SXM", 9, 0, 132, 2048, 32, 228 * kKiB, 227 * kKiB, kKiB),
      row("sm_100", "B200", 10, 0, 148, 2048, 32, 228 * kKiB, 227 * kKiB, kKiB),
      row("sm_120", "GeForce RTX 5090", 12, 0, 170, 1536, 32, 100 * kKiB, 99 * kKiB, kKiB),
  };
}

#if TILEKIT_HAVE_CUDA_OCCUPANCY
cudaOccDeviceProp to_occ(const ArchProperties& a) {
  cudaOccDeviceProp p;
  p.computeMajor = a.cc_major;
  p.computeMinor = a.cc_minor;
  p.maxThreadsPerBlock = a.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = a.regs_per_block;
  p.regsPerMultiprocessor = a.regs_per_sm;
  p.warpSize = a.warp_size;
  p.sharedMemPerBlock = a.smem_per_block;
  p.sharedMemPerMultiprocessor = a.smem_per_sm;
  p.numSms = a.sm_count;
  p.sharedMemPerBlockOptin = a.smem_per_block_optin;
  p.reservedSharedMemPerBlock = a.reserved_smem_per_block;
  return p;
}

cudaOccFuncAttributes to_occ_func(const ArchProperties& a, int regs, size_t smem, size_t dyn,
                                  int max_threads) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = max_threads;
  f.numRegs = regs;
  f.sharedSizeBytes = smem;
  f.numBlockBarriers = 1;
  // Above the default 48 KB per block a kernel must have opted in (cudaFuncSetAttribute with
  // cudaFuncAttributeMaxDynamicSharedMemorySize); count it as done, as the issue asks.
  const bool opt_in = smem + dyn > a.smem_per_block;
  f.shmemLimitConfig = opt_in ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  f.maxDynamicSharedSizeBytes = opt_in ? a.smem_per_block_optin - smem : a.smem_per_block - smem;
  return f;
}

std::string occ_error(cudaOccError e) {
  return e == CUDA_OCC_ERROR_INVALID_INPUT    ? "the calculator rejected the input"
         : e == CUDA_OCC_ERROR_UNKNOWN_DEVICE ? "the calculator does not know this architecture"
                                              : "calculator error";
}
#endif

}  // namespace

const std::vector<ArchProperties>& known_architectures() {
  static const std::vector<ArchProperties> table = make_table();
  return table;
}

Status find_architecture(const std::string& name, ArchProperties* out) {
  std::string digits;
  for (char c : name)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  for (const auto& a : known_architectures()) {
    const std::string mine = std::to_string(a.cc_major) + std::to_string(a.cc_minor);
    const bool named = name == a.name || name == mine || name == "compute_" + mine ||
                       name == std::to_string(a.cc_major) + "." + std::to_string(a.cc_minor) ||
                       (name.rfind("sm_", 0) == 0 && digits == mine &&
                        (name == "sm_" + mine + "a" || name == "sm_" + mine + "f"));
    if (named) {
      *out = a;
      return Status::ok();
    }
  }
  std::string known;
  for (const auto& a : known_architectures()) known += (known.empty() ? "" : ", ") + a.name;
  return invalid_argument("--arch: unknown architecture '" + name + "' (known: " + known + ")");
}

ArchProperties architecture_of(const DeviceInfo& d) {
  ArchProperties a;
  const std::string cc = std::to_string(d.cc_major) + std::to_string(d.cc_minor);
  ArchProperties table_row;
  if (find_architecture("sm_" + cc, &table_row)) a = table_row;  // keeps the documented caps
  a.name = "sm_" + cc;
  a.example = d.name + " (this device)";
  a.cc_major = d.cc_major;
  a.cc_minor = d.cc_minor;
  a.sm_count = d.sm_count;
  a.max_threads_per_block = d.max_threads_per_block;
  a.max_threads_per_sm = d.max_threads_per_sm;
  a.max_blocks_per_sm = d.max_blocks_per_sm;
  a.regs_per_sm = d.regs_per_sm;
  a.regs_per_block = d.regs_per_block;
  a.warp_size = d.warp_size;
  a.smem_per_sm = d.smem_per_sm_bytes;
  a.smem_per_block = d.smem_per_block_bytes;
  a.smem_per_block_optin = d.smem_per_block_optin_bytes;
  a.reserved_smem_per_block = d.reserved_smem_per_block_bytes;
  return a;
}

#if !TILEKIT_HAVE_CUDA_OCCUPANCY
Status compute_occupancy(const ArchProperties&, const OccupancyQuery&, OccupancyResult*) {
  return not_supported("occupancy: this build did not find cuda_occupancy.h (install the CUDA toolkit)");
}
Status suggest_block_size(const ArchProperties&, int, size_t, size_t, int, int*, int*) {
  return not_supported("occupancy: this build did not find cuda_occupancy.h (install the CUDA toolkit)");
}
#else
Status compute_occupancy(const ArchProperties& arch, const OccupancyQuery& q, OccupancyResult* out) {
  if (q.threads < 1 || q.threads > arch.max_threads_per_block)
    return invalid_argument("--threads " + std::to_string(q.threads) + " is outside 1.." +
                            std::to_string(arch.max_threads_per_block) + " for " + arch.name);
  if (q.regs < 0 || q.regs > arch.max_regs_per_thread)
    return invalid_argument("--regs " + std::to_string(q.regs) + " is outside 0.." +
                            std::to_string(arch.max_regs_per_thread));
  if (q.smem > arch.smem_per_block_optin || q.dyn_smem > arch.smem_per_block_optin ||
      q.smem + q.dyn_smem > arch.smem_per_block_optin)
    return invalid_argument("shared memory " + std::to_string(q.smem) + " + " +
                            std::to_string(q.dyn_smem) + " B exceeds " + arch.name +
                            "'s per-block limit of " + std::to_string(arch.smem_per_block_optin) +
                            " B (with opt-in)");
  if (q.smem > 48 * kKiB)
    return invalid_argument("--smem " + std::to_string(q.smem) +
                            " B: static shared memory is limited to 48 KB; use --dyn-smem");

  const cudaOccDeviceProp prop = to_occ(arch);
  const cudaOccFuncAttributes func = to_occ_func(arch, q.regs, q.smem, q.dyn_smem, INT_MAX);
  const cudaOccDeviceState state;
  cudaOccResult r{};
  const cudaOccError e =
      cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &func, &state, q.threads, q.dyn_smem);
  if (e != CUDA_OCC_SUCCESS) return invalid_argument(arch.name + ": " + occ_error(e));

  OccupancyResult o;
  o.blocks_per_sm = r.activeBlocksPerMultiprocessor;
  const int warps_per_block = (q.threads + arch.warp_size - 1) / arch.warp_size;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.occupancy = static_cast<double>(o.warps_per_sm) / arch.max_warps_per_sm();
  auto limit = [](int v) { return v == INT_MAX ? -1 : v; };
  o.limit_warps = limit(r.blockLimitWarps);
  o.limit_registers = limit(r.blockLimitRegs);
  o.limit_shared_memory = limit(r.blockLimitSharedMem);
  o.limit_blocks = limit(r.blockLimitBlocks);
  o.allocated_registers_per_block = r.allocatedRegistersPerBlock;
  o.allocated_smem_per_block = r.allocatedSharedMemPerBlock;
  o.opted_in = func.shmemLimitConfig == FUNC_SHMEM_LIMIT_OPTIN;
  const std::pair<unsigned, const char*> names[] = {{OCC_LIMIT_WARPS, "warps"},
                                                    {OCC_LIMIT_REGISTERS, "registers"},
                                                    {OCC_LIMIT_SHARED_MEMORY, "shared memory"},
                                                    {OCC_LIMIT_BLOCKS, "blocks"},
                                                    {OCC_LIMIT_BARRIERS, "barriers"}};
  for (const auto& [bit, name] : names)
    if (r.limitingFactors & bit) o.limiters.push_back(name);
  if (o.blocks_per_sm == 0) {
    if (r.blockLimitRegs == 0)
      o.why_zero = "registers: " + std::to_string(q.regs) + " per thread × " +
                   std::to_string(q.threads) + " threads allocate " +
                   std::to_string(r.allocatedRegistersPerBlock) + " per block, more than the " +
                   std::to_string(arch.regs_per_block) + " a block may have";
    else if (r.blockLimitSharedMem == 0)
      o.why_zero = "shared memory: " + std::to_string(r.allocatedSharedMemPerBlock) +
                   " B per block does not fit in " + std::to_string(arch.smem_per_sm) +
                   " B per SM";
    else
      o.why_zero = "the calculator found no resident block";
  }
  o.device_active_blocks = static_cast<long long>(o.blocks_per_sm) * arch.sm_count;
  *out = o;
  return Status::ok();
}

Status suggest_block_size(const ArchProperties& arch, int regs, size_t smem, size_t dyn_smem,
                          int max_threads_per_block, int* block_size, int* min_grid) {
  const cudaOccDeviceProp prop = to_occ(arch);
  const cudaOccFuncAttributes func =
      to_occ_func(arch, regs, smem, dyn_smem, max_threads_per_block);
  const cudaOccDeviceState state;
  const cudaOccError e =
      cudaOccMaxPotentialOccupancyBlockSize(min_grid, block_size, &prop, &func, &state, dyn_smem);
  if (e != CUDA_OCC_SUCCESS) return invalid_argument(arch.name + ": " + occ_error(e));
  return Status::ok();
}
#endif  // TILEKIT_HAVE_CUDA_OCCUPANCY

}  // namespace tilekit
