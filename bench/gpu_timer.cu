// gpu_timer.cu — CUDA-event timing on the working stream, with an optional L2 flush.
//
// The flush writes a buffer twice the size of L2 (allocated once per timer) with a memset on the
// same stream just before the start event, so each sample starts with cold caches and the
// memset itself is outside the timed interval.
#include <cuda_runtime_api.h>

#include "cuda/common/cuda_check.hpp"
#include "timing.hpp"

namespace tilekit::bench {
namespace {

class GpuTimer final : public SampleTimer {
 public:
  ~GpuTimer() override {
    // Errors cannot be reported from a destructor; a sticky error would make these fail anyway.
    if (start_) (void)cudaEventDestroy(start_);
    if (stop_) (void)cudaEventDestroy(stop_);
    if (flush_) (void)cudaFree(flush_);
  }

  Status init(const Context& ctx, bool flush_l2) {
    stream_ = ctx.stream;
    TILEKIT_CUDA_TRY(cudaSetDevice(ctx.device));
    TILEKIT_CUDA_TRY(cudaEventCreate(&start_));
    TILEKIT_CUDA_TRY(cudaEventCreate(&stop_));
    if (flush_l2) {
      int l2 = 0;
      TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ctx.device));
      flush_bytes_ = 2 * static_cast<size_t>(l2);
      TILEKIT_CUDA_TRY(cudaMalloc(&flush_, flush_bytes_));
    }
    return Status::ok();
  }

  Status time_once(const std::function<Status()>& run, double* seconds) override {
    if (flush_) TILEKIT_CUDA_TRY(cudaMemsetAsync(flush_, ++flush_value_ & 0xff, flush_bytes_, stream_));
    TILEKIT_CUDA_TRY(cudaEventRecord(start_, stream_));
    TILEKIT_RETURN_IF_ERROR(run());
    TILEKIT_CUDA_TRY(cudaEventRecord(stop_, stream_));
    TILEKIT_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    TILEKIT_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    *seconds = ms * 1e-3;
    return Status::ok();
  }

  const char* method() const override {
    return flush_ ? "cuda-events, L2 flushed" : "cuda-events, warm L2";
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  int flush_value_ = 0;
};

}  // namespace

Status make_gpu_timer(const Context& ctx, bool flush_l2, std::unique_ptr<SampleTimer>* out) {
  auto timer = std::make_unique<GpuTimer>();
  TILEKIT_RETURN_IF_ERROR(timer->init(ctx, flush_l2));
  *out = std::move(timer);
  return Status::ok();
}

}  // namespace tilekit::bench
