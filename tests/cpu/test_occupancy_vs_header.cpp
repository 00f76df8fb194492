// tilekit's occupancy calculator against NVIDIA's own, the CUDA toolkit's host-only header
// cuda_occupancy.h, case by case: every architecture of our table × block sizes × registers ×
// static and dynamic shared memory × carveouts, the launch configurator, and live-device
// properties. Built only where the header is found (tests/CMakeLists.txt); the library itself
// never includes it. Every field both report must agree: resident blocks, each resource's limit,
// the limiters, and the registers and shared memory allocated per block.
#include <gtest/gtest.h>

#include <climits>
#include <iostream>
#include <sstream>

#include <cuda_occupancy.h>

#include "tilekit/occupancy.hpp"

namespace tilekit {
namespace {

constexpr size_t kKiB = 1024;

cudaOccDeviceProp header_device(const ArchProperties& a) {
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

// The kernel as the runtime would describe it: one barrier; above 48 KB it has opted in to the
// architecture's maximum (cudaFuncAttributeMaxDynamicSharedMemorySize).
cudaOccFuncAttributes header_kernel(const ArchProperties& a, int regs, size_t smem, size_t dyn,
                                    int max_threads) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = max_threads;
  f.numRegs = regs;
  f.sharedSizeBytes = smem;
  f.numBlockBarriers = 1;
  const bool opt_in = smem + dyn > a.smem_per_block;
  f.shmemLimitConfig = opt_in ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  f.maxDynamicSharedSizeBytes = (opt_in ? a.smem_per_block_optin : a.smem_per_block) - smem;
  return f;
}

std::vector<std::string> header_limiters(unsigned bits) {
  std::vector<std::string> names;
  const std::pair<unsigned, const char*> all[] = {{OCC_LIMIT_WARPS, "warps"},
                                                  {OCC_LIMIT_REGISTERS, "registers"},
                                                  {OCC_LIMIT_SHARED_MEMORY, "shared memory"},
                                                  {OCC_LIMIT_BLOCKS, "blocks"},
                                                  {OCC_LIMIT_BARRIERS, "barriers"}};
  for (const auto& [bit, name] : all)
    if (bits & bit) names.push_back(name);
  return names;
}

int shown(int limit) { return limit == INT_MAX ? -1 : limit; }

std::string describe(const ArchProperties& a, const OccupancyQuery& q) {
  std::ostringstream s;
  s << a.name << ": " << q.threads << " threads, " << q.regs << " regs, " << q.smem
    << " B static + " << q.dyn_smem << " B dynamic, carveout " << q.carveout_percent;
  return s.str();
}

// Compares one case; counts it. Returns false (with a message) at the first field that differs.
bool agrees(const ArchProperties& a, const OccupancyQuery& q, long* cases) {
  ++*cases;
  const cudaOccDeviceProp prop = header_device(a);
  const cudaOccFuncAttributes func = header_kernel(a, q.regs, q.smem, q.dyn_smem, INT_MAX);
  cudaOccDeviceState state;
  state.carveoutConfig = q.carveout_percent;
  cudaOccResult theirs{};
  const cudaOccError e =
      cudaOccMaxActiveBlocksPerMultiprocessor(&theirs, &prop, &func, &state, q.threads, q.dyn_smem);
  OccupancyResult ours;
  const Status s = compute_occupancy(a, q, &ours);
  EXPECT_EQ(s.is_ok(), e == CUDA_OCC_SUCCESS) << describe(a, q) << ": " << s.to_string();
  if (!s.is_ok() || e != CUDA_OCC_SUCCESS) return s.is_ok() == (e == CUDA_OCC_SUCCESS);
  const bool same = ours.blocks_per_sm == theirs.activeBlocksPerMultiprocessor &&
                    ours.limit_warps == shown(theirs.blockLimitWarps) &&
                    ours.limit_registers == shown(theirs.blockLimitRegs) &&
                    ours.limit_shared_memory == shown(theirs.blockLimitSharedMem) &&
                    ours.limit_blocks == shown(theirs.blockLimitBlocks) &&
                    ours.limit_barriers == shown(theirs.blockLimitBarriers) &&
                    ours.limiters == header_limiters(theirs.limitingFactors) &&
                    ours.allocated_registers_per_block == theirs.allocatedRegistersPerBlock &&
                    ours.allocated_smem_per_block == theirs.allocatedSharedMemPerBlock;
  EXPECT_TRUE(same) << describe(a, q) << ": ours " << ours.blocks_per_sm << " blocks (warps "
                    << ours.limit_warps << ", regs " << ours.limit_registers << ", smem "
                    << ours.limit_shared_memory << ", blocks " << ours.limit_blocks
                    << ", barriers " << ours.limit_barriers << "), header "
                    << theirs.activeBlocksPerMultiprocessor << " (warps "
                    << theirs.blockLimitWarps << ", regs " << theirs.blockLimitRegs << ", smem "
                    << theirs.blockLimitSharedMem << ", blocks " << theirs.blockLimitBlocks
                    << ", barriers " << theirs.blockLimitBarriers << ")";
  return same;
}

// Block sizes: every whole number of warps, and sizes one short of or past a warp.
std::vector<int> block_sizes(const ArchProperties& a) {
  std::vector<int> sizes = {1, 17, 31, 33, 63, 65, 100, 257, 500, 1000, 1023};
  for (int t = a.warp_size; t <= a.max_threads_per_block; t += a.warp_size) sizes.push_back(t);
  return sizes;
}

// (static, dynamic) shared memory: none, unit edges, the 48 KB default edge, the opt-in range up
// to the architecture's maximum; only the pairs our validation accepts.
std::vector<std::pair<size_t, size_t>> smem_pairs(const ArchProperties& a) {
  const size_t max = a.smem_per_block_optin;
  const std::vector<size_t> statics = {0, 1, 127, 128, 129, 255, 1000, 4096, 8448, 40000, 48 * kKiB};
  const std::vector<size_t> dynamics = {0,          1,          129,        3000,      16 * kKiB,
                                        48 * kKiB - 1, 48 * kKiB, 48 * kKiB + 1, 64 * kKiB,
                                        96 * kKiB, 99 * kKiB,  100 * kKiB, 150000,    200 * kKiB,
                                        max - 1,   max};
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t s : statics)
    for (size_t d : dynamics)
      if (s + d <= max) pairs.emplace_back(s, d);
  pairs.emplace_back(1000, max - 1000);  // static plus dynamic exactly at the limit
  return pairs;
}

void report(const char* what, long cases) {
  std::cout << "[ compared ] " << cases << " " << what << " with cuda_occupancy.h, all agree\n";
  ::testing::Test::RecordProperty("cases_compared", std::to_string(cases));
}

// Every register count, on a few shared-memory sizes.
TEST(OccupancyVsHeader, EveryArchitectureBlockSizeAndRegisterCount) {
  long cases = 0;
  for (const ArchProperties& a : known_architectures())
    for (int threads : block_sizes(a))
      for (int regs = 0; regs <= a.max_regs_per_thread; ++regs)
        for (const auto& [smem, dyn] : {std::pair<size_t, size_t>{0, 0}, {1000, 0}, {0, 20000},
                                        {8448, 40000}, {0, a.smem_per_block_optin}})
          if (!agrees(a, {threads, regs, smem, dyn}, &cases)) FAIL() << "stopping at the first";
  report("cases (architecture × block size × registers 0..255)", cases);
}

// Every shared-memory pair, on register counts around the allocation edges.
TEST(OccupancyVsHeader, EveryArchitectureBlockSizeAndSharedMemory) {
  long cases = 0;
  for (const ArchProperties& a : known_architectures())
    for (int threads : block_sizes(a))
      for (int regs : {0, 1, 8, 16, 24, 32, 37, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 224,
                       232, 255})
        for (const auto& [smem, dyn] : smem_pairs(a))
          if (!agrees(a, {threads, regs, smem, dyn}, &cases)) FAIL() << "stopping at the first";
  report("cases (architecture × block size × shared memory)", cases);
}

TEST(OccupancyVsHeader, SharedMemoryCarveouts) {
  long cases = 0;
  for (const ArchProperties& a : known_architectures())
    for (int carveout : {kCarveoutDefault, 0, 1, 5, 10, 25, 33, 50, 60, 66, 75, 90, 99, 100})
      for (int threads : {32, 96, 128, 256, 512, 1024})
        for (int regs : {0, 32, 64, 128})
          for (const auto& [smem, dyn] : smem_pairs(a))
            if (!agrees(a, {threads, regs, smem, dyn, carveout}, &cases))
              FAIL() << "stopping at the first";
  report("carveout cases", cases);
}

// The old hand-typed check, kept: sm_90 properties entered from the Guide, not from our table.
TEST(OccupancyVsHeader, Sm90PropertiesTypedInFromTheGuide) {
  cudaOccDeviceProp p;
  p.computeMajor = 9;
  p.computeMinor = 0;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = 2048;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 48 * kKiB;
  p.sharedMemPerMultiprocessor = 228 * kKiB;
  p.numSms = 132;
  p.sharedMemPerBlockOptin = 227 * kKiB;
  p.reservedSharedMemPerBlock = kKiB;
  const cudaOccDeviceState state;
  ArchProperties sm90;
  ASSERT_TRUE(find_architecture("sm_90", &sm90).is_ok());
  for (int threads : {32, 96, 128, 256, 384, 512, 768, 1024})
    for (int regs : {0, 16, 32, 40, 64, 96, 128, 168, 255})
      for (size_t smem : {size_t{0}, size_t{2048}, size_t{8448}, size_t{40000}}) {
        const cudaOccFuncAttributes f = header_kernel(sm90, regs, smem, 0, 1024);
        cudaOccResult direct{};
        ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&direct, &p, &f, &state, threads, 0),
                  CUDA_OCC_SUCCESS);
        OccupancyResult ours;
        ASSERT_TRUE(compute_occupancy(sm90, {threads, regs, smem, 0}, &ours).is_ok());
        EXPECT_EQ(ours.blocks_per_sm, direct.activeBlocksPerMultiprocessor)
            << threads << " threads, " << regs << " regs, " << smem << " B";
      }
}

