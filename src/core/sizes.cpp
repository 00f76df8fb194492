// sizes.cpp — byte formatting and the host-memory limit for tilekit/sizes.hpp.
#include "tilekit/sizes.hpp"

#include <unistd.h>

#include <cstdio>

namespace tilekit {

std::string human_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 6) {
    bytes /= 1000.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.3g %s", bytes, kUnits[unit]);
  return text;
}

Status check_host_allocation(size_t bytes, const std::string& what) {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return Status::ok();  // unknown: let the allocator decide
  const double physical = static_cast<double>(pages) * static_cast<double>(page_size);
  if (static_cast<double>(bytes) <= physical) return Status::ok();
  return out_of_memory(what + " needs " + human_bytes(static_cast<double>(bytes)) +
                       ", more than this machine's " + human_bytes(physical) + " of memory");
}

}  // namespace tilekit
