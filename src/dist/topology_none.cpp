// topology_none.cpp — no GPUs, no links, in a build without CUDA.
#include "tilekit/distributed.hpp"

namespace tilekit {
Status query_peer_links(std::vector<PeerLink>* out) {
  out->clear();
  return Status::ok();
}
}  // namespace tilekit
