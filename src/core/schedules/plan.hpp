// plan.hpp — what every tile schedule's plan says (internal, host only): how many blocks run, and
// which tiles go to them whole, which are shared as stream-K ranges and which are cut into equal
// pieces. The kernels' walks read it on the device (cuda/gemm/detail/stream_k_walk.hpp). And what
// the tag a kernel's TileDesc carries points at: the schedule's module as the selector reads it.
#pragma once

#include <cstdint>
#include <string>

#include "core/tile_model_kernel.hpp"

namespace tilekit {

// `blocks` blocks; the walk's first `whole_tiles` tiles go whole, round robin; the k-tiles of the
// rest, end to end, are cut into `blocks` equal stream-K ranges. Or (split tiles) `blocks` =
// tiles × `split_pieces`: block b computes piece b % split_pieces of tile b / split_pieces.
struct TileWalkPlan {
  int blocks = 0;
  int whole_tiles = 0;
  int64_t stream_k_iters = 0;
  int split_pieces = 0;
  bool stream_k() const { return stream_k_iters > 0; }
  bool split() const { return split_pieces > 1; }
  bool partial_tiles() const { return stream_k() || split(); }  // a slot and a flag per block
};

// What schedules that refuse nothing declare: refuses(sms, tiles, k_tiles) gives why a shape is
// not run (empty: it is), kRefuses that rule in words for `tilekit list`.
struct RunsEveryShape {
  static std::string refuses(int /*sms*/, int64_t /*tiles*/, int /*k_tiles*/) { return {}; }
  static constexpr const char* kRefuses = "";
};

// A schedule module as the tag in TileDesc points at it: its name, whether it cuts tiles into
// k-ranges of its own choosing (stream-K: such kernels take no run-time split, and a piece of C
// is not computed by one block alone), and its cost in the selector's tile model. A module S
// (a struct with kName, kStreamK and cost) is tagged by schedule_tag<S>(): no list of schedules
// exists anywhere, so a new schedule is its module alone.
struct TileScheduleModule {
  const char* name;
  bool stream_k;
  TileModelCost (*cost)(const TileModelKernel& km, int split_k, int64_t m, int64_t n, int64_t k,
                        const TileCounts& counts);
};

template <typename S>
struct ScheduleModuleOf {
  // An inline variable (C++17): one object, so one tag, in every translation unit.
  static constexpr TileScheduleModule kModule{S::kName, S::kStreamK, &S::cost};
};
template <typename S>
constexpr TileSchedule schedule_tag() {
  return &ScheduleModuleOf<S>::kModule;
}

constexpr const char* schedule_name(TileSchedule s) { return s ? s->name : "unmodelled"; }
constexpr bool is_stream_k(TileSchedule s) { return s != nullptr && s->stream_k; }

}  // namespace tilekit
