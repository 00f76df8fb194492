// gpu_path.cpp — SGEMM on a GPU for operands in host memory, device memory, or both.
//
// Host operands are the case NVBLAS serves, and moving them costs more than multiplying them
// (n = 4096: 192 MB over PCIe against 2.7 ms of FP32 GEMM on an H200), so the design is about
// the copies:
//   - every operand crosses once: A whole, then B and C in column panels of C; the GEMM of panel
//     j runs as soon as its B (and C, when beta != 0) panel has arrived, while the next panels
//     are copied in and the finished ones copied out (three streams: h2d, compute, d2h);
//   - pageable memory is copied into pinned staging slots by all host threads (OpenMP) and sent
//     from there with cudaMemcpyAsync: a pageable cudaMemcpy goes through the driver's own
//     single-threaded bounce buffer, which is what bounds NVBLAS here;
//   - page-locked operands (cudaHostAlloc / cudaHostRegister) skip the staging copy;
//   - the slots, streams, events and the device copies of A, B and C are kept between calls
//     (grow-only), so a program calling sgemm_ in a loop pays allocation and pinning once.
// Operands CUDA reports as device (or managed) memory are used in place.
#include <cuda_runtime_api.h>
#include <omp.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "blas/config.hpp"
#include "blas/sgemm_call.hpp"
#include "cuda/common/cuda_check.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit::blas {
namespace {

#ifndef TILEKIT_BLAS_SLOT_FLOATS  // the fake-CUDA test makes slots tiny to exercise chunking
#define TILEKIT_BLAS_SLOT_FLOATS (size_t{4} << 20)
#endif
constexpr size_t kSlotFloats = TILEKIT_BLAS_SLOT_FLOATS;  // 16 MiB per staging slot
constexpr int kSlots = 4;                          // per direction
constexpr size_t kParallelBytes = size_t{1} << 20;  // below this one thread copies

#ifndef TILEKIT_BLAS_STREAM_BYTES  // the fake-CUDA test sets 0, so every copy takes this path
#define TILEKIT_BLAS_STREAM_BYTES (size_t{64} << 10)
#endif

// memcpy for the staging copies. From this size up it uses non-temporal stores: the data is for
// the DMA engine (or the caller) and not read back soon, and plain stores would first read every
// destination line into the cache (1.5× the memory traffic; a single-thread 16 MiB copy measured
// 8.7 GB/s with memcpy against 13.4 GB/s streamed on the project's machine).
void stage_copy(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
  if (bytes >= TILEKIT_BLAS_STREAM_BYTES) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    const size_t head = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
    const size_t lead = head < bytes ? head : bytes;
    std::memcpy(d, s, lead);
    size_t i = lead;
    for (; i + 64 <= bytes; i += 64) {
      const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), x0);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), x1);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), x2);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), x3);
    }
    std::memcpy(d + i, s + i, bytes - i);
    _mm_sfence();  // the streamed stores are visible before the copy engine is told to read
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

// dst (rows × cols, compact) <- src (rows × cols, leading dimension ld), or the reverse with
// `to_strided`; columns spread over the OpenMP threads when there is enough to copy.
void copy_block(float* compact, float* strided, int64_t ld, int64_t rows, int64_t cols,
                bool to_strided) {
  const size_t col_bytes = static_cast<size_t>(rows) * sizeof(float);
  const bool parallel = col_bytes * static_cast<size_t>(cols) >= kParallelBytes;
  if (ld == rows || cols == 1) {  // one contiguous run: split it into equal pieces
    const size_t total = col_bytes * static_cast<size_t>(cols);
    const int pieces = parallel ? omp_get_max_threads() : 1;
    char* c = reinterpret_cast<char*>(compact);
    char* s = reinterpret_cast<char*>(strided);
#pragma omp parallel for schedule(static) if (parallel)
    for (int p = 0; p < pieces; ++p) {
      const size_t lo = total * static_cast<size_t>(p) / static_cast<size_t>(pieces);
      const size_t hi = total * static_cast<size_t>(p + 1) / static_cast<size_t>(pieces);
      if (to_strided) stage_copy(s + lo, c + lo, hi - lo);
      else stage_copy(c + lo, s + lo, hi - lo);
    }
    return;
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t j = 0; j < cols; ++j) {
    if (to_strided) stage_copy(strided + j * ld, compact + j * rows, col_bytes);
    else stage_copy(compact + j * rows, strided + j * ld, col_bytes);
  }
}

