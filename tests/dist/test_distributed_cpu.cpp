// The distributed GEMM without a GPU: partition arithmetic, the bytes-moved choice, the schedule
// (overlap order), results equal to one call bit for bit on the CPU backend's kernels through
// the fake communicator, and faults (mismatched calls, a failing rank, a rank that never comes)
// ending in an error on every rank with nothing written to C.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>

#include "dist/context_impl.hpp"
#include "dist/fake_communicator.hpp"
#include "dist/host_exchange.hpp"
#include "dist/schedule.hpp"
#include "gemm_dist_bench.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit::testing {
namespace {

using namespace std::chrono_literals;

// ---- partition arithmetic ----

TEST(BlockRange, CoversEveryItemOnceInOrder) {
  for (int64_t total : {0, 1, 2, 3, 7, 13, 97, 1000003}) {
    for (int parts : {1, 2, 3, 4, 5, 8}) {
      int64_t next = 0;
      for (int i = 0; i < parts; ++i) {
        const IndexRange r = block_range(total, parts, i);
        EXPECT_EQ(r.begin, next) << total << " over " << parts << ", part " << i;
        EXPECT_GE(r.size, total / parts);
        EXPECT_LE(r.size, total / parts + 1);
        next = r.end();
      }
      EXPECT_EQ(next, total) << total << " over " << parts;
    }
  }
}

TEST(BlockRange, FewerItemsThanPartsLeavesTrailingPartsEmpty) {
  EXPECT_EQ(block_range(2, 4, 0), (IndexRange{0, 1}));
  EXPECT_EQ(block_range(2, 4, 1), (IndexRange{1, 1}));
  EXPECT_EQ(block_range(2, 4, 2).size, 0);
  EXPECT_EQ(block_range(2, 4, 3).size, 0);
  EXPECT_EQ(block_range(0, 3, 1).size, 0);
  // Primes: the first total % parts parts are one longer.
  EXPECT_EQ(block_range(7, 3, 0), (IndexRange{0, 3}));
  EXPECT_EQ(block_range(7, 3, 1), (IndexRange{3, 2}));
  EXPECT_EQ(block_range(7, 3, 2), (IndexRange{5, 2}));
  // Out-of-range parts are empty rather than undefined.
  EXPECT_EQ(block_range(10, 2, 2).size, 0);
  EXPECT_EQ(block_range(10, 0, 0).size, 0);
}

TEST(Plan, RefusesBadArgumentsNamingThem) {
  GemmProblem p;
  p.m = p.n = p.k = 4;
  DistributionPlan plan;
  Status s = plan_distribution(p, 0, {}, &plan);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("ranks = 0"), std::string::npos) << s.message();
  DistributedOptions o;
  o.panels_per_block = 0;
  s = plan_distribution(p, 2, o, &plan);
  EXPECT_NE(s.message().find("panels_per_block"), std::string::npos) << s.message();
  p.k = -1;
  EXPECT_EQ(plan_distribution(p, 2, {}, &plan).code(), StatusCode::kInvalidArgument);
}

TEST(Plan, BlocksForAwkwardSizes) {
  GemmProblem p;
  p.m = 5;
  p.n = 3;
  p.k = 2;
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(p, 4, {}, &plan));
  ASSERT_EQ(plan.rows.size(), 4u);
  EXPECT_EQ(plan.rows[0].size, 2);
  EXPECT_EQ(plan.rows[3], (IndexRange{4, 1}));
  EXPECT_EQ(plan.cols[3].size, 0);  // n < ranks: the last rank holds no column of op(B)
}

// ---- the bytes-moved choice ----

TEST(ChooseSplit, MovesTheSmallerOperand) {
  const GemmTypes f32;
  EXPECT_EQ(choose_split(4096, 4096, 4096, f32), DistSplit::kRows);  // a tie keeps rows
  EXPECT_EQ(choose_split(4096, 64, 1024, f32), DistSplit::kRows);    // op(B) 1024x64 is smaller
  EXPECT_EQ(choose_split(64, 4096, 1024, f32), DistSplit::kColumns); // op(A) 64x1024 is smaller
  EXPECT_EQ(choose_split(0, 5, 5, f32), DistSplit::kColumns);        // nothing of A to move
  const GemmTypes bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  EXPECT_EQ(choose_split(100, 101, 7, bf16), DistSplit::kColumns);  // op(A) 100x7 < op(B) 7x101
  EXPECT_EQ(choose_split(101, 100, 7, bf16), DistSplit::kRows);
}

TEST(ReceivedBytes, AllGatherMovesLessThanBroadcastPerRank) {
  const GemmTypes f32;
  // Row split: op(B) is 3 x 10 floats; two ranks hold 5 columns each.
  EXPECT_EQ(received_bytes(DistSplit::kRows, ReplicaSource::kBlocks, 8, 10, 3, f32, 2, 0), 60);
  EXPECT_EQ(received_bytes(DistSplit::kRows, ReplicaSource::kRoot, 8, 10, 3, f32, 2, 0), 0);
  EXPECT_EQ(received_bytes(DistSplit::kRows, ReplicaSource::kRoot, 8, 10, 3, f32, 2, 1), 120);
  EXPECT_EQ(received_bytes(DistSplit::kRows, ReplicaSource::kEveryRank, 8, 10, 3, f32, 2, 1), 0);
  // Column split: op(A) 8 x 3 travels; 3 ranks hold 3, 3, 2 rows.
  EXPECT_EQ(received_bytes(DistSplit::kColumns, ReplicaSource::kBlocks, 8, 10, 3, f32, 3, 2),
            6 * 3 * 4);
  for (int ranks : {2, 3, 8})
    for (int r = 1; r < ranks; ++r)
      EXPECT_LT(received_bytes(DistSplit::kRows, ReplicaSource::kBlocks, 64, 64, 64, f32, ranks, r),
                received_bytes(DistSplit::kRows, ReplicaSource::kRoot, 64, 64, 64, f32, ranks, r));
}

// ---- the schedule ----

std::vector<IndexRange> split_cols(int64_t n, int ranks) {
  std::vector<IndexRange> out;
  for (int r = 0; r < ranks; ++r) out.push_back(block_range(n, ranks, r));
  return out;
}

// The kinds of a schedule's transfer steps, in order.
std::vector<dist::StepKind> kinds_of(const dist::Schedule& s) {
  std::vector<dist::StepKind> out;
  for (const dist::TransferStep& t : s.transfer) out.push_back(t.kind);
  return out;
}

