#include "support/gpu_gate.hpp"

#include <cstdlib>
#include <cstring>

namespace tilekit::testing {
bool gpu_required() {
  const char* v = std::getenv("TILEKIT_REQUIRE_GPU");
  return v && std::strcmp(v, "1") == 0;
}
}  // namespace tilekit::testing
