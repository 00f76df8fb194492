// cublasxt_baseline.cpp — cuBLASXt over several GPUs, for comparison only (never chosen by auto).
#include "dist/cublasxt_baseline.hpp"

#include <cublasXt.h>

#include <string>

namespace tilekit::dist {
namespace {

Status xt_error(cublasStatus_t s, const char* call) {
  return Status(StatusCode::kCublasError,
                std::string("cuBLASXt: ") + call + " failed: " + cublasGetStatusName(s) + " (" +
                    cublasGetStatusString(s) + ")",
                static_cast<int>(s));
}

#define TILEKIT_XT_TRY(call)                                      \
  do {                                                            \
    const cublasStatus_t xt_status_ = (call);                     \
    if (xt_status_ != CUBLAS_STATUS_SUCCESS) return xt_error(xt_status_, #call); \
  } while (0)

cublasOperation_t to_cublas(Op op) { return op == Op::kN ? CUBLAS_OP_N : CUBLAS_OP_T; }

class CublasXtImpl final : public CublasXt {
 public:
  ~CublasXtImpl() override {
    if (handle_) (void)cublasXtDestroy(handle_);
  }
  Status init(const std::vector<int>& devices, int block_dim) {
    TILEKIT_XT_TRY(cublasXtCreate(&handle_));
    std::vector<int> ids = devices;
    TILEKIT_XT_TRY(cublasXtDeviceSelect(handle_, static_cast<int>(ids.size()), ids.data()));
    TILEKIT_XT_TRY(cublasXtSetBlockDim(handle_, block_dim));
    return Status::ok();
  }
  Status sgemm(const GemmProblem& p) override {
    if (p.types != GemmTypes{})
      return not_supported("cuBLASXt baseline: f32 only, the call is " + describe(p.types));
    // cuBLAS is column-major: a row-major C = op(A)·op(B) is the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ.
    const bool row = p.layout == Layout::kRowMajor;
    const float alpha = p.alpha, beta = p.beta;
    TILEKIT_XT_TRY(cublasXtSgemm(
        handle_, to_cublas(row ? p.op_b : p.op_a), to_cublas(row ? p.op_a : p.op_b),
        static_cast<size_t>(row ? p.n : p.m), static_cast<size_t>(row ? p.m : p.n),
        static_cast<size_t>(p.k), &alpha, static_cast<const float*>(row ? p.b : p.a),
        static_cast<size_t>(row ? p.ldb : p.lda), static_cast<const float*>(row ? p.a : p.b),
        static_cast<size_t>(row ? p.lda : p.ldb), &beta, static_cast<float*>(p.c),
        static_cast<size_t>(p.ldc)));
    return Status::ok();
  }

 private:
  cublasXtHandle_t handle_ = nullptr;
};

}  // namespace

Status CublasXt::create(const std::vector<int>& devices, int block_dim,
                        std::unique_ptr<CublasXt>* out) {
  auto impl = std::make_unique<CublasXtImpl>();
  TILEKIT_RETURN_IF_ERROR(impl->init(devices, block_dim));
  *out = std::move(impl);
  return Status::ok();
}

}  // namespace tilekit::dist