TEST(Schedule, OwnPanelsFirstThenRoundsOfEveryOwnersPanel) {
  const auto cols = split_cols(11, 3);  // 4, 4, 3 columns
  const dist::Schedule s = dist::build_schedule(ReplicaSource::kBlocks, cols, 2, /*rank=*/1,
                                                /*k=*/5, 4, Layout::kRowMajor, Op::kN, false);
  ASSERT_EQ(s.panels.size(), 6u);
  int64_t col = 0;
  for (size_t p = 0; p < s.panels.size(); ++p) {
    EXPECT_EQ(s.panels[p].owner, static_cast<int>(p / 2));
    EXPECT_EQ(s.panels[p].col_begin, col);
    EXPECT_EQ(s.panels[p].bytes, 5 * s.panels[p].cols * 4);
    col += s.panels[p].cols;
  }
  // The buffer holds round 0 (panels 0, 2, 4: 2 columns each), then round 1 (1, 3, 5: 2, 2, 1).
  const std::vector<int64_t> offsets = {0, 120, 40, 160, 80, 200};
  for (size_t p = 0; p < s.panels.size(); ++p) EXPECT_EQ(s.panels[p].offset_bytes, offsets[p]);
  EXPECT_EQ(s.buffer_bytes, 5 * 11 * 4);
  // Transfer lane: pack own panels 2 and 3 (each signalled at once); round 0, whose panels are
  // all 40 bytes, as one all-gather; round 1 (40, 40, 20 bytes) as a group of broadcasts; after
  // each round rank 1 signals the panels it received.
  using K = dist::StepKind;
  struct Want {
    K kind;
    int panel;
    bool signals;
  };
  const std::vector<Want> want = {
      {K::kPack, 2, true},        {K::kPack, 3, true},        {K::kAllGather, 0, false},
      {K::kSignal, 0, true},      {K::kSignal, 4, true},      {K::kGroupBegin, -1, false},
      {K::kBroadcast, 1, false},  {K::kBroadcast, 3, false},  {K::kBroadcast, 5, false},
      {K::kGroupEnd, -1, false},  {K::kSignal, 1, true},      {K::kSignal, 5, true}};
  ASSERT_EQ(s.transfer.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.transfer[i].kind, want[i].kind) << "step " << i;
    if (want[i].panel >= 0) EXPECT_EQ(s.transfer[i].panel, want[i].panel) << "step " << i;
    EXPECT_EQ(s.transfer[i].completes_panel, want[i].signals) << "step " << i;
  }
  EXPECT_EQ(s.transfer[2].offset_bytes, 0);
  EXPECT_EQ(s.transfer[2].bytes, 40);
  // Compute lane: own panels first (they wait only for their pack), then arrival order.
  EXPECT_EQ(s.compute, (std::vector<int>{2, 3, 0, 4, 1, 5}));
  for (bool w : s.wait_for) EXPECT_TRUE(w);
  EXPECT_FALSE(s.direct);
  // Without all-gather rounds, round 0 is a group of broadcasts too.
  const dist::Schedule b = dist::build_schedule(ReplicaSource::kBlocks, cols, 2, 1, 5, 4,
                                                Layout::kRowMajor, Op::kN, false,
                                                /*all_gather_rounds=*/false);
  ASSERT_GT(b.transfer.size(), 2u);
  EXPECT_EQ(b.transfer[2].kind, K::kGroupBegin);
  for (const dist::TransferStep& t : b.transfer) EXPECT_NE(t.kind, K::kAllGather);
}

TEST(Schedule, GemmsShareTheGpuWithCollectivesUntilTheLastRoundHasArrived) {
  // 3 ranks, 2 panels each (2 and 1 columns): rank 0 multiplies its panels 0, 1 while rounds
  // (0, 2, 4) and (1, 3, 5) travel, then 2 and 4 (round 0: the last round may still travel),
  // then 3 and 5, after the last round.
  const dist::Schedule s3 = dist::build_schedule(ReplicaSource::kBlocks, split_cols(9, 3), 2, 0,
                                                 3, 4, Layout::kRowMajor, Op::kN, false);
  EXPECT_EQ(s3.compute, (std::vector<int>{0, 1, 2, 4, 3, 5}));
  EXPECT_EQ(dist::gemms_beside_collectives(s3),
            (std::vector<bool>{true, true, true, true, false, false}));
  // 2 ranks launch their rounds as one group: both received panels arrive after it, alone.
  const auto cols = split_cols(8, 2);
  const dist::Schedule s0 = dist::build_schedule(ReplicaSource::kBlocks, cols, 2, 0, 3, 4,
                                                 Layout::kRowMajor, Op::kN, false);
  EXPECT_EQ(s0.compute, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(dist::gemms_beside_collectives(s0), (std::vector<bool>{true, true, false, false}));
  // Nothing travels: every GEMM has the GPU to itself.
  const dist::Schedule every = dist::build_schedule(ReplicaSource::kEveryRank, cols, 2, 0, 3, 4,
                                                    Layout::kRowMajor, Op::kN, false);
  for (bool b : dist::gemms_beside_collectives(every)) EXPECT_FALSE(b);
  // The root of kRoot only sends: its collectives run beside every GEMM it does.
  const dist::Schedule root0 = dist::build_schedule(ReplicaSource::kRoot, cols, 2, 0, 3, 4,
                                                    Layout::kRowMajor, Op::kN, false);
  for (bool b : dist::gemms_beside_collectives(root0)) EXPECT_TRUE(b);
  const dist::Schedule root1 = dist::build_schedule(ReplicaSource::kRoot, cols, 2, 1, 3, 4,
                                                    Layout::kRowMajor, Op::kN, false);
  const std::vector<bool> r1 = dist::gemms_beside_collectives(root1);
  ASSERT_EQ(r1.size(), 4u);
  EXPECT_EQ(r1, (std::vector<bool>{true, true, true, false}));
}

TEST(Schedule, TwoRanksLaunchTheirAllGatherRoundsAsOneGroup) {
  // 2 ranks, 2 panels of 2 columns each: rank 1 packs its own panels, launches both all-gather
  // rounds in one group (one NCCL launch instead of one per round) and signals the received
  // panels after it; it multiplies its own panels first, then the received ones.
  using K = dist::StepKind;
  const dist::Schedule s = dist::build_schedule(ReplicaSource::kBlocks, split_cols(8, 2), 2, 1,
                                                3, 4, Layout::kRowMajor, Op::kN, false);
  const std::vector<std::pair<K, int>> want = {
      {K::kPack, 2},       {K::kPack, 3},      {K::kGroupBegin, -1}, {K::kAllGather, 0},
      {K::kAllGather, 1}, {K::kGroupEnd, -1}, {K::kSignal, 0},      {K::kSignal, 1}};
  ASSERT_EQ(s.transfer.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.transfer[i].kind, want[i].first) << "step " << i;
    if (want[i].second >= 0) EXPECT_EQ(s.transfer[i].panel, want[i].second) << "step " << i;
  }
  EXPECT_EQ(s.transfer[4].offset_bytes, 48);  // round 1 after round 0's two 2-column panels
  EXPECT_EQ(s.compute, (std::vector<int>{2, 3, 0, 1}));
  // Where a round is not an all-gather (round 0 of 5 and 4 columns: panels of 3 and 2), every
  // round keeps its own launch and signals.
  const dist::Schedule u = dist::build_schedule(ReplicaSource::kBlocks, split_cols(9, 2), 2, 0,
                                                3, 4, Layout::kRowMajor, Op::kN, false);
  const std::vector<K> kinds = {K::kPack,     K::kPack,      K::kGroupBegin, K::kBroadcast,
                                K::kBroadcast, K::kGroupEnd, K::kSignal,     K::kAllGather,
                                K::kSignal};
  EXPECT_EQ(kinds_of(u), kinds);
}

