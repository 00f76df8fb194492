// tile_model.hpp — how a kernel's tiles fill a GPU at one shape (internal).
//
// The autotuner measures kernels at a few shapes; kernel "auto" is asked about every shape. A
// time measured at shape S says little about shape Q when the tile counts quantize differently:
// 2048² is 128 tiles of 128×256 (one round on 132 SMs), 1500² is 72 (the same round, half the
// SMs idle), so the 64×64 kernel that lost at 2048² wins at 1500². The model below counts the
// k-iterations of the busiest SM for each TileSchedule (blocks resident together on it counted
// as sharing it), and carries a measured time from S to Q by the ratio of those counts
// (tune_select.cpp). It also holds the SIMT split-K kernels' default k-split
// (cuda/gemm/simt/schedule_split_k.cuh), so that the kernel and the model compute the same count.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "tilekit/registry.hpp"

namespace tilekit {

// Split-K's k-slices, asked for or not: at least one, never more than kMaxKSlices (the
// reduction's cost) or than there are k-tiles (no empty slice).
constexpr int64_t kMaxKSlices = 64;
inline int64_t clamp_k_slices(int64_t count, int64_t k_tiles) {
  return std::max<int64_t>(1, std::min<int64_t>({count, kMaxKSlices, k_tiles}));
}

// Split-K's k-slices when the problem names none: as many as fill the blocks resident at once
// (none when the tiles already do), no slice shorter than kSplitKMinSliceK k, clamped as above.
constexpr int64_t kSplitKMinSliceK = 64;
inline int64_t default_k_slices_of(int64_t tiles, int64_t k, int64_t k_tiles,
                                   int64_t resident_blocks) {
  // (No division where the tiles alone fill the slots, the common case at large shapes: the
  // autotuner's model runs this for every split-K choice of every search.)
  const int64_t fill =
      tiles > resident_blocks ? 0 : resident_blocks / std::max<int64_t>(tiles, 1);
  const int64_t count = std::min<int64_t>(fill, k / kSplitKMinSliceK);
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

// A divisor that the model divides by at every shape (a tile size, the SMs, the blocks an SM
// holds), prepared once so that dividing by it is a multiplication: for a numerator n and a
// divisor d both below 2^32, ⌊n / d⌋ = ⌊c · n / 2^64⌋ with c = ⌈2^64 / d⌉ (Lemire, Kaser and
// Kurz, "Faster remainder by direct computation", 2019, for 32-bit operands and a 64-bit c).
// Powers of two (most tile sizes) shift; numerators of 2^32 or more divide as usual. Why: a
// 64-bit integer division takes tens of cycles and the divider does one at a time. With seven
// per choice, the model was over a third of an f32 search (45 choices); this halved it.
class Divisor {
 public:
  explicit Divisor(int64_t d = 1)
      : d_(std::max<int64_t>(d, 1)),
        c_(d_ > 1 && d_ < kFast ? ~uint64_t{0} / static_cast<uint64_t>(d_) + 1 : 0) {
    if ((d_ & (d_ - 1)) == 0)
      while ((int64_t{1} << shift_) < d_) ++shift_;
    else
      shift_ = -1;
  }
  int64_t value() const { return d_; }
  // ⌊n / d⌋ and ⌈n / d⌉ for n ≥ 0.
  int64_t floor_of(int64_t n) const {
    if (shift_ >= 0) return n >> shift_;
    if (c_ == 0 || n >= kFast) return n / d_;
    // The high 64 bits of c · n from 32-bit halves (c_high · n + carry stays below 2^64).
    const uint64_t u = static_cast<uint64_t>(n);
    return static_cast<int64_t>(((c_ >> 32) * u + (((c_ & 0xffffffffu) * u) >> 32)) >> 32);
  }
  int64_t ceil_of(int64_t n) const { return floor_of(n + d_ - 1); }

 private:
  static constexpr int64_t kFast = int64_t{1} << 32;
  int64_t d_;
  uint64_t c_;  // ⌈2^64 / d⌉; 0 where the plain division is used
  int shift_ = 0;  // log2 d for a power of two, else -1
};

// A kernel's tile counts at one shape: the tiles of C and the k-tiles each one walks.
struct TileCounts {
  int64_t tiles = 0, k_tiles = 0;
};

// A kernel's block tile, as divisors. Many kernels share one (a split-K kernel is a choice per
// split), so a selection counts each tiling's tiles once per shape (TunedSource::tilings).
struct TileSizes {
  Divisor m, n, k;
  TileCounts counts(int64_t rows, int64_t cols, int64_t depth) const {
    return {m.ceil_of(rows) * n.ceil_of(cols), k.ceil_of(depth)};
  }
  bool operator==(const TileSizes& o) const {
    return m.value() == o.m.value() && n.value() == o.n.value() && k.value() == o.k.value();
  }
};

// The time of `blocks` blocks resident together on one SM, in units of one block's alone: they
// share its issue slots and pipes, so x of them take x^0.75 times as long, not once (their SM
// does x^0.25 times the work of one, its latencies better hidden). The exponent was fitted on the
// H200's tuned f32 entries (scripts/maintainer/tune-replay.py, leave-one-out, docs/tuning.md): with 0.75
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

// A kernel's tiling on one device as the model reads it, prepared once per kernel and device
// (tile_model_kernel): a selection models each choice at a new shape, and only this part of the
// model depends on the kernel.
struct TileModelKernel {
  bool modelled = false;          // tile_modelled() of its tiling; else it scales by bytes
  TileSchedule schedule = TileSchedule::kUnmodelled;
  bool run_time_split = false;    // its tiling's split_k < 0: the problem's split is honoured
  TileSizes tile;                 // 1×1×1 where not modelled
  Divisor sms, blocks_per_sm;
  int64_t slots = 1;              // SMs × blocks per SM: the blocks resident at once
  double co_resident_full = 1;    // co_resident_time(blocks per SM): a full round's time
  double seconds_per_byte = 1e-12;  // 1 / TileModelDevice::bytes_per_s

  bool operator==(const TileModelKernel& o) const {  // slots, co_resident_full: from the divisors
    return modelled == o.modelled && schedule == o.schedule &&
           run_time_split == o.run_time_split && tile == o.tile &&
           sms.value() == o.sms.value() && blocks_per_sm.value() == o.blocks_per_sm.value() &&
           seconds_per_byte == o.seconds_per_byte;
  }
};
inline TileModelKernel tile_model_kernel(const TileDesc& t, const TileModelDevice& d) {
  TileModelKernel k;
  k.modelled = tile_modelled(t);
  k.schedule = t.schedule;
  k.run_time_split = t.split_k < 0;
  if (k.modelled) k.tile = {Divisor(t.block_m), Divisor(t.block_n), Divisor(t.block_k)};
  k.sms = Divisor(d.sms);
  k.blocks_per_sm = Divisor(d.blocks_per_sm);
  k.slots = k.sms.value() * k.blocks_per_sm.value();
  k.co_resident_full = co_resident_time(k.blocks_per_sm.value());
  k.seconds_per_byte = 1 / d.bytes_per_s;
  return k;
}

// What a stream-K walk costs beyond its even share, in k-iterations of one tile: its tiles' pieces
// wait for one another (a share that starts inside a tile adds its partial sums only after the
// earlier piece is done), taken as half of a tile's k-iterations, and each piece's fix-up (the
// partial tile written, read back and added) as 4. Fitted, as co_resident_time was, on the H200
// table's bf16 entries, whose sm90 stream_k_half walk ran 1.5–2.4× its persistent walk's time where
// the even share promised 0.3–0.7× (9 to 64 tiles of 6 to 16 k-iterations, 384³–1024³), and
// 0.7–1.17× where it promised 0.02–0.12× (1 to 16 tiles of 128–257): leave-one-out within
// 1.05× of the entry's fastest at 199 of 256 entries (170 before), above 1.3× at 1 (8).
// docs/tuning.md.
constexpr double kStreamKWaitPerKTile = 0.5;
constexpr double kStreamKFixUpPerPiece = 4;

// What the sm90 split-tiles sum (sum_share) costs a block, in k-iterations of one tile: its
// partial tile written, and a 1/pieces share of the tile read from each of the pieces — one
// tile's worth, as one stream-K fix-up (kStreamKFixUpPerPiece), whatever the number of pieces.
// Not fitted yet.
constexpr double kSplitTilesSum = 2 * kStreamKFixUpPerPiece;

// ⌈n / d⌉ for n ≥ 0 and a d ≥ 1 that is nearly always a power of two (split-K's k-slices: the
// splits asked for and tuned are), which shifts: the model runs for each split of each split-K
// kernel in every search, and the divider does one division at a time.
inline int64_t ceil_by_small(int64_t n, int64_t d) {
  if ((d & (d - 1)) != 0) return (n + d - 1) / d;
  return (n + d - 1) >> __builtin_ctzll(static_cast<uint64_t>(d));
}

// `split_k` as the kernel would run it: 0 lets the kernel choose. m and n are C's rows and
// columns in the row-major view the kernels compute in; `counts` is km.tile.counts(m, n, k),
// which a caller modelling many kernels at one shape counts once per tiling.
inline TileModelCost tile_model_cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                                     int64_t k, const TileCounts& counts) {
  TileModelCost c;
  if (!km.modelled) {
    c.busiest_sm_work = static_cast<double>(m * k + k * n + m * n);
    return c;
  }
  const int64_t tiles = counts.tiles, k_tiles = counts.k_tiles;
  switch (km.schedule) {
    case TileSchedule::kPersistent:
      c.busiest_sm_work = static_cast<double>(km.sms.ceil_of(tiles) * k_tiles);
      break;
    case TileSchedule::kStreamKHalfTail:  // persistent rounds unless the last is at most half full
      if (const int64_t tail = tiles - km.sms.floor_of(tiles) * km.sms.value();
          tail == 0 || 2 * tail > km.sms.value()) {
        c.busiest_sm_work = static_cast<double>(km.sms.ceil_of(tiles) * k_tiles);
        break;
      }
      [[fallthrough]];
    case TileSchedule::kStreamK: {  // even shares, down to 4 k-iterations a block, capped pieces
      const double all = static_cast<double>(tiles), per_tile = static_cast<double>(k_tiles);
      const double sms = static_cast<double>(km.sms.value());
      const double most = std::min(sms, all * stream_k_max_pieces(static_cast<int>(k_tiles)));
      const double units = std::clamp(std::floor(all * per_tile / 4), 1.0, most);
      // The pieces of one tile: the SMs that share it when there are fewer tiles than SMs, else
      // about two (a share ends inside a tile and the next one begins there).
      const double pieces = all < units ? std::ceil(units / all) : 2;
      c.busiest_sm_work = all * per_tile / units + kStreamKWaitPerKTile * per_tile +
                          kStreamKFixUpPerPiece * pieces;
      break;
    }
    case TileSchedule::kSplitTiles:  // sm90 split_tiles: equal pieces summed in shares, or persistent
      if (const int pieces = split_tile_pieces(static_cast<int>(km.sms.value()), tiles,
                                               static_cast<int>(k_tiles));
          pieces > 1) {
        c.busiest_sm_work = static_cast<double>(ceil_by_small(k_tiles, pieces)) + kSplitTilesSum;
        break;
      }
      c.busiest_sm_work = static_cast<double>(km.sms.ceil_of(tiles) * k_tiles);
      break;
    default: {  // one block per tile and k-slice, spread over the SMs, resident ones together
      int64_t slices = 1;
      if (km.run_time_split)
        slices = split_k > 0 ? clamp_k_slices(split_k, k_tiles)
                             : default_k_slices_of(tiles, k, k_tiles, km.slots);
      const int64_t on_busiest = km.sms.ceil_of(tiles * slices);
      const int64_t resident = km.blocks_per_sm.value();
      const int64_t full_rounds = km.blocks_per_sm.floor_of(on_busiest),
                    last_round = on_busiest - full_rounds * resident;
      const int64_t slice_k_tiles = ceil_by_small(k_tiles, slices);
      c.busiest_sm_work = (static_cast<double>(full_rounds) * km.co_resident_full +
                           co_resident_time(last_round)) *
                          static_cast<double>(slice_k_tiles);
      if (slices > 1)  // the partial planes read once, C written once, and a launch
        c.reduction_s = static_cast<double>((slices + 1) * m * n * 4) * km.seconds_per_byte + 2e-6;
    }
  }
  return c;
}
inline TileModelCost tile_model_cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                                     int64_t k) {
  return tile_model_cost(km, split_k, m, n, k, km.tile.counts(m, n, k));
}
inline TileModelCost tile_model_cost(const TileDesc& t, int split_k, int64_t m, int64_t n,
                                     int64_t k, const TileModelDevice& d) {
  return tile_model_cost(tile_model_kernel(t, d), split_k, m, n, k);
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
// and the time at Q from them: in doubles, or in vectors of them (`Real`: the autotuner's search
// carries eight choices at a time, tune_select.cpp), the same sum in the same order.
template <class Real>
inline Real carry_time(Real per_work_s, Real busiest_sm_work, Real reduction_s) {
  return kFixedLaunchSeconds + per_work_s * busiest_sm_work + reduction_s;
}
inline double carry_time(double per_work_s, const TileModelCost& at_q) {
  return carry_time(per_work_s, at_q.busiest_sm_work, at_q.reduction_s);
}
inline double carry_time(double measured_s, const TileModelCost& at_s, const TileModelCost& at_q) {
  return carry_time(seconds_per_work(measured_s, at_s), at_q);
}

}  // namespace tilekit
