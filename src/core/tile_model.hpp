// tile_model.hpp — how a kernel's tiles fill a GPU at one shape (internal).
//
// The autotuner measures kernels at a few shapes; kernel "auto" is asked about every shape. A
// time measured at shape S says little about shape Q when the tile counts quantize differently:
// 2048² is 128 tiles of 128×256 (one round on 132 SMs), 1500² is 72 (the same round, half the
// SMs idle), so the 64×64 kernel that lost at 2048² wins at 1500². The model below counts the
// k-iterations of the busiest SM for each TileSchedule (blocks resident together on it counted
// as sharing it), and carries a measured time from S to Q by the ratio of those counts
// (tune_select.cpp). It also holds step 10's default k-split, so that
// the kernel and the model compute the same count.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "tilekit/registry.hpp"

namespace tilekit {

// Step 10's k-slices, asked for or not: at least one, never more than 64 (the reduction's cost)
// or than there are k-tiles (no empty slice).
inline int64_t clamp_k_slices(int64_t count, int64_t k_tiles) {
  return std::max<int64_t>(1, std::min<int64_t>({count, 64, k_tiles}));
}

// Step 10's k-slices when the problem names none: as many as fill the blocks resident at once
// (none when the tiles already do), no slice shorter than kSplitKMinSliceK k, clamped as above.
constexpr int64_t kSplitKMinSliceK = 64;
inline int64_t default_k_slices_of(int64_t tiles, int64_t k, int64_t k_tiles,
                                   int64_t resident_blocks) {
  const int64_t count =
      std::min<int64_t>(resident_blocks / std::max<int64_t>(tiles, 1), k / kSplitKMinSliceK);
  return clamp_k_slices(count, k_tiles);
}
inline int64_t default_k_slices(int64_t m, int64_t n, int64_t k, int bm, int bn, int bk,
                                int64_t resident_blocks) {
  const int64_t tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
  return default_k_slices_of(tiles, k, (k + bk - 1) / bk, resident_blocks);
}

// What the model knows of the device: its SMs, how many blocks of the kernel fit on one, and
// the memory bandwidth a reduction pass streams at.
struct TileModelDevice {
  int sms = 1;
  int blocks_per_sm = 1;
  double bytes_per_s = 1e12;
};

// The work of the busiest SM in a kernel's own units (k-iterations of one tile; bytes moved when
// unmodelled), comparable only between shapes of one kernel; plus the seconds of a split-K
// reduction pass, which does not scale with it.
struct TileModelCost {
  double busiest_sm_work = 0;
  double reduction_s = 0;
};

// Whether the model counts a kernel's tiles (else it scales by bytes).
inline bool tile_modelled(const TileDesc& t) {
  return t.block_m > 0 && t.block_n > 0 && t.block_k > 0 && !t.chosen_at_run_time &&
         t.schedule != TileSchedule::kUnmodelled;
}

// A tiling's C tiles, k-tiles and resident block slots (SMs × blocks per SM) at one shape, before
// any split: the candidates of one kernel share it, so a selection computes it once per kernel.
struct TileGrid {
  int64_t tiles = 0, k_tiles = 0, slots = 0;
};
inline TileGrid tile_grid(const TileDesc& t, int64_t m, int64_t n, int64_t k,
                          const TileModelDevice& d) {
  if (!tile_modelled(t)) return {};
  return {((m + t.block_m - 1) / t.block_m) * ((n + t.block_n - 1) / t.block_n),
          (k + t.block_k - 1) / t.block_k,
          static_cast<int64_t>(std::max(1, d.sms)) * std::max(1, d.blocks_per_sm)};
}

// The time of `blocks` blocks resident together on one SM, in units of one block's alone: they
// share its issue slots and pipes, so x of them take x^0.75 times as long, not once (their SM
// does x^0.25 times the work of one, its latencies better hidden). The exponent was fitted on the
// H200's tuned f32 entries (scripts/tune-replay.py, leave-one-out, docs/tuning.md): with 0.75
// the choice was within 1.05× of the fastest at 239 of 256, with rounds of free co-resident
// blocks (exponent 0) at 191, with fully shared SMs (exponent 1) at 215.
inline double co_resident_time(int64_t blocks) {
  // Up to 64 (an SM holds at most 32 blocks on the GPUs tilekit knows) from a table, made once:
  // the model runs once per choice in every search, and the two square roots were a tenth of it.
  constexpr int64_t kTabled = 64;
  static const std::array<double, kTabled + 1> tabled = [] {
    std::array<double, kTabled + 1> t{};
    for (size_t x = 0; x < t.size(); ++x)
      t[x] = std::sqrt(static_cast<double>(x)) * std::sqrt(std::sqrt(static_cast<double>(x)));
    return t;
  }();
  if (blocks >= 0 && blocks <= kTabled) return tabled[static_cast<size_t>(blocks)];
  const double x = static_cast<double>(blocks);
  return std::sqrt(x) * std::sqrt(std::sqrt(x));
}

// What a stream-K walk costs beyond its even share, in k-iterations of one tile: its tiles' pieces
// wait for one another (a share that starts inside a tile adds its partial sums only after the
// earlier piece is done), taken as half of a tile's k-iterations, and each piece's fix-up (the
// partial tile written, read back and added) as 4. Fitted, as co_resident_time was, on the H200
// table's bf16 entries, whose step-07 stream-K walk ran 1.5–2.4× its persistent walk's time where
// the even share promised 0.3–0.7× (9 to 64 tiles of 6 to 16 k-iterations, 384³–1024³), and
// 0.7–1.17× where it promised 0.02–0.12× (1 to 16 tiles of 128–257): leave-one-out within
// 1.05× of the entry's fastest at 199 of 256 entries (170 before), above 1.3× at 1 (8).
// docs/tuning.md.
constexpr double kStreamKWaitPerKTile = 0.5;
constexpr double kStreamKFixUpPerPiece = 4;

// `split_k` as the kernel would run it: 0 lets the kernel choose. m and n are C's rows and
// columns in the row-major view the kernels compute in; `g` is tile_grid() of the same.
inline TileModelCost tile_model_cost(const TileDesc& t, const TileGrid& g, int split_k, int64_t m,
                                     int64_t n, int64_t k, const TileModelDevice& d) {
  TileModelCost c;
  if (!tile_modelled(t)) {
    c.busiest_sm_work = static_cast<double>(m * k + k * n + m * n);
    return c;
  }
  const double tiles = static_cast<double>(g.tiles), k_tiles = static_cast<double>(g.k_tiles);
  const double sms = std::max(1, d.sms);
  switch (t.schedule) {
    case TileSchedule::kPersistent:
      c.busiest_sm_work = std::ceil(tiles / sms) * k_tiles;
      break;
    case TileSchedule::kStreamKHalfTail:  // persistent rounds unless the last is at most half full
      if (const int64_t tail = g.tiles % static_cast<int64_t>(sms);
          tail == 0 || 2 * static_cast<double>(tail) > sms) {
        c.busiest_sm_work = std::ceil(tiles / sms) * k_tiles;
        break;
      }
      [[fallthrough]];
    case TileSchedule::kStreamK: {  // even shares, down to 4 k-iterations a block
      const double units = std::clamp(std::floor(tiles * k_tiles / 4), 1.0, sms);
      // The pieces of one tile: the SMs that share it when there are fewer tiles than SMs, else
      // about two (a share ends inside a tile and the next one begins there).
      const double pieces = tiles < units ? std::ceil(units / tiles) : 2;
      c.busiest_sm_work = tiles * k_tiles / units + kStreamKWaitPerKTile * k_tiles +
                          kStreamKFixUpPerPiece * pieces;
      break;
    }
    default: {  // one block per tile and k-slice, spread over the SMs, resident ones together
      int64_t slices = 1;
      if (t.split_k < 0)
        slices = split_k > 0 ? clamp_k_slices(split_k, g.k_tiles)
                             : default_k_slices_of(g.tiles, k, g.k_tiles, g.slots);
      const int64_t sm_count = std::max(1, d.sms), resident = std::max(1, d.blocks_per_sm);
      const int64_t on_busiest = (g.tiles * slices + sm_count - 1) / sm_count;
      const int64_t full_rounds = on_busiest / resident, last_round = on_busiest % resident;
      c.busiest_sm_work =
          (static_cast<double>(full_rounds) * co_resident_time(resident) +
           (last_round > 0 ? co_resident_time(last_round) : 0)) *
          static_cast<double>((g.k_tiles + slices - 1) / slices);
      if (slices > 1)  // the partial planes read once, C written once, and a launch
        c.reduction_s = static_cast<double>((slices + 1) * m * n * 4) / d.bytes_per_s + 2e-6;
    }
  }
  return c;
}
inline TileModelCost tile_model_cost(const TileDesc& t, int split_k, int64_t m, int64_t n,
                                     int64_t k, const TileModelDevice& d) {
  return tile_model_cost(t, tile_grid(t, m, n, k, d), split_k, m, n, k, d);
}

// Launch and set-up time that no shape change scales (measured floor of the smallest GEMMs on the
// H200 is ≈ 5 µs; 3 µs of it does not depend on the kernel).
constexpr double kFixedLaunchSeconds = 3e-6;

// A time measured at shape S carried to shape Q: the part that scales by the ratio of the
// busiest SM's work, the reduction passes as modelled at each shape, the fixed cost unchanged.
// In two halves, so that a selection, which carries each measurement to many shapes, divides
// once per measurement (at load) rather than once per shape: the seconds per unit of work at S,
inline double seconds_per_work(double measured_s, const TileModelCost& at_s) {
  return std::max(measured_s - kFixedLaunchSeconds - at_s.reduction_s, 1e-7) /
         std::max(at_s.busiest_sm_work, 1.0);
}
// and the time at Q from them.
inline double carry_time(double per_work_s, const TileModelCost& at_q) {
  return kFixedLaunchSeconds + per_work_s * at_q.busiest_sm_work + at_q.reduction_s;
}
inline double carry_time(double measured_s, const TileModelCost& at_s, const TileModelCost& at_q) {
  return carry_time(seconds_per_work(measured_s, at_s), at_q);
}

}  // namespace tilekit
