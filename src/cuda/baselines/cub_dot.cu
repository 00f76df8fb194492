// cub_dot.cu — dot.cuda.cub.f32: CUB's DeviceReduce::Sum over the products x[i]·y[i], formed on
// the fly by a transform iterator (no products array is written): the reduction baseline.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/memory_ladders.hpp"

namespace tilekit::cuda {
namespace {

struct Product {
  const float* x;
  const float* y;
  __host__ __device__ float operator()(int64_t i) const { return x[i] * y[i]; }
};

Status launch_cub_dot(const DotProblem& p, const Context& ctx) {
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

}  // namespace

DotKernel dot_cub_entry() {
  auto k = cuda_entry<DotProblem>("dot.cuda.cub.f32", "dot", 0, "", "any n", 9);
  k.info.is_baseline = true;
  k.launch = launch_cub_dot;
  return k;
}

}  // namespace tilekit::cuda
