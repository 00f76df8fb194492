// nccl_communicator.cpp — the product's Communicator: NCCL collectives and CUDA streams, with
// every wait bounded (nonblocking communicators polled with ncclCommGetAsyncError; a timeout
// ends the communicator with ncclCommAbort), and the DistributedContext factories.
//
// NVLink multicast (NVLS) stays off: every factory sets NCCL_NVLS_ENABLE=0 before the first
// communicator unless the user has set it, and nothing here calls cuMulticastCreate.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "cuda/common/cuda_check.hpp"
#include "dist/context_impl.hpp"
#include "dist/host_exchange.hpp"

namespace tilekit {
namespace dist {
namespace {

using Clock = std::chrono::steady_clock;

// NCCL 2.28 runs an all-gather on the copy engines when the communicator has the zero-CTA
// policy and both buffers lie in windows registered for symmetric collectives.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
constexpr bool kNcclCopyEngines = true;
#else
constexpr bool kNcclCopyEngines = false;
#endif

Status nccl_error(ncclResult_t r, const std::string& call, const std::string& who) {
  return Status(StatusCode::kInternal,
                who + ": " + call + " failed: " + ncclGetErrorString(r) + " (NCCL error " +
                    std::to_string(static_cast<int>(r)) + ")",
                static_cast<int>(r));
}

// NCCL reads its environment when the first communicator is made. Once per process: setenv is
// not thread-safe, and ranks may join from several threads at once.
void keep_nvls_off() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); });
}

class NcclCommunicator final : public Communicator {
 public:
  // `host_exchange`: shared by the ranks of this process when it drives them all (create()); the
  // agreements go through NCCL when it is null.
  NcclCommunicator(ncclComm_t comm, bool owned, int rank, int size, int device,
                   const DistributedConfig& config, std::shared_ptr<HostExchange> host_exchange)
      : comm_(comm), owned_(owned), rank_(rank), size_(size), device_(device),
        host_exchange_(std::move(host_exchange)),
        timeout_(std::chrono::duration<double>(config.timeout_s)),
        nccl_max_ctas_(config.nccl_max_ctas),
        // A wrapped communicator's CTA policy is its maker's: no copy engines promised there.
        copy_engines_(kNcclCopyEngines && owned && config.copy_engines) {}

  ~NcclCommunicator() override {
    // Errors cannot be reported from a destructor; a failed teardown leaks at worst.
    (void)cudaSetDevice(device_);
    if (owned_ && comm_ && !aborted_) {
      // Nonblocking communicators finalize asynchronously; one that does not, is aborted.
      begin_shutdown();
      if (finalize_started_ && wait_ready()) (void)ncclCommDestroy(comm_);
      else (void)ncclCommAbort(comm_);
    }
    free_window();
    for (cudaEvent_t e : tags_) (void)cudaEventDestroy(e);
    for (cudaEvent_t e : marks_) if (e) (void)cudaEventDestroy(e);
    if (exchange_buffer_) (void)cudaFree(exchange_buffer_);
    for (KeptBuffer& k : kept_) (void)cudaFree(k.ptr);
    // The context's workspace pool frees its buffer after a cudaStreamSynchronize on compute_:
    // it goes first (the member would outlive the stream, and a freed stream crashes there).
    context_ = Context{};
    if (compute_) (void)cudaStreamDestroy(compute_);
    if (transfer_) (void)cudaStreamDestroy(transfer_);
  }