TEST(Schedule, MoreRanksGroupTheirAllGatherRoundsOnlyOnTheCopyEngines) {
  // 4 ranks, 2 panels of 1 column each: where the all-gathers run on the copy engines, rank 2
  // launches both rounds in one group and signals the 6 received panels after it; otherwise each
  // round is launched and signalled on its own (its panels may be multiplied before the next
  // round lands).
  using K = dist::StepKind;
  const auto cols = split_cols(8, 4);
  const dist::Schedule g = dist::build_schedule(ReplicaSource::kBlocks, cols, 2, 2, 3, 4,
                                                Layout::kRowMajor, Op::kN, false,
                                                /*all_gather_rounds=*/true,
                                                /*group_all_gathers=*/true);
  std::vector<K> want = {K::kPack, K::kPack, K::kGroupBegin, K::kAllGather, K::kAllGather,
                         K::kGroupEnd};
  want.insert(want.end(), 6, K::kSignal);
  EXPECT_EQ(kinds_of(g), want);
  EXPECT_EQ(g.compute, (std::vector<int>{4, 5, 0, 2, 6, 1, 3, 7}));
  const dist::Schedule apart = dist::build_schedule(ReplicaSource::kBlocks, cols, 2, 2, 3, 4,
                                                    Layout::kRowMajor, Op::kN, false);
  const std::vector<K> kinds = {K::kPack,      K::kPack,   K::kAllGather, K::kSignal,
                                K::kSignal,    K::kSignal, K::kAllGather, K::kSignal,
                                K::kSignal,    K::kSignal};
  EXPECT_EQ(kinds_of(apart), kinds);
}

TEST(Schedule, EveryRankRunsTheSameCollectivesInTheSameOrder) {
  // 2, 2, 2, 1 columns in 2 panels each: rank 3 has one (a piece of no columns is no panel), so
  // round 0 (four 1-column panels) is an all-gather and round 1 (ranks 0-2 only) a group.
  const auto cols = split_cols(7, 4);
  std::vector<std::vector<std::string>> lanes;
  for (int rank = 0; rank < 4; ++rank) {
    const dist::Schedule s = dist::build_schedule(ReplicaSource::kBlocks, cols, 2, rank, 2, 4,
                                                  Layout::kRowMajor, Op::kN, false);
    std::vector<std::string> collectives;
    int depth = 0;
    for (const dist::TransferStep& t : s.transfer) {
      if (t.kind == dist::StepKind::kGroupBegin) collectives.push_back("("), ++depth;
      if (t.kind == dist::StepKind::kGroupEnd) collectives.push_back(")"), --depth;
      if (t.kind == dist::StepKind::kBroadcast) collectives.push_back(std::to_string(t.panel));
      if (t.kind == dist::StepKind::kAllGather)
        collectives.push_back("all-gather " + std::to_string(t.offset_bytes) + "+" +
                              std::to_string(t.bytes));
      EXPECT_LE(depth, 1);
    }
    EXPECT_EQ(depth, 0);
    lanes.push_back(collectives);
    // Every panel is signalled once (packed here, or received) and multiplied once.
    std::vector<int> signalled(s.panels.size(), 0);
    for (const dist::TransferStep& t : s.transfer)
      if (t.completes_panel) ++signalled[t.panel];
    for (size_t p = 0; p < s.panels.size(); ++p) EXPECT_EQ(signalled[p], 1) << "panel " << p;
    std::vector<int> order = s.compute;
    std::sort(order.begin(), order.end());
    for (size_t p = 0; p < order.size(); ++p) EXPECT_EQ(order[p], static_cast<int>(p));
  }
  for (int rank = 1; rank < 4; ++rank) EXPECT_EQ(lanes[rank], lanes[0]) << "rank " << rank;
  EXPECT_EQ(lanes[0], (std::vector<std::string>{"all-gather 0+8", "(", "1", "3", "5", ")"}));
}

TEST(Schedule, RootBroadcastAndEveryRankSources) {
  const auto cols = split_cols(8, 2);
  const dist::Schedule root0 =
      dist::build_schedule(ReplicaSource::kRoot, cols, 2, 0, 3, 4, Layout::kRowMajor, Op::kN, false);
  const dist::Schedule root1 =
      dist::build_schedule(ReplicaSource::kRoot, cols, 2, 1, 3, 4, Layout::kRowMajor, Op::kN, false);
  ASSERT_EQ(root0.panels.size(), 4u);
  for (const dist::Panel& p : root0.panels) EXPECT_EQ(p.owner, 0);
  EXPECT_EQ(root0.transfer.size(), 8u);  // 4 packs then 4 broadcasts
  EXPECT_EQ(root1.transfer.size(), 4u);  // 4 broadcasts, each signalled
  for (const dist::TransferStep& t : root1.transfer) EXPECT_TRUE(t.completes_panel);
  // The same collectives in the same order on both ranks.
  std::vector<int> b0, b1;
  for (const auto& t : root0.transfer)
    if (t.kind == dist::StepKind::kBroadcast) b0.push_back(t.panel);
  for (const auto& t : root1.transfer) b1.push_back(t.panel);
  EXPECT_EQ(b0, b1);

  const dist::Schedule every = dist::build_schedule(ReplicaSource::kEveryRank, cols, 2, 1, 3, 4,
                                                    Layout::kRowMajor, Op::kN, false);
  EXPECT_TRUE(every.direct);
  EXPECT_EQ(every.panels.size(), 1u);
  EXPECT_TRUE(every.transfer.empty());
  EXPECT_EQ(every.buffer_bytes, 0);
  const dist::Schedule every_host = dist::build_schedule(ReplicaSource::kEveryRank, cols, 2, 1, 3,
                                                         4, Layout::kRowMajor, Op::kN, true);
  EXPECT_FALSE(every_host.direct);  // host operands are uploaded, in panels
  EXPECT_EQ(every_host.transfer.size(), 2u);
}

