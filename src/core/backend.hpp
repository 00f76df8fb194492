// backend.hpp — what the dispatch layer needs from each backend (internal).
#pragma once

#include "tilekit/device.hpp"
#include "tilekit/problems.hpp"

namespace tilekit {

// Ok when `ctx` names a backend this build and machine can run: CUDA built in, the device index
// valid. Fills `*info` (may be null) with the CUDA device's properties (cached per device).
Status check_context(const Context& ctx, const DeviceInfo** info);

}  // namespace tilekit

namespace tilekit::cuda {
// C = beta · C on the device (beta = 0 writes zeros without reading C).
Status scale_c(const GemmProblem& p, const Context& ctx);
}  // namespace tilekit::cuda
