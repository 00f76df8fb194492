// test_tma_operands.cpp — which operands the Hopper family reads in place and which it copies
// first (tma_operands.hpp): host code, so it runs without a GPU. The rules and the measurements
// behind them: docs/hopper.md, "Rows off their lines".
#include <gtest/gtest.h>

#include <cstdint>

#include "cuda/gemm/sm90/tma_operands.hpp"

namespace tilekit::cuda::sm90 {
namespace {

// An operand at a 1 MiB-aligned address (plus `offset` bytes): only its row pitch decides.
TmaOperand operand(int64_t ld, uintptr_t offset = 0) {
  return TmaOperand{reinterpret_cast<const void*>((uintptr_t{1} << 20) + offset), 1000, 1000, ld};
}

constexpr OffLineReads kLone{}, kWide{true, false}, kClustered{false, true}, kClusteredWide{true, true};

TEST(TmaOperands, SixteenBitRowsOnLinesAreReadInPlaceAndUnreadableOnesAlwaysCopied) {
  for (OffLineReads r : {kLone, kWide, kClustered, kClusteredWide}) {
    EXPECT_FALSE(repack_pays(operand(4096), 1'000'000, r));  // 8192-byte rows: on lines
    EXPECT_TRUE(repack_pays(operand(4097), 1, r));           // 8194 bytes: TMA cannot read it
    EXPECT_EQ(repack_bytes(operand(4096), 1'000'000, r), 0u);
    EXPECT_GT(repack_bytes(operand(4097), 1, r), 0u);
  }
}

TEST(TmaOperands, SixteenBitRowsOnSectorsAreReadInPlaceByWideTilesAndClusters) {
  const TmaOperand on_sectors = operand(5200);  // 10400-byte rows: 32 past a line
  EXPECT_FALSE(repack_pays(on_sectors, 3071, kLone));
  EXPECT_TRUE(repack_pays(on_sectors, 3072, kLone));
  for (OffLineReads r : {kWide, kClustered, kClusteredWide})
    EXPECT_FALSE(repack_pays(on_sectors, 1'000'000, r));
  // The same pitch from a base 16 bytes past a sector: every row off its sector.
  EXPECT_TRUE(repack_pays(operand(5200, 16), 3072, kWide));
}

TEST(TmaOperands, SixteenBitRowsOffSectorsAreCopiedFrom3072UsesOr8192ForClusteredWideTiles) {
  const TmaOperand off_sectors = operand(2200);  // 4400-byte rows: 48 past a line
  for (OffLineReads r : {kLone, kWide, kClustered}) {
    EXPECT_FALSE(repack_pays(off_sectors, 3071, r));
    EXPECT_TRUE(repack_pays(off_sectors, 3072, r));
  }
  EXPECT_FALSE(repack_pays(off_sectors, 8191, kClusteredWide));
  EXPECT_TRUE(repack_pays(off_sectors, 8192, kClusteredWide));
}

TEST(TmaOperands, Tf32ReadsKMajorRowsOnSectorsInPlaceAtAnySize) {
  const TmaOperand on_sectors = operand(5200), off_sectors = operand(4100);  // 20800, 16400 bytes
  EXPECT_TRUE(tf32_reads_in_place(on_sectors, false, 1'000'000));
  EXPECT_FALSE(tf32_reads_in_place(on_sectors, true, 1));  // MN-major: always prepared
  EXPECT_TRUE(tf32_reads_in_place(off_sectors, false, 3071));
  EXPECT_FALSE(tf32_reads_in_place(off_sectors, false, 3072));
  EXPECT_FALSE(tf32_reads_in_place(operand(4097), false, 1));  // 16388 bytes: TMA cannot read it
  // The a_regs kernels' A, via registers either way: MN-major rows off lines only below 3072.
  EXPECT_TRUE(tf32_reads_in_place_either_major(on_sectors, true, 3071));
  EXPECT_FALSE(tf32_reads_in_place_either_major(on_sectors, true, 3072));
  EXPECT_TRUE(tf32_reads_in_place_either_major(on_sectors, false, 1'000'000));
  EXPECT_TRUE(tf32_reads_in_place_either_major(operand(4096), true, 1'000'000));  // on lines
}

}  // namespace
}  // namespace tilekit::cuda::sm90