// `bench gemm --gpus 4` (a 4-GPU run): the per-GPU figures of four GPUs ran into the TFLOP/s
// column. Every column stays right-aligned under its heading, with a space before it.
TEST(DistBenchTable, FourGpusFiguresStayInTheirColumns) {
  std::vector<bench::DistBenchRow> rows(2);
  rows[0].shape = {32768, 32768, 32768};
  rows[0].types = "bf16";
  rows[0].mode = "1 GPU (tilekit auto)";
  rows[0].ms = 103.5;
  rows[0].tflops = 679.7;
  rows[0].per_gpu_tflops = {679.7};
  rows[0].verdict = "reference for the rows below";
  rows[1] = rows[0];
  rows[1].mode = "4 GPUs resident (rows, blocks, 4 panels/block, NCCL <= 4 SMs)";
  rows[1].gpus = 4;
  rows[1].ms = 32.1;
  rows[1].tflops = 2228.7;
  rows[1].per_gpu_tflops = {1234.5, 1234.5, 1234.5, 1234.5};
  rows[1].scaling = 3.23;
  rows[1].transfer_ms = 12.5;
  rows[1].verdict = "bit-identical to 1 GPU";
  std::ostringstream os;
  bench::print_dist_table(os, rows);
  std::vector<std::string> lines;
  std::istringstream in(os.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << os.str();
  // A right-aligned column ends where its heading ends.
  auto end_of = [](const std::string& line, const std::string& what) {
    const size_t at = line.find(what);
    return at == std::string::npos ? at : at + what.size();
  };
  const std::string per_gpu = "1234.5 1234.5 1234.5 1234.5";
  EXPECT_EQ(end_of(lines[2], per_gpu), end_of(lines[0], "per GPU")) << os.str();
  EXPECT_EQ(end_of(lines[2], "2228.7"), end_of(lines[0], "TFLOP/s")) << os.str();
  EXPECT_EQ(end_of(lines[2], "3.23x"), end_of(lines[0], "scaling")) << os.str();
  EXPECT_EQ(end_of(lines[2], "32.10"), end_of(lines[0], " ms")) << os.str();
  const size_t at = lines[2].find(per_gpu);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(lines[2][at - 1], ' ') << "the per-GPU figures touch the TFLOP/s column:\n" << os.str();
  // The long mode text does not push the numbers out of line either.
  EXPECT_EQ(end_of(lines[1], "103.50"), end_of(lines[0], " ms")) << os.str();
}

TEST(Schedule, OneRankMultipliesWhereTheOperandLies) {
  for (ReplicaSource source : {ReplicaSource::kBlocks, ReplicaSource::kRoot}) {
    const dist::Schedule s =
        dist::build_schedule(source, split_cols(8, 1), 4, 0, 3, 4, Layout::kRowMajor, Op::kN, false);
    EXPECT_TRUE(s.direct);
    EXPECT_TRUE(s.transfer.empty());
    EXPECT_EQ(s.buffer_bytes, 0);
    // Host operands: uploaded in panels, and no collective.
    const dist::Schedule h =
        dist::build_schedule(source, split_cols(8, 1), 4, 0, 3, 4, Layout::kRowMajor, Op::kN, true);
    EXPECT_EQ(h.transfer.size(), 4u);
    for (const dist::TransferStep& t : h.transfer) EXPECT_EQ(t.kind, dist::StepKind::kPack);
  }
}

TEST(Schedule, NothingTravelsWhenKIsZero) {
  const dist::Schedule s = dist::build_schedule(ReplicaSource::kBlocks, split_cols(6, 2), 3, 0, 0,
                                                4, Layout::kColMajor, Op::kT, false);
  EXPECT_EQ(s.panels.size(), 6u);  // C's columns are still scaled by beta, panel by panel
  EXPECT_TRUE(s.transfer.empty());
  for (bool w : s.wait_for) EXPECT_FALSE(w);
}

// ---- the agreement of one process's ranks through host memory ----

TEST(HostExchange, EveryRankGetsEveryRanksValuesInRankOrderCallAfterCall) {
  constexpr int kRanks = 3, kCalls = 200;
  dist::HostExchange exchange(kRanks, std::chrono::seconds(5));
  std::vector<std::string> failures(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      for (int call = 0; call < kCalls; ++call) {
        std::vector<int64_t> all;
        // A different count per call: a stale slot of the call before would show.
        const std::vector<int64_t> mine(1 + call % 3, 100 * r + call);
        const Status s = exchange.exchange(r, mine, &all);
        std::vector<int64_t> want;
        for (int q = 0; q < kRanks; ++q) want.insert(want.end(), mine.size(), 100 * q + call);
        if (!s || all != want) {
          failures[r] = "call " + std::to_string(call) + ": " + s.message();
          return;
        }
      }
    });
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

TEST(HostExchange, AMissingRankTimesOutAndLaterCallsFailAtOnce) {
  dist::HostExchange exchange(2, std::chrono::milliseconds(50));
  std::vector<int64_t> all;
  const Status s = exchange.exchange(0, {1}, &all);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("did not finish within"), std::string::npos) << s.message();
  const auto t0 = std::chrono::steady_clock::now();
  const Status late = exchange.exchange(1, {1}, &all);
  ASSERT_FALSE(late);
  EXPECT_NE(late.message().find("abandoned"), std::string::npos) << late.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(40));
}

