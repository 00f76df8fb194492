// timing.hpp — how benchmark samples are taken and summarized.
//
// Stopping rule: at least `min_samples` samples and `min_time_s` of measured time; then stop as
// soon as the relative noise (half the interquartile range over the median) is under
// `target_noise`, or at `max_samples` / `max_time_s`, whichever comes first.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/status.hpp"

namespace tilekit::bench {

struct TimingPolicy {
  int warmup = 2;          // untimed runs first (module load, handle creation, caches)
  int min_samples = 10;
  int max_samples = 200;
  double min_time_s = 0.05;
  double max_time_s = 2.0;
  double target_noise = 0.01;
  bool flush_l2 = true;    // GPU: overwrite a buffer of 2× L2 before each sample (cold runs)
};

struct Timing {
  int samples = 0;
  double median_s = 0, min_s = 0, max_s = 0, q1_s = 0, q3_s = 0;
  double noise = 0;  // (q3 − q1) / (2 · median)
  bool converged = false;  // noise under target before the caps were hit
  bool few_samples = false;  // max_time_s ran out before min_samples (not converged either)
};

Timing summarize(std::vector<double> seconds, double target_noise);
// Marks `t` unconverged and short of samples when it has fewer than policy.min_samples.
void mark_few_samples(Timing* t, const TimingPolicy& policy);

// Above this noise a row's verdict says "noisy": half the interquartile range is more than a
// tenth of the median, so differences of that order between rows mean nothing.
constexpr double kNoisyAbove = 0.10;
inline bool is_noisy(const Timing& t) { return t.noise > kNoisyAbove; }

// Times one run of a callable. CPU: a steady clock around it. GPU: CUDA events on the
// context's stream around it, after an L2 flush on the same stream.
class SampleTimer {
 public:
  virtual ~SampleTimer() = default;
  virtual Status time_once(const std::function<Status()>& run, double* seconds) = 0;
  virtual const char* method() const = 0;  // for the record: "cuda-events, L2 flushed"
};

std::unique_ptr<SampleTimer> make_cpu_timer();
// Fails with kNotSupported in a build without CUDA.
Status make_gpu_timer(const Context& ctx, bool flush_l2, std::unique_ptr<SampleTimer>* out);

// Warm-up, then samples until the policy says stop. Checks `cancel` between samples.
Status measure(SampleTimer& timer, const std::function<Status()>& run, const TimingPolicy& policy,
               const std::atomic<bool>* cancel, Timing* out);
// The same, appending the samples themselves (for timings taken in several rounds).
Status measure_samples(SampleTimer& timer, const std::function<Status()>& run,
                       const TimingPolicy& policy, const std::atomic<bool>* cancel,
                       std::vector<double>* samples);

// Round `round` (from 0) of `policy` split over `rounds` rounds: the warm-up in the first round
// only, and each round 1/rounds of the samples and times (at least one sample). Rows timed in
// turns, a round each, see the GPU's slow drifts (clocks, temperature) alike, so that their
// medians compare where one block of samples per row would not (GemmBenchConfig::rounds).
TimingPolicy round_policy(const TimingPolicy& policy, int rounds, int round);
// The row that round `round` of `rounds` starts with, of `rows` timed in turn: spread evenly, so
// that no row always runs late in its rounds.
size_t round_start(size_t rows, int rounds, int round);

}  // namespace tilekit::bench
