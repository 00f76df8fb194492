// topology_cuda.cpp — peer-to-peer links between the GPUs, for `tilekit devices`.
#include <cuda_runtime_api.h>

#include "cuda/common/cuda_check.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit {

Status query_peer_links(std::vector<PeerLink>* out) {
  out->clear();
  const int count = cuda_device_count();
  for (int from = 0; from < count; ++from)
    for (int to = 0; to < count; ++to) {
      if (from == to) continue;
      PeerLink link;
      link.from = from;
      link.to = to;
      int access = 0, rank = 0, atomics = 0;
      TILEKIT_CUDA_TRY(cudaDeviceCanAccessPeer(&access, from, to));
      link.access = access != 0;
      if (link.access) {
        TILEKIT_CUDA_TRY(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, from, to));
        TILEKIT_CUDA_TRY(
            cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, from, to));
      }
      link.performance_rank = rank;
      link.native_atomics = atomics != 0;
      out->push_back(link);
    }
  return Status::ok();
}

}  // namespace tilekit
