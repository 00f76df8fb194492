// gpu_path_none.cpp — the GPU path in a build without CUDA: there is no GPU, every pointer is a
// host pointer.
#include "blas/sgemm_call.hpp"

namespace tilekit::blas {

int gpu_count() { return 0; }

Residency query_residency(const SgemmCall&) { return Residency{}; }

Status run_on_gpu(const SgemmCall&, const Residency&, int, std::string*, bool* c_written) {
  *c_written = false;
  return not_supported("libtilekit_blas was built without CUDA");
}

}  // namespace tilekit::blas
