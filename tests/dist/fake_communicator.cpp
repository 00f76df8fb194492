#include "dist/fake_communicator.hpp"

#include <cstdlib>
#include <cstring>

namespace tilekit::testing {

Status FakeGroup::barrier(int rank) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_) return Status(StatusCode::kInternal, "fake rank " + std::to_string(rank) + ": the group was aborted");
  const int64_t generation = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return Status::ok();
  }
  const bool woke = cv_.wait_for(lock, timeout_, [&] { return generation_ != generation || aborted_; });
  if (generation_ != generation) return Status::ok();
  if (!woke) {
    aborted_ = true;  // as ncclCommAbort: peers stop waiting too
    cv_.notify_all();
    return Status(StatusCode::kInternal, "fake rank " + std::to_string(rank) + ": timed out waiting for peers");
  }
  return Status(StatusCode::kInternal, "fake rank " + std::to_string(rank) + ": the group was aborted");
}

void FakeGroup::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  cv_.notify_all();
}

bool FakeGroup::aborted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return aborted_;
}

void FakeGroup::fail_collective(int rank, int index, Status status) {
  std::lock_guard<std::mutex> lock(mutex_);
  faults_.push_back({rank, index, std::move(status)});
}

bool FakeGroup::injected(int rank, int index, Status* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Fault& f : faults_)
    if (f.rank == rank && f.index == index) {
      *out = f.status;
      return true;
    }
  return false;
}

Status FakeCommunicator::collective_gate() {
  Status injected;
  if (group_->injected(rank_, collectives_++, &injected)) return injected;
  return Status::ok();
}

Status FakeCommunicator::exchange(const std::vector<int64_t>& mine, std::vector<int64_t>* all) {
  log_.push_back("exchange");
  TILEKIT_RETURN_IF_ERROR(collective_gate());
  group_->values()[rank_] = mine;
  TILEKIT_RETURN_IF_ERROR(group_->barrier(rank_));
  all->clear();
  for (const auto& v : group_->values()) all->insert(all->end(), v.begin(), v.end());
  return group_->barrier(rank_);
}

Status FakeCommunicator::broadcast(void* buffer, size_t bytes, int root) {
  log_.push_back("broadcast from " + std::to_string(root));
  TILEKIT_RETURN_IF_ERROR(collective_gate());
  if (rank_ == root) group_->slots()[root] = buffer;
  TILEKIT_RETURN_IF_ERROR(group_->barrier(rank_));
  if (rank_ != root) std::memcpy(buffer, group_->slots()[root], bytes);
  return group_->barrier(rank_);
}

Status FakeCommunicator::all_gather(void* buffer, size_t bytes) {
  log_.push_back("all-gather of " + std::to_string(bytes));
  TILEKIT_RETURN_IF_ERROR(collective_gate());
  group_->slots()[rank_] = buffer;
  TILEKIT_RETURN_IF_ERROR(group_->barrier(rank_));
  for (int r = 0; r < group_->size(); ++r)
    if (r != rank_)
      std::memcpy(static_cast<char*>(buffer) + static_cast<size_t>(r) * bytes,
                  static_cast<const char*>(group_->slots()[r]) + static_cast<size_t>(r) * bytes,
                  bytes);
  return group_->barrier(rank_);
}

Status FakeCommunicator::allocate(size_t bytes, const char*, void** out) {
  *out = std::malloc(bytes);
  if (!*out) return out_of_memory("fake allocate");
  ++live_;
  return Status::ok();
}

void FakeCommunicator::release(void* ptr) {
  std::free(ptr);
  --live_;
}

Status FakeCommunicator::window(size_t bytes, void** out) {
  *out = nullptr;
  if (bytes == 0) return Status::ok();
  if (bytes > window_.size()) {
    // Registering a grown window is collective: every rank must arrive.
    log_.push_back("window " + std::to_string(bytes));
    TILEKIT_RETURN_IF_ERROR(collective_gate());
    TILEKIT_RETURN_IF_ERROR(group_->barrier(rank_));
    window_.assign(bytes, 0);
  }
  *out = window_.data();
  return Status::ok();
}

Status FakeCommunicator::copy_2d(dist::Lane, dist::CopyKind kind, void* dst, size_t dst_pitch,
                                 const void* src, size_t src_pitch, size_t line_bytes,
                                 size_t lines) {
  log_.push_back(kind == dist::CopyKind::kLocal ? "copy local"
                 : kind == dist::CopyKind::kHostToLocal ? "copy h2d" : "copy d2h");
  for (size_t i = 0; i < lines; ++i)
    std::memcpy(static_cast<char*>(dst) + i * dst_pitch,
                static_cast<const char*>(src) + i * src_pitch, line_bytes);
  return Status::ok();
}

Status FakeCommunicator::signal(dist::Lane lane, int tag) {
  log_.push_back(std::string("signal ") + (lane == dist::Lane::kTransfer ? "transfer " : "compute ") +
                 std::to_string(tag));
  if (signalled_.size() <= static_cast<size_t>(tag)) signalled_.resize(tag + 1, false);
  signalled_[tag] = true;
  return Status::ok();
}

Status FakeCommunicator::wait(dist::Lane lane, int tag) {
  log_.push_back(std::string("wait ") + (lane == dist::Lane::kTransfer ? "transfer " : "compute ") +
                 std::to_string(tag));
  // The double runs each lane to completion in order, so a wait for a signal not yet given is
  // a schedule bug that a GPU would turn into a race: report it.
  if (static_cast<size_t>(tag) >= signalled_.size() || !signalled_[tag])
    return Status(StatusCode::kInternal, "fake: wait for panel " + std::to_string(tag) + " before its signal");
  return Status::ok();
}

Status FakeCommunicator::mark(dist::Lane, dist::Mark point) {
  const int i = static_cast<int>(point);
  if (point == dist::Mark::kComputeStart) log_.push_back("compute start");
  if (point == dist::Mark::kComputeEnd) log_.push_back("compute end");
  if (point == dist::Mark::kStart)
    for (bool& r : recorded_) r = false;
  marks_[i] = std::chrono::steady_clock::now();
  recorded_[i] = true;
  return Status::ok();
}

double FakeCommunicator::elapsed_ms(dist::Mark from, dist::Mark to) {
  const int a = static_cast<int>(from), b = static_cast<int>(to);
  if (!recorded_[a] || !recorded_[b]) return 0.0;
  return std::chrono::duration<double, std::milli>(marks_[b] - marks_[a]).count();
}

Status FakeCommunicator::finish() {
  if (group_->aborted()) return Status(StatusCode::kInternal, "fake: the group was aborted");
  return Status::ok();
}

void FakeCommunicator::abort() { group_->abort(); }

std::vector<std::unique_ptr<FakeCommunicator>> make_fake_ranks(int size,
                                                               std::chrono::milliseconds timeout) {
  auto group = std::make_shared<FakeGroup>(size, timeout);
  std::vector<std::unique_ptr<FakeCommunicator>> out;
  for (int r = 0; r < size; ++r) out.push_back(std::make_unique<FakeCommunicator>(group, r));
  return out;
}

}  // namespace tilekit::testing
