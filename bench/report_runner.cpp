#include "report_runner.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memory_bench.hpp"
#include "report.hpp"
#include "tilekit_git_commit.h"  // generated at build time: TILEKIT_GIT_COMMIT
#include "tilekit/occupancy.hpp"
#include "tilekit/roofline.hpp"

namespace tilekit::bench {
namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

Status make_dir(const std::string& dir) {
  if (dir.empty()) return invalid_argument("--out: give a folder for the report");
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return invalid_argument("--out: " + dir + " exists and is not a folder");
    return Status::ok();
  }
  if (mkdir(dir.c_str(), 0755) != 0)
    return io_error("--out: cannot create " + dir + ": " + std::strerror(errno));
  return Status::ok();
}

// The tile side a run-time-configured kernel reports in its launch notes ("tile 32x32").
int tile_from_notes(const GemmKernel& k) {
  std::string notes;
  if (!k.launch_notes || !k.launch_notes(&notes)) return 0;
  const auto pos = notes.find("tile ");
  if (pos == std::string::npos) return 0;
  return std::atoi(notes.c_str() + pos + 5);
}

struct TrafficRow {
  std::string kernel;
  int tile_m = 0, tile_n = 0;
  double loads = 0, stores = 0, bytes = 0, flops = 0, q = 0, reduction = 0;
  double measured_gflops = 0, roof_gflops = 0;
};

// OpenBLAS picks its kernels from CPUID at load time; some virtual machines make it pick old
// SSE-only kernels (seen: "Prescott") on CPUs that do have AVX2. Returns a warning then.
std::string openblas_kernel_warning() {
  const std::string config = openblas_config_string();
  const bool old_kernels = config.find("Prescott") != std::string::npos ||
                           config.find("Core2") != std::string::npos ||
                           config.find("Nehalem") != std::string::npos;
  if (!old_kernels) return "";
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool avx2 = false, avx512 = false;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) {
      avx2 = line.find(" avx2") != std::string::npos;
      avx512 = line.find(" avx512f") != std::string::npos;
      break;
    }
  if (!avx2) return "";
  return std::string("OpenBLAS chose pre-AVX kernels (") + config.substr(config.find("USE_OPENMP") + 11) +
         ") on a CPU with " + (avx512 ? "AVX-512" : "AVX2") +
         ": its figures understate this CPU. Run with OPENBLAS_CORETYPE=" +
         (avx512 ? "SkylakeX" : "Haswell") + " to choose its kernels by hand.";
}

}  // namespace

std::vector<GemmShape> default_report_sizes(bool quick) {
  std::vector<int64_t> n = quick ? std::vector<int64_t>{32, 64, 96, 127, 128, 129}
                                 : std::vector<int64_t>{256,  257,  320,  384,  448,  511,
                                                        512,  513,  640,  768,  896,  1023,
                                                        1024, 1025, 1152, 1280, 1536, 1792,
                                                        2047, 2048, 2049};
  std::vector<GemmShape> out;
  for (int64_t s : n) out.push_back({s, s, s});
  return out;
}

