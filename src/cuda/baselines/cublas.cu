// cublas.cu — cuBLAS registered as the GPU baselines:
//   gemm.cuda.cublas.f32          SGEMM, CUBLAS_PEDANTIC_MATH: fp32 FFMA only, the SIMT yardstick
//   gemm.cuda.cublas_default.f32  SGEMM, CUBLAS_DEFAULT_MATH: what an application gets by default
//   gemm.cuda.cublas.bf16 / .f16  cublasGemmEx, 16-bit A and B, fp32 C, CUBLAS_COMPUTE_32F
//   gemm.cuda.cublas.f32_tf32     cublasGemmEx, fp32 A, B and C, CUBLAS_COMPUTE_32F_FAST_TF32
// (the tensor-core yardsticks for the Hopper family's modes). cuBLAS's fp32 → TF32
// conversion is not always the round-to-nearest of tilekit's tf32 mode (H200: 1×1×1 off by 4e-4
// relative; 30 of 961 elements at 31³ outside the nearest-rounding bound; at 256³ and 2048³ its
// results match inputs rounded to nearest even, the rounding of TMA's TFLOAT32 loads), so the TF32 entry
// declares InputRounding::kFaithful: its check allows each input one TF32 unit (2^-10) from the
// reference's rounding. tilekit's own tf32 kernels keep the nearest-rounding bound.
// cuBLAS is column-major; a row-major C = op(A)·op(B) is computed as the column-major
// Cᵀ = op(B)ᵀ·op(A)ᵀ, which is the same memory with A and B swapped and m and n swapped.
#include <cublas_v2.h>

#include <map>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/kernel_entry.hpp"
#include "cuda/cuda_kernels.hpp"
#include "tilekit/device.hpp"

