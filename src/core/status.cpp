#include "tilekit/status.hpp"

namespace tilekit {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kCudaError: return "CUDA error";
    case StatusCode::kCublasError: return "cuBLAS error";
    case StatusCode::kVerificationFailed: return "verification failed";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

}  // namespace tilekit
