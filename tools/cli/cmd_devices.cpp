// cmd_devices.cpp — `tilekit devices`: the GPUs and the CPU this process can use.
#include <iomanip>
#include <iostream>

#include "cli_common.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit::cli {
namespace {

// The multi-GPU GEMM's transfers go over these links (docs/multigpu.md): one line per GPU.
Status print_peer_links(int count) {
  std::vector<PeerLink> links;
  TILEKIT_RETURN_IF_ERROR(query_peer_links(&links));
  std::cout << "Peer-to-peer (cudaDeviceCanAccessPeer, cudaDeviceGetP2PAttribute; native atomics "
               "usually mean NVLink), NCCL "
            << (built_with_nccl() ? "built in" : "not built in") << ":\n";
  for (int from = 0; from < count; ++from) {
    std::cout << "  GPU " << from << " ->";
    for (const PeerLink& l : links)
      if (l.from == from)
        std::cout << "  GPU " << l.to << ": "
                  << (l.access ? "p2p rank " + std::to_string(l.performance_rank) +
                                     (l.native_atomics ? ", atomics" : ", no atomics")
                               : std::string("no p2p"));
    std::cout << "\n";
  }
  return Status::ok();
}

int run_devices() {
  const int count = cuda_device_count();
  if (!built_with_cuda()) {
    std::cout << "GPU: none (this tilekit was built without CUDA)\n";
  } else if (count == 0) {
    std::cout << "GPU: none found (CUDA driver " << cuda_driver_version_string()
              << "); the CPU backend will be used\n";
  }
  for (int i = 0; i < count; ++i) {
    DeviceInfo d;
    Status s = query_device(i, &d);
    if (!s) return fail(s);
    std::cout << "GPU " << i << ": " << d.name << "\n"
              << "  compute capability  " << d.cc_major << "." << d.cc_minor << " (sm_"
              << d.sm_version() << ")\n"
              << "  multiprocessors     " << d.sm_count << "\n"
              << "  SM clock (max)      " << d.sm_clock_khz / 1000 << " MHz\n"
              << "  memory clock (max)  " << d.memory_clock_khz / 1000 << " MHz, "
              << d.memory_bus_width_bits << "-bit bus, " << std::fixed << std::setprecision(0)
              << d.peak_dram_gbps() << " GB/s theoretical\n"
              << "  memory              " << std::setprecision(1)
              << static_cast<double>(d.global_memory_bytes) / (1 << 30) << " GiB\n"
              << "  L2 cache            " << d.l2_cache_bytes / (1 << 20) << " MiB\n"
              << "  shared memory       " << d.smem_per_sm_bytes / 1024 << " KiB per SM, "
              << d.smem_per_block_optin_bytes / 1024 << " KiB per block (opt-in)\n"
              << "  registers           " << d.regs_per_sm << " per SM; max "
              << d.max_threads_per_sm << " threads, " << d.max_blocks_per_sm
              << " blocks per SM\n"
              << "  CUDA                runtime " << cuda_runtime_version_string() << ", driver "
              << cuda_driver_version_string() << ", cuBLAS " << cublas_version_string() << "\n"
              << std::defaultfloat;
  }
  if (count >= 2) {
    Status s = print_peer_links(count);
    if (!s) return fail(s);
  }
  const CpuInfo cpu = query_cpu();
  std::cout << "CPU: " << cpu.model << "\n"
            << "  logical cores       " << cpu.logical_cores << "\n"
            << "  OpenMP threads      " << cpu.omp_max_threads << "\n"
            << "  OpenBLAS            " << openblas_config_string() << "\n";
  return kExitOk;
}

}  // namespace

void add_devices_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("devices", "Show the GPUs (or say there are none) and the CPU");
  cmd->callback([exit_code] { *exit_code = run_devices(); });
}

}  // namespace tilekit::cli
