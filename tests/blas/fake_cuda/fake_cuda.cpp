// fake_cuda.cpp — the fake runtime of cuda_runtime_api.h (see there), plus the one tilekit
// function gpu_path.cpp needs from the real CUDA backend.
#include "cuda_runtime_api.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "tilekit/status.hpp"

namespace {
struct Range {
  size_t bytes;
  cudaMemoryType type;
};
std::map<const char*, Range>& ranges() {
  static std::map<const char*, Range> r;
  return r;
}
std::map<cudaEvent_t, bool>& armed() {  // event -> the next query says "not ready"
  static std::map<cudaEvent_t, bool> e;
  return e;
}
cudaError_t last_error = cudaSuccess;
bool fail_next_malloc = false;
int next_handle = 1;
template <typename T>
T new_handle() {
  return reinterpret_cast<T>(static_cast<size_t>(next_handle++) * 64);
}
}  // namespace

FakeCudaStats& fake_cuda_stats() {
  static FakeCudaStats s;
  return s;
}
void fake_cuda_fail_next_malloc() { fail_next_malloc = true; }

cudaError_t cudaGetDevice(int* device) { *device = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaGetLastError() { const cudaError_t e = last_error; last_error = cudaSuccess; return e; }
cudaError_t cudaPeekAtLastError() { return last_error; }
const char* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "fake error"; }
cudaError_t cudaStreamCreate(cudaStream_t* s) { *s = new_handle<cudaStream_t>(); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { *e = new_handle<cudaEvent_t>(); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) { armed()[e] = true; return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { armed()[e] = false; return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t e) {
  if (armed()[e]) {
    armed()[e] = false;
    ++fake_cuda_stats().not_ready_answers;
    last_error = cudaErrorNotReady;  // as a runtime that keeps it would
    return cudaErrorNotReady;
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

cudaError_t cudaMalloc(void** p, size_t bytes) {
  if (fail_next_malloc) {
    fail_next_malloc = false;
    last_error = cudaErrorMemoryAllocation;
    return cudaErrorMemoryAllocation;
  }
  *p = std::malloc(bytes);
  ranges()[static_cast<const char*>(*p)] = Range{bytes, cudaMemoryTypeDevice};
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned) {
  *p = std::malloc(bytes);
  ranges()[static_cast<const char*>(*p)] = Range{bytes, cudaMemoryTypeHost};
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  ranges().erase(static_cast<const char*>(p));
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  std::memcpy(dst, src, bytes);
  auto& s = fake_cuda_stats();
  if (kind == cudaMemcpyHostToDevice) { s.h2d_bytes += bytes; ++s.h2d_copies; }
  else { s.d2h_bytes += bytes; ++s.d2h_copies; }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t s) {
  if (width > dpitch || width > spitch) return cudaErrorInvalidValue;
  for (size_t r = 0; r < height; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                width);
  auto& st = fake_cuda_stats();
  ++st.copies_2d;
  (kind == cudaMemcpyHostToDevice ? st.h2d_bytes : st.d2h_bytes) += width * height;
  (void)s;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  *attr = cudaPointerAttributes{cudaMemoryTypeUnregistered, -1, nullptr, nullptr};
  const char* p = static_cast<const char*>(ptr);
  auto it = ranges().upper_bound(p);
  if (it == ranges().begin()) return cudaSuccess;
  --it;
  if (p < it->first + it->second.bytes) {
    attr->type = it->second.type;
    attr->device = 0;
  }
  return cudaSuccess;
}

namespace tilekit::cuda {
Status error_status(cudaError_t err, const char* call, const char*, int) {
  return Status(StatusCode::kCudaError, std::string(call) + " failed (fake CUDA error " +
                                            std::to_string(static_cast<int>(err)) + ")",
                static_cast<int>(err));
}
}  // namespace tilekit::cuda
