// tile_model.hpp — how a kernel's tiles fill a GPU at one shape (internal).
//
// The autotuner measures kernels at a few shapes; kernel "auto" is asked about every shape. A
// time measured at shape S says little about shape Q when the tile counts quantize differently:
// 2048² is 128 tiles of 128×256 (one round on 132 SMs), 1500² is 72 (the same round, half the
// SMs idle), so the 64×64 kernel that lost at 2048² wins at 1500². The model below counts the
// k-iterations of the busiest SM for each TileSchedule (blocks resident together on it counted
// as sharing it), and carries a measured time from S to Q by the ratio of those counts
// (tune_select.cpp). What it knows of a kernel is in tile_model_kernel.hpp; each schedule's cost
// is in its module (core/schedules/).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/schedules/schedules.hpp"
#include "core/tile_model_kernel.hpp"

namespace tilekit {

// `split_k` as the kernel would run it: 0 lets the kernel choose. m and n are C's rows and
// columns in the row-major view the kernels compute in; `counts` is km.tile.counts(m, n, k),
// which a caller modelling many kernels at one shape counts once per tiling.
inline TileModelCost tile_model_cost(const TileModelKernel& km, int split_k, int64_t m, int64_t n,
                                     int64_t k, const TileCounts& counts) {
  if (!km.modelled) {
    TileModelCost c;
    c.busiest_sm_work = static_cast<double>(m * k + k * n + m * n);
    return c;
  }
  return schedule_cost(km, split_k, m, n, k, counts);
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
