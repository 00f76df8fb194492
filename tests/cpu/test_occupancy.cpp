// The occupancy calculator on cases worked by hand from the Programming Guide's rules and
// ANCHORS.md's facts: registers allocated per warp in units of 256 and counted per SM
// sub-partition (4 per SM), shared memory in 128-byte units from sm_80 with 1 KB reserved per
// block (256 before, no reserve), the carveout steps, block, warp and barrier caps. Needs no CUDA
// toolkit; test_occupancy_vs_header.cpp compares with NVIDIA's cuda_occupancy.h where it exists.
#include <gtest/gtest.h>

#include "support/stand_in_device.hpp"
#include "tilekit/occupancy.hpp"

namespace tilekit {
namespace {

constexpr size_t kKiB = 1024;

ArchProperties arch(const char* name) {
  ArchProperties a;
  EXPECT_TRUE(find_architecture(name, &a).is_ok()) << name;
  return a;
}

OccupancyResult occupancy(const char* name, int threads, int regs, size_t smem, size_t dyn = 0,
                          int carveout = kCarveoutDefault) {
  OccupancyQuery q{threads, regs, smem, dyn, carveout};
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
    // Tiny blocks without registers or shared memory: only the block cap binds.
    EXPECT_EQ(occupancy(c.name, 32, 0, 0).blocks_per_sm, c.blocks) << c.name;
  }
}

TEST(ArchTable, CarriesTheAllocationRules) {
  for (const auto& a : known_architectures()) {
    EXPECT_EQ(a.reg_alloc_unit, 256) << a.name;
    EXPECT_EQ(a.sub_partitions, 4) << a.name;
    EXPECT_EQ(a.smem_alloc_unit, a.cc_major >= 8 ? 128u : 256u) << a.name;
    EXPECT_EQ(a.reserved_smem_per_block, a.cc_major >= 8 ? kKiB : 0u) << a.name;
    // The largest carveout is all of the SM's shared memory; Pascal's split is fixed.
    if (a.cc_major >= 7) {
      ASSERT_FALSE(a.smem_carveouts.empty()) << a.name;
      EXPECT_EQ(a.smem_carveouts.back(), a.smem_per_sm) << a.name;
    } else {
      EXPECT_TRUE(a.smem_carveouts.empty()) << a.name;
    }
  }
  EXPECT_EQ(arch("sm_90").barriers_per_sm, 64);   // two per resident block from Hopper
  EXPECT_EQ(arch("sm_120").barriers_per_sm, 24);  // one per resident block
  EXPECT_EQ(arch("sm_80").barriers_per_sm, 0);    // not a limit before Hopper
  const std::vector<size_t> turing = {32 * kKiB, 64 * kKiB};
  EXPECT_EQ(arch("sm_75").smem_carveouts, turing);
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

// ---- registers ----
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
  EXPECT_EQ(r.limit_barriers, 64);
  EXPECT_EQ(r.limiters, std::vector<std::string>{"registers"});
  EXPECT_EQ(r.device_active_blocks, 4 * 132);
}

TEST(Occupancy, Sm90RegistersRoundUpToUnitsOf256PerWarp) {
  // 37 regs × 32 = 1184 → 1280 per warp. Per SM sub-partition (4 per SM) 16384 registers hold
  // 12 such warps → 48 warps per SM; a 128-thread block has 4 → 12 blocks.
  const OccupancyResult r = occupancy("sm_90", 128, 37, 0);
  EXPECT_EQ(r.blocks_per_sm, 12);
  EXPECT_EQ(r.allocated_registers_per_block, 4 * 1280);
}

TEST(Occupancy, Sm90RegistersCountedPerSubPartition) {
  // 40 regs → 1280 per warp. The whole file would hold 65536 / 1280 = 51 warps, but each
  // sub-partition's 16384 holds 12, so 48 per SM: 64-thread blocks → 24, not 25.
  const OccupancyResult r = occupancy("sm_90", 64, 40, 0);
  EXPECT_EQ(r.limit_registers, 24);
  EXPECT_EQ(r.blocks_per_sm, 24);
}

TEST(Occupancy, Sm90LaunchCheckCountsWarpsInMultiplesOfFour) {
  // 224 regs → 7168 per warp; 288 threads = 9 warps allocate 64512 ≤ 65536, but the launch
  // check counts 12 warps (86016): the block cannot launch.
  const OccupancyResult r = occupancy("sm_90", 288, 224, 0);
  EXPECT_EQ(r.allocated_registers_per_block, 9 * 7168);
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_EQ(r.limit_registers, 0);
  EXPECT_NE(r.why_zero.find("86016"), std::string::npos) << r.why_zero;
}

TEST(Occupancy, NoRegistersNoSharedMemoryLimitsNothing) {
  const OccupancyResult r = occupancy("sm_61", 1024, 0, 0);  // sm_61: no reserve
  EXPECT_EQ(r.limit_registers, -1);
  EXPECT_EQ(r.limit_shared_memory, -1);
  EXPECT_EQ(r.limit_barriers, -1);  // Pascal has no barrier rule
  EXPECT_EQ(r.blocks_per_sm, 2);    // 64 warps / 32
}

// ---- shared memory ----
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

TEST(Occupancy, Sm61SharedMemoryIn256ByteUnitsWithoutReserve) {
  // sm_61: 96 KB per SM, 256-byte units, nothing reserved: 10000 → 10240; 98304 / 10240 = 9.
  const OccupancyResult r = occupancy("sm_61", 128, 24, 10000);
  EXPECT_EQ(r.allocated_smem_per_block, 10240u);
  EXPECT_EQ(r.blocks_per_sm, 9);
  EXPECT_EQ(r.warps_per_sm, 36);
  EXPECT_DOUBLE_EQ(r.occupancy, 36.0 / 64.0);
  EXPECT_TRUE(limited_by(r, "shared memory"));
}

TEST(Occupancy, Sm90CarveoutRoundsUpToAConfiguration) {
  // 20000 B + 1 KB reserve → 21120. Default: all 228 KB → 233472 / 21120 = 11 blocks.
  EXPECT_EQ(occupancy("sm_90", 64, 0, 0, 20000).limit_shared_memory, 11);
  // 50% of 228 KB = 114 KB → the next configuration, 132 KB: 135168 / 21120 = 6.
  const OccupancyResult half = occupancy("sm_90", 64, 0, 0, 20000, 50);
  EXPECT_EQ(half.smem_config_per_sm, 132 * kKiB);
  EXPECT_EQ(half.limit_shared_memory, 6);
  // 0% cannot hold one block: the driver picks the smallest configuration that does, 32 KB.
  const OccupancyResult none = occupancy("sm_90", 64, 0, 0, 20000, 0);
  EXPECT_EQ(none.smem_config_per_sm, 32 * kKiB);
  EXPECT_EQ(none.blocks_per_sm, 1);
}

TEST(Occupancy, TuringSmallestConfigurationIs32KB) {
  // sm_75 offers 32 or 64 KB; a 0% carveout still gives 32 KB: 32768 / 4096 = 8 blocks.
  const OccupancyResult r = occupancy("sm_75", 64, 0, 4096, 0, 0);
  EXPECT_EQ(r.smem_config_per_sm, 32 * kKiB);
  EXPECT_EQ(r.limit_shared_memory, 8);
}

TEST(Occupancy, Sm80OptInAboveOneHundredKB) {
  // 100000 B + 1 KB → 101120; 164 KB = 167936 holds 1.
  const OccupancyResult r = occupancy("sm_80", 256, 32, 0, 100000);
  EXPECT_TRUE(r.opted_in);
  EXPECT_EQ(r.allocated_smem_per_block, 101120u);
  EXPECT_EQ(r.blocks_per_sm, 1);
}

// ---- warps, blocks, barriers ----
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

TEST(Occupancy, Sm75OneFullBlock) {
  const OccupancyResult r = occupancy("sm_75", 1024, 32, 0);  // 1024 threads per SM
  EXPECT_EQ(r.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
}

TEST(Occupancy, Sm120BarrierSlotsTieWithTheBlockCap) {
  // One barrier slot per resident block on 12.x: with the block cap of 24, both limit.
  const OccupancyResult r = occupancy("sm_120", 32, 0, 0);
  EXPECT_EQ(r.blocks_per_sm, 24);
  EXPECT_EQ(r.limit_barriers, 24);
  EXPECT_EQ(r.limiters, (std::vector<std::string>{"blocks", "barriers"}));
}

TEST(Occupancy, OddBlockSizesRoundUpToWholeWarps) {
  // 33 threads take 2 warps: 64 / 2 = 32 blocks, 64 warps resident.
  const OccupancyResult r = occupancy("sm_90", 33, 0, 0);
  EXPECT_EQ(r.limit_warps, 32);
  EXPECT_EQ(r.warps_per_sm, 64);
}

// ---- cannot launch, bad input, unknown architectures ----
TEST(Occupancy, CannotLaunchReportsZeroAndWhy) {
  const OccupancyResult r = occupancy("sm_90", 1024, 255, 0);  // 262144 registers per block
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.0);
  EXPECT_NE(r.why_zero.find("registers"), std::string::npos) << r.why_zero;
}

TEST(Occupancy, BadInputIsRefused) {
  const ArchProperties a = arch("sm_90");
  OccupancyResult r;
  auto refused = [&](int threads, int regs, size_t smem, size_t dyn, int carveout,
                     const char* fragment) {
    OccupancyQuery q{threads, regs, smem, dyn, carveout};
    const Status s = compute_occupancy(a, q, &r);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << fragment;
    EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
  };
  refused(0, 32, 0, 0, kCarveoutDefault, "--threads 0");
  refused(1025, 32, 0, 0, kCarveoutDefault, "--threads 1025");
  refused(256, -1, 0, 0, kCarveoutDefault, "--regs -1");
  refused(256, 256, 0, 0, kCarveoutDefault, "--regs 256");
  refused(256, 32, 0, 240 * 1024, kCarveoutDefault, "per-block limit");
  refused(256, 32, 50 * 1024, 0, kCarveoutDefault, "static shared memory");
  refused(256, 32, 0, 0, 101, "--carveout 101");
  refused(256, 32, 0, 0, -2, "--carveout -2");
}

using testing::stand_in_h200;

TEST(Occupancy, LiveDeviceGetsItsFamilysRules) {
  const ArchProperties a = architecture_of(stand_in_h200());
  EXPECT_EQ(a.reg_alloc_unit, 256);
  EXPECT_EQ(a.smem_alloc_unit, 128u);
  EXPECT_EQ(a.barriers_per_sm, 64);
  OccupancyResult r;
  ASSERT_TRUE(compute_occupancy(a, {256, 64, 8192, 0}, &r).is_ok());
  EXPECT_EQ(r.blocks_per_sm, 4);
}

TEST(Occupancy, UnknownFamilyIsNotSupported) {
  DeviceInfo d = stand_in_h200();
  d.cc_major = 42;  // a compute capability whose allocation rules tilekit has not learned
  OccupancyResult r;
  const Status s = compute_occupancy(architecture_of(d), {256, 64, 0, 0}, &r);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("sm_420"), std::string::npos) << s.message();
}

