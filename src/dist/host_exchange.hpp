// host_exchange.hpp — the agreement between ranks that are threads of one process, through host
// memory (internal).
//
// A DistributedContext made by create() drives every rank from this process. Its agreements (a
// few integers per rank, twice per call) then need no NCCL all-gather: that costs a nonblocking
// group launch, two pageable copies and a stream drain, about 0.2 ms per agreement on 2 × H200
// against a few µs here (docs/multigpu.md). Ranks in other processes agree through NCCL.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "tilekit/status.hpp"

namespace tilekit::dist {

class HostExchange {
 public:
  HostExchange(int ranks, std::chrono::duration<double> timeout);

  // Every rank calls with its values; returns when all have, `all` holding every rank's values
  // in rank order (ranks that passed different counts show in all->size()). Fails when the
  // timeout passes first (the group is abandoned then) or the group was abandoned.
  Status exchange(int rank, const std::vector<int64_t>& mine, std::vector<int64_t>* all);

  // A rank gave up (its communicator was aborted): ranks waiting now and every later exchange
  // fail at once instead of waiting for the timeout.
  void abandon();

 private:
  std::mutex mutex_;
  std::condition_variable arrived_all_;
  const int ranks_;
  const std::chrono::duration<double> timeout_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  bool abandoned_ = false;
  // Indexed by the generation's parity: a rank that leaves generation g may write g + 1 while a
  // slower one still reads g; nobody writes g + 2 before every rank has finished g + 1.
  std::array<std::vector<std::vector<int64_t>>, 2> values_;
};

}  // namespace tilekit::dist
