// transpose_01_serial.cu — step 1 of the transpose ladder (Birmingham lecture 10).
// Adds:     nothing: one thread copies every element, B[c][r] = A[r][c].
// Requires: float32; any shape with at most 2^22 elements (more would take seconds).
// Expect:   a few hundred MB/s: one thread issues one load and one store at a time and waits
//           for each; the GPU's parallelism is unused.
#include "cuda/transpose/transpose_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 22;

__global__ void transpose_serial_kernel(TransposeArgs t) {
  for (int r = 0; r < t.rows; ++r)
    for (int c = 0; c < t.cols; ++c) t.b[c * t.ldb + r] = t.a[r * t.lda + c];
}


TransposeKernel transpose_serial_entry() {
  EntrySpec s = cuda_spec("ladder", "01_serial", 1);
  s.tile = "1 thread";
  s.requirements = "at most 2^22 elements";
  s.auto_rank = 0;
  auto k = make_entry<TransposeProblem>(s);
  k.can_implement = [](const TransposeProblem& p, const DeviceInfo*) -> Status {
    if (p.rows * p.cols > kMaxElements)
      return not_supported("one thread does all the work: refuses more than 2^22 elements (" +
                           p.describe() + " would take seconds)");
    return Status::ok();
  };
  k.launch = [](const TransposeProblem& p, const Context& ctx, Workspace) -> Status {
    TransposeArgs t;
    TILEKIT_RETURN_IF_ERROR(to_transpose_args(p, &t));
    transpose_serial_kernel<<<1, 1, 0, ctx.stream>>>(t);
    TILEKIT_CUDA_CHECK_LAUNCH("transpose_serial_kernel");
    return Status::ok();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&transpose_serial_kernel), 1, 0, out);
  };
  return k;
}

}  // namespace

void register_transpose_01_serial(Registry& r) {
  r.add(transpose_serial_entry());
}

}  // namespace tilekit::cuda
