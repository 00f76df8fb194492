// nccl_none.cpp — the DistributedContext factories in a build without NCCL: each says so.
#include "tilekit/distributed.hpp"

namespace tilekit {
namespace {
Status without_nccl(const char* call) {
  return not_supported(std::string(call) +
                       ": this tilekit was built without NCCL (TILEKIT_NCCL=OFF, or nccl.h and "
                       "libnccl were not found; docs/multigpu.md says how to build with it)");
}
}  // namespace

bool built_with_nccl() { return false; }

Status DistributedContext::create(const std::vector<int>&, const DistributedConfig&,
                                  std::unique_ptr<DistributedContext>*) {
  return without_nccl("DistributedContext::create");
}
Status DistributedContext::join(const std::string&, int, int, int, const DistributedConfig&,
                                std::unique_ptr<DistributedContext>*) {
  return without_nccl("DistributedContext::join");
}
Status DistributedContext::wrap(ncclComm*, int, const DistributedConfig&,
                                std::unique_ptr<DistributedContext>*) {
  return without_nccl("DistributedContext::wrap");
}
Status new_unique_id(std::string*) { return without_nccl("new_unique_id"); }

}  // namespace tilekit