Status run_report(const ReportConfig& cfg, ReportOutcome* outcome) {
  TILEKIT_RETURN_IF_ERROR(make_dir(cfg.out_dir));
  const bool gpu = cfg.ctx.backend == Backend::kCuda;
  const Registry& reg = Registry::instance();
  auto cancelled = [&] { return cfg.cancel && cfg.cancel->load(); };

  // 1. Ceilings, measured.
  if (cfg.progress) cfg.progress(0, 1, "measuring the FP32 peak");
  double peak = 0;
  TILEKIT_RETURN_IF_ERROR(measure_fp32_peak(cfg.ctx, &peak));
  if (cfg.progress) cfg.progress(0, 1, "measuring the copy bandwidth");
  MemoryBenchConfig copy_cfg;
  copy_cfg.ctx = cfg.ctx;
  copy_cfg.op = MemoryOp::kCopy;
  copy_cfg.sizes = {{gpu ? (int64_t{1} << 26) : (cfg.quick ? (int64_t{1} << 22) : (int64_t{1} << 24)), 1}};
  copy_cfg.kernels = memory_ceiling_id(cfg.ctx.backend);
  copy_cfg.timing = cfg.timing;
  copy_cfg.cancel = cfg.cancel;
  std::vector<BenchRow> copy_rows;
  TILEKIT_RETURN_IF_ERROR(run_memory_bench(copy_cfg, &copy_rows));
  const double bandwidth = copy_rows.empty() ? 0 : copy_rows.front().gbps;
  DeviceInfo device;
  double datasheet_peak = 0, datasheet_bw = 0;
  ArchProperties arch;
  bool have_arch = false;
  if (gpu && query_device(cfg.ctx.device, &device)) {
    datasheet_peak = datasheet_fp32_peak_gflops(device);
    datasheet_bw = device.peak_dram_gbps();
    arch = architecture_of(device);
    have_arch = true;
  } else {
    have_arch = static_cast<bool>(find_architecture("sm_90", &arch));
  }

  // 2. The GEMM sweep: every kernel of the backend (the naive step and the reference included),
  //    then the multi-core CPU BLAS at the same sizes.
  std::vector<BenchRow> rows;
  GemmBenchConfig g;
  g.ctx = cfg.ctx;
  g.shapes = cfg.sizes;
  g.kernels = gpu ? "gemm.cuda.*" : "gemm.cpu.*";
  g.timing = cfg.timing;
  g.progress = cfg.progress;
  g.cancel = cfg.cancel;
  Status run = run_gemm_bench(g, &rows);
  if (run.code() != StatusCode::kCancelled) TILEKIT_RETURN_IF_ERROR(run);
  if (gpu && cfg.cpu_blas && !cancelled()) {
    GemmBenchConfig c = g;
    c.ctx = Context::cpu();
    c.kernels = "gemm.cpu.openblas.f32";
    c.add_baseline = false;
    std::vector<BenchRow> cpu_rows;
    run = run_gemm_bench(c, &cpu_rows);
    if (run.code() != StatusCode::kCancelled) TILEKIT_RETURN_IF_ERROR(run);
    rows.insert(rows.end(), cpu_rows.begin(), cpu_rows.end());
  }
  outcome->rows = static_cast<int>(rows.size());
  outcome->interrupted = cancelled();

  // 3. Traffic model for every modelled kernel at the largest size measured.
  // At the largest size where the most kernels ran (step 02 skips the odd sizes).
  int64_t n_model = 0;
  {
    std::map<int64_t, int> ok_at;
    for (const auto& r : rows)
      if (r.outcome == RowOutcome::kOk) ++ok_at[r.shape.m];
    int most = 0;
    for (const auto& [n, count] : ok_at)
      if (count >= most) {
        most = count;
        n_model = n;
      }
  }
  std::vector<TrafficRow> traffic;
  // Kernels without a tile model (libraries, the CPU blocked kernel) are placed at the
  // compulsory traffic: A and B read once, C written once (tile 0 in the table).
  std::set<std::string> measured;
  for (const auto& r : rows) measured.insert(r.kernel);
  for (const auto& k : reg.gemm_kernels()) {
    const bool blas_row = k.info.id == "gemm.cpu.openblas.f32" && measured.count(k.info.id);
    if ((k.info.backend != cfg.ctx.backend && !blas_row) || !measured.count(k.info.id)) continue;
    TrafficRow t;
    t.kernel = k.info.id;
    t.tile_m = k.info.tile_m;
    t.tile_n = k.info.tile_n;
    if (t.tile_m < 0) t.tile_m = t.tile_n = gpu ? tile_from_notes(k) : 0;
    if (t.tile_m < 0 || n_model == 0) continue;
    const double n = static_cast<double>(n_model);
    t.flops = 2 * n * n * n;
    t.loads = t.tile_m > 0 ? n * n * n * (1.0 / t.tile_n + 1.0 / t.tile_m) : 2 * n * n;
    t.stores = n * n;
    t.bytes = 4 * (t.loads + t.stores);
    t.q = t.flops / t.bytes;
    t.reduction = 2 * n * n * n / t.loads;
    // The CPU BLAS runs under the CPU's roof, which this report measures only on the CPU backend.
    t.roof_gflops = blas_row && gpu ? 0 : std::min(peak, t.q * bandwidth);
    for (const auto& r : rows)
      if (r.kernel == t.kernel && r.shape.m == n_model && r.outcome == RowOutcome::kOk) t.measured_gflops = r.gflops;
    traffic.push_back(t);
  }

  // 4. Occupancy against block size for the shared-memory tiled steps (2 tiles of b floats).
  //    Without CUDA kernels in this build the curve is the technique's: 32 registers a thread,
  //    what ptxas reports for steps 02-04.
  nlohmann::json occupancy = nlohmann::json::array();
  std::string occupancy_missing = have_arch ? "" : "no architecture to model";  // said in report.md
  auto add_curve = [&](const std::string& label, int regs) {
    nlohmann::json curve = {{"kernel", label}, {"regs", regs}, {"arch", arch.name},
                            {"threads", nlohmann::json::array()},
                            {"occupancy", nlohmann::json::array()}};
    Status refused;
    for (int b = 32; b <= 1024; b += 32) {
      OccupancyResult o;
      const Status s =
          compute_occupancy(arch, OccupancyQuery{b, regs, 0, 2 * sizeof(float) * size_t(b)}, &o);
      if (!s) {
        refused = s;
        continue;
      }
      curve["threads"].push_back(b);
      curve["occupancy"].push_back(o.occupancy);
    }
    if (curve["threads"].empty()) occupancy_missing = label + ": " + refused.to_string();
    occupancy.push_back(curve);
  };
  if (have_arch) {
    for (const auto& k : reg.gemm_kernels()) {
      if (k.info.backend != Backend::kCuda || k.info.step < 2 || k.info.step > 4) continue;
      KernelResources res;
      const bool known = gpu && k.resources && k.resources(&res);
      add_curve(k.info.id, known ? res.registers_per_thread : 32);
    }
    if (occupancy.empty()) add_curve("tiled GEMM step (model: 32 registers a thread)", 32);
  }

  // 5. Files: rows, report.json, report.md, plots.
  const Environment env = describe_environment(cfg.ctx, cfg.command_line,
                                               gpu ? "cuda-events, L2 flushed" : "steady_clock");
  TILEKIT_RETURN_IF_ERROR(write_bench_csv(cfg.out_dir + "/rows.csv", rows, env));
  TILEKIT_RETURN_IF_ERROR(write_bench_json(cfg.out_dir + "/rows.json", rows, env));
  nlohmann::json j;
  j["backend"] = backend_name(cfg.ctx.backend);
  j["device"] = env.device;
  j["ceilings"] = {{"peak_gflops", peak},
                   {"bandwidth_gbps", bandwidth},
                   {"datasheet_peak_gflops", datasheet_peak},
                   {"datasheet_bandwidth_gbps", datasheet_bw},
                   {"ridge_flops_per_byte", bandwidth > 0 ? peak / bandwidth : 0}};
  j["traffic"] = nlohmann::json::array();
  for (const auto& t : traffic)
    j["traffic"].push_back({{"kernel", t.kernel}, {"tile_m", t.tile_m}, {"tile_n", t.tile_n},
                            {"n", n_model}, {"loads", t.loads}, {"stores", t.stores},
                            {"bytes", t.bytes}, {"q", t.q}, {"reduction", t.reduction},
                            {"measured_gflops", t.measured_gflops}, {"roof_gflops", t.roof_gflops}});
  j["occupancy"] = occupancy;
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : reg.gemm_kernels())
    j["kernels"].push_back({{"id", k.info.id}, {"step", k.info.step},
                            {"is_baseline", k.info.is_baseline},
                            {"is_reference", k.info.is_reference}});
  j["interrupted"] = outcome->interrupted;
  // The command line and paths are the user's bytes: invalid UTF-8 is replaced, not thrown.
  TILEKIT_RETURN_IF_ERROR(write_file_atomically(
      cfg.out_dir + "/report.json",
      j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));

  // GFLOP/s by size and kernel.
  std::vector<std::string> kernels;
  std::set<int64_t> size_set;
  std::map<std::pair<std::string, int64_t>, double> rate;
  for (const auto& r : rows) {
    if (std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end()) kernels.push_back(r.kernel);
    size_set.insert(r.shape.m);
    if (r.outcome == RowOutcome::kOk) rate[{r.kernel, r.shape.m}] = r.gflops;
  }
  auto cell = [&](const std::string& k, int64_t n) {
    auto it = rate.find({k, n});
    return it == rate.end() ? std::string("–") : fixed(it->second, 0);
  };
  const std::string naive = gpu ? "gemm.cuda.01_naive.f32.16x16" : "gemm.cpu.reference.f32";
  const std::string blas = "gemm.cpu.openblas.f32";

  const CpuInfo cpu = query_cpu();
  const std::string blas_warning = openblas_kernel_warning();
  std::ostringstream md;
  md << "# tilekit report — " << env.device << "\n\n"
     << "Made by `" << cfg.command_line << "` (tilekit " << env.tilekit_version << ", commit "
     << TILEKIT_GIT_COMMIT << ") on " << env.timestamp_utc << ".\n"
     << (outcome->interrupted ? "\n**Interrupted**: the tables hold what finished.\n" : "")
     << "Backend " << backend_name(cfg.ctx.backend) << "; CUDA " << env.cuda_runtime << ", cuBLAS "
     << env.cublas << "; " << env.openblas << " on " << cpu.model << " (" << cpu.omp_max_threads
     << " threads).\n"
     << (blas_warning.empty() ? "" : "\n**Note:** " + blas_warning + "\n\n")
     << "Every row was verified against a double-precision reference before it was timed "
        "(rows.csv has the verdicts); times are medians of samples "
     << (gpu ? "timed with CUDA events, L2 flushed before each." : "timed with a steady clock.")
     << "\n\n## Ceilings (measured)\n\n| | measured | datasheet |\n|---|---|---|\n"
     << "| FP32 peak (FMA-bound microbenchmark) | " << fixed(peak, 0) << " GFLOP/s | "
     << (datasheet_peak > 0 ? fixed(datasheet_peak, 0) + " GFLOP/s" : std::string("–")) << " |\n"
     << "| memory bandwidth (" << copy_cfg.kernels << ", read + write) | " << fixed(bandwidth, 0)
     << " GB/s | " << (datasheet_bw > 0 ? fixed(datasheet_bw, 0) + " GB/s" : std::string("–"))
     << " |\n| ridge point (peak / bandwidth) | " << fixed(bandwidth > 0 ? peak / bandwidth : 0, 1)
     << " FLOP/byte | |\n\n";

  md << "## GFLOP/s over n (square n×n×n)\n\n![GFLOP/s vs n](gflops_vs_n.png)\n\n| n |";
  for (const auto& k : kernels) md << " " << k << " |";
  md << "\n|---|";
  for (size_t i = 0; i < kernels.size(); ++i) md << "---|";
  md << "\n";
  for (int64_t n : size_set) {
    md << "| " << n << " |";
    for (const auto& k : kernels) md << " " << cell(k, n) << " |";
    md << "\n";
  }

  // Best configuration of each ladder step with variants, per size.
  std::map<int, std::vector<std::string>> variants;
  for (const auto& k : reg.gemm_kernels())
    if (k.info.backend == cfg.ctx.backend && k.info.step > 0 &&
        std::find(kernels.begin(), kernels.end(), k.info.id) != kernels.end())
      variants[k.info.step].push_back(k.info.id);
  md << "\n## Best configuration per size\n\nFor each step with several block configurations, "
        "the fastest at each n (GFLOP/s).\n\n";
  std::vector<int> multi;
  for (const auto& [step, ids] : variants)
    if (ids.size() > 1) multi.push_back(step);
  if (multi.empty()) {
    md << "(No step has several configurations on this backend.)\n";
  } else {
    md << "| n |";
    for (int step : multi) md << " step " << step << " |";
    md << "\n|---|";
    for (size_t i = 0; i < multi.size(); ++i) md << "---|";
    md << "\n";
  }
  std::map<int, std::map<int64_t, std::pair<std::string, double>>> best;  // step → n → (id, rate)
  for (const auto& [step, ids] : variants)
    for (int64_t n : size_set)
      for (const auto& id : ids) {
        auto it = rate.find({id, n});
        if (it != rate.end() && it->second > best[step][n].second) best[step][n] = {id, it->second};
      }
  for (int64_t n : multi.empty() ? std::set<int64_t>{} : size_set) {
    md << "| " << n << " |";
    for (int step : multi) {
      const auto& b = best[step][n];
      md << " " << (b.first.empty() ? "–" : b.first.substr(b.first.rfind(".f32") + 5) + " (" + fixed(b.second, 0) + ")") << " |";
    }
    md << "\n";
  }

  md << "\n## Speedup of each step's best configuration\n\n![speedup](speedup.png)\n\n"
        "Over the naive kernel (" << naive << ") and over the multi-core CPU BLAS (" << blas
     << ") at the same n.\n\n| n |";
  for (const auto& [step, ids] : variants) md << " step " << step << " / naive | / BLAS |";
  md << "\n|---|";
  for (size_t i = 0; i < variants.size(); ++i) md << "---|---|";
  md << "\n";
  for (int64_t n : size_set) {
    md << "| " << n << " |";
    const auto nv = rate.find({naive, n});
    const auto bl = rate.find({blas, n});
    for (const auto& [step, ids] : variants) {
      const double r = best[step][n].second;
      md << " " << (r > 0 && nv != rate.end() ? fixed(r / nv->second, 1) + "×" : std::string("–"))
         << " | " << (r > 0 && bl != rate.end() ? fixed(r / bl->second, 1) + "×" : std::string("–"))
         << " |";
    }
    md << "\n";
  }

  md << "\n## Global-memory traffic and the roofline (n = " << n_model << ")\n\n"
     << "![roofline](roofline.png)\n\n"
     << "Loads each step issues by construction: a block that computes a tile_m × tile_n tile of C "
        "reads tile_m rows of A and tile_n columns of B, so global loads = n³·(1/tile_n + "
        "1/tile_m): 2n³ for the naive kernel (tile 1), 2n³/B for B×B shared-memory tiles, n³/32 "
        "for 64×64 register blocking. q = 2n³ FLOPs / (4 bytes × (loads + n² stores)). These are "
        "the bytes *requested* from global memory; the caches serve many of them, so a kernel can "
        "sit above the bandwidth roof of its modelled q (the naive kernel does). Library kernels "
        "are placed at the compulsory traffic (each matrix read or written once): the most "
        "favourable q any kernel can have.\n\n"
     << "| kernel | tile | global loads | reduction vs naive | q (FLOP/B) | roof min(peak, q·BW) "
        "GFLOP/s | measured GFLOP/s |\n|---|---|---|---|---|---|---|\n";
  for (const auto& t : traffic) {
    std::ostringstream loads;
    loads << std::scientific << std::setprecision(3) << t.loads;
    md << "| " << t.kernel << " | "
       << (t.tile_m > 0 ? std::to_string(t.tile_m) + "×" + std::to_string(t.tile_n)
                        : std::string("– (compulsory: each matrix once)"))
       << " | " << loads.str() << " | " << fixed(t.reduction, 0) << "× | " << fixed(t.q, 2)
       << " | " << (t.roof_gflops > 0 ? fixed(t.roof_gflops, 0) : std::string("CPU roof"))
       << " | " << (t.measured_gflops > 0 ? fixed(t.measured_gflops, 0) : std::string("–")) << " |\n";
  }
  md << "\n## Occupancy against block size (shared-memory tiled steps)\n\n"
     << "![occupancy](occupancy.png)\n\nTheoretical occupancy on " << arch.name
     << " for a block of b threads with 2·b floats of shared memory (the tiled steps' two "
        "tiles), from tilekit's occupancy calculator (`tilekit occupancy`).\n";
  if (!occupancy_missing.empty())
    md << "\n*The occupancy plot lacks a curve: " << occupancy_missing << "*\n";

  // Plots.
  const std::string script = cfg.scripts_dir + "/plot_report.py";
  // Drawing runs a program, which a library must not do: the caller (the CLI) supplies it.
  if (cfg.draw_plots) {
    const Status drawn = cfg.draw_plots(script, cfg.out_dir, &outcome->plot_message);
    outcome->plotted = drawn.is_ok();
    if (!drawn) md << "\n*Plots missing: " << outcome->plot_message << "*\n";
  } else {
    outcome->plot_message = "plots not drawn: run `python3 " + script + " " + cfg.out_dir + "`";
    md << "\n*" << outcome->plot_message << "*\n";
  }
  md << "\n## Files\n\n`rows.csv`, `rows.json` (every measured row with its environment), "
        "`report.json` (ceilings, traffic model, occupancy curves), and the PNG plots, drawn "
        "from them by `scripts/plot_report.py`.\n";
  return write_file_atomically(cfg.out_dir + "/report.md", md.str());
}

}  // namespace tilekit::bench