  Status init() {
    TILEKIT_CUDA_TRY(cudaSetDevice(device_));
    // Non-blocking streams: the legacy default stream must not serialize the two lanes.
    TILEKIT_CUDA_TRY(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    // The transfer lane at the highest priority: NCCL's kernels need SMs, and when the GEMMs'
    // blocks fill the GPU the block scheduler gives a freed SM to the higher-priority stream's
    // waiting blocks first; at equal priority a collective can wait behind a whole GEMM's blocks
    // while its peer waits for it.
    int least = 0, greatest = 0;
    TILEKIT_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TILEKIT_CUDA_TRY(cudaStreamCreateWithPriority(&transfer_, cudaStreamNonBlocking, greatest));
    for (cudaEvent_t& e : marks_) TILEKIT_CUDA_TRY(cudaEventCreate(&e));
    context_ = Context::cuda(device_, compute_);
    int sms = 0;
    TILEKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
    // A wrapped communicator may have been made with more CTAs than ours: then no limit is known.
    if (owned_ && nccl_max_ctas_ > 0 && nccl_max_ctas_ < sms) gemm_sm_limit_ = sms - nccl_max_ctas_;
    return Status::ok();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int device() const override { return device_; }

  Status exchange(const std::vector<int64_t>& mine, std::vector<int64_t>* all) override {
    TILEKIT_RETURN_IF_ERROR(usable());
    if (host_exchange_) {
      Status s = host_exchange_->exchange(rank_, mine, all);
      if (!s) abort();  // out of step with the peers: as a failed NCCL agreement
      return s;
    }
    TILEKIT_CUDA_TRY(cudaSetDevice(device_));
    const size_t count = mine.size();
    const size_t bytes = count * (static_cast<size_t>(size_) + 1) * sizeof(int64_t);
    if (bytes > exchange_bytes_) {
      if (exchange_buffer_) TILEKIT_CUDA_TRY(cudaFree(exchange_buffer_));
      exchange_buffer_ = nullptr;
      TILEKIT_CUDA_TRY(cudaMalloc(&exchange_buffer_, bytes));
      exchange_bytes_ = bytes;
    }
    int64_t* send = static_cast<int64_t*>(exchange_buffer_);
    int64_t* recv = send + count;
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(send, mine.data(), count * sizeof(int64_t),
                                     cudaMemcpyHostToDevice, transfer_));
    TILEKIT_RETURN_IF_ERROR(
        enqueued(ncclAllGather(send, recv, count, ncclInt64, comm_, transfer_), "ncclAllGather"));
    all->assign(count * size_, 0);
    TILEKIT_CUDA_TRY(cudaMemcpyAsync(all->data(), recv, all->size() * sizeof(int64_t),
                                     cudaMemcpyDeviceToHost, transfer_));
    return drain({transfer_}, "the agreement between ranks (ncclAllGather)");
  }

  Status broadcast(void* buffer, size_t bytes, int root) override {
    TILEKIT_RETURN_IF_ERROR(usable());
    TILEKIT_CUDA_TRY(cudaSetDevice(device_));
    return enqueued(ncclBroadcast(buffer, buffer, bytes, ncclChar, root, comm_, transfer_),
                    "ncclBroadcast of " + std::to_string(bytes) + " bytes from rank " +
                        std::to_string(root));
  }

  Status all_gather(void* buffer, size_t bytes) override {
    TILEKIT_RETURN_IF_ERROR(usable());
    TILEKIT_CUDA_TRY(cudaSetDevice(device_));
    char* base = static_cast<char*>(buffer);
    // In place: this rank's piece already lies at its slot of the output.
    return enqueued(ncclAllGather(base + static_cast<size_t>(rank_) * bytes, base, bytes, ncclChar,
                                  comm_, transfer_),
                    "ncclAllGather of " + std::to_string(bytes) + " bytes per rank");
  }

  Status group_begin() override {
    TILEKIT_RETURN_IF_ERROR(usable());
    const ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess) return nccl_error(r, "ncclGroupStart", who());
    return Status::ok();
  }
  Status group_end() override {
    // Nonblocking communicator: ncclGroupEnd may answer ncclInProgress; enqueued() polls.
    return enqueued(ncclGroupEnd(), "ncclGroupEnd of a round of broadcasts");
  }

