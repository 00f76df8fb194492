// cmd_inspect.cpp — `tilekit inspect [GLOB]`: each CUDA kernel's resources and occupancy (GPU).
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "tilekit/occupancy.hpp"

namespace tilekit::cli {
namespace {

int run_inspect(const std::string& glob) {
  if (cuda_device_count() == 0)
    return fail(Status(StatusCode::kNotSupported,
                       "inspect reads kernel attributes from a GPU and none is present; "
                       "`tilekit occupancy --arch sm_90 --threads T --regs R --smem S` works "
                       "without one, and without the CUDA toolkit"));
  DeviceInfo d;
  Status s = query_device(0, &d);
  if (!s) return fail(s);
  const ArchProperties arch = architecture_of(d);
  const auto kernels = Registry::instance().match_any(glob);
  size_t w = 6;
  for (const auto& k : kernels) w = std::max(w, k.info->id.size());
  std::cout << d.name << " (" << arch.name << ", " << arch.sm_count << " SMs)\n"
            << std::left << std::setw(static_cast<int>(w)) << "kernel" << std::right
            << std::setw(6) << "regs" << std::setw(9) << "smem B" << std::setw(9) << "dyn B"
            << std::setw(8) << "local" << std::setw(8) << "maxTPB" << std::setw(8) << "block"
            << std::setw(8) << "blk/SM" << std::setw(8) << "occ" << "  limiter            "
            << "API block\n";
  int shown = 0;
  for (const auto& k : kernels) {
    if (k.info->backend != Backend::kCuda) continue;
    KernelResources r;
    if (!*k.resources) {
      std::cout << std::left << std::setw(static_cast<int>(w)) << k.info->id << std::right
                << "  (library kernel: resources not visible)\n";
      continue;
    }
    if (!(s = (*k.resources)(&r))) return fail(s);
    OccupancyQuery q;
    q.threads = r.block_threads;
    q.regs = r.registers_per_thread;
    q.smem = r.static_smem_bytes;
    q.dyn_smem = r.dynamic_smem_bytes;
    OccupancyResult o;
    if (!(s = compute_occupancy(arch, q, &o))) return fail(s);
    int api_block = 0, min_grid = 0;
    if (!(s = suggest_block_size(arch, q.regs, q.smem, q.dyn_smem, r.max_threads_per_block,
                                 &api_block, &min_grid)))
      return fail(s);
    std::string limiter;
    for (const auto& l : o.limiters) limiter += (limiter.empty() ? "" : ",") + l;
    std::ostringstream occ;
    occ << std::fixed << std::setprecision(0) << 100 * o.occupancy << "%";
    std::cout << std::left << std::setw(static_cast<int>(w)) << k.info->id << std::right
              << std::setw(6) << r.registers_per_thread << std::setw(9) << r.static_smem_bytes
              << std::setw(9) << r.dynamic_smem_bytes << std::setw(8) << r.local_bytes_per_thread
              << std::setw(8) << r.max_threads_per_block << std::setw(8) << r.block_threads
              << std::setw(8) << o.blocks_per_sm << std::setw(8) << occ.str() << "  "
              << std::left << std::setw(19) << limiter << std::right << api_block << "\n";
    ++shown;
  }
  std::cout << "regs, smem, local (spill bytes/thread), maxTPB: cudaFuncGetAttributes; block: the "
               "kernel's own launch configuration;\nblk/SM, occ, limiter: tilekit's occupancy "
               "calculator (`tilekit occupancy`) at that configuration; API block: the block "
               "size NVIDIA's launch configurator would pick.\n";
  if (shown == 0 && kernels.empty()) {
    std::cerr << "tilekit: no kernel matches '" << glob << "'\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, int* exit_code) {
  auto glob = std::make_shared<std::string>("*.cuda.*");
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Registers, shared memory, spills and occupancy of each CUDA kernel (GPU)");
  cmd->add_option("glob", *glob, "kernel ids to show")->capture_default_str();
  cmd->callback([exit_code, glob] { *exit_code = run_inspect(*glob); });
}

}  // namespace tilekit::cli