// ---- the launch configurator ----
TEST(Occupancy, SuggestedBlockSizeReachesTheBestOccupancy) {
  int block = 0, grid = 0;
  // 32 regs: 1024-thread blocks already fill the SM twice over (2 × 1024 = 2048 threads).
  ASSERT_TRUE(suggest_block_size(arch("sm_90"), 32, 0, 0, 1024, &block, &grid).is_ok());
  EXPECT_EQ(block, 1024);
  EXPECT_EQ(grid, 2 * 132);
  EXPECT_DOUBLE_EQ(occupancy("sm_90", block, 32, 0).occupancy, 1.0);
  // 64 regs: at most 32 warps per SM whatever the block; the largest size reaching them wins.
  ASSERT_TRUE(suggest_block_size(arch("sm_90"), 64, 0, 0, 1024, &block, &grid).is_ok());
  EXPECT_EQ(block, 1024);
  EXPECT_EQ(grid, 132);
  // A kernel capped at 1000 threads tries 1000 first, then whole warps downward.
  ASSERT_TRUE(suggest_block_size(arch("sm_90"), 32, 0, 0, 1000, &block, &grid).is_ok());
  EXPECT_EQ(block, 512);
  EXPECT_EQ(grid, 4 * 132);
}

}  // namespace
}  // namespace tilekit