  // Buffers are kept for the next call (grown, never shrunk, freed with the context), as a
  // Context's workspace pool is: a cudaMalloc and cudaFree of the whole travelling operand in
  // every call would cost milliseconds and a device synchronization inside the timed call.
  Status allocate(size_t bytes, const char* what, void** out) override {
    size_t best = kept_.size();
    for (size_t i = 0; i < kept_.size(); ++i)
      if (!kept_[i].in_use && kept_[i].bytes >= bytes &&
          (best == kept_.size() || kept_[i].bytes < kept_[best].bytes))
        best = i;
    if (best == kept_.size()) {
      void* p = nullptr;
      Status s = device_malloc_on(device_, &p, bytes, what);
      if (!s) {
        drop_idle_buffers();  // room for this one, then try once more
        TILEKIT_RETURN_IF_ERROR(device_malloc_on(device_, &p, bytes, what));
      }
      best = kept_.size();  // (drop_idle_buffers may have shortened the list)
      kept_.push_back({p, bytes, false});
    }
    kept_[best].in_use = true;
    *out = kept_[best].ptr;
    return Status::ok();
  }
  void release(void* ptr) override {
    for (KeptBuffer& k : kept_)
      if (k.ptr == ptr) k.in_use = false;
  }

  bool replica_in_window() const override { return copy_engines_; }

  // Every rank arrives here after the agreement with the same bytes and the same history of
  // calls, so every rank grows (and registers, a collective) together.
  Status window(size_t bytes, void** out) override {
    *out = nullptr;
    if (bytes == 0) return Status::ok();
    if (bytes > window_bytes_) {
      TILEKIT_RETURN_IF_ERROR(usable());
      TILEKIT_CUDA_TRY(cudaSetDevice(device_));
      deregister_window();
      free_window();
      const std::string what = std::to_string(bytes) + " bytes for the replica of the travelling operand";
      void* p = nullptr;
      const ncclResult_t r = ncclMemAlloc(&p, bytes);
      if (r != ncclSuccess) return nccl_error(r, "ncclMemAlloc of " + what, who());
      window_ptr_ = p;
      window_bytes_ = bytes;
      TILEKIT_RETURN_IF_ERROR(register_window(what));
    }
    *out = window_ptr_;
    return Status::ok();
  }
  // NCCL leaves the window unset where the GPUs lack symmetric memory: kernels move the data.
  bool all_gathers_free_sms() const override { return window_ != nullptr; }