// Makes `device` current for the call and restores the caller's device on every return.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    status_ = cudaSetDevice(device);
  }
  ~DeviceScope() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  cudaError_t status() const { return status_; }

 private:
  int previous_ = -1;
  cudaError_t status_ = cudaSuccess;
};

// A finished panel's columns waiting to come back to host memory.
struct Download {
  float* host;          // first column of the panel's chunk in the caller's C
  int64_t ldc;
  int64_t rows, cols;
  const float* device;  // the same chunk, compact (rows × cols)
  cudaEvent_t after;    // the panel's GEMM
};

// One GPU's reusable state. All members are touched under `mutex` only.
class Stager {
 public:
  explicit Stager(int device) : device_(device) {}
  std::mutex mutex;

  // The pipeline; after a failure nothing it queued is left running.
  Status run(const SgemmCall& call, const Residency& where, std::string* note, bool* c_written) {
    Status s = run_pipeline(call, where, note, c_written);
    if (!s) abandon();
    return s;
  }

 private:
  Status run_pipeline(const SgemmCall& call, const Residency& where, std::string* note,
                      bool* c_written);
  Status prepare(const SgemmCall& call, const Residency& where, const float** a, int64_t* lda);
  Status run_panels(const SgemmCall& call, const Residency& where, const float* a, int64_t lda,
                    std::string* kernel_note, size_t* panels);
  Status init();
  Status ensure_slots(size_t floats);
  Status reserve(float** ptr, size_t* capacity, size_t floats);
  Status upload(const float* src, int64_t ld, int64_t rows, int64_t cols, float* dst,
                bool pinned);
  Status gemm_panel(const SgemmCall& call, const float* a, int64_t lda, const float* b,
                    int64_t ldb, float* c, int64_t ldc, int64_t cols, std::string* kernel_note);
  Status queue_download(float* host, int64_t ldc, int64_t rows, int64_t cols, const float* dev,
                        bool pinned, cudaEvent_t after);
  Status pump_downloads(bool block);
  Status panel_event(size_t index, cudaEvent_t* out);
  void abandon();

  const int device_;
  bool ready_ = false;
  cudaStream_t h2d_ = nullptr, compute_ = nullptr, d2h_ = nullptr;
  cudaEvent_t a_ready_ = nullptr, panel_ready_ = nullptr;
  std::vector<cudaEvent_t> panel_done_;
  float* up_[kSlots] = {};
  float* down_[kSlots] = {};
  cudaEvent_t up_free_[kSlots] = {}, down_done_[kSlots] = {};
  size_t slot_floats_ = 0;
  int next_up_ = 0;
  float *d_a_ = nullptr, *d_b_ = nullptr, *d_c_ = nullptr;
  size_t cap_a_ = 0, cap_b_ = 0, cap_c_ = 0;
  Context ctx_;
  // Downloads not yet given a slot, and those in flight (slot index, what it holds).
  std::deque<Download> pending_;
  std::deque<std::pair<int, Download>> in_flight_;
  bool free_down_[kSlots] = {};
  bool* c_written_ = nullptr;
};

Status Stager::init() {
  if (ready_) return Status::ok();
  // Ordinary (blocking) streams: work the caller queued on the legacy default stream — writing
  // a device operand, say — completes before ours starts.
  TILEKIT_CUDA_TRY(cudaStreamCreate(&h2d_));
  TILEKIT_CUDA_TRY(cudaStreamCreate(&compute_));
  TILEKIT_CUDA_TRY(cudaStreamCreate(&d2h_));
  TILEKIT_CUDA_TRY(cudaEventCreateWithFlags(&a_ready_, cudaEventDisableTiming));
  TILEKIT_CUDA_TRY(cudaEventCreateWithFlags(&panel_ready_, cudaEventDisableTiming));
  for (int s = 0; s < kSlots; ++s) {
    TILEKIT_CUDA_TRY(cudaEventCreateWithFlags(&up_free_[s], cudaEventDisableTiming));
    TILEKIT_CUDA_TRY(cudaEventCreateWithFlags(&down_done_[s], cudaEventDisableTiming));
  }
#ifdef TILEKIT_BLAS_FAKE_CUDA  // tests/blas/fake_cuda: "device" memory is host memory
  ctx_ = Context::cpu(1);
#else
  ctx_ = Context::cuda(device_, compute_);
#endif
  ready_ = true;
  return Status::ok();
}

