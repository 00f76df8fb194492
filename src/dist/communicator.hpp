// communicator.hpp — one rank's view of a group of ranks: what the distributed GEMM needs from
// NCCL and CUDA, and nothing more (internal).
//
// The schedule (schedule.cpp) is written against this interface only, so that the partitioning,
// the order of transfers and GEMMs, and the fault handling are tested without a GPU: the NCCL
// implementation (nccl_communicator.cpp) is the product; tests/dist/ has a double made of threads
// and host memory.
//
// Two lanes of work per rank, each in order: kTransfer (packing and collectives) and kCompute
// (uploads, GEMMs, downloads). Calls that enqueue return at once on a GPU; signal/wait order the
// lanes; finish() waits for both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/status.hpp"

namespace tilekit::dist {

enum class Lane { kCompute, kTransfer };
enum class CopyKind { kLocal, kHostToLocal, kLocalToHost };

// Points of a call the implementation timestamps (CUDA events on a GPU).
enum class Mark { kStart, kUploaded, kTransferStart, kTransferEnd, kComputeStart, kComputeEnd,
                  kDownloaded, kCount };

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int device() const = 0;  // for messages and stats

  // Blocking: every rank passes the same number of values; `all` receives every rank's, in
  // rank order. Bounded by the timeout. (NCCL: through host memory when this process drives
  // every rank, dist::HostExchange; else one small all-gather.)
  virtual Status exchange(const std::vector<int64_t>& mine, std::vector<int64_t>* all) = 0;

  // Enqueued on kTransfer: `bytes` at `buffer` on `root` are copied into `buffer` on every rank.
  virtual Status broadcast(void* buffer, size_t bytes, int root) = 0;
  // Collectives between group_begin and group_end run together (ncclGroupStart/End: one launch,
  // every link direction busy at once); they are enqueued at group_end. Every rank groups the
  // same collectives. Implementations whose collectives complete one by one may ignore groups.
  virtual Status group_begin() { return Status::ok(); }
  virtual Status group_end() { return Status::ok(); }
  // Enqueued on kTransfer: rank r's `bytes` at buffer + r·bytes are copied to the same place on
  // every rank (an all-gather in place: `buffer` ends up holding every rank's piece).
  virtual Status all_gather(void* buffer, size_t bytes) = 0;

  // Memory of this rank (device memory on a GPU), freed with release() after finish().
  virtual Status allocate(size_t bytes, const char* what, void** out) = 0;
  virtual void release(void* ptr) = 0;

  // Where the implementation can keep the replica of the travelling operand in memory that its
  // all-gathers fill without SMs (NCCL: a window registered for symmetric collectives on a
  // zero-CTA communicator, whose all-gathers run on the copy engines), replica_in_window() is
  // true and the schedule takes the replica from window() instead of allocate(). window() may
  // be collective: every rank calls it after the agreement, with the same bytes. It keeps the
  // buffer for later calls (grown when too small); *out is null for 0 bytes.
  virtual bool replica_in_window() const { return false; }
  virtual Status window(size_t bytes, void** out) {
    (void)bytes;
    *out = nullptr;
    return Status(StatusCode::kInternal, "this communicator has no window for the replica");
  }
  // After window(): true when the all-gathers into it hold no SMs, so the GEMMs beside them
  // need no Context::sm_limit (broadcasts still use SMs).
  virtual bool all_gathers_free_sms() const { return false; }

  // Enqueued on `lane`: `lines` lines of `line_bytes`, `src_pitch` / `dst_pitch` bytes apart.
  virtual Status copy_2d(Lane lane, CopyKind kind, void* dst, size_t dst_pitch, const void* src,
                         size_t src_pitch, size_t line_bytes, size_t lines) = 0;

  // Work enqueued on `lane` after wait(lane, tag) starts only after what the other lane had
  // enqueued before signal(other, tag).
  virtual Status signal(Lane lane, int tag) = 0;
  virtual Status wait(Lane lane, int tag) = 0;
  virtual Status mark(Lane lane, Mark point) = 0;
  // Milliseconds between two marks of the last finished call (0 when one was not recorded).
  virtual double elapsed_ms(Mark from, Mark to) = 0;

  // The context tilekit's gemm runs in: its work lands on kCompute.
  virtual const Context& compute_context() = 0;
  // SMs the GEMMs may use while collectives run beside them (Context::sm_limit): the device's
  // SMs less those the collectives may hold; 0 when that is not bounded (no limit then).
  virtual int gemm_sm_limit() const { return 0; }

  // Waits until both lanes have drained, at most the timeout. On a timeout or an error reported
  // by the collectives, aborts the communicator (peers then fail too instead of hanging) and
  // says what happened.
  virtual Status finish() = 0;
  // Ends the communicator now: after a local failure, so that peers do not wait for this rank.
  virtual void abort() = 0;
  virtual bool aborted() const = 0;
  // Starts ending the communicator without waiting (ncclCommFinalize): a context calls it on all
  // its ranks before destroying any, since ranks of one process may need each other to finish.
  virtual void begin_shutdown() {}
};

}  // namespace tilekit::dist
