// workspace.hpp — the per-context pool that kernels' workspaces come from (internal).
#pragma once

#include <cstddef>

#include "tilekit/registry.hpp"

namespace tilekit {

// One buffer per context, grown to the largest request seen and kept: after the first call of
// a shape, a kernel's workspace costs no allocation. Growing waits for the work already queued
// on the context's stream (which may still use the old buffer) before freeing it.
class WorkspacePool {
 public:
  WorkspacePool() = default;
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;
  ~WorkspacePool();

  // A workspace of at least `bytes` on ctx's backend and device.
  Status acquire(const Context& ctx, size_t bytes, Workspace* out);
  size_t capacity() const { return bytes_; }

 private:
  void free_buffer();

  Context owner_;  // the backend, device and stream the buffer belongs to
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace tilekit
