// cub_dot.cu — dot.cuda.cub.f32: CUB's DeviceReduce::Sum over the products x[i]·y[i], formed on
// the fly by a transform iterator (no products array is written): the reduction baseline.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"

namespace tilekit::cuda {
namespace {

struct Product {
  const float* x;
  const float* y;
  __host__ __device__ float operator()(int64_t i) const { return x[i] * y[i]; }
};

Status launch_cub_dot(const DotProblem& p, const Context& ctx, Workspace) {
  auto products = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                  Product{p.x, p.y});
  size_t temp_bytes = 0;
  TILEKIT_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, temp_bytes, products, p.result, p.n, ctx.stream));
  void* temp = nullptr;
  TILEKIT_CUDA_TRY(cudaMallocAsync(&temp, temp_bytes, ctx.stream));
  const cudaError_t err =
      cub::DeviceReduce::Sum(temp, temp_bytes, products, p.result, p.n, ctx.stream);
  const cudaError_t free_err = cudaFreeAsync(temp, ctx.stream);
  TILEKIT_CUDA_TRY(err);
  TILEKIT_CUDA_TRY(free_err);
  TILEKIT_CUDA_CHECK_LAUNCH("cub::DeviceReduce::Sum");
  return Status::ok();
}


DotKernel dot_cub_entry() {
  EntrySpec s = vendor_spec("cub");
  s.requirements = "any n";
  s.auto_rank = 9;
  auto k = make_entry<DotProblem>(s);
  k.launch = launch_cub_dot;
  return k;
}

}  // namespace

void register_dot_cub(Registry& r) {
  r.add(dot_cub_entry());
}

}  // namespace tilekit::cuda
