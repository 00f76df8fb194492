// memory_plan.hpp — the buffers a command or benchmark will allocate, summed and checked against
// the memory that exists before any of them is allocated.
//
//   MemoryPlan host;
//   host.add("A", m, k, sizeof(float));
//   host.add("C", m, n, sizeof(float));
//   TILEKIT_RETURN_IF_ERROR(host.check_host());   // "out of memory: C needs 160 GB, more than ..."
//
// A size that overflows is kInvalidArgument (bad input); one that cannot fit is kOutOfMemory
// (exit 1), found in microseconds instead of by an allocation that swaps or throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/sizes.hpp"

namespace tilekit::bench {

class MemoryPlan {
 public:
  // A rows × cols buffer of element_size-byte elements named `what`. The first overflow is
  // kept and reported by the checks.
  void add(const std::string& what, int64_t rows, int64_t cols, size_t element_size) {
    if (!error_.is_ok()) return;
    size_t bytes = 0;
    error_ = checked_matrix_bytes(rows, cols, element_size, what, &bytes);
    if (!error_.is_ok()) return;
    if (bytes > std::numeric_limits<size_t>::max() - total_) {
      error_ = invalid_argument(names(what) + " together overflow a 64-bit size");
      return;
    }
    total_ += bytes;
    buffers_.emplace_back(what, bytes);
  }

  size_t total_bytes() const { return total_; }
  const Status& overflow() const { return error_; }

  // Each buffer alone, then all together, against this machine's memory.
  Status check_host() const {
    TILEKIT_RETURN_IF_ERROR(error_);
    for (const auto& [what, bytes] : buffers_)
      TILEKIT_RETURN_IF_ERROR(check_host_allocation(bytes, what));
    if (buffers_.size() < 2) return Status::ok();
    return check_host_allocation(total_, names("") + " together");
  }

  // The same against the free memory of CUDA device `device` (CUDA builds only).
  Status check_device(int device) const {
    TILEKIT_RETURN_IF_ERROR(error_);
    for (const auto& [what, bytes] : buffers_)
      TILEKIT_RETURN_IF_ERROR(check_device_allocation(device, bytes, what));
    if (buffers_.size() < 2) return Status::ok();
    return check_device_allocation(device, total_, names("") + " together");
  }

 private:
  // "A, B and C": the buffers' names, and `extra` when not empty.
  std::string names(const std::string& extra) const {
    std::vector<std::string> all;
    for (const auto& buffer : buffers_) all.push_back(buffer.first);
    if (!extra.empty()) all.push_back(extra);
    std::string out;
    for (size_t i = 0; i < all.size(); ++i) {
      if (i > 0) out += i + 1 == all.size() ? " and " : ", ";
      out += all[i];
    }
    return out;
  }

  std::vector<std::pair<std::string, size_t>> buffers_;
  size_t total_ = 0;
  Status error_;
};

}  // namespace tilekit::bench
