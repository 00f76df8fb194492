// The persistent tile walk's plan (src/cuda/gemm/detail/tile_walk_plan.hpp): which tiles go to
// the blocks whole and how many k-tiles are shared as stream-K ranges. Host code only, used by
// the Hopper family's steps 02, 03, 07 and the SIMT ladder's steps 16 and 17.
#include <gtest/gtest.h>

#include "cuda/gemm/detail/tile_walk_plan.hpp"

namespace tilekit::cuda {
namespace {

// Every tile is either whole or streamed, and the streamed ones' k-tiles are all counted.
void expect_covers(const TileWalkPlan& p, int tiles, int k_tiles) {
  EXPECT_GE(p.blocks, 1);
  EXPECT_GE(p.whole_tiles, 0);
  EXPECT_LE(p.whole_tiles, tiles);
  EXPECT_EQ(p.stream_k_iters, static_cast<int64_t>(tiles - p.whole_tiles) * k_tiles);
}

TEST(TileWalkPlan, PersistentGivesEachSlotATileAtMostAndEveryTileWhole) {
  const TileWalkPlan many = persistent_plan(132, 512);
  EXPECT_EQ(many.blocks, 132);
  EXPECT_EQ(many.whole_tiles, 512);
  EXPECT_FALSE(many.stream_k());
  EXPECT_EQ(persistent_plan(132, 7).blocks, 7);
}

// 4096² with 128×256 tiles on 132 slots: 3 rounds and 116 tiles; the last partial round and one
// full round (248 tiles) are streamed, two rounds go whole.
TEST(TileWalkPlan, StreamKTailStreamsTheLastPartialRoundAndOneFullRound) {
  const TileWalkPlan p = stream_k_tail_plan(132, 512, 512);
  EXPECT_EQ(p.blocks, 132);
  EXPECT_EQ(p.whole_tiles, 264);
  EXPECT_TRUE(p.stream_k());
  expect_covers(p, 512, 512);
}

TEST(TileWalkPlan, StreamKTailWithoutAPartialRoundOrWithOneKTileIsPersistent) {
  const TileWalkPlan full = stream_k_tail_plan(132, 264, 512);  // two whole rounds
  EXPECT_FALSE(full.stream_k());
  EXPECT_EQ(full.whole_tiles, 264);
  EXPECT_FALSE(stream_k_tail_plan(132, 100, 1).stream_k());  // one k-tile: nothing to share
  EXPECT_FALSE(stream_k_tail_plan(132, 100, 0).stream_k());  // k = 0
}

// Fewer tiles than slots: every tile is streamed, and a block gets at least 4 k-tiles.
TEST(TileWalkPlan, FewTilesShareTheirKTilesAmongAtMostOneBlockPerFourKTiles) {
  const TileWalkPlan one = stream_k_tail_plan(264, 1, 257);  // 36×44×4100 with 128×128×16
  EXPECT_EQ(one.whole_tiles, 0);
  EXPECT_EQ(one.blocks, 64);
  expect_covers(one, 1, 257);
  const TileWalkPlan short_k = stream_k_tail_plan(264, 1, 3);
  EXPECT_EQ(short_k.blocks, 1);
  expect_covers(short_k, 1, 3);
  const TileWalkPlan wide = stream_k_tail_plan(132, 64, 1024);  // 256×8192×8192, 128×256 tiles
  EXPECT_EQ(wide.blocks, 132);
  expect_covers(wide, 64, 1024);
}

// Step 17 at 4096² with 128×256 tiles on 132 slots: three rounds run whole, and the partial round's
// 116 tiles (more than half the slots) are streamed alone.
TEST(TileWalkPlan, HybridStreamsAFullEnoughPartialRoundAlone) {
  const TileWalkPlan p = hybrid_plan(132, 512, 512);
  EXPECT_EQ(p.blocks, 132);
  EXPECT_EQ(p.whole_tiles, 396);
  expect_covers(p, 512, 512);
  EXPECT_GE(p.stream_k_iters / p.blocks, 512 / 2);  // half a tile a block or more
}

// A thin partial round (10 of 132 slots) goes with the last full round, as in step 16; no
// partial round, one k-tile, or fewer tiles than slots: as stream_k_tail_plan.
TEST(TileWalkPlan, HybridStreamsAThinPartialRoundWithTheLastFullRound) {
  const TileWalkPlan thin = hybrid_plan(132, 406, 512);
  EXPECT_EQ(thin.whole_tiles, 264);
  expect_covers(thin, 406, 512);
  EXPECT_FALSE(hybrid_plan(132, 264, 512).stream_k());
  EXPECT_EQ(hybrid_plan(132, 264, 512).whole_tiles, 264);
  EXPECT_FALSE(hybrid_plan(132, 200, 1).stream_k());
  const TileWalkPlan few = hybrid_plan(132, 128, 256);  // 2048² with 128×256 tiles
  EXPECT_EQ(few.whole_tiles, 0);
  expect_covers(few, 128, 256);
}

}  // namespace
}  // namespace tilekit::cuda
