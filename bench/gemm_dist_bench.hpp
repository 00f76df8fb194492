// gemm_dist_bench.hpp — `tilekit bench gemm --gpus N`: one GEMM over N GPUs (gemm_distributed)
// beside one GPU and cuBLASXt, in one run: per-GPU and aggregate TFLOP/s, scaling over one GPU,
// time communicating; operands resident on the GPUs, and on the host with transfers included.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "bench_row.hpp"
#include "tilekit/distributed.hpp"
#include "timing.hpp"

namespace tilekit::bench {

struct DistBenchConfig {
  int gpus = 2;
  std::vector<GemmShape> shapes;  // row-major, A and B as stored (NN)
  GemmTypes types;
  DistributedOptions options;
  DistributedConfig dist_config;  // the context's (timeout, NCCL's SM limit)
  bool host_operands = true;  // also time gemm_distributed_host (uploads and downloads included)
  bool baseline = true;       // cuBLASXt over the same GPUs (f32 only; host operands)
  int xt_block_dim = 4096;    // cublasXtSetBlockDim
  TimingPolicy timing;        // resident rows; host rows take at least min(3, min_samples)
  uint64_t seed = 20261122;
  std::function<void(int done, int total, const std::string& what)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

struct DistBenchRow {
  GemmShape shape;
  std::string types;  // "f32", "bf16"
  std::string mode;   // "1 GPU", "2 GPUs resident (rows, blocks, 4 panels)", ...
  int gpus = 1;
  double ms = 0, tflops = 0;
  double noise = 0;
  std::vector<double> per_gpu_tflops;  // each rank's GEMMs over its compute-stream time
  double scaling = 0;                  // one GPU's time / this row's time
  double transfer_ms = 0;              // the slowest rank's transfer stream (time communicating)
  double upload_ms = 0, download_ms = 0;
  double host_agreed_ms = 0, host_enqueued_ms = 0;  // the slowest rank's (RankStats::host_*)
  std::string verdict;                 // "bit-identical to 1 GPU", "max |diff| 3e-05", "error: ..."
};

// Ok when this build and machine can run it (NCCL, N GPUs, an own kernel for the types).
Status check_dist_bench(const DistBenchConfig& config);
Status run_dist_bench(const DistBenchConfig& config, std::vector<DistBenchRow>* rows);
void print_dist_table(std::ostream& os, const std::vector<DistBenchRow>& rows);
Status write_dist_csv(const std::string& path, const std::vector<DistBenchRow>& rows);

}  // namespace tilekit::bench
