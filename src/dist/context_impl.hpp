// context_impl.hpp — what a DistributedContext holds: this process's ranks (internal).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "dist/communicator.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit {

namespace dist {

// One host thread per local rank beyond the first, kept for the context's life: a call's ranks
// must run at once (their collectives meet), and threads made per call would start cold each
// time (thread creation, the CUDA runtime's per-thread state, the selector's per-thread memory of
// its last choice) on the path to the second rank's first GEMM.
class RankThreads {
 public:
  explicit RankThreads(size_t ranks);
  ~RankThreads();
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;

  // Runs job(i) for every local rank i: 0 on the calling thread, the others on their threads;
  // returns when all have returned.
  void run(const std::function<void(size_t)>& job);

 private:
  void serve(size_t rank);

  std::mutex mutex_;
  std::condition_variable work_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  uint64_t generation_ = 0;  // one per run(): a thread serves each generation once
  size_t pending_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace dist

struct DistributedContext::Impl {
  std::vector<std::unique_ptr<dist::Communicator>> local;  // one per rank of this process
  int ranks = 0;                                           // in the whole job
  DistributedConfig config;
  // Declared after `local`: its threads end before the communicators are destroyed.
  std::unique_ptr<dist::RankThreads> threads;
};

namespace dist {

// A context over communicators made elsewhere: the NCCL factories, and the tests' double.
std::unique_ptr<DistributedContext> make_context(
    std::vector<std::unique_ptr<Communicator>> local, int ranks, const DistributedConfig& config);

}  // namespace dist
}  // namespace tilekit
