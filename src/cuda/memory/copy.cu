// copy.cu — copy kernels: the memory-bandwidth yardsticks (Birmingham lecture: coalescing).
//   copy.cuda.coalesced.f32          thread i copies element i: each warp moves 128 contiguous bytes
//   copy.cuda.uncoalesced.f32        the same bytes, but neighbouring threads 32 elements apart
//   copy.cuda.float4_grid_stride.f32 16-byte loads and stores in a grid-stride loop
//   copy.cuda.memcpy.f32             cudaMemcpyAsync device to device: the ceiling
#include <algorithm>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/common/kernel_entry.hpp"

namespace tilekit::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kStride = 32;  // the uncoalesced copy's element stride between neighbours

__global__ void copy_coalesced_kernel(const float* __restrict__ g_x, float* __restrict__ g_y,
                                      int64_t n) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) g_y[i] = g_x[i];
}

// Views the n = R·32 elements as R rows of 32 and walks them column by column: thread t copies
// element (t % R)·32 + t / R, so a warp touches 32 different 128-byte lines.
__global__ void copy_uncoalesced_kernel(const float* __restrict__ g_x, float* __restrict__ g_y,
                                        int64_t n) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t >= n) return;
  const int64_t rows = n / kStride;
  const int64_t i = (t % rows) * kStride + t / rows;
  g_y[i] = g_x[i];
}

__global__ void copy_float4_kernel(const float4* __restrict__ g_x, float4* __restrict__ g_y,
                                   int64_t n4) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n4;
       i += int64_t{gridDim.x} * blockDim.x)
    g_y[i] = g_x[i];
}

Status check_grid(int64_t blocks) {
  if (blocks > 2147483647) return not_supported("more than 2^31 - 1 blocks");
  return Status::ok();
}

Status launch_coalesced(const CopyProblem& p, const Context& ctx, Workspace) {
  const int64_t blocks = (p.n + kThreads - 1) / kThreads;
  TILEKIT_RETURN_IF_ERROR(check_grid(blocks));
  copy_coalesced_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, ctx.stream>>>(p.x, p.y, p.n);
  TILEKIT_CUDA_CHECK_LAUNCH("copy_coalesced_kernel");
  return Status::ok();
}

Status launch_uncoalesced(const CopyProblem& p, const Context& ctx, Workspace) {
  const int64_t blocks = (p.n + kThreads - 1) / kThreads;
  TILEKIT_RETURN_IF_ERROR(check_grid(blocks));
  copy_uncoalesced_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, ctx.stream>>>(p.x, p.y, p.n);
  TILEKIT_CUDA_CHECK_LAUNCH("copy_uncoalesced_kernel");
  return Status::ok();
}

Status launch_float4(const CopyProblem& p, const Context& ctx, Workspace) {
  const int64_t n4 = p.n / 4;
  if (n4 > 0) {
    int device = 0, sms = 0;
    TILEKIT_CUDA_TRY(cudaGetDevice(&device));
    TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // Enough blocks to fill every SM several times over; the loop covers the rest.
    const int64_t blocks = std::min<int64_t>((n4 + kThreads - 1) / kThreads, int64_t{sms} * 16);
    copy_float4_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, ctx.stream>>>(
        reinterpret_cast<const float4*>(p.x), reinterpret_cast<float4*>(p.y), n4);
    TILEKIT_CUDA_CHECK_LAUNCH("copy_float4_kernel");
  }
  const int64_t tail = p.n - n4 * 4;  // at most 3 elements
  if (tail > 0)
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(p.y + n4 * 4, p.x + n4 * 4, static_cast<size_t>(tail) * 4,
                                     cudaMemcpyDeviceToDevice, ctx.stream));
  return Status::ok();
}


CopyKernel copy_coalesced_entry() {
  EntrySpec s = cuda_spec("ladder", "coalesced", 1);
  s.tile = "1 element/thread";
  s.requirements = "any n";
  s.auto_rank = 1;
  auto k = make_entry<CopyProblem>(s);
  k.launch = launch_coalesced;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&copy_coalesced_kernel), kThreads, 0, out);
  };
  return k;
}

CopyKernel copy_uncoalesced_entry() {
  EntrySpec s = cuda_spec("ladder", "uncoalesced", 2);
  s.tile = "neighbours 32 elements apart";
  s.requirements = "n a multiple of 32";
  s.auto_rank = 0;
  auto k = make_entry<CopyProblem>(s);
  k.can_implement = [](const CopyProblem& p, const DeviceInfo*) -> Status {
    if (p.n % kStride)
      return not_supported("views n as rows of 32 elements: n = " + std::to_string(p.n) +
                           " is not a multiple of 32");
    return Status::ok();
  };
  k.launch = launch_uncoalesced;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&copy_uncoalesced_kernel), kThreads, 0, out);
  };
  return k;
}

CopyKernel copy_float4_grid_stride_entry() {
  EntrySpec s = cuda_spec("ladder", "float4_grid_stride", 3);
  s.tile = "float4, grid-stride";
  s.requirements = "16-byte aligned x and y";
  s.auto_rank = 5;
  auto k = make_entry<CopyProblem>(s);
  k.can_implement = [](const CopyProblem& p, const DeviceInfo*) -> Status {
    if (!aligned16(p.x) || !aligned16(p.y))
      return not_supported("needs x and y 16-byte aligned for float4 accesses");
    return Status::ok();
  };
  k.launch = launch_float4;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&copy_float4_kernel), kThreads, 0, out);
  };
  return k;
}

CopyKernel copy_memcpy_entry() {
  EntrySpec s = vendor_spec("memcpy");
  s.requirements = "any n";
  s.auto_rank = 10;
  auto k = make_entry<CopyProblem>(s);
  k.launch = [](const CopyProblem& p, const Context& ctx, Workspace) -> Status {
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(p.y, p.x, static_cast<size_t>(p.n) * sizeof(float),
                                     cudaMemcpyDeviceToDevice, ctx.stream));
    return Status::ok();
  };
  return k;
}

}  // namespace

void register_copy_cuda(Registry& r) {
  r.add(copy_memcpy_entry());
  r.add(copy_coalesced_entry());
  r.add(copy_uncoalesced_entry());
  r.add(copy_float4_grid_stride_entry());
}

}  // namespace tilekit::cuda
