// The occupancy tool: against cuda_occupancy.h called directly with hand-entered properties, and
// against cases derived by hand from the Programming Guide's rules (registers allocated per warp
// in units of 256, shared memory in 128-byte units from sm_80 with 1 KB reserved per block, 256
// before; block and warp caps).
#include <gtest/gtest.h>

#include <cuda_occupancy.h>

#include "tilekit/occupancy.hpp"

namespace tilekit {
namespace {

ArchProperties arch(const char* name) {
  ArchProperties a;
  EXPECT_TRUE(find_architecture(name, &a).is_ok()) << name;
  return a;
}

OccupancyResult occupancy(const char* name, int threads, int regs, size_t smem, size_t dyn = 0) {
  OccupancyQuery q;
  q.threads = threads;
  q.regs = regs;
  q.smem = smem;
  q.dyn_smem = dyn;
  OccupancyResult r;
  const Status s = compute_occupancy(arch(name), q, &r);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return r;
}

bool limited_by(const OccupancyResult& r, const std::string& what) {
  for (const auto& l : r.limiters)
    if (l == what) return true;
  return false;
}

// ---- the table ----
TEST(ArchTable, HasEveryListedArchitectureWithTheGuidesCaps) {
  struct Caps {
    const char* name;
    int blocks, warps;
  };
  // Programming Guide / ANCHORS.md: max resident blocks and warps per SM.
  for (const Caps c : {Caps{"sm_61", 32, 64}, Caps{"sm_70", 32, 64}, Caps{"sm_75", 16, 32},
                       Caps{"sm_80", 32, 64}, Caps{"sm_86", 16, 48}, Caps{"sm_87", 16, 48},
                       Caps{"sm_89", 24, 48}, Caps{"sm_90", 32, 64}}) {
    const ArchProperties a = arch(c.name);
    EXPECT_EQ(a.max_blocks_per_sm, c.blocks) << c.name;
    EXPECT_EQ(a.max_warps_per_sm(), c.warps) << c.name;
    // With tiny blocks, the calculator's own block cap must agree with the table.
    EXPECT_EQ(occupancy(c.name, 32, 0, 0).blocks_per_sm, c.blocks) << c.name;
  }
}

TEST(ArchTable, NamesAndErrors) {
  ArchProperties a;
  EXPECT_TRUE(find_architecture("90", &a).is_ok());
  EXPECT_EQ(a.name, "sm_90");
  EXPECT_TRUE(find_architecture("9.0", &a).is_ok());
  EXPECT_TRUE(find_architecture("sm_90a", &a).is_ok());
  EXPECT_TRUE(find_architecture("compute_86", &a).is_ok());
  EXPECT_EQ(a.name, "sm_86");
  const Status s = find_architecture("sm_42", &a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("sm_42"), std::string::npos);
  EXPECT_NE(s.message().find("sm_90"), std::string::npos) << "should list the known ones";
}

// ---- against cuda_occupancy.h with properties typed in from the Guide ----
TEST(Occupancy, MatchesTheHeaderCalledDirectly) {
  cudaOccDeviceProp p;
  p.computeMajor = 9;
  p.computeMinor = 0;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = 2048;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.numSms = 132;
  p.sharedMemPerBlockOptin = 227 * 1024;
  p.reservedSharedMemPerBlock = 1024;
  const cudaOccDeviceState state;
  for (int threads : {32, 96, 128, 256, 384, 512, 768, 1024})
    for (int regs : {0, 16, 32, 40, 64, 96, 128, 168, 255})
      for (size_t smem : {size_t{0}, size_t{2048}, size_t{8448}, size_t{40000}}) {
        cudaOccFuncAttributes f;
        f.maxThreadsPerBlock = 1024;
        f.numRegs = regs;
        f.sharedSizeBytes = smem;
        f.numBlockBarriers = 1;
        f.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
        f.maxDynamicSharedSizeBytes = 48 * 1024 - smem;
        cudaOccResult direct{};
        ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&direct, &p, &f, &state, threads, 0),
                  CUDA_OCC_SUCCESS);
        const OccupancyResult ours = occupancy("sm_90", threads, regs, smem);
        EXPECT_EQ(ours.blocks_per_sm, direct.activeBlocksPerMultiprocessor)
            << threads << " threads, " << regs << " regs, " << smem << " B";
      }
}