TEST(HostExchange, AbandonWakesAWaitingRank) {
  dist::HostExchange exchange(2, std::chrono::seconds(30));
  Status waited;
  const auto t0 = std::chrono::steady_clock::now();
  std::thread rank0([&] {
    std::vector<int64_t> all;
    waited = exchange.exchange(0, {7}, &all);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  exchange.abandon();  // rank 1 failed: its communicator's abort() abandons the agreement
  rank0.join();
  ASSERT_FALSE(waited);
  EXPECT_NE(waited.message().find("abandoned"), std::string::npos) << waited.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

// ---- end to end through the fake communicator ----

// Element (i, j) of op(X) in X's storage (written again here, not taken from the library).
int64_t at(Layout l, Op o, int64_t ld, int64_t i, int64_t j) {
  if (o == Op::kT) std::swap(i, j);
  return l == Layout::kRowMajor ? i * ld + j : j * ld + i;
}
int64_t line_length(Layout l, Op o, int64_t rows, int64_t cols) {
  if (o == Op::kT) std::swap(rows, cols);
  return std::max<int64_t>(1, l == Layout::kRowMajor ? cols : rows);
}
int64_t lines(Layout l, Op o, int64_t rows, int64_t cols) {
  if (o == Op::kT) std::swap(rows, cols);
  return l == Layout::kRowMajor ? rows : cols;
}

// A host matrix holding op(X) of rows × cols, with `pad` extra elements per line.
struct HostMatrix {
  std::vector<float> data;
  int64_t ld = 1;
};
HostMatrix make_matrix(Layout l, Op o, int64_t rows, int64_t cols, int64_t pad, std::mt19937& rng) {
  HostMatrix m;
  m.ld = line_length(l, o, rows, cols) + pad;
  m.data.resize(static_cast<size_t>(std::max<int64_t>(1, lines(l, o, rows, cols)) * m.ld));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : m.data) x = u(rng);
  return m;
}
// The block rows [i0, i0+rows) × cols [j0, j0+cols) of op(X), as its own matrix.
HostMatrix extract(const HostMatrix& x, Layout l, Op o, int64_t i0, int64_t j0, int64_t rows,
                   int64_t cols, int64_t pad) {
  HostMatrix b;
  b.ld = line_length(l, o, rows, cols) + pad;
  b.data.assign(static_cast<size_t>(std::max<int64_t>(1, lines(l, o, rows, cols)) * b.ld), -7.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      b.data[at(l, o, b.ld, i, j)] = x.data[at(l, o, x.ld, i0 + i, j0 + j)];
  return b;
}
void insert(HostMatrix* x, const HostMatrix& b, Layout l, int64_t i0, int64_t j0, int64_t rows,
            int64_t cols) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      x->data[at(l, Op::kN, x->ld, i0 + i, j0 + j)] = b.data[at(l, Op::kN, b.ld, i, j)];
}

struct Case {
  Layout layout = Layout::kRowMajor;
  Op op_a = Op::kN, op_b = Op::kN;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  int ranks = 2;
  DistributedOptions options;
  std::string describe() const {
    return std::string(layout_name(layout)) + " " + op_char(op_a) + op_char(op_b) + " " +
           std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " beta " +
           std::to_string(beta) + " on " + std::to_string(ranks) + " ranks, split " +
           dist_split_name(options.split) + ", source " + replica_source_name(options.source) +
           ", " + std::to_string(options.panels_per_block) + " panels per block, kernel " +
           options.kernel;
  }
};

struct Operands {
  HostMatrix a, b, c;
  GemmProblem problem;
};
Operands make_operands(const Case& c, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  Operands o;
  o.a = make_matrix(c.layout, c.op_a, c.m, c.k, 1, rng);
  o.b = make_matrix(c.layout, c.op_b, c.k, c.n, 2, rng);
  o.c = make_matrix(c.layout, Op::kN, c.m, c.n, 3, rng);
  GemmProblem& p = o.problem;
  p.layout = c.layout;
  p.op_a = c.op_a;
  p.op_b = c.op_b;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.a = o.a.data.data();
  p.lda = o.a.ld;
  p.b = o.b.data.data();
  p.ldb = o.b.ld;
  p.c = o.c.data.data();
  p.ldc = o.c.ld;
  return o;
}

// A context over fake ranks, with the ranks kept in view so that a test can read their logs
// after its calls (the context owns them). `window`: FakeCommunicator::use_window on each.
struct WatchedContext {
  std::vector<FakeCommunicator*> ranks;
  std::unique_ptr<DistributedContext> ctx;
};

WatchedContext watched_context(int ranks, bool window = false,
                               std::chrono::milliseconds timeout = 5000ms) {
  WatchedContext out;
  std::vector<std::unique_ptr<dist::Communicator>> local;
  for (auto& f : make_fake_ranks(ranks, timeout)) {
    f->use_window(window);
    out.ranks.push_back(f.get());
    local.push_back(std::move(f));
  }
  out.ctx = dist::make_context(std::move(local), ranks, {});
  return out;
}

std::unique_ptr<DistributedContext> fake_context(int ranks,
                                                 std::chrono::milliseconds timeout = 5000ms) {
  return watched_context(ranks, false, timeout).ctx;
}

// Where a rank's log shows its first collective that moves the operand (log.size(): none).
size_t first_collective(const std::vector<std::string>& log) {
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].rfind("broadcast", 0) == 0 || log[i].rfind("all-gather", 0) == 0) return i;
  return log.size();
}

// One call of the same kernel on the whole problem: what the ranks together must reproduce.
std::vector<float> one_call(const Case& c, const Operands& o) {
  std::vector<float> expected = o.c.data;
  GemmProblem p = o.problem;
  p.c = expected.data();
  GemmOptions g;
  g.kernel = c.options.kernel;
  const Status s = gemm(Context::cpu(1), p, g);
  EXPECT_TRUE(s) << s.to_string();
  return expected;
}

// Host operands: the context scatters and gathers.
void expect_host_call_matches(const Case& c, uint64_t seed) {
  SCOPED_TRACE("host operands: " + c.describe() + ", seed " + std::to_string(seed));
  Operands o = make_operands(c, seed);
  const std::vector<float> expected = one_call(c, o);
  auto ctx = fake_context(c.ranks);
  DistributedStats stats;
  const Status s = gemm_distributed_host(*ctx, o.problem, c.options, &stats);
  ASSERT_TRUE(s) << s.to_string();
  ASSERT_EQ(stats.ranks.size(), static_cast<size_t>(c.ranks));
  // The host timeline: agreed, then every GEMM enqueued (here the CPU's GEMMs run as they are
  // enqueued, so the second point comes after some work).
  for (const RankStats& r : stats.ranks) {
    EXPECT_GE(r.host_agreed_ms, 0.0) << "rank " << r.rank;
    EXPECT_GT(r.host_enqueued_ms, r.host_agreed_ms) << "rank " << r.rank;
  }
  // Bit for bit, padding included (it must be untouched).
  EXPECT_EQ(std::memcmp(expected.data(), o.c.data.data(), expected.size() * sizeof(float)), 0);
}

// Operands resident on the ranks, laid out as LocalBlocks says; on `ctx` when given.
void expect_resident_call_matches(const Case& c, uint64_t seed, DistributedContext* given = nullptr) {
  SCOPED_TRACE("resident operands: " + c.describe() + ", seed " + std::to_string(seed));
  Operands o = make_operands(c, seed);
  const std::vector<float> expected = one_call(c, o);
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(o.problem, c.ranks, c.options, &plan));
  const bool by_cols = plan.split == DistSplit::kColumns;
  const bool whole = plan.source != ReplicaSource::kBlocks;
  std::vector<HostMatrix> a(c.ranks), b(c.ranks), cc(c.ranks);
  std::vector<LocalBlocks> blocks(c.ranks);
  for (int r = 0; r < c.ranks; ++r) {
    const bool holds_whole = plan.source == ReplicaSource::kEveryRank || r == 0;
    if (by_cols && whole) {
      if (holds_whole) a[r] = extract(o.a, c.layout, c.op_a, 0, 0, c.m, c.k, 1);
    } else {
      a[r] = extract(o.a, c.layout, c.op_a, plan.rows[r].begin, 0, plan.rows[r].size, c.k, 1);
    }
    if (!by_cols && whole) {
      if (holds_whole) b[r] = extract(o.b, c.layout, c.op_b, 0, 0, c.k, c.n, 0);
    } else {
      b[r] = extract(o.b, c.layout, c.op_b, 0, plan.cols[r].begin, c.k, plan.cols[r].size, 0);
    }
    if (by_cols)
      cc[r] = extract(o.c, c.layout, Op::kN, 0, plan.cols[r].begin, c.m, plan.cols[r].size, 2);
    else
      cc[r] = extract(o.c, c.layout, Op::kN, plan.rows[r].begin, 0, plan.rows[r].size, c.n, 2);
    blocks[r] = {a[r].data.empty() ? nullptr : a[r].data.data(), a[r].ld,
                 b[r].data.empty() ? nullptr : b[r].data.data(), b[r].ld, cc[r].data.data(),
                 cc[r].ld};
  }
  std::unique_ptr<DistributedContext> made = given ? nullptr : fake_context(c.ranks);
  const Status s = gemm_distributed(given ? *given : *made, o.problem, blocks, c.options);
  ASSERT_TRUE(s) << s.to_string();
  HostMatrix gathered = o.c;
  for (int r = 0; r < c.ranks; ++r) {
    if (by_cols)
      insert(&gathered, cc[r], c.layout, 0, plan.cols[r].begin, c.m, plan.cols[r].size);
    else
      insert(&gathered, cc[r], c.layout, plan.rows[r].begin, 0, plan.rows[r].size, c.n);
  }
  EXPECT_EQ(std::memcmp(expected.data(), gathered.data.data(), expected.size() * sizeof(float)), 0);
}

std::vector<std::string> cpu_f32_kernels() {
  std::vector<std::string> out{"auto"};
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCpu && k.info.types == GemmTypes{} &&
        k.info.role != KernelRole::kVendor)
      out.push_back(k.info.id);
  return out;
}

struct Shape {
  int64_t m, n, k;
};
// Awkward on purpose: fewer rows or columns than ranks, primes, empty dimensions, and one
// large enough for the blocked kernel's edge and interior paths.
const Shape kShapes[] = {{1, 9, 4}, {13, 2, 11}, {37, 41, 29}, {0, 4, 4}, {4, 0, 4}, {5, 6, 0},
                         {70, 66, 33}};

TEST(DistributedGemm, EverySplitLayoutAndOpMatchesOneCallBitForBit) {
  uint64_t seed = 1;
  for (const std::string& kernel : cpu_f32_kernels())
    for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
      for (Op op_a : {Op::kN, Op::kT})
        for (Op op_b : {Op::kN, Op::kT})
          for (DistSplit split : {DistSplit::kRows, DistSplit::kColumns})
            for (int ranks : {1, 2, 3, 5})
              for (const Shape& shape : kShapes) {
                Case c;
                c.layout = layout;
                c.op_a = op_a;
                c.op_b = op_b;
                c.m = shape.m;
                c.n = shape.n;
                c.k = shape.k;
                c.alpha = 1.5f;
                c.beta = (seed % 2) ? 0.0f : -0.75f;
                c.ranks = ranks;
                c.options.split = split;
                c.options.panels_per_block = 1 + static_cast<int>(seed % 3);
                c.options.kernel = kernel;
                expect_resident_call_matches(c, ++seed);
                expect_host_call_matches(c, ++seed);
              }
}

TEST(DistributedGemm, EveryReplicaSourceMatchesOneCallBitForBit) {
  uint64_t seed = 1000;
  for (ReplicaSource source :
       {ReplicaSource::kBlocks, ReplicaSource::kRoot, ReplicaSource::kEveryRank})
    for (DistSplit split : {DistSplit::kAuto, DistSplit::kRows, DistSplit::kColumns})
      for (int ranks : {1, 2, 4})
        for (const Shape& shape : {Shape{33, 17, 12}, Shape{3, 50, 9}, Shape{50, 3, 9}}) {
          Case c;
          c.m = shape.m;
          c.n = shape.n;
          c.k = shape.k;
          c.op_a = Op::kT;
          c.beta = 0.5f;
          c.ranks = ranks;
          c.options.split = split;
          c.options.source = source;
          expect_resident_call_matches(c, ++seed);
          expect_host_call_matches(c, ++seed);
        }
}

// 12 × 12 × 5 over 3 ranks split by rows, 2 panels a block: rank r's panels are 2r and 2r + 1.
Case three_ranks_two_panels() {
  Case c;
  c.m = 12;
  c.n = 12;
  c.k = 5;
  c.ranks = 3;
  c.options.split = DistSplit::kRows;
  c.options.panels_per_block = 2;
  return c;
}

TEST(DistributedGemm, OwnPanelsArePackedBeforeAnyBroadcast) {
  auto [ranks, ctx] = watched_context(3);
  const Case c = three_ranks_two_panels();
  Operands o = make_operands(c, 7);
  ASSERT_TRUE(gemm_distributed_host(*ctx, o.problem, c.options));
  for (FakeCommunicator* f : ranks) {
    const auto& log = f->log();
    const size_t first_broadcast = first_collective(log);
    size_t last_pack = 0, packs = 0;
    for (size_t i = 0; i < first_broadcast; ++i)
      if (log[i].rfind("signal transfer", 0) == 0) {
        last_pack = i;
        ++packs;
      }
    EXPECT_EQ(packs, 2u) << "rank " << f->rank() << ": its two panels are signalled before any broadcast";
    EXPECT_LT(last_pack, first_broadcast);
    EXPECT_EQ(f->live_allocations(), 0u);
  }
}

// The NCCL communicator keeps the replica in a symmetric window (copy-engine all-gathers): the
// window is requested after the agreement, by every rank with the same size, grown (a
// collective) only when a call needs more, and the result is the same bit for bit.
TEST(DistributedGemm, ReplicaInAWindowIsRequestedAfterTheAgreementAndGrownTogether) {
  auto [ranks, ctx] = watched_context(3, /*window=*/true);
  int64_t seed = 40;
  for (const Shape& shape : {Shape{30, 24, 7}, Shape{30, 12, 7}, Shape{31, 40, 9}}) {
    Case c;
    c.m = shape.m;
    c.n = shape.n;
    c.k = shape.k;
    c.beta = -0.5f;
    c.ranks = 3;
    c.options.split = DistSplit::kRows;
    Operands o = make_operands(c, ++seed);
    const std::vector<float> expected = one_call(c, o);
    DistributedStats stats;
    ASSERT_TRUE(gemm_distributed_host(*ctx, o.problem, c.options, &stats));
    EXPECT_EQ(std::memcmp(expected.data(), o.c.data.data(), expected.size() * sizeof(float)), 0)
        << shape.m << " x " << shape.n << " x " << shape.k;
    for (const RankStats& r : stats.ranks) EXPECT_TRUE(r.copy_engines);
  }
  // k x n floats of op(B): 7·24·4 = 672 bytes, then 7·12·4 fits in it, then 9·40·4 = 1440.
  const std::vector<std::string> grown{"window 672", "window 1440"};
  for (FakeCommunicator* f : ranks) {
    std::vector<std::string> windows;
    size_t first_exchange = f->log().size(), first_window = f->log().size();
    for (size_t i = 0; i < f->log().size(); ++i) {
      const std::string& line = f->log()[i];
      if (line == "exchange") first_exchange = std::min(first_exchange, i);
      if (line.rfind("window", 0) == 0) {
        windows.push_back(line);
        first_window = std::min(first_window, i);
      }
    }
    EXPECT_EQ(windows, grown) << "rank " << f->rank();
    EXPECT_LT(first_exchange, first_window) << "rank " << f->rank() << ": window before the agreement";
    EXPECT_EQ(f->live_allocations(), 0u);
  }
}

// Resident operands: a rank's own panels are multiplied where the caller holds them, so their
// GEMMs wait for nothing (the packs into the replica serve only the all-gather); the others'
// panels are waited for. Host operands: every panel waits (its own are uploads).
TEST(DistributedGemm, OwnResidentPanelsAreMultipliedWithoutWaiting) {
  auto [ranks, ctx] = watched_context(3);
  Case c = three_ranks_two_panels();
  c.beta = 0.5f;
  expect_resident_call_matches(c, 11, ctx.get());
  for (FakeCommunicator* f : ranks) {
    // Panels lie owner by owner: rank r's are 2r and 2r + 1.
    for (int panel = 0; panel < 6; ++panel) {
      const bool waited = std::count(f->log().begin(), f->log().end(),
                                     "wait compute " + std::to_string(panel)) > 0;
      EXPECT_EQ(waited, panel / 2 != f->rank()) << "rank " << f->rank() << ", panel " << panel;
    }
  }
}

// DistributedOptions::lead_gemms: the first GEMMs (own resident panels) are enqueued before the
// transfers, the result is the same bit for bit, and no more lead than there are own panels
// read in place (host operands: none, their own panels are uploads).
TEST(DistributedGemm, LeadGemmsGoBeforeTheTransfersWithTheSameResult) {
  for (int lead : {0, 1, 2, 5}) {
    SCOPED_TRACE("lead_gemms " + std::to_string(lead));
    auto [ranks, ctx] = watched_context(3);
    Case c = three_ranks_two_panels();
    c.beta = 0.5f;
    c.options.lead_gemms = lead;
    expect_resident_call_matches(c, 21, ctx.get());
    for (FakeCommunicator* f : ranks) {
      const auto& log = f->log();
      const auto at = [&](const char* line) {
        return std::find(log.begin(), log.end(), line) - log.begin();
      };
      const size_t first = first_collective(log);
      ASSERT_LT(first, log.size()) << "rank " << f->rank();
      // The compute lane starts before the collectives only when GEMMs lead.
      EXPECT_EQ(static_cast<size_t>(at("compute start")) < first, lead > 0) << "rank " << f->rank();
    }
    expect_host_call_matches(c, 22);  // host operands: nothing can lead; the same result
    c.options.source = ReplicaSource::kEveryRank;  // every panel in place: all of them may lead
    expect_resident_call_matches(c, 23);
  }
}

// ---- faults ----

// Runs run_rank for each rank on its own thread with its own problem and blocks.
std::vector<Status> run_ranks(std::vector<std::unique_ptr<FakeCommunicator>>& fakes,
                              const std::vector<GemmProblem>& problems,
                              const std::vector<LocalBlocks>& blocks, bool host,
                              const DistributedOptions& options) {
  std::vector<Status> out(fakes.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < fakes.size(); ++r)
    threads.emplace_back([&, r] {
      DistributionPlan plan;
      Status planned = plan_distribution(problems[r], static_cast<int>(fakes.size()), options, &plan);
      out[r] = planned ? dist::run_rank(*fakes[r], problems[r], plan,
                                        host ? LocalBlocks{} : blocks[r], host, options,
                                        Status::ok(), nullptr)
                       : planned;
    });
  for (auto& t : threads) t.join();
  return out;
}

TEST(DistributedFaults, MismatchedShapesFailOnEveryRankAndLeaveCUntouched) {
  Case c;
  c.m = c.n = 16;
  c.k = 8;
  Operands o = make_operands(c, 11);
  const std::vector<float> before = o.c.data;
  auto fakes = make_fake_ranks(2);
  GemmProblem other = o.problem;
  other.k = 7;  // rank 1 was told a different k
  const auto statuses = run_ranks(fakes, {o.problem, other}, {}, /*host=*/true, {});
  for (const Status& s : statuses) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("disagree on k: rank 0 has 8, rank 1 has 7"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("C untouched"), std::string::npos) << s.message();
  }
  EXPECT_EQ(o.c.data, before);
  for (auto& f : fakes) EXPECT_EQ(f->live_allocations(), 0u);
}

TEST(DistributedFaults, MismatchedAlphaIsNamed) {
  Case c;
  c.m = c.n = c.k = 6;
  Operands o = make_operands(c, 12);
  auto fakes = make_fake_ranks(3);
  GemmProblem other = o.problem;
  other.alpha = 2.0f;
  const auto statuses = run_ranks(fakes, {o.problem, o.problem, other}, {}, true, {});
  for (const Status& s : statuses)
    EXPECT_NE(s.message().find("disagree on alpha"), std::string::npos) << s.message();
}

TEST(DistributedFaults, ARankWithBadBlocksFailsEveryRankBeforeAnythingIsWritten) {
  Case c;
  c.m = c.n = 8;
  c.k = 4;
  Operands o = make_operands(c, 13);
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(o.problem, 2, {}, &plan));
  ASSERT_EQ(plan.split, DistSplit::kRows);
  std::vector<HostMatrix> a(2), b(2), cc(2);
  std::vector<LocalBlocks> blocks(2);
  for (int r = 0; r < 2; ++r) {
    a[r] = extract(o.a, c.layout, c.op_a, plan.rows[r].begin, 0, plan.rows[r].size, c.k, 0);
    b[r] = extract(o.b, c.layout, c.op_b, 0, plan.cols[r].begin, c.k, plan.cols[r].size, 0);
    cc[r] = extract(o.c, c.layout, Op::kN, plan.rows[r].begin, 0, plan.rows[r].size, c.n, 0);
    blocks[r] = {a[r].data.data(), a[r].ld, b[r].data.data(), b[r].ld, cc[r].data.data(), cc[r].ld};
  }
  blocks[1].ldb = 3;  // its block of op(B) is 4 x 4, row-major: ldb must be >= 4
  const auto before = cc;
  auto fakes = make_fake_ranks(2);
  const auto statuses = run_ranks(fakes, {o.problem, o.problem}, blocks, false, {});
  EXPECT_EQ(statuses[1].code(), StatusCode::kInvalidArgument);
  EXPECT_NE(statuses[1].message().find("ldb = 3 must be >= 4"), std::string::npos)
      << statuses[1].message();
  EXPECT_EQ(statuses[0].code(), StatusCode::kInvalidArgument);
  EXPECT_NE(statuses[0].message().find("rank 1 failed before the multiplication"),
            std::string::npos) << statuses[0].message();
  for (int r = 0; r < 2; ++r) EXPECT_EQ(cc[r].data, before[r].data) << "rank " << r;
}