// Pinned slots of at least `floats` each (a whole column must fit in one).
Status Stager::ensure_slots(size_t floats) {
  floats = std::max(floats, kSlotFloats);
  if (floats <= slot_floats_) return Status::ok();
  TILEKIT_CUDA_TRY(cudaDeviceSynchronize());  // nothing may still read or fill the old slots
  for (int s = 0; s < kSlots; ++s) {
    if (up_[s]) TILEKIT_CUDA_TRY(cudaFreeHost(up_[s]));
    if (down_[s]) TILEKIT_CUDA_TRY(cudaFreeHost(down_[s]));
    up_[s] = down_[s] = nullptr;
  }
  slot_floats_ = 0;
  for (int s = 0; s < kSlots; ++s) {
    TILEKIT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&up_[s]), floats * sizeof(float),
                                   cudaHostAllocDefault));
    TILEKIT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&down_[s]), floats * sizeof(float),
                                   cudaHostAllocDefault));
  }
  slot_floats_ = floats;
  return Status::ok();
}

// Device memory for `floats` floats, grown when needed and kept.
Status Stager::reserve(float** ptr, size_t* capacity, size_t floats) {
  if (floats <= *capacity) return Status::ok();
  if (*ptr) TILEKIT_CUDA_TRY(cudaFree(*ptr));  // cudaFree waits for work using it
  *ptr = nullptr;
  *capacity = 0;
  const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(ptr), floats * sizeof(float));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return out_of_memory("tilekit_blas: cudaMalloc of " + std::to_string(floats * sizeof(float)) +
                         " bytes for an operand failed on GPU " + std::to_string(device_) + ": " +
                         cudaGetErrorString(e));
  }
  *capacity = floats;
  return Status::ok();
}

// rows × cols of src (leading dimension ld) to dst, compact (leading dimension rows), on h2d_.
Status Stager::upload(const float* src, int64_t ld, int64_t rows, int64_t cols, float* dst,
                      bool pinned) {
  if (rows == 0 || cols == 0) return Status::ok();
  const size_t width = static_cast<size_t>(rows) * sizeof(float);
  if (pinned) {  // DMA straight from the caller's page-locked memory
    TILEKIT_CUDA_TRY(cudaMemcpy2DAsync(dst, width, src, static_cast<size_t>(ld) * sizeof(float),
                                       width, static_cast<size_t>(cols), cudaMemcpyHostToDevice,
                                       h2d_));
    return Status::ok();
  }
  const int64_t chunk = std::max<int64_t>(1, static_cast<int64_t>(slot_floats_) / rows);
  for (int64_t c0 = 0; c0 < cols; c0 += chunk) {
    const int64_t w = std::min(chunk, cols - c0);
    const int s = next_up_;
    next_up_ = (next_up_ + 1) % kSlots;
    TILEKIT_CUDA_TRY(cudaEventSynchronize(up_free_[s]));  // its previous copy has left
    copy_block(up_[s], const_cast<float*>(src + c0 * ld), ld, rows, w, false);
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(dst + c0 * rows, up_[s], width * static_cast<size_t>(w),
                                     cudaMemcpyHostToDevice, h2d_));
    TILEKIT_CUDA_TRY(cudaEventRecord(up_free_[s], h2d_));
    TILEKIT_RETURN_IF_ERROR(pump_downloads(false));  // keep results flowing back meanwhile
  }
  return Status::ok();
}

Status Stager::panel_event(size_t index, cudaEvent_t* out) {
  while (panel_done_.size() <= index) {
    cudaEvent_t e = nullptr;
    TILEKIT_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    panel_done_.push_back(e);
  }
  *out = panel_done_[index];
  return Status::ok();
}

