// cublasxt_none.cpp — no cuBLASXt in a build without CUDA.
#include "dist/cublasxt_baseline.hpp"

namespace tilekit::dist {
Status CublasXt::create(const std::vector<int>&, int, std::unique_ptr<CublasXt>*) {
  return not_supported("cuBLASXt baseline: this tilekit was built without CUDA");
}
}  // namespace tilekit::dist
