// transpose_02_thread_per_row.cu — step 2 of the transpose ladder (Birmingham lecture 10).
// Adds:     parallelism: thread r copies row r of A into column r of B.
// Requires: float32; any shape (rows up to 2^31 / 256 blocks).
// Expect:   far below the copy ceiling: neighbouring threads read A a whole row apart (every
//           load its own 32-byte sector) while their stores to B are contiguous.
#include "cuda/transpose/transpose_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void transpose_thread_per_row_kernel(TransposeArgs t) {
  const int r = blockIdx.x * kThreads + threadIdx.x;
  if (r >= t.rows) return;
  for (int c = 0; c < t.cols; ++c) t.b[c * t.ldb + r] = t.a[r * t.lda + c];
}


TransposeKernel transpose_thread_per_row_entry() {
  EntrySpec s = cuda_spec("ladder", "02_thread_per_row", 2);
  s.tile = "1 row/thread, 256 threads";
  s.requirements = "any shape";
  s.auto_rank = 1;
  auto k = make_entry<TransposeProblem>(s);
  k.launch = [](const TransposeProblem& p, const Context& ctx, Workspace) -> Status {
    TransposeArgs t;
    TILEKIT_RETURN_IF_ERROR(to_transpose_args(p, &t));
    const unsigned blocks = static_cast<unsigned>((t.rows + kThreads - 1) / kThreads);
    transpose_thread_per_row_kernel<<<blocks, kThreads, 0, ctx.stream>>>(t);
    TILEKIT_CUDA_CHECK_LAUNCH("transpose_thread_per_row_kernel");
    return Status::ok();
  };
  k.resources = [](KernelResources* out) {
    return kernel_resources(reinterpret_cast<const void*>(&transpose_thread_per_row_kernel),
                            kThreads, 0, out);
  };
  return k;
}

}  // namespace

void register_transpose_02_thread_per_row(Registry& r) {
  r.add(transpose_thread_per_row_entry());
}

}  // namespace tilekit::cuda
