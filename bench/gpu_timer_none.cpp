// gpu_timer_none.cpp — builds without CUDA have no GPU timer.
#include "timing.hpp"

namespace tilekit::bench {
Status make_gpu_timer(const Context&, bool, std::unique_ptr<SampleTimer>*) {
  return not_supported("GPU timing: tilekit was built without CUDA");
}
}  // namespace tilekit::bench
