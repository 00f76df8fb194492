// cublasxt_baseline.hpp — cuBLASXt, the toolkit's multi-GPU SGEMM on host operands: the baseline
// `tilekit bench gemm --gpus N` times beside gemm_distributed_host (internal).
#pragma once

#include <memory>
#include <vector>

#include "tilekit/problems.hpp"

namespace tilekit::dist {

class CublasXt {
 public:
  // A handle over `devices` with square tiles of `block_dim` (cublasXtSetBlockDim).
  static Status create(const std::vector<int>& devices, int block_dim, std::unique_ptr<CublasXt>* out);
  virtual ~CublasXt() = default;
  // f32 only, host pointers; synchronous, as cublasXtSgemm is.
  virtual Status sgemm(const GemmProblem& p) = 0;
};

}  // namespace tilekit::dist