TEST(OccupancyVsHeader, LaunchConfigurator) {
  long cases = 0;
  for (const ArchProperties& a : known_architectures())
    for (int max_threads : {1024, 1000, 768, 256, 96, 32, 1})
      for (int regs = 0; regs <= a.max_regs_per_thread; regs += 3)
        for (const auto& [smem, dyn] : {std::pair<size_t, size_t>{0, 0}, {0, 8192}, {4096, 0},
                                        {1000, 30000}, {0, 60000}, {0, a.smem_per_block_optin}}) {
          if (smem + dyn > a.smem_per_block_optin) continue;
          ++cases;
          const cudaOccDeviceProp prop = header_device(a);
          const cudaOccFuncAttributes func = header_kernel(a, regs, smem, dyn, max_threads);
          const cudaOccDeviceState state;
          int their_block = 0, their_grid = 0, our_block = 0, our_grid = 0;
          ASSERT_EQ(cudaOccMaxPotentialOccupancyBlockSize(&their_grid, &their_block, &prop, &func,
                                                          &state, dyn),
                    CUDA_OCC_SUCCESS);
          ASSERT_TRUE(
              suggest_block_size(a, regs, smem, dyn, max_threads, &our_block, &our_grid).is_ok());
          ASSERT_EQ(our_block, their_block) << a.name << " regs " << regs << " smem " << smem
                                            << "+" << dyn << " max " << max_threads;
          ASSERT_EQ(our_grid, their_grid) << a.name << " regs " << regs;
        }
  report("launch-configurator cases", cases);
}

