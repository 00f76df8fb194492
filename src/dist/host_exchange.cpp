#include "dist/host_exchange.hpp"

#include <string>

namespace tilekit::dist {

HostExchange::HostExchange(int ranks, std::chrono::duration<double> timeout)
    : ranks_(ranks), timeout_(timeout) {
  for (auto& slots : values_) slots.resize(static_cast<size_t>(ranks));
}

Status HostExchange::exchange(int rank, const std::vector<int64_t>& mine,
                              std::vector<int64_t>* all) {
  // Messages only: built when a call fails, not on every agreement.
  const auto who = [rank] { return "gemm_distributed: rank " + std::to_string(rank); };
  if (rank < 0 || rank >= ranks_)
    return Status(StatusCode::kInternal, who() + " is outside the exchange's " +
                                             std::to_string(ranks_) + " ranks");
  std::unique_lock<std::mutex> lock(mutex_);
  const auto abandoned = [&] {
    return Status(StatusCode::kInternal,
                  who() + ": the agreement was abandoned (a rank of this process failed and "
                          "aborted its communicator)");
  };
  if (abandoned_) return abandoned();
  const uint64_t generation = generation_;
  std::vector<std::vector<int64_t>>& slots = values_[generation & 1];
  slots[static_cast<size_t>(rank)] = mine;
  if (++arrived_ == ranks_) {
    arrived_ = 0;
    ++generation_;
    arrived_all_.notify_all();
  } else {
    const bool done = arrived_all_.wait_for(
        lock, timeout_, [&] { return generation_ != generation || abandoned_; });
    if (generation_ == generation) {
      if (done) return abandoned();
      abandoned_ = true;  // the missing rank is out of step: nobody should wait for it again
      arrived_all_.notify_all();
      return Status(StatusCode::kInternal,
                    who() + ": the agreement between ranks did not finish within " +
                        std::to_string(static_cast<int>(timeout_.count())) +
                        " s (a rank failed, stopped, or called differently?)");
    }
  }
  all->clear();
  for (const std::vector<int64_t>& v : slots) all->insert(all->end(), v.begin(), v.end());
  return Status::ok();
}

void HostExchange::abandon() {
  std::lock_guard<std::mutex> lock(mutex_);
  abandoned_ = true;
  arrived_all_.notify_all();
}

}  // namespace tilekit::dist
