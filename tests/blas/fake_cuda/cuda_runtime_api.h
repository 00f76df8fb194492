// cuda_runtime_api.h (fake) — the few CUDA runtime calls src/blas/gpu_path.cpp makes, done on
// the host, so that its staging pipeline (panels, chunks, slots, pinned and resident operands,
// the order of copies) runs and is checked on a machine without a GPU. "Device" memory is host
// memory the fake remembers; copies happen at once; an event reports "not ready" to the first
// query after each record, so the polling path is taken too. Test use only
// (tests/blas/test_gpu_path_fake.cpp), and only in builds without the real CUDA runtime.
#pragma once

#include <cstddef>

enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorNotReady = 600 };
typedef enum cudaError cudaError_t;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1,
                      cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00

cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaMalloc(void** ptr, size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attr, const void* ptr);

// For the test: what crossed "PCIe", and page-locked / device memory made by the test itself.
struct FakeCudaStats {
  size_t h2d_bytes = 0, d2h_bytes = 0, h2d_copies = 0, d2h_copies = 0, copies_2d = 0;
  size_t not_ready_answers = 0;
};
FakeCudaStats& fake_cuda_stats();
void fake_cuda_fail_next_malloc();  // the next cudaMalloc fails (out of memory)
