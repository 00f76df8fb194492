// workspace.cpp — the per-context workspace pool.
#include "core/workspace.hpp"

#include "core/backend.hpp"

namespace tilekit {

WorkspacePool& Context::workspace_pool() const {
  if (!pool_) pool_ = std::make_shared<WorkspacePool>();
  return *pool_;
}

WorkspacePool::~WorkspacePool() { free_buffer(); }

void WorkspacePool::free_buffer() {
  if (data_) backend_ops(owner_.backend).release(owner_, data_);
  data_ = nullptr;
  bytes_ = 0;
}

Status WorkspacePool::acquire(const Context& ctx, size_t bytes, Workspace* out) {
  *out = Workspace{};
  if (bytes == 0) return Status::ok();
  const bool same_place = ctx.backend == owner_.backend && ctx.device == owner_.device;
  if (!same_place || bytes > bytes_) {
    free_buffer();
    TILEKIT_RETURN_IF_ERROR(backend_ops(ctx.backend).allocate(ctx, bytes, &data_));
    bytes_ = bytes;
    owner_ = Context{ctx.backend, ctx.device, ctx.stream, 0, {}};
  }
  owner_.stream = ctx.stream;  // a later release waits for the stream last used
  *out = Workspace{data_, bytes_};
  return Status::ok();
}

}  // namespace tilekit