  Status copy_2d(Lane lane, CopyKind, void* dst, size_t dst_pitch, const void* src,
                 size_t src_pitch, size_t line_bytes, size_t lines) override {
    TILEKIT_CUDA_TRY(cudaSetDevice(device_));
    // Unified addressing tells host from device memory: cudaMemcpyDefault serves every kind.
    TILEKIT_CUDA_TRY(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, line_bytes, lines,
                                       cudaMemcpyDefault, stream(lane)));
    return Status::ok();
  }

  Status signal(Lane lane, int tag) override {
    TILEKIT_CUDA_TRY(cudaSetDevice(device_));
    while (tags_.size() <= static_cast<size_t>(tag)) {
      cudaEvent_t e = nullptr;
      TILEKIT_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      tags_.push_back(e);
    }
    TILEKIT_CUDA_TRY(cudaEventRecord(tags_[tag], stream(lane)));
    return Status::ok();
  }
  Status wait(Lane lane, int tag) override {
    if (tag < 0 || static_cast<size_t>(tag) >= tags_.size())
      return Status(StatusCode::kInternal, who() + ": wait for panel " + std::to_string(tag) +
                                               " that was never signalled");
    TILEKIT_CUDA_TRY(cudaStreamWaitEvent(stream(lane), tags_[tag], 0));
    return Status::ok();
  }
  Status mark(Lane lane, Mark point) override {
    const size_t i = static_cast<size_t>(point);
    if (point == Mark::kStart) recorded_.fill(false);
    TILEKIT_CUDA_TRY(cudaEventRecord(marks_[i], stream(lane)));
    recorded_[i] = true;
    return Status::ok();
  }
  double elapsed_ms(Mark from, Mark to) override {
    const size_t a = static_cast<size_t>(from), b = static_cast<size_t>(to);
    float ms = 0;
    if (!recorded_[a] || !recorded_[b] || cudaEventElapsedTime(&ms, marks_[a], marks_[b]) != cudaSuccess)
      return 0.0;
    return ms;
  }

  const Context& compute_context() override { return context_; }
  int gemm_sm_limit() const override { return gemm_sm_limit_; }

  Status finish() override {
    TILEKIT_RETURN_IF_ERROR(usable());
    return drain({transfer_, compute_}, "the transfers and GEMMs of this rank");
  }

  void abort() override {
    if (host_exchange_) host_exchange_->abandon();  // peers waiting to agree fail at once
    if (aborted_ || !comm_) return;
    (void)cudaSetDevice(device_);
    (void)ncclCommAbort(comm_);  // wrapped communicators too: a peer may wait on it
    aborted_ = true;
  }
  bool aborted() const override { return aborted_; }

  void begin_shutdown() override {
    if (!owned_ || !comm_ || aborted_ || shutdown_begun_) return;
    shutdown_begun_ = true;
    (void)cudaSetDevice(device_);
    deregister_window();  // before the communicator ends; the memory goes with the object
    const ncclResult_t f = ncclCommFinalize(comm_);
    finalize_started_ = f == ncclSuccess || f == ncclInProgress;
  }

  // Polls until the communicator has finished its last (nonblocking) call.
  bool wait_ready() {
    const auto deadline = Clock::now() + timeout_;
    ncclResult_t state = ncclInProgress;
    while (ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state == ncclInProgress) {
      if (Clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return state == ncclSuccess;
  }

 private:
  struct KeptBuffer {
    void* ptr;
    size_t bytes;
    bool in_use;
  };

  void drop_idle_buffers() {
    (void)cudaSetDevice(device_);
    for (auto it = kept_.begin(); it != kept_.end();) {
      if (it->in_use) {
        ++it;
        continue;
      }
      (void)cudaFree(it->ptr);
      it = kept_.erase(it);
    }
  }

  cudaStream_t stream(Lane lane) const { return lane == Lane::kCompute ? compute_ : transfer_; }

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  Status register_window(const std::string& what) {
    const std::string call = "ncclCommWindowRegister of " + what;
    TILEKIT_RETURN_IF_ERROR(enqueued(ncclCommWindowRegister(comm_, window_ptr_, window_bytes_,
                                                            &window_, NCCL_WIN_COLL_SYMMETRIC),
                                     call));
    // On a nonblocking communicator it may answer ncclSuccess while the registration (a
    // collective among the ranks) still runs; the next collective would then be refused.
    return settled(call);
  }
  // Local (not collective); skipped once the communicator is aborted.
  void deregister_window() {
    if (window_ && comm_ && !aborted_) (void)ncclCommWindowDeregister(comm_, window_);
    window_ = nullptr;
  }
  void free_window() {
    if (window_ptr_) (void)ncclMemFree(window_ptr_);
    window_ptr_ = nullptr;
    window_bytes_ = 0;
  }
#else
  Status register_window(const std::string&) { return Status::ok(); }
  void deregister_window() {}
  void free_window() {}
#endif

  std::string who() const {
    return "gemm_distributed: rank " + std::to_string(rank_) + " (GPU " + std::to_string(device_) +
           ")";
  }

  Status usable() const {
    if (aborted_)
      return Status(StatusCode::kInternal,
                    who() + ": the communicator was aborted by an earlier failure; create a new "
                            "DistributedContext");
    return Status::ok();
  }

  // A nonblocking communicator may answer ncclInProgress: poll until the call is enqueued.
  Status enqueued(ncclResult_t r, const std::string& call) {
    if (r == ncclInProgress) return settled(call);
    if (r != ncclSuccess) {
      abort();
      return nccl_error(r, call, who());
    }
    return Status::ok();
  }

  // Polls until the communicator's last call has finished, bounded by the timeout.
  Status settled(const std::string& call) {
    const auto deadline = Clock::now() + timeout_;
    ncclResult_t state = ncclInProgress;
    while (true) {
      const ncclResult_t q = ncclCommGetAsyncError(comm_, &state);
      if (q != ncclSuccess) state = q;
      if (state != ncclInProgress) break;
      if (Clock::now() > deadline) {
        abort();
        return timed_out(call);
      }
      std::this_thread::yield();
    }
    if (state != ncclSuccess) {
      abort();
      return nccl_error(state, call, who());
    }
    return Status::ok();
  }

  Status timed_out(const std::string& what) const {
    return Status(StatusCode::kInternal,
                  who() + ": " + what + " did not finish within " +
                      std::to_string(static_cast<int>(timeout_.count())) +
                      " s (a rank failed, stopped, or called differently?); the communicator was "
                      "aborted (ncclCommAbort)");
  }

  // Waits for `streams` to drain, watching the communicator for errors; bounded by the timeout.
  Status drain(std::initializer_list<cudaStream_t> streams, const std::string& what) {
    const auto deadline = Clock::now() + timeout_;
    while (true) {
      bool done = true;
      for (cudaStream_t s : streams) {
        const cudaError_t q = cudaStreamQuery(s);
        if (q == cudaErrorNotReady) {
          done = false;
        } else if (q != cudaSuccess) {
          abort();
          return cuda::error_status(q, "cudaStreamQuery", __FILE__, __LINE__);
        }
      }
      ncclResult_t state = ncclSuccess;
      const ncclResult_t q = ncclCommGetAsyncError(comm_, &state);
      if (q != ncclSuccess || (state != ncclSuccess && state != ncclInProgress)) {
        abort();
        return nccl_error(q != ncclSuccess ? q : state, "a collective (ncclCommGetAsyncError)",
                          who());
      }
      if (done) return Status::ok();
      if (Clock::now() > deadline) {
        abort();
        return timed_out(what);
      }
      std::this_thread::yield();
    }
  }

  ncclComm_t comm_ = nullptr;
  bool owned_ = true;
  int rank_ = 0, size_ = 1, device_ = 0;
  std::shared_ptr<HostExchange> host_exchange_;
  std::chrono::duration<double> timeout_;
  int nccl_max_ctas_ = 0, gemm_sm_limit_ = 0;
  bool aborted_ = false;
  bool shutdown_begun_ = false, finalize_started_ = false;
  cudaStream_t compute_ = nullptr, transfer_ = nullptr;
  Context context_;
  std::vector<cudaEvent_t> tags_;
  std::array<cudaEvent_t, static_cast<size_t>(Mark::kCount)> marks_{};
  std::array<bool, static_cast<size_t>(Mark::kCount)> recorded_{};
  void* exchange_buffer_ = nullptr;
  size_t exchange_bytes_ = 0;
  std::vector<KeptBuffer> kept_;
  // The replica's window (copy_engines_): ncclMemAlloc'd, registered, kept between calls.
  bool copy_engines_ = false;
  void* window_ptr_ = nullptr;
  size_t window_bytes_ = 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  ncclWindow_t window_ = nullptr;
#else
  void* window_ = nullptr;
#endif
};

// Waits for nonblocking communicators being made; aborts them all on an error or the timeout.
Status wait_initialized(std::vector<ncclComm_t>& comms, double timeout_s, const std::string& who) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (ncclComm_t c : comms) {
    ncclResult_t state = ncclInProgress;
    while (true) {
      const ncclResult_t q = ncclCommGetAsyncError(c, &state);
      if (q != ncclSuccess) state = q;
      if (state != ncclInProgress) break;
      if (Clock::now() > deadline) {
        for (ncclComm_t a : comms) (void)ncclCommAbort(a);
        return Status(StatusCode::kInternal,
                      who + ": making the communicator did not finish within " +
                          std::to_string(static_cast<int>(timeout_s)) +
                          " s (did every rank join with the same id?); aborted");
      }
      std::this_thread::yield();
    }
    if (state != ncclSuccess) {
      for (ncclComm_t a : comms) (void)ncclCommAbort(a);
      return nccl_error(state, "ncclCommInitRankConfig", who);
    }
  }
  return Status::ok();
}