// ---- hand-derived from the Programming Guide ----
TEST(Occupancy, Sm90RegisterLimited) {
  // 64 regs × 32 lanes = 2048 per warp (a multiple of 256); 8 warps → 16384 per block;
  // 65536 / 16384 = 4 blocks. Shared: 8192 + 1024 reserved = 9216 → 233472 / 9216 = 25.
  const OccupancyResult r = occupancy("sm_90", 256, 64, 8192);
  EXPECT_EQ(r.blocks_per_sm, 4);
  EXPECT_EQ(r.warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
  EXPECT_EQ(r.limit_registers, 4);
  EXPECT_EQ(r.limit_shared_memory, 25);
  EXPECT_EQ(r.limit_warps, 8);
  EXPECT_EQ(r.limit_blocks, 32);
  EXPECT_TRUE(limited_by(r, "registers"));
  EXPECT_EQ(r.device_active_blocks, 4 * 132);
}

TEST(Occupancy, Sm90RegistersRoundUpToUnitsOf256PerWarp) {
  // 37 regs × 32 = 1184 → 1280 per warp. Per SM sub-partition (4 per SM) 16384 registers hold
  // 12 such warps → 48 warps per SM; a 128-thread block has 4 → 12 blocks.
  const OccupancyResult r = occupancy("sm_90", 128, 37, 0);
  EXPECT_EQ(r.blocks_per_sm, 12);
  EXPECT_EQ(r.allocated_registers_per_block, 4 * 1280);
}

TEST(Occupancy, Sm90SharedMemoryLimitedWithOptIn) {
  // 60000 B dynamic (above 48 KB: opted in) + 1024 reserved = 61024 → 128-byte units: 61056.
  // 233472 / 61056 = 3.8 → 3 blocks of 4 warps = 12 warps = 18.75%.
  const OccupancyResult r = occupancy("sm_90", 128, 32, 0, 60000);
  EXPECT_TRUE(r.opted_in);
  EXPECT_EQ(r.allocated_smem_per_block, 61056u);
  EXPECT_EQ(r.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(r.occupancy, 12.0 / 64.0);
  EXPECT_TRUE(limited_by(r, "shared memory"));
}

TEST(Occupancy, Sm86WarpCapOf48) {
  // 1536 threads per SM = 48 warps; 512-thread blocks (16 warps) → 3 blocks; 32 regs cost
  // 1024 per warp → 64 warps' worth: registers do not bind.
  const OccupancyResult r = occupancy("sm_86", 512, 32, 0);
  EXPECT_EQ(r.blocks_per_sm, 3);
  EXPECT_EQ(r.warps_per_sm, 48);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  EXPECT_TRUE(limited_by(r, "warps"));
}

TEST(Occupancy, Sm86BlockCapOf16) {
  const OccupancyResult r = occupancy("sm_86", 64, 16, 0);  // 2 warps a block; 16 blocks cap
  EXPECT_EQ(r.blocks_per_sm, 16);
  EXPECT_EQ(r.warps_per_sm, 32);
  EXPECT_TRUE(limited_by(r, "blocks"));
}

TEST(Occupancy, Sm61SharedMemoryIn256ByteUnitsWithoutReserve) {
  // sm_61: 96 KB per SM, 256-byte units, nothing reserved: 10000 → 10240; 98304 / 10240 = 9.
  const OccupancyResult r = occupancy("sm_61", 128, 24, 10000);
  EXPECT_EQ(r.allocated_smem_per_block, 10240u);
  EXPECT_EQ(r.blocks_per_sm, 9);
  EXPECT_EQ(r.warps_per_sm, 36);
  EXPECT_DOUBLE_EQ(r.occupancy, 36.0 / 64.0);
  EXPECT_TRUE(limited_by(r, "shared memory"));
}

TEST(Occupancy, CannotLaunchReportsZeroAndWhy) {
  const OccupancyResult r = occupancy("sm_90", 1024, 255, 0);  // 262144 registers per block
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.0);
  EXPECT_NE(r.why_zero.find("registers"), std::string::npos) << r.why_zero;
}

TEST(Occupancy, BadInputIsRefused) {
  const ArchProperties a = arch("sm_90");
  OccupancyResult r;
  auto refused = [&](int threads, int regs, size_t smem, size_t dyn, const char* fragment) {
    OccupancyQuery q{threads, regs, smem, dyn};
    const Status s = compute_occupancy(a, q, &r);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << fragment;
    EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
  };
  refused(0, 32, 0, 0, "--threads 0");
  refused(1025, 32, 0, 0, "--threads 1025");
  refused(256, -1, 0, 0, "--regs -1");
  refused(256, 256, 0, 0, "--regs 256");
  refused(256, 32, 0, 240 * 1024, "per-block limit");
  refused(256, 32, 50 * 1024, 0, "static shared memory");
}

TEST(Occupancy, SuggestedBlockSizeReachesTheBestOccupancy) {
  int block = 0, grid = 0;
  ASSERT_TRUE(suggest_block_size(arch("sm_90"), 32, 0, 0, 1024, &block, &grid).is_ok());
  EXPECT_GT(block, 0);
  EXPECT_EQ(block % 32, 0);
  EXPECT_DOUBLE_EQ(occupancy("sm_90", block, 32, 0).occupancy, 1.0);
}

}  // namespace
}  // namespace tilekit
