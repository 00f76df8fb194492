// plan.hpp — what every tile schedule's plan says (internal, host only): how many blocks run, and
// which tiles go to them whole, which are shared as stream-K ranges and which are cut into equal
// pieces. The kernels' walks read it on the device (cuda/gemm/detail/stream_k_walk.hpp).
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace tilekit
