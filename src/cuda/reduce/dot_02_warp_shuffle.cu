// dot_02_warp_shuffle.cu — step 2 of the dot-product ladder.
// Adds:     a warp-shuffle tree instead of the shared-memory tree (five __shfl_down_sync per
//           warp, one shared-memory hop between warps, one barrier instead of eight), and
//           16-byte loads of x and y.
// Requires: float32 inputs, float accumulation; any n (float4 path when x, y are 16-byte aligned).
// Expect:   at the copy ceiling for reads (≈ 4.3 TB/s): the reduction's cost is now hidden behind
//           the loads. Still one atomicAdd per block, so the result's bits vary between runs.
#include "cuda/reduce/dot_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) dot_warp_shuffle_kernel(
    const float* __restrict__ x, const float* __restrict__ y, int64_t n, float* result, bool vector) {
  const float sum = block_sum<kThreads>(thread_partial<float>(x, y, n, vector));
  if (threadIdx.x == 0) atomicAdd(result, sum);
}


DotKernel dot_warp_shuffle_entry() {
  EntrySpec s = cuda_spec("ladder", "02_warp_shuffle", 2);
  s.tile = "256 threads, shuffles, float4";
  s.requirements = "any n";
  s.auto_rank = 2;
  auto k = make_entry<DotProblem>(s);
  k.launch = [](const DotProblem& p, const Context& ctx, Workspace) -> Status {
    int blocks = 0;
    TILEKIT_RETURN_IF_ERROR(grid_stride_blocks(8, p.n, kThreads, &blocks));
    TILEKIT_CUDA_TRY(cudaMemsetAsync(p.result, 0, sizeof(float), ctx.stream));
    dot_warp_shuffle_kernel<<<blocks, kThreads, 0, ctx.stream>>>(
        p.x, p.y, p.n, p.result, aligned16(p.x) && aligned16(p.y));
    TILEKIT_CUDA_CHECK_LAUNCH("dot_warp_shuffle_kernel");
    return Status::ok();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&dot_warp_shuffle_kernel), kThreads, 0,
                            out);
  };
  return k;
}

}  // namespace

void register_dot_02_warp_shuffle(Registry& r) {
  r.add(dot_warp_shuffle_entry());
}

}  // namespace tilekit::cuda
