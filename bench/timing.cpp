#include "timing.hpp"

#include <algorithm>
#include <chrono>

namespace tilekit::bench {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

class CpuTimer final : public SampleTimer {
 public:
  Status time_once(const std::function<Status()>& run, double* seconds) override {
    const auto t0 = std::chrono::steady_clock::now();
    Status s = run();
    const auto t1 = std::chrono::steady_clock::now();
    *seconds = std::chrono::duration<double>(t1 - t0).count();
    return s;
  }
  const char* method() const override { return "steady_clock"; }
};

}  // namespace

Timing summarize(std::vector<double> seconds, double target_noise) {
  Timing t;
  t.samples = static_cast<int>(seconds.size());
  if (seconds.empty()) return t;
  std::sort(seconds.begin(), seconds.end());
  t.min_s = seconds.front();
  t.max_s = seconds.back();
  t.median_s = quantile(seconds, 0.5);
  t.q1_s = quantile(seconds, 0.25);
  t.q3_s = quantile(seconds, 0.75);
  t.noise = t.median_s > 0 ? (t.q3_s - t.q1_s) / (2 * t.median_s) : 0;
  t.converged = t.noise <= target_noise;
  return t;
}

std::unique_ptr<SampleTimer> make_cpu_timer() { return std::make_unique<CpuTimer>(); }

Status measure_samples(SampleTimer& timer, const std::function<Status()>& run,
                       const TimingPolicy& policy, const std::atomic<bool>* cancel,
                       std::vector<double>* samples) {
  auto cancelled = [&] { return cancel && cancel->load(); };
  double seconds = 0;
  for (int i = 0; i < policy.warmup; ++i) {
    if (cancelled()) return Status(StatusCode::kCancelled, "interrupted");
    TILEKIT_RETURN_IF_ERROR(timer.time_once(run, &seconds));
  }
  std::vector<double> mine;
  double total = 0;
  while (true) {
    if (cancelled()) return Status(StatusCode::kCancelled, "interrupted");
    TILEKIT_RETURN_IF_ERROR(timer.time_once(run, &seconds));
    mine.push_back(seconds);
    total += seconds;
    const int n = static_cast<int>(mine.size());
    if (n >= policy.max_samples || total >= policy.max_time_s) break;
    if (n >= policy.min_samples && total >= policy.min_time_s &&
        summarize(mine, policy.target_noise).converged)
      break;
  }
  samples->insert(samples->end(), mine.begin(), mine.end());
  return Status::ok();
}

Status measure(SampleTimer& timer, const std::function<Status()>& run, const TimingPolicy& policy,
               const std::atomic<bool>* cancel, Timing* out) {
  std::vector<double> samples;
  TILEKIT_RETURN_IF_ERROR(measure_samples(timer, run, policy, cancel, &samples));
  *out = summarize(samples, policy.target_noise);
  mark_few_samples(out, policy);
  return Status::ok();
}

// A run so slow that max_time_s allowed fewer than min_samples is reported as unconverged, and
// the table says so on its row.
void mark_few_samples(Timing* t, const TimingPolicy& policy) {
  if (t->samples >= policy.min_samples) return;
  t->converged = false;
  t->few_samples = true;
}

size_t round_start(size_t rows, int rounds, int round) {
  if (rows == 0 || rounds <= 1) return 0;
  return static_cast<size_t>(round) * rows / static_cast<size_t>(rounds) % rows;
}

TimingPolicy round_policy(const TimingPolicy& policy, int rounds, int round) {
  if (rounds <= 1) return policy;
  TimingPolicy t = policy;
  t.warmup = round == 0 ? policy.warmup : 0;
  t.min_samples = std::max(1, (policy.min_samples + rounds - 1) / rounds);
  t.max_samples = std::max(1, policy.max_samples / rounds);
  t.min_time_s = policy.min_time_s / rounds;
  t.max_time_s = policy.max_time_s / rounds;
  return t;
}

}  // namespace tilekit::bench