// C[:, panel] on compute_, with the kernel TILEKIT_BLAS_GPU_KERNEL names (default: tilekit's
// selector, which may fall back to cuBLAS where no own kernel serves the compute mode).
Status Stager::gemm_panel(const SgemmCall& call, const float* a, int64_t lda, const float* b,
                          int64_t ldb, float* c, int64_t ldc, int64_t cols,
                          std::string* kernel_note) {
  GemmTypes types;
  types.compute = config().compute;
  GemmOptions options;
  options.kernel = config().gpu_kernel;
  options.allow_vendor = true;
  Status s = gemm_ex(ctx_, Layout::kColMajor, call.op_a, call.op_b, call.m, cols, call.k, types,
                     call.alpha, a, lda, b, ldb, call.beta, c, ldc, options);
  if (!s && s.code() == StatusCode::kNotSupported && options.kernel != "auto") {
    *kernel_note = "auto (" + options.kernel + " refused: " + s.message() + ")";
    options.kernel = "auto";
    s = gemm_ex(ctx_, Layout::kColMajor, call.op_a, call.op_b, call.m, cols, call.k, types,
                call.alpha, a, lda, b, ldb, call.beta, c, ldc, options);
  }
  return s;
}

// A finished panel (rows × cols compact at dev) goes back to the caller's C: straight into
// page-locked memory, else through the download slots (pump_downloads).
Status Stager::queue_download(float* host, int64_t ldc, int64_t rows, int64_t cols,
                              const float* dev, bool pinned, cudaEvent_t after) {
  const size_t width = static_cast<size_t>(rows) * sizeof(float);
  if (pinned) {
    TILEKIT_CUDA_TRY(cudaStreamWaitEvent(d2h_, after, 0));
    TILEKIT_CUDA_TRY(cudaMemcpy2DAsync(host, static_cast<size_t>(ldc) * sizeof(float), dev,
                                       width, width, static_cast<size_t>(cols),
                                       cudaMemcpyDeviceToHost, d2h_));
    *c_written_ = true;
    return Status::ok();
  }
  const int64_t chunk = std::max<int64_t>(1, static_cast<int64_t>(slot_floats_) / rows);
  for (int64_t c0 = 0; c0 < cols; c0 += chunk)
    pending_.push_back(Download{host + c0 * ldc, ldc, rows, std::min(chunk, cols - c0),
                                dev + c0 * rows, after});
  return pump_downloads(false);
}

// Unpacks the downloads that have arrived (the oldest first; with `block`, waits for the
// oldest), then gives free slots to waiting downloads.
Status Stager::pump_downloads(bool block) {
  while (!in_flight_.empty()) {
    auto& [slot, d] = in_flight_.front();
    if (block) {
      TILEKIT_CUDA_TRY(cudaEventSynchronize(down_done_[slot]));
    } else {
      const cudaError_t q = cudaEventQuery(down_done_[slot]);
      if (q == cudaErrorNotReady) {
        // Not an error; clear it only if the runtime kept it as the last error.
        if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
        break;
      }
      TILEKIT_CUDA_TRY(q);
    }
    *c_written_ = true;
    copy_block(down_[slot], d.host, d.ldc, d.rows, d.cols, true);
    free_down_[slot] = true;
    in_flight_.pop_front();
    block = false;  // one wait per call; the loop in run() calls again
  }
  for (int s = 0; s < kSlots && !pending_.empty(); ++s) {
    if (!free_down_[s]) continue;
    const Download d = pending_.front();
    pending_.pop_front();
    TILEKIT_CUDA_TRY(cudaStreamWaitEvent(d2h_, d.after, 0));
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(down_[s], d.device,
                                     static_cast<size_t>(d.rows * d.cols) * sizeof(float),
                                     cudaMemcpyDeviceToHost, d2h_));
    TILEKIT_CUDA_TRY(cudaEventRecord(down_done_[s], d2h_));
    free_down_[s] = false;
    in_flight_.emplace_back(s, d);
  }
  return Status::ok();
}

// After a failure: nothing queued may touch the caller's memory or the slots later.
void Stager::abandon() {
  for (cudaStream_t s : {h2d_, compute_, d2h_})
    if (s) (void)cudaStreamSynchronize(s);
  (void)cudaGetLastError();
  pending_.clear();
  in_flight_.clear();
  for (bool& f : free_down_) f = true;
}

