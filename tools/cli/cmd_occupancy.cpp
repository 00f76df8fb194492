// cmd_occupancy.cpp — `tilekit occupancy`: theoretical occupancy for any architecture, no GPU needed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "core/output_file.hpp"
#include "tilekit/occupancy.hpp"

namespace tilekit::cli {
namespace {

struct OccupancyOptions {
  std::string arch;  // empty: the live GPU, if any
  int threads = 256;
  int regs = 32;
  long long smem = 0, dyn_smem = 0;
  int carveout = kCarveoutDefault;
  bool json = false;
  bool sweep = false;
  std::string plot;
};

std::string percent(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100 * v << "%";
  return s.str();
}

std::string limit_text(int v) { return v < 0 ? "no limit" : std::to_string(v); }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "-" : s;
}

Status resolve_arch(const std::string& name, ArchProperties* arch, bool* live) {
  *live = false;
  if (name.empty() || name == "device") {
    if (cuda_device_count() == 0)
      return invalid_argument(name.empty() ? "--arch is needed: no GPU is present to read"
                                           : "--arch device: no GPU is present");
    DeviceInfo d;
    TILEKIT_RETURN_IF_ERROR(query_device(0, &d));
    *arch = architecture_of(d);
    *live = true;
    return Status::ok();
  }
  return find_architecture(name, arch);
}

void print_one(const ArchProperties& a, const OccupancyQuery& q, const OccupancyResult& r,
               bool live) {
  std::cout << a.name << " (" << a.example << (live ? "" : ", from the Programming Guide table")
            << "; " << a.sm_count << " SMs, " << a.max_threads_per_sm << " threads, "
            << a.max_warps_per_sm() << " warps, " << a.regs_per_sm << " registers, "
            << a.smem_per_sm << " B shared memory per SM)\n"
            << "block: " << q.threads << " threads, " << q.regs << " registers/thread, "
            << q.smem << " B static + " << q.dyn_smem << " B dynamic shared memory"
            << (r.opted_in ? " (above 48 KB: counted as opted in)" : "")
            << (q.carveout_percent == kCarveoutDefault
                    ? ""
                    : "; carveout " + std::to_string(q.carveout_percent) + "%")
            << "\n\n";
  std::cout << "resident blocks per SM  " << r.blocks_per_sm << "\n"
            << "active warps per SM     " << r.warps_per_sm << " of " << a.max_warps_per_sm()
            << "\n"
            << "theoretical occupancy   " << percent(r.occupancy) << "\n"
            << "limited by              " << join(r.limiters) << "\n";
  if (r.blocks_per_sm == 0) std::cout << "cannot launch           " << r.why_zero << "\n";
  std::cout << "\nblocks per SM allowed by each resource:\n"
            << "  warps          " << std::setw(8) << limit_text(r.limit_warps) << "   ("
            << (q.threads + a.warp_size - 1) / a.warp_size << " warps per block, "
            << a.max_warps_per_sm() << " per SM)\n"
            << "  registers      " << std::setw(8) << limit_text(r.limit_registers) << "   ("
            << r.allocated_registers_per_block << " allocated per block, " << a.regs_per_sm
            << " per SM)\n"
            << "  shared memory  " << std::setw(8) << limit_text(r.limit_shared_memory) << "   ("
            << r.allocated_smem_per_block << " B allocated per block incl. "
            << a.reserved_smem_per_block << " B reserved, " << r.smem_config_per_sm
            << " B per SM)\n"
            << "  blocks         " << std::setw(8) << limit_text(r.limit_blocks)
            << "   (the architecture's cap)\n";
  if (r.limit_barriers >= 0)
    std::cout << "  barriers       " << std::setw(8) << limit_text(r.limit_barriers)
              << "   (" << a.barriers_per_sm << " block-barrier slots per SM, 1 per block)\n";
  std::cout << "\n";
  const long long num = r.device_active_blocks * q.threads;
  const long long den = static_cast<long long>(a.max_threads_per_sm) * a.sm_count;
  std::cout << "Sheffield: maxActiveBlocks·TPB / (maxThreadsPerSM·multiProcessorCount)\n"
            << "         = (" << r.blocks_per_sm << "·" << a.sm_count << ")·" << q.threads << " / ("
            << a.max_threads_per_sm << "·" << a.sm_count << ") = " << num << " / " << den << " = "
            << percent(den ? static_cast<double>(num) / static_cast<double>(den) : 0) << "\n";
}

nlohmann::json to_json(const ArchProperties& a, const OccupancyQuery& q, const OccupancyResult& r) {
  return {{"arch", a.name},
          {"threads", q.threads},
          {"regs", q.regs},
          {"smem", q.smem},
          {"dyn_smem", q.dyn_smem},
          {"blocks_per_sm", r.blocks_per_sm},
          {"warps_per_sm", r.warps_per_sm},
          {"max_warps_per_sm", a.max_warps_per_sm()},
          {"occupancy", r.occupancy},
          {"limiters", r.limiters},
          {"limit_warps", r.limit_warps},
          {"limit_registers", r.limit_registers},
          {"limit_shared_memory", r.limit_shared_memory},
          {"limit_blocks", r.limit_blocks},
          {"limit_barriers", r.limit_barriers},
          {"carveout", q.carveout_percent},
          {"smem_config_per_sm", r.smem_config_per_sm},
          {"opted_in", r.opted_in},
          {"why_zero", r.why_zero},
          {"sm_count", a.sm_count},
          {"device_active_blocks", r.device_active_blocks}};
}

// Runs scripts/plot_occupancy.py on a CSV of the sweep.
Status plot_sweep(const std::string& csv_text, const std::string& png, const std::string& title) {
  const std::string csv = png + ".csv";
  TILEKIT_RETURN_IF_ERROR(write_output_file(csv, csv_text, "the sweep for plotting,"));
  const std::string cmd = "python3 " + shell_quote(scripts_dir() + "/plot_occupancy.py") + " " +
                          shell_quote(csv) + " " + shell_quote(png) + " " + shell_quote(title);
  const int rc = std::system(cmd.c_str());
  std::remove(csv.c_str());
  if (rc != 0)
    return Status(StatusCode::kInternal,
                  "plotting failed (needs python3 with matplotlib: scripts/setup.sh installs it); "
                  "command: " + cmd);
  return Status::ok();
}

int run_occupancy(const OccupancyOptions& o) {
  ArchProperties arch;
  bool live = false;
  Status s = resolve_arch(o.arch, &arch, &live);
  if (!s) return fail(s);
  if (o.smem < 0 || o.dyn_smem < 0)
    return fail(invalid_argument("shared memory sizes must be >= 0"));
  OccupancyQuery q;
  q.threads = o.threads;
  q.regs = o.regs;
  q.smem = static_cast<size_t>(o.smem);
  q.dyn_smem = static_cast<size_t>(o.dyn_smem);
  q.carveout_percent = o.carveout;

  if (!o.sweep && o.plot.empty()) {
    OccupancyResult r;
    if (!(s = compute_occupancy(arch, q, &r))) return fail(s);
    if (o.json) {
      std::cout << to_json(arch, q, r).dump(2) << "\n";
    } else {
      print_one(arch, q, r, live);
    }
    return kExitOk;
  }

  // The spreadsheet's curve: block sizes 32..1024 in steps of 32, other inputs fixed.
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream csv;
  csv << "threads,blocks_per_sm,warps_per_sm,occupancy,limiters\n";
  if (o.sweep && !o.json)
    std::cout << arch.name << ", " << q.regs << " registers/thread, " << q.smem << " B static + "
              << q.dyn_smem << " B dynamic shared memory\n"
              << std::setw(8) << "threads" << std::setw(8) << "blocks" << std::setw(7) << "warps"
              << std::setw(11) << "occupancy" << "  limited by\n";
  for (int t = 32; t <= arch.max_threads_per_block; t += 32) {
    q.threads = t;
    OccupancyResult r;
    if (!(s = compute_occupancy(arch, q, &r))) return fail(s);
    csv << t << ',' << r.blocks_per_sm << ',' << r.warps_per_sm << ',' << r.occupancy << ",\""
        << join(r.limiters) << "\"\n";
    if (o.json) {
      rows.push_back(to_json(arch, q, r));
    } else if (o.sweep) {
      std::cout << std::setw(8) << t << std::setw(8) << r.blocks_per_sm << std::setw(7)
                << r.warps_per_sm << std::setw(11) << percent(r.occupancy) << "  "
                << join(r.limiters) << "\n";
    }
  }
  if (o.json) std::cout << rows.dump(2) << "\n";
  if (!o.plot.empty()) {
    const std::string title = arch.name + ", " + std::to_string(q.regs) + " regs/thread, " +
                              std::to_string(q.smem + q.dyn_smem) + " B smem/block";
    if (!(s = plot_sweep(csv.str(), o.plot, title))) return fail(s);
    std::cerr << "wrote " << o.plot << " (plot_occupancy.py from " << scripts_dir() << ")\n";
  }
  return kExitOk;
}

}  // namespace

