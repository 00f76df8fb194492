// The bank analyser on the Birmingham lecture's cases: a K×K block reading tile[y][x] and
// tile[x][y] for K = 32, 16, 32k, and tile[K][K+1].
#include <gtest/gtest.h>

#include "tilekit/banks.hpp"

namespace tilekit {
namespace {

BankReport analyze(int k, int pad, const char* index, int elem = 4) {
  BankQuery q;
  q.rows = q.cols = k;
  q.pad = pad;
  q.index = index;
  q.elem_bytes = elem;
  q.block_x = k;
  q.block_y = std::max(1, 1024 / k < k ? 1024 / k : k);
  BankReport r;
  const Status s = analyze_banks(q, &r);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return r;
}

TEST(Banks, K32RowAccessIsConflictFree) {
  const BankReport r = analyze(32, 0, "y,x");  // tile[y][x]: lane l reads word l → bank l
  EXPECT_EQ(r.conflict_degree, 1);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(r.lanes[static_cast<size_t>(l)].banks[0], l);
}

TEST(Banks, K32ColumnAccessIs32Way) {
  const BankReport r = analyze(32, 0, "x,y");  // tile[x][y]: words 0, 32, 64 … → all bank 0
  EXPECT_EQ(r.wavefronts, 32);
  EXPECT_EQ(r.conflict_degree, 32);
  EXPECT_EQ(r.words_per_bank[0], 32);
}

TEST(Banks, K32TimesKColumnAccessIsAlso32Way) {
  for (int k : {64, 96, 128}) EXPECT_EQ(analyze(k, 0, "x,y").conflict_degree, 32) << k;
}

TEST(Banks, K16ColumnAccessIs8Way) {
  // A warp is two rows of a 16×16 block (x 0..15, y 0..1): words 16x + y fall in banks 0, 1,
  // 16, 17, eight distinct words each.
  const BankReport r = analyze(16, 0, "x,y");
  EXPECT_EQ(r.conflict_degree, 8);
  EXPECT_EQ(analyze(16, 0, "y,x").conflict_degree, 1);
}

TEST(Banks, PaddingOneColumnRemovesTheConflict) {
  const BankReport r = analyze(32, 1, "x,y");  // tile[32][33]: words 33x → banks x
  EXPECT_EQ(r.conflict_degree, 1);
}

TEST(Banks, BroadcastIsFree) {
  BankQuery q;
  q.index = "0,0";  // every lane reads the same word
  BankReport r;
  ASSERT_TRUE(analyze_banks(q, &r).is_ok());
  EXPECT_EQ(r.wavefronts, 1);
}

TEST(Banks, WideElementsUsePhases) {
  EXPECT_EQ(analyze(32, 0, "y,x", 8).wavefronts, 2);   // two half-warps, each all 32 banks
  EXPECT_EQ(analyze(32, 0, "y,x", 8).conflict_degree, 1);
  EXPECT_EQ(analyze(32, 0, "y,x", 16).wavefronts, 4);  // four quarter-warps
  EXPECT_EQ(analyze(32, 0, "x,y", 8).conflict_degree, 16);
}

TEST(Banks, ExpressionsAndErrors) {
  BankQuery q;
  q.index = "(x * 2) % 32, y + 1";
  q.block_y = 2;
  BankReport r;
  ASSERT_TRUE(analyze_banks(q, &r).is_ok());
  EXPECT_EQ(r.lanes[3].row, 6);
  EXPECT_EQ(r.lanes[3].col, 1);
  for (const char* bad : {"x", "x,,y", "x,y,z", "x,(y", "x,y/0", "x,q"}) {
    q.index = bad;
    EXPECT_EQ(analyze_banks(q, &r).code(), StatusCode::kInvalidArgument) << bad;
  }
  q.index = "x+1,y";  // lane 31 reads row 32 of a 32-row array
  const Status s = analyze_banks(q, &r);
  EXPECT_NE(s.message().find("lane 31"), std::string::npos) << s.message();
  q.index = "y,x";
  q.elem_bytes = 12;
  EXPECT_EQ(analyze_banks(q, &r).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilekit
