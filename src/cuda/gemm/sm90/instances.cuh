// instances.cuh — the Hopper family's instance table: one row per registered kernel, each naming
// its element types and compute mode, block tile and ring depth, tile scheduler, consumers,
// epilogue, cluster shape, tile order and its rank in the selector's default order. A new tile
// or stage variant is one row; a new part is its header (a schedule module of src/core/schedules/,
// an epilogue part as schedule.hpp describes) and a new value of its column here, with the
// column's type mapping and id word below the table.
//
// The rows are compiled by kInstanceUnits translation units (instances_<u>.cu: the rows i with
// i % kInstanceUnits == u, so that nvcc builds them in parallel) and registered in table order
// (register_gemm_sm90, instances_0.cu), which is the order `tilekit list` shows and the order in
// which the selector breaks ties of rank.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/schedules/balanced_rounds.hpp"
#include "cuda/gemm/sm90/entry.cuh"
#include "cuda/gemm/sm90/epilogue_staged.cuh"

namespace tilekit::cuda::sm90 {

enum class Element { kBf16, kF16, kF32 };
enum class Epilogue { kDirectStore, kTmaStore, kStagedStore };
enum class TileScheduler {
  kTilePerBlock,
  kPersistent,
  kBalancedRounds,
  kStreamKTail,
  kStreamKHalfTail,
  kSplitTiles,
};

// A row, built by named setters from a base row that holds the name and step it is listed under.
struct Instance {
  const char* former_name = "";  // the stem of the id it had before (its alias), "sm90_07_tma_store"
  int step = 0;                  // its place in docs/hopper.md's walk
  Element element = Element::kBf16;
  Operands operands = Operands::k16Bit;
  int block_m = 128, block_n = 128, stages = 6;
  TileScheduler scheduler = TileScheduler::kPersistent;
  Consumers consumers = Consumers::kCooperative;
  Epilogue epilogue = Epilogue::kDirectStore;
  int cluster_m = 1;
  int group_rows = 8;  // tile rows (with clusters: cluster rows) walked together
  int auto_rank = 0;

  constexpr Instance bf16() const { return with_inputs(Element::kBf16, Operands::k16Bit); }
  constexpr Instance f16() const { return with_inputs(Element::kF16, Operands::k16Bit); }
  constexpr Instance tf32() const { return with_inputs(Element::kF32, Operands::kTf32); }
  constexpr Instance tf32x3() const { return with_inputs(Element::kF32, Operands::kTf32x3); }
  // tf32 whose MN-major A reaches the wgmma through registers (mainloop_a_registers.cuh)
  constexpr Instance tf32_a_registers() const {
    return with_inputs(Element::kF32, Operands::kTf32ARegisters);
  }
  constexpr Instance tile(int m, int n, int ring_stages) const {
    Instance r = *this;
    r.block_m = m;
    r.block_n = n;
    r.stages = ring_stages;
    return r;
  }
  constexpr Instance scheduled(TileScheduler s) const {
    Instance r = *this;
    r.scheduler = s;
    return r;
  }
  constexpr Instance ping_pong() const {
    Instance r = *this;
    r.consumers = Consumers::kPingPong;
    return r;
  }
  constexpr Instance tma_store() const {
    Instance r = *this;
    r.epilogue = Epilogue::kTmaStore;
    return r;
  }
  constexpr Instance staged_store() const {
    Instance r = *this;
    r.epilogue = Epilogue::kStagedStore;
    return r;
  }
  constexpr Instance cluster(int m) const {
    Instance r = *this;
    r.cluster_m = m;
    return r;
  }
  constexpr Instance walk_rows(int rows) const {
    Instance r = *this;
    r.group_rows = rows;
    return r;
  }
  constexpr Instance rank(int auto_rank_value) const {
    Instance r = *this;
    r.auto_rank = auto_rank_value;
    return r;
  }

 private:
  constexpr Instance with_inputs(Element e, Operands o) const {
    Instance r = *this;
    r.element = e;
    r.operands = o;
    return r;
  }
};

constexpr Instance listed_as(const char* former_name, int step) {
  Instance r;
  r.former_name = former_name;
  r.step = step;
  return r;
}

// The bases: what each listed name turns on (docs/hopper.md walks them in this order).
constexpr Instance kTilePerBlock =
    listed_as("sm90_01_tma_wgmma", 1).scheduled(TileScheduler::kTilePerBlock).walk_rows(1);
constexpr Instance kPersistent = listed_as("sm90_02_persistent", 2);
constexpr Instance kStreamK = listed_as("sm90_03_stream_k", 3).scheduled(TileScheduler::kStreamKTail);
constexpr Instance kPersistentTf32 = listed_as("sm90_04_tf32", 4);
constexpr Instance kPingPong = listed_as("sm90_05_ping_pong", 5).ping_pong();
constexpr Instance kMulticast = listed_as("sm90_06_multicast", 6).cluster(2).walk_rows(4);
constexpr Instance kTmaStore = listed_as("sm90_07_tma_store", 7).tma_store();
constexpr Instance kTmaStoreStreamK = listed_as("sm90_07_tma_store_stream_k", 7)
                                          .tma_store()
                                          .scheduled(TileScheduler::kStreamKHalfTail);
// 16 rows of 64-row tiles: the same 1024 rows of C as 8 rows of 128.
constexpr Instance kPingPongTmaStore =
    listed_as("sm90_08_ping_pong_tma_store", 8).ping_pong().tma_store().walk_rows(16);
constexpr Instance kARegisters = listed_as("sm90_09_tf32_registers", 9).tma_store();
constexpr Instance kSplitTiles =
    listed_as("sm90_10_split_tiles", 10).tma_store().scheduled(TileScheduler::kSplitTiles);
// New to the table, so no former id: the persistent walk on only as many blocks as its rounds need.
// New to the table too: every C stored a row at a time by its warps from one box each.
constexpr Instance kStagedStore = listed_as("", 7).staged_store();
constexpr Instance kBalancedRounds =
    listed_as("", 2).tma_store().scheduled(TileScheduler::kBalancedRounds);
// Narrow tiles (n = 16, 32, 64: C's short side along n, tile_config.cuh), their k-ranges cut
// among the SMs by stream-K, stored from registers (C may be stored transposed).
constexpr Instance kNarrowStreamK = listed_as("", 11).scheduled(TileScheduler::kStreamKTail);

// Ranks: higher is tried first by the selector where no tuned entry covers a shape; the tuned
// tables and the tile model decide everywhere else (docs/tuning.md). The figures behind each
// rank are in docs/hopper.md.
constexpr Instance kInstances[] = {
    kTilePerBlock.bf16().tile(128, 128, 6).rank(18),
    kTilePerBlock.bf16().tile(128, 256, 4).rank(19),
    kTilePerBlock.f16().tile(128, 128, 6).rank(18),
    kTilePerBlock.f16().tile(128, 256, 4).rank(19),
    kPersistent.bf16().tile(128, 128, 6).rank(22),
    kPersistent.bf16().tile(128, 256, 4).rank(23),
    kPersistent.f16().tile(128, 128, 6).rank(22),
    kPersistent.f16().tile(128, 256, 4).rank(23),
    // Below the persistent rows: on the H200 the tail costs less than its share of SMs suggests
    // (the busy SMs clock higher), and the partial tiles cost more.
    kStreamK.bf16().tile(128, 128, 6).rank(20),
    kStreamK.bf16().tile(128, 256, 4).rank(21),
    kStreamK.f16().tile(128, 128, 6).rank(20),
    kStreamK.f16().tile(128, 256, 4).rank(21),
    kStreamK.tf32().tile(128, 128, 6).rank(20),
    kStreamK.tf32().tile(128, 256, 4).rank(21),
    kStreamK.tf32x3().tile(128, 128, 3).rank(21),
    kPersistentTf32.tf32().tile(128, 128, 6).rank(22),
    kPersistentTf32.tf32().tile(128, 256, 4).rank(23),
    kPersistentTf32.tf32x3().tile(128, 128, 3).rank(23),
    kPingPong.bf16().tile(128, 128, 6).rank(22),
    kPingPong.f16().tile(128, 128, 6).rank(22),
    kMulticast.bf16().tile(128, 128, 6).rank(16),
    kMulticast.bf16().tile(128, 256, 4).rank(17),
    kMulticast.f16().tile(128, 128, 6).rank(16),
    kMulticast.f16().tile(128, 256, 4).rank(17),
    kTmaStore.bf16().tile(128, 128, 6).rank(21),
    kTmaStore.bf16().tile(128, 256, 4).rank(24),
    kTmaStore.f16().tile(128, 128, 6).rank(21),
    kTmaStore.f16().tile(128, 256, 4).rank(24),
    kTmaStore.tf32().tile(128, 128, 6).rank(21),
    kTmaStore.tf32().tile(128, 256, 4).rank(24),
    kTmaStore.tf32x3().tile(128, 128, 3).rank(22),
    kTmaStoreStreamK.bf16().tile(128, 128, 6).rank(20),
    kTmaStoreStreamK.bf16().tile(128, 256, 4).rank(25),
    kTmaStoreStreamK.f16().tile(128, 128, 6).rank(20),
    kTmaStoreStreamK.f16().tile(128, 256, 4).rank(25),
    kTmaStoreStreamK.tf32().tile(128, 128, 6).rank(20),
    kTmaStoreStreamK.tf32().tile(128, 256, 4).rank(25),
    kTmaStoreStreamK.tf32x3().tile(128, 128, 3).rank(21),
    // 128 x 128 level with or ahead of the TMA-store rows at 4096-8192 but 13% behind at 8193;
    // 64 x 256 behind them but at 8192; tf32 nowhere the fastest own kernel.
    kPingPongTmaStore.bf16().tile(128, 128, 6).rank(23),
    kPingPongTmaStore.f16().tile(128, 128, 6).rank(23),
    kPingPongTmaStore.bf16().tile(64, 256, 4).rank(22),
    kPingPongTmaStore.f16().tile(64, 256, 4).rank(22),
    kPingPongTmaStore.tf32().tile(64, 256, 4).rank(19),
    kPingPongTmaStore.tf32().tile(128, 128, 6).rank(19),
    kARegisters.tf32_a_registers().tile(128, 128, 6).rank(22),
    kARegisters.tf32_a_registers().tile(128, 256, 4).rank(26),
    // Refuses every shape but those of few tiles and long k: ranked below all, chosen there by
    // the tile model.
    kSplitTiles.bf16().tile(128, 128, 6).rank(15),
    kSplitTiles.f16().tile(128, 128, 6).rank(15),
    kSplitTiles.tf32_a_registers().tile(128, 128, 6).rank(15),
    kSplitTiles.tf32x3().tile(128, 128, 3).rank(15),
    // One below the TMA-store rows they twin: the same busiest-slot work, chosen where the tuner
    // measured the idle SMs' headroom (clock, L2) to pay.
    kBalancedRounds.bf16().tile(128, 256, 4).rank(23),
    kBalancedRounds.f16().tile(128, 256, 4).rank(23),
    // Below the TMA-store rows they twin: the stores hold the tensor cores (no TMA to hand them
    // to), and chosen where the tuner measured its smaller staging or its row stores to pay.
    kStagedStore.bf16().tile(128, 128, 6).rank(20),
    kStagedStore.f16().tile(128, 128, 6).rank(20),
    // Below all: chosen where the tuner measured them (short sides, small squares). A deeper
    // ring than the wide tiles': a stage is a 128-row A tile and a few rows of B, and the long
    // operand streams at the memory's rate only with enough of it in flight.
    kNarrowStreamK.bf16().tile(128, 16, 8).rank(14),
    kNarrowStreamK.bf16().tile(128, 32, 8).rank(14),
    kNarrowStreamK.bf16().tile(128, 64, 8).rank(14),
    kNarrowStreamK.f16().tile(128, 16, 8).rank(14),
    kNarrowStreamK.f16().tile(128, 32, 8).rank(14),
    kNarrowStreamK.f16().tile(128, 64, 8).rank(14),
    // tf32: the long operand of x·W (MN-major once swapped) reaches the wgmma through registers.
    kNarrowStreamK.tf32_a_registers().tile(128, 16, 8).rank(14),
    kNarrowStreamK.tf32_a_registers().tile(128, 32, 8).rank(14),
    kNarrowStreamK.tf32_a_registers().tile(128, 64, 8).rank(14),
};
constexpr size_t kInstanceCount = std::size(kInstances);
constexpr int kInstanceUnits = 6;

// ---- from a row to its types ----

template <Element E>
using ElementType = std::conditional_t<E == Element::kBf16, __nv_bfloat16,
                                       std::conditional_t<E == Element::kF16, __half, float>>;

template <TileScheduler S>
using SchedulerType = std::conditional_t<
    S == TileScheduler::kTilePerBlock, TilePerBlockScheduler,
    std::conditional_t<
        S == TileScheduler::kPersistent, PersistentScheduler,
        std::conditional_t<
            S == TileScheduler::kBalancedRounds, BalancedRoundsSchedule,
            std::conditional_t<S == TileScheduler::kStreamKTail, StreamKTailScheduler,
                               std::conditional_t<S == TileScheduler::kStreamKHalfTail,
                                                  StreamKHalfTailScheduler, SplitTilesScheduler>>>>>;

template <Epilogue E>
using EpilogueType = std::conditional_t<
    E == Epilogue::kTmaStore, TmaStoreEpilogue,
    std::conditional_t<E == Epilogue::kStagedStore, StagedStoreEpilogue, DirectStoreEpilogue>>;

template <size_t I>
using InstancePolicy = WgmmaPolicy<ElementType<kInstances[I].element>, kInstances[I].block_n,
                                   kInstances[I].stages, kInstances[I].operands, kInstances[I].block_m>;

template <size_t I, typename Unit>
using InstanceSchedule =
    KernelSchedule<SchedulerType<kInstances[I].scheduler>, kInstances[I].consumers,
                   EpilogueType<kInstances[I].epilogue>, kInstances[I].cluster_m,
                   kInstances[I].group_rows, Unit>;

// The id's word for a row's scheduler and epilogue (instance_words).
constexpr const char* scheduler_word(TileScheduler s) {
  switch (s) {
    case TileScheduler::kTilePerBlock: return "tile_per_block";
    case TileScheduler::kPersistent: return "persistent";
    case TileScheduler::kBalancedRounds: return "balanced_rounds";
    case TileScheduler::kStreamKTail: return "stream_k";
    case TileScheduler::kStreamKHalfTail: return "stream_k_half";
    case TileScheduler::kSplitTiles: return "split_tiles";
  }
  return "?";
}
constexpr const char* epilogue_word(Epilogue e) {
  switch (e) {
    case Epilogue::kDirectStore: return "direct_store";
    case Epilogue::kTmaStore: return "tma_store";
    case Epilogue::kStagedStore: return "staged_store";
  }
  return "?";
}

// ---- compiling a unit's rows ----

// The id's words after the tile, "[.a_regs].<coop|ping_pong>.<scheduler>.<direct_store|tma_store>
// [.cluster2x1]": gemm.cuda.sm90.<types>.<tile>_s<stages><words> (instances_0.cu).
std::string instance_words(const Instance& row);

struct IndexedEntry {
  size_t row;
  GemmKernel kernel;
};

template <int kUnit, typename Unit, size_t I>
void add_instance_of_unit(std::vector<IndexedEntry>* out) {
  if constexpr (I % kInstanceUnits == kUnit) {
    constexpr Instance row = kInstances[I];
    out->push_back({I, make_wgmma_entry<InstancePolicy<I>, InstanceSchedule<I, Unit>>(
                           instance_words(row), row.former_name, row.step, row.auto_rank)});
  }
}

template <int kUnit, typename Unit, size_t... I>
void add_instances_of_unit(std::vector<IndexedEntry>* out, std::index_sequence<I...>) {
  (add_instance_of_unit<kUnit, Unit, I>(out), ...);
}

// The entries of unit kUnit's rows; `Unit` is a type private to its translation unit.
template <int kUnit, typename Unit>
void make_unit_instances(std::vector<IndexedEntry>* out) {
  add_instances_of_unit<kUnit, Unit>(out, std::make_index_sequence<kInstanceCount>{});
}

// One per translation unit (instances_<u>.cu).
void make_instances_0(std::vector<IndexedEntry>* out);
void make_instances_1(std::vector<IndexedEntry>* out);
void make_instances_2(std::vector<IndexedEntry>* out);
void make_instances_3(std::vector<IndexedEntry>* out);
void make_instances_4(std::vector<IndexedEntry>* out);
void make_instances_5(std::vector<IndexedEntry>* out);

}  // namespace tilekit::cuda::sm90