void add_occupancy_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<OccupancyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "occupancy", "Theoretical occupancy of a launch configuration (no GPU needed)");
  cmd->add_option("--arch", o->arch,
                  "sm_61, sm_70, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_120, or "
                  "'device' (default: the GPU present)");
  cmd->add_option("--threads", o->threads, "threads per block")->capture_default_str();
  cmd->add_option("--regs", o->regs, "registers per thread (ptxas -v)")->capture_default_str();
  cmd->add_option("--smem", o->smem, "static shared memory per block, bytes")->capture_default_str();
  cmd->add_option("--dyn-smem", o->dyn_smem, "dynamic shared memory per block, bytes")
      ->capture_default_str();
  cmd->add_option("--carveout", o->carveout,
                  "preferred shared-memory carveout, % of the SM's shared memory "
                  "(cudaFuncAttributePreferredSharedMemoryCarveout; default: the driver's choice)");
  cmd->add_flag("--json", o->json, "one JSON object (an array with --sweep)");
  cmd->add_flag("--sweep", o->sweep, "the curve over block sizes 32..1024");
  cmd->add_option("--plot", o->plot, "draw the sweep to this PNG (python3 + matplotlib)")
      ->check(output_path());
  cmd->callback([exit_code, o] { *exit_code = run_occupancy(*o); });
}

}  // namespace tilekit::cli
