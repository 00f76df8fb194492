// device_none.cpp — the CUDA half of device.hpp in a build without CUDA: everything reports
// plainly that this build has no GPU support.
#include "tilekit/device.hpp"

namespace tilekit {
namespace {

Status no_cuda(const char* what) {
  return not_supported(std::string(what) +
                       ": tilekit was built without CUDA (configure with -DTILEKIT_CUDA=ON)");
}

}  // namespace

bool built_with_cuda() { return false; }
int cuda_device_count() { return 0; }
Status query_device(int, DeviceInfo*) { return no_cuda("query_device"); }
std::string cuda_runtime_version_string() { return "none"; }
std::string cuda_driver_version_string() { return "none"; }
std::string cublas_version_string() { return "none"; }
Status device_malloc(void** ptr, size_t, const char*) {
  *ptr = nullptr;
  return no_cuda("device_malloc");
}
Status device_malloc_on(int, void** ptr, size_t, const char*) {
  *ptr = nullptr;
  return no_cuda("device_malloc");
}
Status device_free(void* ptr) { return ptr ? no_cuda("device_free") : Status::ok(); }
Status copy_host_to_device(void*, const void*, size_t, CUstream_st*) {
  return no_cuda("copy_host_to_device");
}
Status copy_device_to_host(void*, const void*, size_t, CUstream_st*) {
  return no_cuda("copy_device_to_host");
}
Status device_memset(void*, int, size_t, CUstream_st*) { return no_cuda("device_memset"); }
Status check_device_allocation(int, size_t, const std::string&) {
  return no_cuda("check_device_allocation");
}
Status device_synchronize(const Context& ctx) {
  return ctx.backend == Backend::kCpu ? Status::ok() : no_cuda("device_synchronize");
}

}  // namespace tilekit