Status check_device(int device, const std::string& who) {
  const int count = cuda_device_count();
  if (device < 0 || device >= count)
    return invalid_argument(who + ": device " + std::to_string(device) +
                            " is missing: this machine has " + std::to_string(count) +
                            " CUDA device(s)" +
                            (count ? " (0.." + std::to_string(count - 1) + ")" : std::string()));
  return Status::ok();
}

Status wrap_all(std::vector<ncclComm_t>& comms, const std::vector<int>& ranks, int size,
                const std::vector<int>& devices, bool owned, const DistributedConfig& config,
                std::unique_ptr<DistributedContext>* out) {
  std::vector<std::unique_ptr<Communicator>> local;
  // Every rank in this process: the agreements meet in host memory.
  std::shared_ptr<HostExchange> host_exchange;
  if (size > 1 && comms.size() == static_cast<size_t>(size))
    host_exchange = std::make_shared<HostExchange>(
        size, std::chrono::duration<double>(config.timeout_s));
  for (size_t i = 0; i < comms.size(); ++i) {
    auto c = std::make_unique<NcclCommunicator>(comms[i], owned, ranks[i], size, devices[i], config,
                                                host_exchange);
    Status s = c->init();
    local.push_back(std::move(c));  // destroyed (and its communicator with it) on failure
    if (!s) return s;
  }
  *out = make_context(std::move(local), size, config);
  return Status::ok();
}

