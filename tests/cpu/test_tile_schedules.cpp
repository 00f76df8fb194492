// The tile schedules' plans (src/core/schedules/) and the stream-K walk's arithmetic
// (src/cuda/gemm/detail/stream_k_walk.hpp): which tiles go to the blocks whole, how many k-tiles
// are shared as stream-K ranges, how tiles are cut into pieces. Host code, as both families run it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "core/schedules/balanced_rounds.hpp"
#include "core/schedules/schedules.hpp"
#include "core/tile_model_kernel.hpp"
#include "cuda/gemm/detail/stream_k_walk.hpp"

namespace tilekit::cuda {
namespace {

// Every tile is either whole or streamed, and the streamed ones' k-tiles are all counted.
void expect_covers(const TileWalkPlan& p, int tiles, int k_tiles) {
  EXPECT_GE(p.blocks, 1);
  EXPECT_GE(p.whole_tiles, 0);
  EXPECT_LE(p.whole_tiles, tiles);
  EXPECT_EQ(p.stream_k_iters, static_cast<int64_t>(tiles - p.whole_tiles) * k_tiles);
}

// A tiling with the short side along n counts the tiles of Cᵀ where C has fewer rows than
// columns, as the sm90 narrow tiles cover it; the other way round, and for other tilings, C's.
TEST(TileSizes, ShortSideAlongNCountsTheTilesOfTheTransposeWhereMIsShorter) {
  TileDesc narrow;
  narrow.block_m = 128;
  narrow.block_n = 16;
  narrow.block_k = 64;
  narrow.short_side_along_n = true;
  narrow.schedule = schedule_tag<StreamKSchedule>();
  TileDesc as_stored = narrow;
  as_stored.short_side_along_n = false;
  const TileModelDevice device;
  const TileSizes n16 = tile_model_kernel(narrow, device).tile;
  const TileSizes plain = tile_model_kernel(as_stored, device).tile;
  EXPECT_FALSE(n16 == plain);
  EXPECT_EQ(n16.counts(16, 4096, 4096).tiles, 32);     // 4096 / 128 × 16 / 16
  EXPECT_EQ(plain.counts(16, 4096, 4096).tiles, 256);  // 16 / 128 (1) × 4096 / 16
  EXPECT_EQ(n16.counts(4096, 16, 4096).tiles, 32);
  EXPECT_EQ(plain.counts(4096, 16, 4096).tiles, 32);
  EXPECT_EQ(n16.counts(16, 4096, 4096).k_tiles, 64);
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

// Fewer tiles than slots: every tile is streamed, a block gets at least 4 k-tiles, and a tile
// goes to at most stream_k_max_pieces blocks.
TEST(TileWalkPlan, FewTilesShareTheirKTilesAmongAtMostOneBlockPerFourKTiles) {
  const TileWalkPlan one = stream_k_tail_plan(264, 1, 257);  // 36×44×4100 with 128×128×16
  EXPECT_EQ(one.whole_tiles, 0);
  EXPECT_EQ(one.blocks, 8);  // ⌊sqrt(257 / 4)⌋; 64 blocks of 4 k-tiles without the cap
  expect_covers(one, 1, 257);
  const TileWalkPlan deep = stream_k_tail_plan(132, 1, 469);  // 100×100×30000 bf16, 128×128×64
  EXPECT_EQ(deep.blocks, 10);                                  // was 117
  const TileWalkPlan four = stream_k_tail_plan(132, 4, 469);
  EXPECT_EQ(four.blocks, 40);
  expect_covers(four, 4, 469);
  const TileWalkPlan short_k = stream_k_tail_plan(264, 1, 3);
  EXPECT_EQ(short_k.blocks, 1);
  expect_covers(short_k, 1, 3);
  const TileWalkPlan wide = stream_k_tail_plan(132, 64, 1024);  // 256×8192×8192, 128×256 tiles
  EXPECT_EQ(wide.blocks, 132);
  expect_covers(wide, 64, 1024);
}

// p pieces of a tile cost about k_tiles / p + 4p k-tiles' time: the cap is ⌊sqrt(k_tiles / 4)⌋,
// at least 2, and it is the p of least cost among whole numbers to within one piece.
TEST(TileWalkPlan, StreamKMaxPiecesIsTheSquareRootOfAQuarterOfTheKTiles) {
  EXPECT_EQ(stream_k_max_pieces(1), 2);
  EXPECT_EQ(stream_k_max_pieces(35), 2);
  EXPECT_EQ(stream_k_max_pieces(36), 3);
  EXPECT_EQ(stream_k_max_pieces(128), 5);
  EXPECT_EQ(stream_k_max_pieces(469), 10);
  EXPECT_EQ(stream_k_max_pieces(1024), 16);
  for (int p = 3; p <= 23000; p += 997) {  // exact at the squares' edges, up to 2^31 k-tiles
    EXPECT_EQ(stream_k_max_pieces(4 * p * p), p);
    EXPECT_EQ(stream_k_max_pieces(4 * p * p - 1), p - 1);
  }
  for (int k_tiles = 16; k_tiles <= 4096; k_tiles += 7) {
    auto cost = [&](int p) { return static_cast<double>(k_tiles) / p + 4.0 * p; };
    int best = 1;
    for (int p = 2; p <= k_tiles; ++p)
      if (cost(p) < cost(best)) best = p;
    EXPECT_LE(std::abs(stream_k_max_pieces(k_tiles) - best), 1) << k_tiles << " k-tiles";
  }
}

// The sm90 split_tiles kernels' plan: fewer tiles than slots are cut into equal pieces of at least
// 4 k-tiles, as many as fill the slots; the pieces of a tile cover its k-tiles once, in order; with
// too few k-tiles or too many tiles, the persistent walk.
TEST(TileWalkPlan, SplitTilesCutsFewTilesIntoEqualPiecesThatFillTheSlots) {
  const TileWalkPlan deep = split_tiles_plan(132, 1, 469);  // 100×100×30000 bf16, 128×128×64
  EXPECT_EQ(deep.split_pieces, 117);                        // ⌊469 / 4⌋, below 132
  EXPECT_EQ(deep.blocks, 117);
  EXPECT_TRUE(deep.split());
  EXPECT_TRUE(deep.partial_tiles());
  EXPECT_FALSE(deep.stream_k());
  const TileWalkPlan nine = split_tiles_plan(132, 9, 129);  // 257×257×8193 with 128×128×64
  EXPECT_EQ(nine.split_pieces, 14);
  EXPECT_EQ(nine.blocks, 126);
  EXPECT_EQ(split_tiles_plan(132, 16, 128).blocks, 128);
  for (const TileWalkPlan& whole : {split_tiles_plan(132, 100, 512), split_tiles_plan(132, 1, 7),
                                    split_tiles_plan(132, 512, 64), split_tiles_plan(132, 0, 64)}) {
    EXPECT_FALSE(whole.split());
    EXPECT_FALSE(whole.partial_tiles());
    EXPECT_EQ(whole.split_pieces, 0);
  }
  EXPECT_EQ(split_tiles_plan(132, 100, 512).blocks, 100);
  EXPECT_EQ(split_tiles_plan(132, 1, 7).blocks, 1);
  for (const int k_tiles : {8, 129, 469, 1000}) {
    const int pieces = split_tile_pieces(132, 3, k_tiles);
    ASSERT_GE(pieces, 2) << k_tiles;
    EXPECT_LE(3 * pieces, 132);
    int64_t expected_begin = 0;
    for (int q = 0; q < pieces; ++q) {
      const int64_t begin = stream_k_range_begin(k_tiles, pieces, q);
      const int64_t end = stream_k_range_begin(k_tiles, pieces, q + 1);
      EXPECT_EQ(begin, expected_begin);
      EXPECT_GE(end - begin, 4) << k_tiles << " k-tiles, piece " << q;
      EXPECT_LE(end - begin, k_tiles / pieces + 1);
      expected_begin = end;
    }
    EXPECT_EQ(expected_begin, k_tiles);
  }
}

// The hybrid_stream_k plan at 4096² with 128×256 tiles on 132 slots: three rounds run whole, and
// the partial round's 116 tiles (more than half the slots) are streamed alone.
TEST(TileWalkPlan, HybridStreamsAFullEnoughPartialRoundAlone) {
  const TileWalkPlan p = hybrid_plan(132, 512, 512);
  EXPECT_EQ(p.blocks, 132);
  EXPECT_EQ(p.whole_tiles, 396);
  expect_covers(p, 512, 512);
  EXPECT_GE(p.stream_k_iters / p.blocks, 512 / 2);  // half a tile a block or more
}

// A thin partial round (10 of 132 slots) goes with the last full round, as in the simt stream_k
// kernels; no partial round, one k-tile, or fewer tiles than slots: as stream_k_tail_plan.
TEST(TileWalkPlan, HybridStreamsAThinPartialRoundWithTheLastFullRound) {
  const TileWalkPlan thin = hybrid_plan(132, 406, 512);
  EXPECT_EQ(thin.whole_tiles, 264);
  expect_covers(thin, 406, 512);
  EXPECT_FALSE(hybrid_plan(132, 264, 512).stream_k());
  EXPECT_EQ(hybrid_plan(132, 264, 512).whole_tiles, 264);
  EXPECT_FALSE(hybrid_plan(132, 200, 1).stream_k());
  const TileWalkPlan few = hybrid_plan(132, 100, 256);  // fewer tiles than slots: all streamed
  EXPECT_EQ(few.whole_tiles, 0);
  expect_covers(few, 100, 256);
}

// A partial round that fills 95% of the slots or more runs whole, with or without full rounds
// before it: 2048² with 128×256 tiles is 128 tiles on 132 slots.
TEST(TileWalkPlan, HybridRunsANearlyFullPartialRoundWhole) {
  for (int tiles : {128, 132 + 128, 5 * 132 + 126}) {
    const TileWalkPlan p = hybrid_plan(132, tiles, 256);
    EXPECT_FALSE(p.stream_k()) << tiles;
    EXPECT_EQ(p.whole_tiles, tiles);
  }
  EXPECT_TRUE(hybrid_plan(132, 125, 256).stream_k());  // 94.7%: streamed
  EXPECT_TRUE(hybrid_plan(132, 132 + 125, 256).stream_k());
}

// One piece as a block computes it, in the order it computes them.
struct WalkedPiece {
  int block;
  StreamKPiece piece;
};

// Walks every block's range as the stream-K kernels do (last_stream_k_piece from the range's end)
// and checks what their correctness rests on: every streamed tile's k-tiles computed exactly once;
// a block publishes at most one partial tile (it has one slot) and only as its first piece, before
// it waits for anyone; the block holding a tile's last k-tile finishes it, and its sum over the
// blocks below, nearest first (k_tiles_left_below), visits exactly the tile's other pieces, each
// ending where the sum has reached, and stops when nothing is left.
void expect_sound_walk(const TileWalkPlan& plan, int tiles, int k_tiles) {
  if (!plan.stream_k()) return;
  const int streamed = tiles - plan.whole_tiles;
  std::vector<std::vector<WalkedPiece>> by_tile(streamed);
  for (int b = 0; b < plan.blocks; ++b) {
    const int64_t begin = stream_k_range_begin(plan.stream_k_iters, plan.blocks, b);
    int64_t end = stream_k_range_begin(plan.stream_k_iters, plan.blocks, b + 1);
    ASSERT_LT(begin, end) << "block " << b << " has no k-tiles";
    for (bool first = true; end > begin; first = false) {
      const StreamKPiece p = last_stream_k_piece(begin, end, k_tiles);
      ASSERT_GE(p.tile, 0);
      ASSERT_LT(p.tile, streamed);
      ASSERT_LT(p.k_begin, p.k_end);
      if (p.k_end < k_tiles) EXPECT_TRUE(first) << "block " << b << " publishes a later piece";
      by_tile[p.tile].push_back({b, p});
      end -= p.k_end - p.k_begin;
    }
  }
  for (int tile = 0; tile < streamed; ++tile) {
    std::vector<WalkedPiece> pieces = by_tile[tile];
    std::sort(pieces.begin(), pieces.end(), [](const WalkedPiece& x, const WalkedPiece& y) {
      return x.piece.k_begin < y.piece.k_begin;
    });
    int reached = 0;
    for (const WalkedPiece& w : pieces) {
      ASSERT_EQ(w.piece.k_begin, reached) << "tile " << tile;
      reached = w.piece.k_end;
    }
    ASSERT_EQ(reached, k_tiles) << "tile " << tile;
    const WalkedPiece& finisher = pieces.back();
    size_t added = 0;
    for (int b = finisher.block - 1, covered = finisher.piece.k_begin; covered > 0; --b) {
      ASSERT_GE(b, 0);
      const auto held = std::find_if(pieces.begin(), pieces.end(), [&](const WalkedPiece& w) {
        return w.block == b && w.piece.k_end == covered;
      });
      ASSERT_NE(held, pieces.end())
          << "tile " << tile << ": block " << b << " holds no piece ending at " << covered;
      covered = k_tiles_left_below(plan.stream_k_iters, plan.blocks, b, tile, k_tiles);
      EXPECT_EQ(covered, held->piece.k_begin);
      ++added;
    }
    EXPECT_EQ(added, pieces.size() - 1) << "tile " << tile;
  }
}

// Both plans over slot counts of 1 to 4 blocks on 1 to 132 SMs, tile counts around their rounds
// and k-tile counts from 1 to 512.
TEST(TileWalkPlan, StreamKWalksComputeEveryKTileOnceAndFinishEveryTile) {
  int walked = 0;
  for (int slots : {1, 2, 3, 4, 5, 7, 10, 64, 132, 264, 396, 528})
    for (int tiles : {1, 2, 3, 5, 9, 17, 63, 64, 65, 100, 131, 132, 133, 200, 264, 300, 406, 512,
                      561, 1089})
      for (int k_tiles : {1, 2, 3, 4, 5, 7, 16, 33, 257, 512})
        for (const TileWalkPlan& plan :
             {stream_k_tail_plan(slots, tiles, k_tiles), hybrid_plan(slots, tiles, k_tiles)}) {
          SCOPED_TRACE(::testing::Message() << slots << " slots, " << tiles << " tiles, "
                                            << k_tiles << " k-tiles");
          expect_covers(plan, tiles, k_tiles);
          expect_sound_walk(plan, tiles, k_tiles);
          if (::testing::Test::HasFatalFailure()) return;
          walked += plan.stream_k();
        }
  EXPECT_GT(walked, 1000);
}

// Each tag names its module, the modules' names are distinct (`tilekit list --json` and the tune
// tables read them), the public name agrees, and only the stream-K modules say they stream.
TEST(TileSchedules, EveryTagNamesItsModule) {
  const std::pair<TileSchedule, const char*> tags[] = {
      {nullptr, "unmodelled"},
      {schedule_tag<OneBlockPerTileSchedule>(), OneBlockPerTileSchedule::kName},
      {schedule_tag<PersistentSchedule>(), PersistentSchedule::kName},
      {schedule_tag<StreamKSchedule>(), StreamKSchedule::kName},
      {schedule_tag<StreamKHalfTailSchedule>(), StreamKHalfTailSchedule::kName},
      {schedule_tag<SplitTilesSchedule>(), SplitTilesSchedule::kName},
      {schedule_tag<BalancedRoundsSchedule>(), BalancedRoundsSchedule::kName},
  };
  std::set<std::string> names;
  for (const auto& [tag, name] : tags) {
    EXPECT_STREQ(schedule_name(tag), name);
    EXPECT_STREQ(tile_schedule_name(tag), name);
    EXPECT_TRUE(names.insert(name).second) << name;
    const bool streams = tag == schedule_tag<StreamKSchedule>() ||
                         tag == schedule_tag<StreamKHalfTailSchedule>();
    EXPECT_EQ(is_stream_k(tag), streams) << name;
  }
}

// Balanced rounds: every tile whole, as many rounds as the persistent plan, and the fewest blocks
// that keep them, each walking `rounds` tiles or one fewer (the persistent walk's stride).
TEST(TileSchedules, BalancedRoundsKeepThePersistentRoundsOnFewerBlocks) {
  for (int slots : {1, 7, 66, 132})
    for (int tiles = 1; tiles <= 1000; ++tiles) {
      const TileWalkPlan plan = BalancedRoundsSchedule::plan(slots, tiles, 16);
      const TileWalkPlan persistent = PersistentSchedule::plan(slots, tiles, 16);
      ASSERT_EQ(plan.whole_tiles, tiles);
      ASSERT_FALSE(plan.partial_tiles());
      ASSERT_GE(plan.blocks, 1);
      ASSERT_LE(plan.blocks, persistent.blocks);
      const int rounds = (tiles + persistent.blocks - 1) / persistent.blocks;
      // Block b walks tiles b, b + blocks, …: the first block the most, the last the fewest.
      const int most = (tiles + plan.blocks - 1) / plan.blocks, fewest = tiles / plan.blocks;
      ASSERT_EQ(most, rounds) << slots << " slots, " << tiles << " tiles";
      ASSERT_GE(fewest, rounds - 1) << slots << " slots, " << tiles << " tiles";
      // One block fewer would need another round.
      if (plan.blocks > 1) ASSERT_GT((tiles + plan.blocks - 2) / (plan.blocks - 1), rounds);
    }
  EXPECT_EQ(BalancedRoundsSchedule::plan(132, 140, 16).blocks, 70);
  EXPECT_EQ(BalancedRoundsSchedule::plan(132, 264, 16).blocks, 132);
}

// The half-tail schedule streams exactly where its last round is not empty and at most half full,
// on an even and an odd count of slots.
TEST(TileSchedules, HalfTailStreamsOnlyAThinLastRound) {
  for (int slots : {132, 133})
    for (int tiles = 1; tiles <= 3 * slots; ++tiles) {
      const int tail = tiles % slots;
      EXPECT_EQ(StreamKHalfTailSchedule::plan(slots, tiles, 64).stream_k(),
                tail != 0 && 2 * tail <= slots)
          << tiles << " tiles on " << slots;
    }
}

// A module's plan and its refusal agree: split tiles refuses exactly the shapes it would run whole.
TEST(TileSchedules, SplitTilesRefusesWhatItsPlanRunsWhole) {
  for (int tiles : {1, 3, 9, 16, 66, 100, 512})
    for (int k_tiles : {1, 7, 8, 64, 469}) {
      const bool whole = !SplitTilesSchedule::plan(132, tiles, k_tiles).split();
      EXPECT_EQ(!SplitTilesSchedule::refuses(132, tiles, k_tiles).empty(), whole)
          << tiles << " tiles of " << k_tiles;
    }
}

}  // namespace
}  // namespace tilekit::cuda
