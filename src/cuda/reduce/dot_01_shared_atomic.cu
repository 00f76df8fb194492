// dot_01_shared_atomic.cu — step 1 of the dot-product ladder (Wisconsin SBEL hands-on).
// Adds:     the course's design: each thread sums its grid-stride share into a shared-memory
//           array `cache[threadsPerBlock]`, the block halves it in a tree (__syncthreads at each
//           level), and thread 0 atomically adds the block's sum to the result.
// Requires: float32 inputs, float accumulation; any n.
// Expect:   ≈ 3.7 TB/s on an H200 (the anchor: 3694 GB/s); the result's bits vary from run to
//           run, because the blocks' atomicAdds land in any order.
#include "cuda/reduce/dot_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kThreads = 256;  // a power of two: the tree halves it

__global__ void dot_shared_atomic_kernel(const float* __restrict__ x, const float* __restrict__ y,
                                         int64_t n, float* result) {
  __shared__ float s_cache[kThreads];
  float sum = 0.0f;
  for (int64_t i = blockIdx.x * int64_t{kThreads} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * kThreads)
    sum += x[i] * y[i];
  s_cache[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s_cache[threadIdx.x] += s_cache[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, s_cache[0]);
}


DotKernel dot_shared_atomic_entry() {
  EntrySpec s = cuda_spec("ladder", "01_shared_atomic", 1);
  s.tile = "256 threads, smem tree, atomicAdd";
  s.requirements = "any n";
  s.auto_rank = 1;
  auto k = make_entry<DotProblem>(s);
  k.launch = [](const DotProblem& p, const Context& ctx, Workspace) -> Status {
    int blocks = 0;
    TILEKIT_RETURN_IF_ERROR(grid_stride_blocks(8, p.n, kThreads, &blocks));
    TILEKIT_CUDA_TRY(cudaMemsetAsync(p.result, 0, sizeof(float), ctx.stream));
    dot_shared_atomic_kernel<<<blocks, kThreads, 0, ctx.stream>>>(p.x, p.y, p.n, p.result);
    TILEKIT_CUDA_CHECK_LAUNCH("dot_shared_atomic_kernel");
    return Status::ok();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&dot_shared_atomic_kernel), kThreads, 0,
                            out);
  };
  return k;
}

}  // namespace

void register_dot_01_shared_atomic(Registry& r) {
  r.add(dot_shared_atomic_entry());
}

}  // namespace tilekit::cuda
