// dot_03_two_pass.cu — step 3 of the dot-product ladder.
// Adds:     determinism: no atomics. Pass 1 runs a grid whose size depends only on n and the
//           device; block b writes its partial sum to partials[b]. Pass 2, one block, sums the
//           partials in a fixed order. Every addition happens in the same order on every run,
//           so the result is bit-identical run to run. Optionally accumulates in float64
//           (dot.cuda.03_two_pass.f64acc): products and sums in double, rounded once at the end.
// Requires: float32 inputs; any n.
// Expect:   the same ≈ 4.3 TB/s as step 2 (pass 2 reads a few KB); the f64acc variant too, as
//           the H200's fp64 rate is far above what 4 bytes per element need.
#include "cuda/reduce/dot_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kFinalThreads = 1024;
constexpr int kBlocksPerSm = 8;

template <typename T>
__global__ void __launch_bounds__(kThreads) dot_partials_kernel(
    const float* __restrict__ x, const float* __restrict__ y, int64_t n, T* partials, bool vector) {
  const T sum = block_sum<kThreads>(thread_partial<T>(x, y, n, vector));
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <typename T>
__global__ void __launch_bounds__(kFinalThreads) dot_final_kernel(const T* partials, int count,
                                                                  float* result) {
  T sum = 0;
  for (int i = threadIdx.x; i < count; i += kFinalThreads) sum += partials[i];
  sum = block_sum<kFinalThreads>(sum);
  if (threadIdx.x == 0) *result = static_cast<float>(sum);
}

template <typename T>
size_t partials_bytes(const DotProblem& p) {
  int blocks = 0;
  if (!grid_stride_blocks(kBlocksPerSm, p.n, kThreads, &blocks)) return 0;  // launch reports it
  return sizeof(T) * static_cast<size_t>(blocks);
}

// The partial sums live in the workspace (the context's pool): no allocation per call.
template <typename T>
Status launch_two_pass(const DotProblem& p, const Context& ctx, Workspace ws) {
  int blocks = 0;
  TILEKIT_RETURN_IF_ERROR(grid_stride_blocks(kBlocksPerSm, p.n, kThreads, &blocks));
  if (ws.bytes < sizeof(T) * static_cast<size_t>(blocks))
    return Status(StatusCode::kInternal, "dot_03: workspace of " + std::to_string(ws.bytes) +
                                             " bytes is smaller than the partials need");
  T* partials = static_cast<T*>(ws.data);
  dot_partials_kernel<T><<<blocks, kThreads, 0, ctx.stream>>>(
      p.x, p.y, p.n, partials, aligned16(p.x) && aligned16(p.y));
  TILEKIT_CUDA_CHECK_LAUNCH("dot_partials_kernel");
  dot_final_kernel<T><<<1, kFinalThreads, 0, ctx.stream>>>(partials, blocks, p.result);
  TILEKIT_CUDA_CHECK_LAUNCH("dot_final_kernel");
  return Status::ok();
}

template <typename T>
DotKernel make_two_pass_entry(const char* dtype, int rank) {
  EntrySpec s = cuda_spec("ladder", "03_two_pass", 3);
  s.dtype = dtype;
  s.tile = "256 threads x 8 blocks/SM, then 1 block; no atomics";
  s.requirements = "any n; bit-identical results run to run";
  s.auto_rank = rank;
  auto k = make_entry<DotProblem>(s);
  k.workspace_bytes = [](const DotProblem& p, const DeviceInfo*) { return partials_bytes<T>(p); };
  k.launch = launch_two_pass<T>;
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&dot_partials_kernel<T>), kThreads, 0, out);
  };
  return k;
}

}  // namespace

// dot.cuda.03_two_pass.f32 and .f64acc (float64 accumulation)
void register_dot_03_two_pass(Registry& r) {
  r.add(make_two_pass_entry<float>("f32", 3));
  r.add(make_two_pass_entry<double>("f64acc", 4));
}

}  // namespace tilekit::cuda
