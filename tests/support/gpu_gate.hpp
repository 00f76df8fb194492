// gpu_gate.hpp — GPU tests skip without a GPU, or fail when TILEKIT_REQUIRE_GPU=1 says one
// must be there (scripts/maintainer/gpu-check.sh sets it, so a broken driver cannot pass as "skipped").
#pragma once

#include <gtest/gtest.h>

namespace tilekit::testing {
bool gpu_required();
}  // namespace tilekit::testing

#define TILEKIT_REQUIRE_GPU_OR_SKIP()                                                    \
  do {                                                                                   \
    if (::tilekit::cuda_device_count() == 0) {                                           \
      if (::tilekit::testing::gpu_required()) FAIL() << "TILEKIT_REQUIRE_GPU=1 but no GPU"; \
      GTEST_SKIP() << "no CUDA GPU present";                                             \
    }                                                                                    \
  } while (0)
