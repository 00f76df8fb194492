// context_impl.hpp — what a DistributedContext holds: this process's ranks (internal).
#pragma once

#include <memory>
#include <vector>

#include "dist/communicator.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit {

struct DistributedContext::Impl {
  std::vector<std::unique_ptr<dist::Communicator>> local;  // one per rank of this process
  int ranks = 0;                                           // in the whole job
  DistributedConfig config;
};

namespace dist {

// A context over communicators made elsewhere: the NCCL factories, and the tests' double.
std::unique_ptr<DistributedContext> make_context(
    std::vector<std::unique_ptr<Communicator>> local, int ranks, const DistributedConfig& config);

}  // namespace dist
}  // namespace tilekit