namespace tilekit {

// The version of the cuBLAS library loaded at run time (not the header compiled against).
std::string cublas_version_string() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace cuda {
namespace {

enum class CublasMath {
  kPedantic,  // CUBLAS_PEDANTIC_MATH: IEEE fp32 throughout, no tensor cores
  kDefault,   // CUBLAS_DEFAULT_MATH: whatever cuBLAS picks for fp32 (no TF32 unless enabled)
};

Status cublas_status(cublasStatus_t s, const char* call) {
  return Status(StatusCode::kCublasError,
                std::string(call) + " failed: " + cublasGetStatusName(s) + " (" +
                    cublasGetStatusString(s) + ")",
                static_cast<int>(s));
}

#define TILEKIT_CUBLAS_TRY(call)                                             \
  do {                                                                       \
    const cublasStatus_t tilekit_cublas_status_ = (call);                    \
    if (tilekit_cublas_status_ != CUBLAS_STATUS_SUCCESS)                     \
      return cublas_status(tilekit_cublas_status_, #call);                   \
  } while (0)

// One handle per (thread, device): a cuBLAS handle must not be shared between threads that set
// its stream concurrently. The cache is thread_local, so its destructor runs when the thread
// ends, before the CUDA runtime's own teardown at process exit; destroying the handles frees
// cuBLAS's workspace (compute-sanitizer's leak check sees no leak).
class HandleCache {
 public:
  ~HandleCache() {
    for (auto& [device, handle] : handles_) {
      if (cudaSetDevice(device) == cudaSuccess) (void)cublasDestroy(handle);
    }
  }
  Status get(int device, cublasHandle_t* out) {
    auto it = handles_.find(device);
    if (it == handles_.end()) {
      cublasHandle_t h = nullptr;
      TILEKIT_CUBLAS_TRY(cublasCreate(&h));
      it = handles_.emplace(device, h).first;
    }
    *out = it->second;
    return Status::ok();
  }

 private:
  std::map<int, cublasHandle_t> handles_;
};

Status handle_for(int device, cublasHandle_t* out) {
  thread_local HandleCache cache;
  return cache.get(device, out);
}

cublasOperation_t to_cublas(Op op) { return op == Op::kN ? CUBLAS_OP_N : CUBLAS_OP_T; }

Status cublas_launch(const GemmProblem& p, const Context& ctx, CublasMath math) {
  cublasHandle_t h = nullptr;
  TILEKIT_RETURN_IF_ERROR(handle_for(ctx.device, &h));
  TILEKIT_CUBLAS_TRY(cublasSetStream(h, ctx.stream));
  TILEKIT_CUBLAS_TRY(cublasSetMathMode(
      h, math == CublasMath::kPedantic ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
  if (p.layout == Layout::kColMajor) {
    TILEKIT_CUBLAS_TRY(cublasSgemm_64(h, to_cublas(p.op_a), to_cublas(p.op_b), p.m, p.n, p.k,
                                      &p.alpha, p.a_f32(), p.lda, p.b_f32(), p.ldb, &p.beta,
                                      p.c_f32(), p.ldc));
  } else {
    TILEKIT_CUBLAS_TRY(cublasSgemm_64(h, to_cublas(p.op_b), to_cublas(p.op_a), p.n, p.m, p.k,
                                      &p.alpha, p.b_f32(), p.ldb, p.a_f32(), p.lda, &p.beta,
                                      p.c_f32(), p.ldc));
  }
  TILEKIT_CUDA_CHECK_LAUNCH("cublasSgemm_64");
  return Status::ok();
}

GemmKernel cublas_gemm_kernel(CublasMath math) {
  const bool pedantic = math == CublasMath::kPedantic;
  EntrySpec s = vendor_spec(pedantic ? "cublas" : "cublas_default");
  s.requirements = pedantic ? "any shape; CUBLAS_PEDANTIC_MATH (fp32 FFMA, no tensor cores)"
                            : "any shape; CUBLAS_DEFAULT_MATH";
  s.auto_rank = pedantic ? 10 : 20;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.launch = [math](const GemmProblem& p, const Context& ctx, Workspace) {
    return cublas_launch(p, ctx, math);
  };
  return k;
}

// cublasGemmEx in one of tilekit's tensor-core modes: A and B of `in` type, C fp32.
Status cublas_ex_launch(const GemmProblem& p, const Context& ctx, cudaDataType_t in,
                        cublasComputeType_t compute) {
  cublasHandle_t h = nullptr;
  TILEKIT_RETURN_IF_ERROR(handle_for(ctx.device, &h));
  TILEKIT_CUBLAS_TRY(cublasSetStream(h, ctx.stream));
  TILEKIT_CUBLAS_TRY(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const bool col = p.layout == Layout::kColMajor;  // row-major: the swapped column-major problem
  TILEKIT_CUBLAS_TRY(cublasGemmEx_64(
      h, to_cublas(col ? p.op_a : p.op_b), to_cublas(col ? p.op_b : p.op_a), col ? p.m : p.n,
      col ? p.n : p.m, p.k, &p.alpha, col ? p.a : p.b, in, col ? p.lda : p.ldb, col ? p.b : p.a,
      in, col ? p.ldb : p.lda, &p.beta, p.c, CUDA_R_32F, p.ldc, compute, CUBLAS_GEMM_DEFAULT));
  TILEKIT_CUDA_CHECK_LAUNCH("cublasGemmEx_64");
  return Status::ok();
}

GemmKernel cublas_ex_kernel(GemmTypes types, cudaDataType_t in, cublasComputeType_t compute,
                            const char* requirements,
                            InputRounding rounding = InputRounding::kNearest) {
  EntrySpec s = vendor_spec("cublas");
  s.types = types;
  s.input_rounding = rounding;
  s.requirements = requirements;
  s.auto_rank = 10;
  GemmKernel k = make_entry<GemmProblem>(s);
  k.launch = [in, compute](const GemmProblem& p, const Context& ctx, Workspace) {
    return cublas_ex_launch(p, ctx, in, compute);
  };
  return k;
}

GemmTypes gemm_types(DType in, Compute compute) {
  GemmTypes t;
  t.a = t.b = in;
  t.compute = compute;
  return t;
}

// transpose.cuda.cublas_geam.f32 — cublasSgeam with alpha = 1, beta = 0, transa = T: the baseline
// transpose. cuBLAS is column-major. The row-major output Aᵀ (cols × rows, ldb) is, in memory,
// the column-major rows × cols matrix A; the row-major input A (rows × cols, lda) is, in memory,
// the column-major matrix Aᵀ. So C (column-major rows × cols, ldc = ldb) = op(Aᵀ) with op = T.
// beta = 0 and B = C with transb = N is cuBLAS's documented in-place form: B is not read.
TransposeKernel transpose_cublas_geam_entry() {
  EntrySpec s = vendor_spec("cublas_geam");
  s.requirements = "any shape with 32-bit sizes";
  s.auto_rank = 10;
  auto k = make_entry<TransposeProblem>(s);
  k.can_implement = [](const TransposeProblem& p, const DeviceInfo*) -> Status {
    if (p.rows > INT32_MAX || p.cols > INT32_MAX || p.lda > INT32_MAX || p.ldb > INT32_MAX)
      return not_supported("cublasSgeam takes 32-bit sizes");
    return Status::ok();
  };
  k.launch = [](const TransposeProblem& p, const Context& ctx, Workspace) -> Status {
    cublasHandle_t h = nullptr;
    TILEKIT_RETURN_IF_ERROR(handle_for(ctx.device, &h));
    TILEKIT_CUBLAS_TRY(cublasSetStream(h, ctx.stream));
    const float one = 1.0f, zero = 0.0f;
    TILEKIT_CUBLAS_TRY(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(p.rows),
                                   static_cast<int>(p.cols), &one, p.a, static_cast<int>(p.lda),
                                   &zero, p.b, static_cast<int>(p.ldb), p.b,
                                   static_cast<int>(p.ldb)));
    TILEKIT_CUDA_CHECK_LAUNCH("cublasSgeam");
    return Status::ok();
  };
  return k;
}

// dot.cuda.cublas.f32 — cublasSdot with the result in device memory.
DotKernel dot_cublas_entry() {
  EntrySpec s = vendor_spec("cublas");
  s.requirements = "any n";
  s.auto_rank = 10;
  auto k = make_entry<DotProblem>(s);
  k.launch = [](const DotProblem& p, const Context& ctx, Workspace) -> Status {
    cublasHandle_t h = nullptr;
    TILEKIT_RETURN_IF_ERROR(handle_for(ctx.device, &h));
    TILEKIT_CUBLAS_TRY(cublasSetStream(h, ctx.stream));
    TILEKIT_CUBLAS_TRY(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    const cublasStatus_t s = cublasSdot_64(h, p.n, p.x, 1, p.y, 1, p.result);
    // The GEMM baselines pass alpha and beta from the host: restore the default mode.
    TILEKIT_CUBLAS_TRY(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    TILEKIT_CUBLAS_TRY(s);
    TILEKIT_CUDA_CHECK_LAUNCH("cublasSdot_64");
    return Status::ok();
  };
  return k;
}

}  // namespace

// gemm.cuda.cublas{,_default}.f32, gemm.cuda.cublas.{bf16,f16,f32_tf32},
// transpose.cuda.cublas_geam.f32, dot.cuda.cublas.f32
void register_cublas(Registry& r) {
  r.add(cublas_gemm_kernel(CublasMath::kPedantic));
  r.add(cublas_gemm_kernel(CublasMath::kDefault));
  r.add(cublas_ex_kernel(gemm_types(DType::kBF16, Compute::kBF16), CUDA_R_16BF,
                         CUBLAS_COMPUTE_32F, "any shape; bf16 A and B, fp32 accumulation and C"));
  r.add(cublas_ex_kernel(gemm_types(DType::kF16, Compute::kBF16), CUDA_R_16F, CUBLAS_COMPUTE_32F,
                         "any shape; f16 A and B, fp32 accumulation and C"));
  r.add(cublas_ex_kernel(gemm_types(DType::kF32, Compute::kTF32), CUDA_R_32F,
                         CUBLAS_COMPUTE_32F_FAST_TF32,
                         "any shape; fp32 A, B and C, TF32 products (cuBLAS's own fp32 → TF32 "
                         "conversion, not always round to nearest), fp32 accumulation",
                         InputRounding::kFaithful));
  r.add(transpose_cublas_geam_entry());
  r.add(dot_cublas_entry());
}

}  // namespace cuda
}  // namespace tilekit
