// fma_peak.cu — the GPU's FP32 ceiling for the roofline: every thread runs long chains of
// independent FMAs on registers (8 chains hide the FMA latency), no memory traffic but one store
// at the end so the compiler cannot drop the work.
#include <algorithm>
#include <vector>

#include "cuda/cuda_kernels.hpp"
#include "cuda/common/cuda_check.hpp"
#include "tilekit/roofline.hpp"

namespace tilekit {
namespace cuda {
namespace {

constexpr int kChains = 8, kIterations = 4096, kThreads = 256;

__global__ void fma_peak_kernel(float* g_sink, float seed) {
  float r[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) r[c] = seed + threadIdx.x + c;
  const float b = 0.999999f, add = 1e-7f;
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) r[c] = fmaf(r[c], b, add);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += r[c];
  if (sum == 12345.678f) g_sink[0] = sum;  // practically never taken; keeps the chains alive
}

}  // namespace
}  // namespace cuda

Status cuda::measure_fp32_peak(const Context& ctx, double* gflops) {
  int sms = 0;
  TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device));
  const int blocks = sms * 16;  // 4096 threads' worth per SM: all lanes busy
  float* sink = nullptr;
  TILEKIT_CUDA_TRY(cudaMalloc(&sink, sizeof(float)));
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<float> ms;
  cudaError_t err = cudaEventCreate(&start);
  if (err == cudaSuccess) err = cudaEventCreate(&stop);
  for (int rep = 0; rep < 12 && err == cudaSuccess; ++rep) {
    cudaEventRecord(start, ctx.stream);
    cuda::fma_peak_kernel<<<blocks, cuda::kThreads, 0, ctx.stream>>>(sink, 1.0f + rep);
    err = cudaGetLastError();
    if (err != cudaSuccess) break;
    cudaEventRecord(stop, ctx.stream);
    err = cudaEventSynchronize(stop);
    float t = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, start, stop);
    if (rep >= 2) ms.push_back(t);  // the first runs warm up
  }
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  cudaFree(sink);
  if (err != cudaSuccess) return cuda::error_status(err, "fma_peak_kernel", __FILE__, __LINE__);
  std::sort(ms.begin(), ms.end());
  const double flops = 2.0 * cuda::kChains * cuda::kIterations * double(blocks) * cuda::kThreads;
  *gflops = flops / (ms[ms.size() / 2] * 1e-3) / 1e9;
  return Status::ok();
}

}  // namespace tilekit