ncclConfig_t nonblocking_config(const DistributedConfig& dc) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // calls return at once; we poll, so a timeout can abort
  // Every SM NCCL holds is one the GEMMs beside it cannot use (DistributedConfig::nccl_max_ctas).
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 17, 0)
  if (dc.nccl_max_ctas > 0) config.maxCTAs = dc.nccl_max_ctas;
#else
  (void)dc;  // ncclConfig_t has no maxCTAs before NCCL 2.17 (NCCL_MAX_CTAS in the environment)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  // Zero CTAs wherever NCCL can: all-gathers into symmetric windows on the copy engines.
  if (dc.copy_engines) config.CTAPolicy = NCCL_CTA_POLICY_ZERO;
#endif
  return config;
}

constexpr char kHex[] = "0123456789abcdef";

Status decode_unique_id(const std::string& hex, ncclUniqueId* id) {
  if (hex.size() != 2 * sizeof(id->internal))
    return invalid_argument("DistributedContext::join: the unique id has " +
                            std::to_string(hex.size()) + " characters, expected " +
                            std::to_string(2 * sizeof(id->internal)) +
                            " hex digits (from new_unique_id)");
  auto digit = [](char c) -> int {
    const char* p = std::find(kHex, kHex + 16, static_cast<char>(std::tolower(c)));
    return p == kHex + 16 ? -1 : static_cast<int>(p - kHex);
  };
  for (size_t i = 0; i < sizeof(id->internal); ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return invalid_argument("DistributedContext::join: the unique id is not hex at character " +
                              std::to_string(2 * i));
    id->internal[i] = static_cast<char>(hi * 16 + lo);
  }
  return Status::ok();
}

}  // namespace
}  // namespace dist

bool built_with_nccl() { return true; }

Status new_unique_id(std::string* out) {
  dist::keep_nvls_off();
  ncclUniqueId id;
  const ncclResult_t r = ncclGetUniqueId(&id);
  if (r != ncclSuccess) return dist::nccl_error(r, "ncclGetUniqueId", "new_unique_id");
  out->clear();
  for (char c : id.internal) {
    const auto b = static_cast<unsigned char>(c);
    out->push_back(dist::kHex[b >> 4]);
    out->push_back(dist::kHex[b & 15]);
  }
  return Status::ok();
}

