// cmd_list.cpp — `tilekit list [GLOB]`: the registered kernels.
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "core/schedules/schedules.hpp"

namespace tilekit::cli {
namespace {

// "sm_80+", "sm_90" (sm_90a code runs there only) or "sm_80…sm_90"; empty when any GPU will do.
std::string sm_range(const KernelInfo& i) {
  if (!i.min_sm && !i.max_sm) return "";
  if (i.min_sm == i.max_sm) return "sm_" + std::to_string(i.min_sm);
  if (!i.max_sm) return "sm_" + std::to_string(i.min_sm) + "+";
  return (i.min_sm ? "sm_" + std::to_string(i.min_sm) : std::string("any")) + "…sm_" +
         std::to_string(i.max_sm);
}

// "nearest" or "faithful" (KernelInfo::input_rounding); "-" where the mode rounds no input, so
// that a column of "nearest" does not suggest f32 kernels round anything.
const char* rounding_text(const KernelInfo& i) {
  return rounds_inputs(i) ? input_rounding_name(i.input_rounding) : "-";
}

// The role column: "reference", "baseline" or "tilekit".
const char* role_text(const KernelInfo& i) {
  return i.is_reference ? "reference" : i.is_baseline ? "baseline" : "tilekit";
}

// One JSON array: each kernel's id, former ids, step, role and structured tiling (what the
// autotuner's tile model reads, its schedule by the name of its module in src/core/schedules/),
// and with a GPU, the blocks of each GEMM kernel that the model counts on one SM of GPU 0 (null
// without one).
void print_json(const std::vector<Registry::Entry>& kernels) {
  DeviceInfo device;
  const bool gpu = cuda_device_count() > 0 && query_device(0, &device);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : kernels) {
    const KernelInfo& i = *k.info;
    const TileDesc& t = i.tiling;
    nlohmann::json blocks_per_sm = nullptr;
    if (gpu && i.backend == Backend::kCuda && i.op == "gemm")
      blocks_per_sm = tile_model_blocks_per_sm(i.id, device);
    out.push_back({{"id", i.id},
                   {"aliases", i.aliases},
                   {"step", i.step},
                   {"role", role_text(i)},
                   {"tiling",
                    {{"block_m", t.block_m}, {"block_n", t.block_n}, {"block_k", t.block_k},
                     {"threads", t.threads}, {"stages", t.stages}, {"split_k", t.split_k},
                     {"max_split_k", t.max_split_k}, {"chosen_at_run_time", t.chosen_at_run_time},
                     {"schedule", schedule_name(t.schedule)}}},
                   {"blocks_per_sm", blocks_per_sm}});
  }
  std::cout << out.dump(1) << "\n";
}

// "former id -> id", one line per alias: what an old --kernel argument, script or tune table
// now resolves to.
void print_aliases(const std::vector<Registry::Entry>& kernels) {
  for (const auto& k : kernels)
    for (const std::string& a : k.info->aliases) std::cout << a << " -> " << k.info->id << "\n";
}

int run_list(const std::string& glob, bool json, bool aliases) {
  const auto kernels = Registry::instance().match_any(glob);
  if (kernels.empty()) {
    std::cerr << "tilekit: no kernel matches '" << glob << "'\n";
    return kExitUsage;
  }
  if (aliases && !json) {
    print_aliases(kernels);
    return kExitOk;
  }
  if (json) {
    print_json(kernels);
    return kExitOk;
  }
  const bool gpu = cuda_device_count() > 0;
  size_t w = 2, tile_w = 4;
  for (const auto& k : kernels) {
    w = std::max(w, k.info->id.size());
    tile_w = std::max(tile_w, k.info->tile.size());
  }
  // As wide as the longest tile text: a long one must not run into the requirements.
  const int tile_col = static_cast<int>(tile_w) + 2;
  std::cout << std::left << std::setw(static_cast<int>(w)) << "id"
            << "  " << std::setw(5) << "step" << std::setw(10) << "role" << std::setw(tile_col)
            << "tile" << std::setw(10) << "rounding";
  if (gpu) std::cout << std::setw(6) << "regs" << std::setw(11) << "smem B";
  std::cout << "requirements\n";
  for (const auto& k : kernels) {
    const KernelInfo& i = *k.info;
    std::cout << std::left << std::setw(static_cast<int>(w)) << i.id << "  " << std::setw(5)
              << i.step << std::setw(10) << role_text(i) << std::setw(tile_col)
              << (i.tile.empty() ? "-" : i.tile) << std::setw(10) << rounding_text(i);
    if (gpu) {
      KernelResources r;
      if (i.backend == Backend::kCuda && *k.resources && (*k.resources)(&r) && r.available) {
        std::cout << std::setw(6) << r.registers_per_thread << std::setw(11)
                  << r.static_smem_bytes + r.dynamic_smem_bytes;
      } else {
        std::cout << std::setw(6) << "-" << std::setw(11) << "-";
      }
    }
    std::cout << i.requirements;
    if (const std::string sms = sm_range(i); !sms.empty()) std::cout << "; " << sms;
    std::cout << "\n";
  }
  if (gpu) {
    std::cout << "regs / smem: per thread / per block, from cudaFuncGetAttributes; '-' for library kernels.\n";
    for (const auto& k : kernels) {
      std::string notes;
      if (k.info->backend == Backend::kCuda && *k.launch_notes && (*k.launch_notes)(&notes))
        std::cout << k.info->id << ": " << notes << "\n";
    }
  }
  return kExitOk;
}

}  // namespace

void add_list_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("list", "List the registered kernels");
  auto glob = std::make_shared<std::string>("*");
  cmd->add_option("glob", *glob, "shell-style pattern on kernel ids, e.g. 'gemm.cuda.*'")
      ->capture_default_str();
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json,
                "one JSON array: id, step, role, the structured tiling and (on a GPU) blocks per SM");
  auto aliases = std::make_shared<bool>(false);
  cmd->add_flag("--aliases", *aliases,
                "the former ids that still resolve, one 'former -> id' line each (with --json: "
                "each kernel's 'aliases' field)");
  cmd->callback([exit_code, glob, json, aliases] {
    *exit_code = run_list(*glob, *json, *aliases);
  });
}

}  // namespace tilekit::cli
