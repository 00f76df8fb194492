// fake_communicator.hpp — a test double of dist::Communicator: ranks are threads of this
// process, "device" memory is host memory, GEMMs run on the CPU backend, collectives meet at a
// barrier that gives up after a timeout. Lives only here: the product path is NCCL.
//
// Faults for the tests: a rank's n-th collective can fail (fail_collective), and a rank that
// never calls makes its peers time out. A rank that fails or times out aborts the group, as
// ncclCommAbort would, so every peer's next collective fails at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dist/communicator.hpp"

namespace tilekit::testing {

class FakeGroup {
 public:
  FakeGroup(int size, std::chrono::milliseconds timeout) : size_(size), timeout_(timeout),
      slots_(size) {}
  int size() const { return size_; }

  // Every rank calls; returns when all have arrived (or the group was aborted, or the timeout).
  Status barrier(int rank);
  void abort();
  bool aborted();

  // What ranks publish for a collective (valid between the two barriers of one collective).
  std::vector<const void*>& slots() { return slots_; }
  std::vector<std::vector<int64_t>>& values() { return values_; }

  // Rank `rank`'s collective number `index` (0 = the first, the agreement) fails with `status`.
  void fail_collective(int rank, int index, Status status);
  bool injected(int rank, int index, Status* out);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int size_;
  std::chrono::milliseconds timeout_;
  int arrived_ = 0;
  int64_t generation_ = 0;
  bool aborted_ = false;
  std::vector<const void*> slots_;
  std::vector<std::vector<int64_t>> values_{std::vector<std::vector<int64_t>>(size_)};
  struct Fault {
    int rank, index;
    Status status;
  };
  std::vector<Fault> faults_;
};

class FakeCommunicator final : public dist::Communicator {
 public:
  FakeCommunicator(std::shared_ptr<FakeGroup> group, int rank)
      : group_(std::move(group)), rank_(rank), context_(Context::cpu(1)) {}

  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  int device() const override { return rank_; }
  Status exchange(const std::vector<int64_t>& mine, std::vector<int64_t>* all) override;
  Status broadcast(void* buffer, size_t bytes, int root) override;
  Status all_gather(void* buffer, size_t bytes) override;
  // Broadcasts here complete one by one, in the same order on every rank: a group only logs.
  Status group_begin() override {
    log_.push_back("group begin");
    return Status::ok();
  }
  Status group_end() override {
    log_.push_back("group end");
    return Status::ok();
  }
  Status allocate(size_t bytes, const char* what, void** out) override;
  void release(void* ptr) override;
  // use_window(true): the replica comes from window(), a collective that grows one kept buffer
  // (as the NCCL communicator's symmetric window), and all-gathers "free the SMs".
  void use_window(bool on) { use_window_ = on; }
  bool replica_in_window() const override { return use_window_; }
  Status window(size_t bytes, void** out) override;
  bool all_gathers_free_sms() const override { return use_window_ && !window_.empty(); }
  Status copy_2d(dist::Lane lane, dist::CopyKind kind, void* dst, size_t dst_pitch,
                 const void* src, size_t src_pitch, size_t line_bytes, size_t lines) override;
  Status signal(dist::Lane lane, int tag) override;
  Status wait(dist::Lane lane, int tag) override;
  Status mark(dist::Lane lane, dist::Mark point) override;
  double elapsed_ms(dist::Mark from, dist::Mark to) override;
  const Context& compute_context() override { return context_; }
  Status finish() override;
  void abort() override;
  bool aborted() const override { return group_->aborted(); }

  // What this rank did, in order: "pack 3", "broadcast 3 from 1", "signal transfer 3",
  // "wait compute 3", "copy h2d", "exchange", "compute start" (before the first GEMM) ...
  const std::vector<std::string>& log() const { return log_; }
  size_t live_allocations() const { return live_; }

 private:
  Status collective_gate();

  std::shared_ptr<FakeGroup> group_;
  int rank_;
  Context context_;
  int collectives_ = 0;
  size_t live_ = 0;
  std::vector<std::string> log_;
  std::vector<bool> signalled_;
  bool use_window_ = false;
  std::vector<char> window_;
  std::chrono::steady_clock::time_point marks_[static_cast<int>(dist::Mark::kCount)];
  bool recorded_[static_cast<int>(dist::Mark::kCount)] = {};
};

// A group of `size` fake ranks.
std::vector<std::unique_ptr<FakeCommunicator>> make_fake_ranks(
    int size, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

}  // namespace tilekit::testing
