// memory_bench.hpp — `tilekit bench copy|transpose|dot`: memory-bound kernels against the copy
// ceiling, verified, then timed.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "gemm_bench.hpp"
#include "tilekit/tilekit.hpp"
#include "timing.hpp"

namespace tilekit::bench {

enum class MemoryOp { kCopy, kTranspose, kDot };
const char* memory_op_name(MemoryOp op);

struct MemorySize {
  int64_t rows = 0, cols = 1;  // copy and dot: n = rows; transpose: rows × cols
  std::string str() const;
};

// copy, dot: "268435456", "2^28", lists "2^20,2^24"; transpose: "16384" (square) or "4097x17".
Status parse_memory_sizes(MemoryOp op, const std::string& spec, std::vector<MemorySize>* out);

struct MemoryBenchConfig {
  Context ctx;
  MemoryOp op = MemoryOp::kCopy;
  std::vector<MemorySize> sizes;
  std::string kernels;        // glob; empty = every non-reference kernel of the op and backend
  bool add_baseline = true;   // the op's baseline, and the copy ceiling, at every size
  uint64_t seed = 20261122;
  TimingPolicy timing;
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

// Baselines: memcpy (copy), cuBLAS geam or the CPU blocked kernel (transpose), CUB or the CPU
// OpenMP kernel (dot). The ceiling is always the device (or host) memcpy.
std::string memory_baseline_id(MemoryOp op, Backend backend);
std::string memory_ceiling_id(Backend backend);

Status run_memory_bench(const MemoryBenchConfig& config, std::vector<BenchRow>* rows);

}  // namespace tilekit::bench
