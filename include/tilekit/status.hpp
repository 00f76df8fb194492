// status.hpp — the one error type of tilekit.
//
// Every library call that can fail returns a [[nodiscard]] Status. A Status names what failed
// (the argument, the file, the CUDA or cuBLAS call) and keeps the underlying error code, so the
// CLI and tests can print one line that says exactly what went wrong. The library never throws
// and never calls exit().
#pragma once

#include <string>
#include <utility>

namespace tilekit {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // a caller's argument breaks a rule (named in the message)
  kNotSupported,     // valid request this build / kernel / device cannot serve
  kIoError,          // the system could not open, read or write a file (a malformed file is
                     // kInvalidArgument: the caller's input breaks a rule)
  kCudaError,        // a CUDA runtime call or kernel launch failed (code kept)
  kCublasError,      // a cuBLAS call failed (code kept)
  kVerificationFailed,
  kCancelled,        // the user interrupted long work
  kOutOfMemory,      // a host or device allocation failed or can never fit (size named)
  kInternal,
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, int backend_code = 0)
      : code_(code), message_(std::move(message)), backend_code_(backend_code) {}

  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // cudaError_t or cublasStatus_t value for kCudaError / kCublasError, else 0.
  int backend_code() const { return backend_code_; }
  // "invalid argument: gemm: lda = 3 must be >= 4 ..." — one line, for humans.
  std::string to_string() const;

  // Explicitly discards a status where ignoring it is the intended behaviour.
  void ignore() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  int backend_code_ = 0;
};

inline Status invalid_argument(std::string msg) {
  return Status(StatusCode::kInvalidArgument, std::move(msg));
}
inline Status not_supported(std::string msg) {
  return Status(StatusCode::kNotSupported, std::move(msg));
}
inline Status io_error(std::string msg) { return Status(StatusCode::kIoError, std::move(msg)); }
inline Status out_of_memory(std::string msg) {
  return Status(StatusCode::kOutOfMemory, std::move(msg));
}

}  // namespace tilekit

// Returns early from the enclosing function when `expr` yields a failed Status.
#define TILEKIT_RETURN_IF_ERROR(expr)            \
  do {                                           \
    ::tilekit::Status tilekit_status_ = (expr);  \
    if (!tilekit_status_.is_ok()) return tilekit_status_; \
  } while (0)
