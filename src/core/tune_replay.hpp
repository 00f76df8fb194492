// tune_replay.hpp — kernel "auto"'s tuned selection scored offline against a tune table's own
// measurements (internal; `tilekit tune --replay`, docs/tuning.md). Every choice is made by the
// selector itself (make_tuned_source, pick_tuned, then select_kernel's ranking where the table
// offers nothing), on the device of the table's record: nothing of the tile model or the
// distance is restated here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/tune_select.hpp"

namespace tilekit {

// The device a replay selects for: the table's backend, the device the kernels' checks see (a
// CUDA table's record: its name, compute capability and SMs; none for a CPU table), and each
// kernel's TileModelDevice.
struct ReplayDevice {
  Context ctx;
  bool has_device = false;
  DeviceInfo device;
  std::function<TileModelDevice(const GemmKernel&)> model_device;
  const DeviceInfo* device_or_null() const { return has_device ? &device : nullptr; }
};

// The device of a table's record without a GPU. A CUDA table: the record's SMs and compute
// capability, 1 block per SM for every kernel (what the selector counts where a kernel's
// resources are not visible: exact for kernels that fit one block on an SM, the sm90 family),
// and `dram_gbps` of DRAM bandwidth (the record holds none; the model streams a split-K
// reduction at kStreamedDramShare of it). A CPU table: the CPU and the model's defaults, as the
// selector has them there. Another backend is kInvalidArgument.
Status replay_device(const TuneDeviceKey& key, double dram_gbps, ReplayDevice* out);

// A choice that the shape did not measure is scored as this ratio to its fastest: the tuner
// keeps candidates up to 3× the fastest, and the selector's credit caps a ratio there too.
constexpr double kReplayMissingRatio = kTunedMissingRatio;

// Per scored shape, the time measured there of what auto chose over the fastest measured
// (kReplayMissingRatio where the choice was not measured, or nothing was chosen); `unscored`:
// shapes with no measured time of a kernel registered in this build, which are left out.
struct ReplayScores {
  std::vector<double> ratios;
  size_t unscored = 0;
};

// Leave-one-out over the entries of `types`: each entry is chosen for from the other entries of
// its class (a tuned source made of them alone), at its measured shape, and scored against its
// own registered candidates (of one choice, a kernel with the split it runs, the least time).
ReplayScores replay_leave_one_out(const std::vector<TuneEntry>& entries, const GemmTypes& types,
                                  const KernelList<GemmKernel>& list, const ReplayDevice& device);

// One row of `tilekit tune --evaluate --json`: a shape and every own kernel's sweep median
// there (kernel id → seconds; each kernel as it configures itself).
struct ReplayShape {
  Op op_a = Op::kN, op_b = Op::kN;
  int64_t m = 0, n = 0, k = 0;
  GemmTypes types;
  std::vector<std::pair<std::string, double>> kernel_times;
};

// The same choice over all of `entries` (as auto chooses from a shipped table) at each shape,
// taken as row-major with 16-byte aligned operands and the least leading dimensions (what
// `tilekit tune --evaluate` runs), scored by the row's medians: the chosen kernel's over the
// least.
ReplayScores replay_shapes(const std::vector<TuneEntry>& entries,
                           const std::vector<ReplayShape>& shapes,
                           const KernelList<GemmKernel>& list, const ReplayDevice& device);

// The figures of a set of ratios: how many, how many within 1.05× of the fastest, how many above
// 1.3×, and their geometric mean (0 for none).
struct ReplaySummary {
  size_t shapes = 0, within_1_05 = 0, above_1_3 = 0;
  double geomean = 0;
};
ReplaySummary summarize_replay(const std::vector<double>& ratios);

// The problem auto is asked about at an entry's shape of bucket `b` (m, n and k as given):
// stand-in operands of the bucket's alignment, the least leading dimensions, widened where the
// bucket's ld16 says otherwise. Selection reads shapes, types, addresses and strides only.
GemmProblem replay_problem(const TuneBucket& b, int64_t m, int64_t n, int64_t k);

}  // namespace tilekit