// Panels of C columns: about 8 per call so copies and GEMMs overlap, wide enough (>= 256
// columns, a multiple of 128) that each GEMM keeps the GPU busy.
int64_t panel_width(int64_t n) {
  const int64_t target = (n + 7) / 8;
  return std::min(n, std::max<int64_t>(256, (target + 127) / 128 * 128));
}

Status Stager::run_pipeline(const SgemmCall& call, const Residency& where, std::string* note,
                            bool* c_written) {
  c_written_ = c_written;
  *c_written = false;
  const DeviceScope scope(device_);
  if (scope.status() != cudaSuccess)
    return cuda::error_status(scope.status(), "cudaSetDevice", __FILE__, __LINE__);
  TILEKIT_RETURN_IF_ERROR(init());
  for (bool& f : free_down_) f = true;
  std::string kernel_note = config().gpu_kernel;
  *note = "gpu:" + std::to_string(device_) + " (A " + (where.a_on_device ? "resident" : "staged") +
          ", B " + (where.b_on_device ? "resident" : "staged") + ", C " +
          (where.c_on_device ? "resident" : "staged");

  if (call.alpha == 0.0f || call.k == 0) {  // C resident: only C = beta·C, done where C lives
    *c_written = true;
    TILEKIT_RETURN_IF_ERROR(gemm_panel(call, call.a, call.lda, call.b, call.ldb, call.c,
                                       call.ldc, call.n, &kernel_note));
    TILEKIT_CUDA_TRY(cudaStreamSynchronize(compute_));
    *note += ", scaled)";
    return Status::ok();
  }
  const float* a = nullptr;
  int64_t lda = 0;
  TILEKIT_RETURN_IF_ERROR(prepare(call, where, &a, &lda));
  size_t panels = 0;
  TILEKIT_RETURN_IF_ERROR(run_panels(call, where, a, lda, &kernel_note, &panels));
  *note += ", " + std::to_string(panels) + " panel(s), kernel " + kernel_note + ")";
  return Status::ok();
}

// Slots and device memory for this call, then A on its way; *a / *lda: A on the device.
Status Stager::prepare(const SgemmCall& call, const Residency& where, const float** a,
                       int64_t* lda) {
  const int64_t m = call.m, n = call.n, k = call.k;
  // Slots wide enough for one column of every staged block.
  const int64_t b_rows = call.op_b == Op::kN ? k : std::min(n, panel_width(n));
  TILEKIT_RETURN_IF_ERROR(ensure_slots(static_cast<size_t>(std::max({call.rows_a(), b_rows, m}))));
  // Device memory before any upload: growing it frees the old buffers, which waits for the GPU.
  if (!where.a_on_device) TILEKIT_RETURN_IF_ERROR(reserve(&d_a_, &cap_a_, static_cast<size_t>(m * k)));
  if (!where.b_on_device) TILEKIT_RETURN_IF_ERROR(reserve(&d_b_, &cap_b_, static_cast<size_t>(k * n)));
  if (!where.c_on_device) TILEKIT_RETURN_IF_ERROR(reserve(&d_c_, &cap_c_, static_cast<size_t>(m * n)));
  *a = call.a;
  *lda = call.lda;
  if (!where.a_on_device) {
    TILEKIT_RETURN_IF_ERROR(upload(call.a, call.lda, call.rows_a(), call.cols_a(), d_a_,
                                   where.a_pinned));
    *a = d_a_;
    *lda = call.rows_a();
  }
  TILEKIT_CUDA_TRY(cudaEventRecord(a_ready_, h2d_));
  TILEKIT_CUDA_TRY(cudaStreamWaitEvent(compute_, a_ready_, 0));
  return Status::ok();
}