// Live devices: what cudaGetDeviceProperties would report, through architecture_of — including
// GP100 (6.0, two sub-partitions), which our table does not list, and a device allowing a block
// half the register file, where the launch check's rounding to sub-partitions shows.
TEST(OccupancyVsHeader, LiveDeviceProperties) {
  auto device = [](int major, int minor, int threads_per_sm, int blocks, size_t smem_sm,
                   size_t optin, size_t reserved, int regs_per_block = 65536) {
    DeviceInfo d;
    d.name = "test device";
    d.cc_major = major;
    d.cc_minor = minor;
    d.sm_count = 100;
    d.max_threads_per_block = 1024;
    d.max_threads_per_sm = threads_per_sm;
    d.max_blocks_per_sm = blocks;
    d.regs_per_sm = 65536;
    d.regs_per_block = regs_per_block;
    d.smem_per_sm_bytes = smem_sm;
    d.smem_per_block_bytes = 48 * kKiB;
    d.smem_per_block_optin_bytes = optin;
    d.reserved_smem_per_block_bytes = reserved;
    return architecture_of(d);
  };
  const ArchProperties devices[] = {
      device(6, 0, 2048, 32, 64 * kKiB, 48 * kKiB, 0),             // P100
      device(9, 0, 2048, 32, 228 * kKiB, 227 * kKiB, kKiB),        // H100 / H200
      device(8, 6, 1536, 16, 100 * kKiB, 99 * kKiB, kKiB),         // RTX 3090
      device(10, 3, 2048, 32, 228 * kKiB, 227 * kKiB, kKiB),       // B300
      device(12, 1, 1536, 24, 100 * kKiB, 99 * kKiB, kKiB),        // GB10
      device(7, 2, 2048, 32, 96 * kKiB, 96 * kKiB, 0, 32768),      // 32 K registers a block
  };
  long cases = 0;
  for (const ArchProperties& a : devices)
    for (int threads : block_sizes(a))
      for (int regs = 0; regs <= a.max_regs_per_thread; regs += 5)
        for (const auto& [smem, dyn] : smem_pairs(a))
          if (!agrees(a, {threads, regs, smem, dyn}, &cases)) FAIL() << "stopping at the first";
  report("live-device cases", cases);
}

}  // namespace
}  // namespace tilekit