Status DistributedContext::create(const std::vector<int>& devices, const DistributedConfig& config,
                                  std::unique_ptr<DistributedContext>* out) {
  const std::string who = "DistributedContext::create";
  if (devices.empty()) return invalid_argument(who + ": the device list is empty");
  std::set<int> seen;
  for (int d : devices) {
    TILEKIT_RETURN_IF_ERROR(dist::check_device(d, who));
    if (!seen.insert(d).second)
      return invalid_argument(who + ": device " + std::to_string(d) + " is listed twice");
  }
  dist::keep_nvls_off();
  // ncclCommInitAll would do this in one call, but blocking: one id and a group of nonblocking
  // inits, one per device, can be aborted when a device fails to join.
  ncclUniqueId id;
  ncclResult_t r = ncclGetUniqueId(&id);
  if (r != ncclSuccess) return dist::nccl_error(r, "ncclGetUniqueId", who);
  const int size = static_cast<int>(devices.size());
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  ncclConfig_t cfg = dist::nonblocking_config(config);
  r = ncclGroupStart();
  if (r != ncclSuccess) return dist::nccl_error(r, "ncclGroupStart", who);
  for (int i = 0; i < size; ++i) {
    TILEKIT_CUDA_TRY(cudaSetDevice(devices[i]));
    r = ncclCommInitRankConfig(&comms[i], size, id, i, &cfg);
    if (r != ncclSuccess && r != ncclInProgress) {
      (void)ncclGroupEnd();
      return dist::nccl_error(r, "ncclCommInitRankConfig for device " + std::to_string(devices[i]),
                              who);
    }
  }
  r = ncclGroupEnd();
  if (r != ncclSuccess && r != ncclInProgress) return dist::nccl_error(r, "ncclGroupEnd", who);
  TILEKIT_RETURN_IF_ERROR(dist::wait_initialized(comms, config.timeout_s, who));
  std::vector<int> ranks(devices.size());
  for (int i = 0; i < size; ++i) ranks[i] = i;
  return dist::wrap_all(comms, ranks, size, devices, /*owned=*/true, config, out);
}

Status DistributedContext::join(const std::string& unique_id, int ranks, int rank, int device,
                                const DistributedConfig& config,
                                std::unique_ptr<DistributedContext>* out) {
  const std::string who = "DistributedContext::join";
  if (ranks < 1 || rank < 0 || rank >= ranks)
    return invalid_argument(who + ": rank " + std::to_string(rank) + " of " +
                            std::to_string(ranks) + " ranks is out of range");
  TILEKIT_RETURN_IF_ERROR(dist::check_device(device, who));
  ncclUniqueId id;
  TILEKIT_RETURN_IF_ERROR(dist::decode_unique_id(unique_id, &id));
  dist::keep_nvls_off();
  TILEKIT_CUDA_TRY(cudaSetDevice(device));
  std::vector<ncclComm_t> comms(1, nullptr);
  ncclConfig_t cfg = dist::nonblocking_config(config);
  const ncclResult_t r = ncclCommInitRankConfig(&comms[0], ranks, id, rank, &cfg);
  if (r != ncclSuccess && r != ncclInProgress)
    return dist::nccl_error(r, "ncclCommInitRankConfig", who);
  TILEKIT_RETURN_IF_ERROR(dist::wait_initialized(comms, config.timeout_s, who));
  return dist::wrap_all(comms, {rank}, ranks, {device}, /*owned=*/true, config, out);
}

Status DistributedContext::wrap(ncclComm* comm, int device, const DistributedConfig& config,
                                std::unique_ptr<DistributedContext>* out) {
  const std::string who = "DistributedContext::wrap";
  if (!comm) return invalid_argument(who + ": comm is null");
  TILEKIT_RETURN_IF_ERROR(dist::check_device(device, who));
  int size = 0, rank = 0;
  ncclResult_t r = ncclCommCount(comm, &size);
  if (r != ncclSuccess) return dist::nccl_error(r, "ncclCommCount", who);
  r = ncclCommUserRank(comm, &rank);
  if (r != ncclSuccess) return dist::nccl_error(r, "ncclCommUserRank", who);
  std::vector<ncclComm_t> comms{comm};
  return dist::wrap_all(comms, {rank}, size, {device}, /*owned=*/false, config, out);
}

}  // namespace tilekit