// Panel by panel: its B (and C) in, its GEMM, its C out; then waits for the last of C.
Status Stager::run_panels(const SgemmCall& call, const Residency& where, const float* a,
                          int64_t lda, std::string* kernel_note, size_t* panels) {
  const int64_t m = call.m, n = call.n, k = call.k;
  const int64_t nb = (where.b_on_device && where.c_on_device) ? n : panel_width(n);
  for (int64_t j0 = 0; j0 < n; j0 += nb, ++*panels) {
    const int64_t w = std::min(nb, n - j0);
    const float* b = nullptr;
    int64_t ldb = 0;
    if (where.b_on_device) {
      b = call.op_b == Op::kN ? call.b + j0 * call.ldb : call.b + j0;
      ldb = call.ldb;
    } else {  // the panel's part of B, compact: k × w (B as stored) or w × k (B transposed)
      b = d_b_ + j0 * k;
      const bool by_columns = call.op_b == Op::kN;
      ldb = by_columns ? k : w;
      TILEKIT_RETURN_IF_ERROR(upload(by_columns ? call.b + j0 * call.ldb : call.b + j0, call.ldb,
                                     by_columns ? k : w, by_columns ? w : k, d_b_ + j0 * k,
                                     where.b_pinned));
    }
    float* c = where.c_on_device ? call.c + j0 * call.ldc : d_c_ + j0 * m;
    const int64_t ldc = where.c_on_device ? call.ldc : m;
    if (!where.c_on_device && call.beta != 0.0f)  // beta = 0 never reads C
      TILEKIT_RETURN_IF_ERROR(upload(call.c + j0 * call.ldc, call.ldc, m, w, c, where.c_pinned));
    TILEKIT_CUDA_TRY(cudaEventRecord(panel_ready_, h2d_));
    TILEKIT_CUDA_TRY(cudaStreamWaitEvent(compute_, panel_ready_, 0));
    if (where.c_on_device) *c_written_ = true;
    TILEKIT_RETURN_IF_ERROR(gemm_panel(call, a, lda, b, ldb, c, ldc, w, kernel_note));
    if (!where.c_on_device) {
      cudaEvent_t done = nullptr;
      TILEKIT_RETURN_IF_ERROR(panel_event(*panels, &done));
      TILEKIT_CUDA_TRY(cudaEventRecord(done, compute_));
      TILEKIT_RETURN_IF_ERROR(queue_download(call.c + j0 * call.ldc, call.ldc, m, w, c,
                                             where.c_pinned, done));
    }
  }
  while (!pending_.empty() || !in_flight_.empty()) TILEKIT_RETURN_IF_ERROR(pump_downloads(true));
  TILEKIT_CUDA_TRY(cudaStreamSynchronize(compute_));
  TILEKIT_CUDA_TRY(cudaStreamSynchronize(d2h_));
  return Status::ok();
}

// One stager per GPU, created on first use and never destroyed: at process exit the CUDA
// runtime may be torn down before static destructors run, and freeing then would fail; the
// driver reclaims everything anyway.
Stager& stager_for(int device) {
  static std::mutex mutex;
  static auto* stagers = new std::map<int, std::unique_ptr<Stager>>();
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*stagers)[device];
  if (!slot) slot = std::make_unique<Stager>(device);
  return *slot;
}

// Device (or managed) memory: true, with its device. Page-locked host memory sets *pinned.
bool on_device(const void* p, int* device, bool* pinned) {
  if (!p) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // older runtimes call an unknown host pointer an error
    return false;
  }
  if (attr.type == cudaMemoryTypeHost) *pinned = true;
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) return false;
  *device = attr.device;
  return true;
}

}  // namespace

int gpu_count() {
  static const int count = cuda_device_count();
  return count;
}

Residency query_residency(const SgemmCall& call) {
  Residency r;
  int dev[3] = {-1, -1, -1};
  r.a_on_device = on_device(call.a, &dev[0], &r.a_pinned);
  r.b_on_device = on_device(call.b, &dev[1], &r.b_pinned);
  r.c_on_device = on_device(call.c, &dev[2], &r.c_pinned);
  for (int d : dev) {
    if (d < 0) continue;
    if (r.device >= 0 && r.device != d) r.mixed_devices = true;
    if (r.device < 0) r.device = d;
  }
  return r;
}

Status run_on_gpu(const SgemmCall& call, const Residency& where, int device, std::string* note,
                  bool* c_written) {
  *c_written = false;
  if (where.mixed_devices)
    return not_supported("tilekit_blas: A, B and C live on different GPUs");
  Stager& stager = stager_for(device);
  const std::lock_guard<std::mutex> lock(stager.mutex);  // one call at a time per GPU
  return stager.run(call, where, note, c_written);
}

}  // namespace tilekit::blas