TEST(DistributedFaults, ARankThatNeverComesEndsInATimeoutNotAHang) {
  Case c;
  c.m = c.n = c.k = 8;
  Operands o = make_operands(c, 14);
  const std::vector<float> before = o.c.data;
  auto fakes = make_fake_ranks(2, 300ms);
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(o.problem, 2, {}, &plan));
  const auto start = std::chrono::steady_clock::now();
  const Status s = dist::run_rank(*fakes[0], o.problem, plan, {}, true, {}, Status::ok(), nullptr);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("timed out"), std::string::npos) << s.message();
  EXPECT_LT(waited, 5s);
  EXPECT_EQ(o.c.data, before);
  EXPECT_TRUE(fakes[0]->aborted());
  // The aborted communicator refuses later calls with a message saying what to do.
  const Status again = dist::run_rank(*fakes[0], o.problem, plan, {}, true, {}, Status::ok(), nullptr);
  EXPECT_NE(again.message().find("aborted"), std::string::npos) << again.message();
}

TEST(DistributedFaults, AFailingCollectiveMidwayFailsEveryRankAndHostCStaysUntouched) {
  Case c;
  c.m = c.n = 12;
  c.k = 6;
  Operands o = make_operands(c, 15);
  const std::vector<float> before = o.c.data;
  auto group = std::make_shared<FakeGroup>(3, 2000ms);
  // Collective 0 is the agreement; 2 is the second broadcast.
  group->fail_collective(1, 2, Status(StatusCode::kInternal, "injected: NCCL error on rank 1"));
  std::vector<std::unique_ptr<FakeCommunicator>> ranks;
  for (int r = 0; r < 3; ++r) ranks.push_back(std::make_unique<FakeCommunicator>(group, r));
  const auto statuses = run_ranks(ranks, {o.problem, o.problem, o.problem}, {}, true, {});
  for (const Status& s : statuses) EXPECT_FALSE(s);
  EXPECT_NE(statuses[1].message().find("injected"), std::string::npos) << statuses[1].message();
  EXPECT_EQ(o.c.data, before);  // host C comes back only after every rank succeeded
  for (auto& f : ranks) EXPECT_EQ(f->live_allocations(), 0u);
}

// Resident blocks of a row-split NN problem for the fault tests.
struct RowBlocks {
  std::vector<HostMatrix> a, b, c;
  std::vector<LocalBlocks> blocks;
};
RowBlocks row_blocks(const Case& c, const Operands& o, const DistributionPlan& plan) {
  RowBlocks r;
  r.a.resize(c.ranks);
  r.b.resize(c.ranks);
  r.c.resize(c.ranks);
  for (int g = 0; g < c.ranks; ++g) {
    r.a[g] = extract(o.a, c.layout, c.op_a, plan.rows[g].begin, 0, plan.rows[g].size, c.k, 0);
    r.b[g] = extract(o.b, c.layout, c.op_b, 0, plan.cols[g].begin, c.k, plan.cols[g].size, 0);
    r.c[g] = extract(o.c, c.layout, Op::kN, plan.rows[g].begin, 0, plan.rows[g].size, c.n, 1);
    r.blocks.push_back({r.a[g].data.data(), r.a[g].ld, r.b[g].data.data(), r.b[g].ld,
                        r.c[g].data.data(), r.c[g].ld});
  }
  return r;
}

TEST(DistributedFaults, AllOrNothingKeepsResidentCUntouchedWhenACollectiveFailsMidway) {
  Case c;
  c.m = c.n = 12;
  c.k = 6;
  c.beta = 0.5f;
  c.ranks = 3;
  c.options.split = DistSplit::kRows;
  c.options.all_or_nothing = true;
  Operands o = make_operands(c, 17);
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(o.problem, 3, c.options, &plan));
  RowBlocks r = row_blocks(c, o, plan);
  const auto before = r.c;
  auto group = std::make_shared<FakeGroup>(3, 2000ms);
  // Collectives: 0 the first agreement, 1..4 the rounds (12 one-column panels, 4 per rank: 4
  // all-gathers of one column from each rank), 5 the agreement on the outcome: the GEMMs have
  // run everywhere when rank 2 fails there.
  group->fail_collective(2, 5, Status(StatusCode::kInternal, "injected: NCCL error on rank 2"));
  std::vector<std::unique_ptr<FakeCommunicator>> ranks;
  for (int g = 0; g < 3; ++g) ranks.push_back(std::make_unique<FakeCommunicator>(group, g));
  const auto statuses = run_ranks(ranks, {o.problem, o.problem, o.problem}, r.blocks, false, c.options);
  for (const Status& s : statuses) EXPECT_FALSE(s);
  for (int g = 0; g < 3; ++g) EXPECT_EQ(r.c[g].data, before[g].data) << "rank " << g;
  for (auto& f : ranks) EXPECT_EQ(f->live_allocations(), 0u);
}

TEST(DistributedGemm, AllOrNothingGivesTheSameResult) {
  for (DistSplit split : {DistSplit::kRows, DistSplit::kColumns})
    for (float beta : {0.0f, 0.5f}) {
      Case c;
      c.m = 23;
      c.n = 19;
      c.k = 7;
      c.beta = beta;
      c.ranks = 3;
      c.op_b = Op::kT;
      c.layout = Layout::kColMajor;
      c.options.split = split;
      c.options.all_or_nothing = true;
      expect_resident_call_matches(c, 99);
    }
}

TEST(DistributedFaults, BadHostArgumentsFailEveryRankNamingTheArgument) {
  Case c;
  c.m = c.n = c.k = 5;
  Operands o = make_operands(c, 16);
  o.problem.lda = 2;
  const std::vector<float> before = o.c.data;
  auto ctx = fake_context(2);
  const Status s = gemm_distributed_host(*ctx, o.problem);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lda"), std::string::npos) << s.message();
  EXPECT_EQ(o.c.data, before);
}

TEST(DistributedGemm, WithoutNcclTheFactoriesSaySo) {
  if (built_with_nccl()) GTEST_SKIP() << "this build has NCCL";
  std::unique_ptr<DistributedContext> ctx;
  const Status s = DistributedContext::create({0, 1}, {}, &ctx);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("without NCCL"), std::string::npos) << s.message();
}

TEST(UniqueId, RoundTripsThroughAFileAndTheEnvironmentWins) {
  const std::string path = ::testing::TempDir() + "/tilekit_nccl_id_test";
  ASSERT_TRUE(write_unique_id_file(path, "00ff"));
  std::string id;
  unsetenv("TILEKIT_NCCL_ID");
  ASSERT_TRUE(read_unique_id(path, &id));
  EXPECT_EQ(id, "00ff");
  setenv("TILEKIT_NCCL_ID", "abcd", 1);
  ASSERT_TRUE(read_unique_id(path, &id));
  EXPECT_EQ(id, "abcd");
  unsetenv("TILEKIT_NCCL_ID");
  EXPECT_EQ(read_unique_id(path + ".missing", &id).code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace tilekit::testing
