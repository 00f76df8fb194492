// memory_case.hpp — transpose, dot and copy test cases, run end to end on either backend.
#pragma once

#include <cstdint>
#include <string>

#include "tilekit/tilekit.hpp"

namespace tilekit::testing {

struct TransposeCase {
  int64_t rows = 1, cols = 1;
  int64_t lda_pad = 0, ldb_pad = 0;  // extra elements on the leading dimensions
  std::string name() const;
};

struct DotCase {
  int64_t n = 1;
  enum Inputs { kMixedSign, kPositive, kSmallIntegers } inputs = kMixedSign;
  int64_t offset = 0;  // start x and y this many floats into their buffers (unaligned pointers)
  std::string name() const;
};

struct MemoryResult {
  Status status;
  bool skipped = false;     // can_implement refused: status has the reason
  int64_t mismatches = 0;   // transpose/copy: elements not equal to the input (NaN included)
  int64_t guard_violations = 0;  // padding of B or the guard band around the output changed
  double value = 0, reference = 0, bound = 0;  // dot
  bool passed() const { return status.is_ok() && !skipped && mismatches == 0 && guard_violations == 0; }
  std::string message() const;
};

// kernel == nullptr runs the public entry point with "auto".
MemoryResult run_transpose_case(const TransposeCase& c, const Context& ctx,
                                const TransposeKernel* kernel, uint64_t seed);
MemoryResult run_dot_case(const DotCase& c, const Context& ctx, const DotKernel* kernel,
                          uint64_t seed);
// aligned: the destination starts 16-byte aligned (else 4 bytes past it).
MemoryResult run_copy_case(int64_t n, const Context& ctx, const CopyKernel& kernel, uint64_t seed,
                           bool aligned);

}  // namespace tilekit::testing
