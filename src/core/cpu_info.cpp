// cpu_info.cpp — what CPU this is, and the CPU libraries' versions (for benchmark records).
#include <omp.h>

#include <fstream>
#include <thread>

#include "tilekit/device.hpp"

namespace tilekit {

CpuInfo query_cpu() {
  CpuInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) info.model = line.substr(colon + 2);
      break;
    }
  }
  if (info.model.empty()) info.model = "unknown CPU";
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  info.omp_max_threads = omp_get_max_threads();
  return info;
}

}  // namespace tilekit
