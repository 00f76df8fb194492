// tile_model_kernel.hpp — what the selector's tile model knows of a kernel and a device, and the
// arithmetic it counts with (internal, host only): the device's SMs and blocks per SM, the cost
// it returns, fast divisors, tile counts, and the time of blocks resident together. Each tile
// schedule's cost is in its own module (src/core/schedules/); tile_model.hpp puts them together.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

#include "tilekit/registry.hpp"

namespace tilekit {

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
         t.schedule != nullptr;
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
// split), so a selection counts each tiling's tiles once per shape (TunedSource::tilings). A
// tiling with the short side along n (TileDesc::short_side_along_n) covers Cᵀ where C has fewer
// rows than columns: a 16 × 4096 C is 32 of its 128 × 16 tiles, not 256.
struct TileSizes {
  Divisor m, n, k;
  bool short_side_along_n = false;
  TileCounts counts(int64_t rows, int64_t cols, int64_t depth) const {
    if (short_side_along_n && rows < cols) std::swap(rows, cols);
    return {m.ceil_of(rows) * n.ceil_of(cols), k.ceil_of(depth)};
  }
  bool operator==(const TileSizes& o) const {
    return m.value() == o.m.value() && n.value() == o.n.value() && k.value() == o.k.value() &&
           short_side_along_n == o.short_side_along_n;
  }
};

// The time of `blocks` blocks resident together on one SM, in units of one block's alone: they
// share its issue slots and pipes, so x of them take x^0.75 times as long, not once (their SM
// does x^0.25 times the work of one, its latencies better hidden). The exponent was fitted on the
// H200's tuned f32 entries by leave-one-out (`tilekit tune --replay --gpu-occupancy`,
// docs/tuning.md): 0.75 chose best among 0 (rounds of free co-resident blocks), 0.6–0.85 and 1
// (fully shared SMs).
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
  TileSchedule schedule = nullptr;
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
  if (k.modelled)
    k.tile = {Divisor(t.block_m), Divisor(t.block_n), Divisor(t.block_k), t.short_side_along_n};
  k.sms = Divisor(d.sms);
  k.blocks_per_sm = Divisor(d.blocks_per_sm);
  k.slots = k.sms.value() * k.blocks_per_sm.value();
  k.co_resident_full = co_resident_time(k.blocks_per_sm.value());
  k.seconds_per_byte = 1 / d.bytes_per_s;
  return k;
}

// ⌈n / d⌉ for n ≥ 0 and a d ≥ 1 that is nearly always a power of two (split-K's k-slices: the
// splits asked for and tuned are), which shifts: the model runs for each split of each split-K
// kernel in every search, and the divider does one division at a time.
inline int64_t ceil_by_small(int64_t n, int64_t d) {
  if ((d & (d - 1)) != 0) return (n + d - 1) / d;
  return (n + d - 1) >> __builtin_ctzll(static_cast<uint64_t>(d));
}

// The busiest SM's work when the blocks run in rounds of one tile each, every tile whole: what
// the persistent walk costs, and what the other schedules fall back to where they run that way.
inline double whole_tile_rounds_work(const TileModelKernel& km, const TileCounts& c) {
  return static_cast<double>(km.sms.ceil_of(c.tiles) * c.k_tiles);
}

}  // namespace tilekit
