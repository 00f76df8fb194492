#include "report.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/output_file.hpp"

namespace tilekit::bench {

Status write_file_atomically(const std::string& path, const std::string& text) {
  return write_output_file(path, text);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

Environment describe_environment(const Context& ctx, const std::string& command_line,
                                 const std::string& timing_method) {
  Environment e;
  e.backend = backend_name(ctx.backend);
  const CpuInfo cpu = query_cpu();
  e.cpu_threads = ctx.cpu_threads > 0 ? ctx.cpu_threads : cpu.omp_max_threads;
  e.device = cpu.model;
  DeviceInfo d;
  if (ctx.backend == Backend::kCuda && query_device(ctx.device, &d)) {
    e.device = d.name;
    e.compute_capability = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    e.sm_count = d.sm_count;
    e.sm_clock_mhz = d.sm_clock_khz / 1000;
    e.memory_clock_mhz = d.memory_clock_khz / 1000;
  }
  e.cuda_runtime = cuda_runtime_version_string();
  e.cuda_driver = cuda_driver_version_string();
  e.cublas = built_with_cuda() && cuda_device_count() > 0 ? cublas_version_string() : "none";
  e.openblas = openblas_config_string();
  e.timing_method = timing_method;
  e.command_line = command_line;
  e.tilekit_version = TILEKIT_VERSION_STRING;
  char buf[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  e.timestamp_utc = buf;
  return e;
}

namespace {

std::string ratio_text(double r) { return r > 0 ? fixed(100 * r, 1) : std::string("-"); }

// Why a row's figures are weak, for its verdict: "noisy: 23%" when its noise is above
// kNoisyAbove, "2 samples" when --max-time ended it before --min-samples; else "".
std::string row_warnings(const BenchRow& r) {
  std::string w = r.noisy ? "noisy: " + fixed(100 * r.timing.noise, 0) + "%" : "";
  if (r.timing.few_samples)
    w += (w.empty() ? "" : "; ") + std::to_string(r.timing.samples) + (r.timing.samples == 1 ? " sample" : " samples");
  return w;
}

// A memory row's verdict: "PASS exact", or "PASS (noisy: 23%) exact".
std::string memory_verdict(const BenchRow& r) {
  const std::string w = row_warnings(r);
  if (w.empty() || r.verification.rfind("PASS", 0) != 0) return r.verification;
  return "PASS (" + w + ")" + r.verification.substr(4);
}

void print_failure(std::ostream& out, const BenchRow& r, int blanks) {
  for (int i = 0; i < blanks; ++i) out << std::setw(i == 0 ? 11 : 9) << "-";
  out << "  " << outcome_name(r.outcome) << ": " << r.detail << "\n";
}

void print_gemm_rows(std::ostream& out, const std::vector<BenchRow>& rows, size_t w) {
  out << std::left << std::setw(static_cast<int>(w)) << "kernel" << "  " << std::setw(15) << "size"
      << std::right << std::setw(11) << "median ms" << std::setw(11) << "GFLOP/s"
      << std::setw(10) << "% base" << std::setw(9) << "samples" << std::setw(8) << "noise"
      << "  verdict\n";
  for (const auto& r : rows) {
    out << std::left << std::setw(static_cast<int>(w)) << r.kernel << "  " << std::setw(15)
        << r.size << std::right;
    if (r.outcome != RowOutcome::kOk) {
      print_failure(out, r, 5);
      continue;
    }
    const std::string warnings = row_warnings(r);
    out << std::setw(11) << fixed(r.timing.median_s * 1e3, 3) << std::setw(11)
        << fixed(r.gflops, 1) << std::setw(10) << ratio_text(r.baseline_ratio) << std::setw(9)
        << r.timing.samples << std::setw(7) << fixed(100 * r.timing.noise, 1) << "%  PASS ("
        << (warnings.empty() ? "" : warnings + "; ") << "max rel err " << std::scientific
        << std::setprecision(1) << r.max_rel_error << std::defaultfloat << ")"
        << (r.resolved.empty() ? "" : " ran " + r.resolved) << "\n";
  }
}

void print_memory_rows(std::ostream& out, const std::vector<BenchRow>& rows, size_t w) {
  out << std::left << std::setw(static_cast<int>(w)) << "kernel" << "  " << std::setw(12) << "size"
      << std::right << std::setw(11) << "median ms" << std::setw(9) << "GB/s" << std::setw(9)
      << "% copy" << std::setw(9) << "% base" << std::setw(6) << "regs" << std::setw(8)
      << "smem B" << std::setw(6) << "occ" << "  " << std::left << std::setw(15) << "limiter"
      << std::right << std::setw(8) << "noise" << "  verdict\n";
  for (const auto& r : rows) {
    out << std::left << std::setw(static_cast<int>(w)) << r.kernel << "  " << std::setw(12)
        << r.size << std::right;
    if (r.outcome != RowOutcome::kOk) {
      print_failure(out, r, 4);
      continue;
    }
    out << std::setw(11) << fixed(r.timing.median_s * 1e3, 3) << std::setw(9) << fixed(r.gbps, 0)
        << std::setw(9) << ratio_text(r.ceiling_ratio) << std::setw(9)
        << ratio_text(r.baseline_ratio) << std::setw(6)
        << (r.registers >= 0 ? std::to_string(r.registers) : "-") << std::setw(8)
        << (r.smem_bytes >= 0 ? std::to_string(r.smem_bytes) : "-") << std::setw(6)
        << (r.occupancy >= 0 ? fixed(100 * r.occupancy, 0) + "%" : "-") << "  " << std::left
        << std::setw(15) << (r.limiter.empty() ? "-" : r.limiter) << std::right << std::setw(7)
        << fixed(100 * r.timing.noise, 1) << "%  " << memory_verdict(r) << "\n";
  }
}

// Says why a noisy row's figures, or a row's few samples, should not be trusted, once under the
// table.
void print_trust_notes(std::ostream& out, const std::vector<BenchRow>& rows) {
  const bool any = std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.noisy; });
  if (any)
    out << "noisy: noise above " << fixed(100 * kNoisyAbove, 0)
        << "% — something else competed for the machine, or the samples were too few; differences "
           "of that order mean nothing. Rerun on a quiet machine or raise --max-time.\n";
  const bool few = std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.timing.few_samples; });
  if (few)
    out << "samples: --max-time ended a row marked \"N samples\" before --min-samples; its median "
           "rests on those few. Raise --max-time for figures to trust.\n";
}

}  // namespace

void print_bench_table(std::ostream& out, const std::vector<BenchRow>& rows,
                       const std::string& baseline_id, const std::string& ceiling_id) {
  size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.kernel.size());
  const bool gemm = rows.empty() || rows.front().op == "gemm";
  if (gemm) {
    print_gemm_rows(out, rows, w);
    const bool baseline_ran = std::any_of(rows.begin(), rows.end(), [&](const BenchRow& r) {
      return r.kernel == baseline_id && r.outcome == RowOutcome::kOk;
    });
    out << "% base: GFLOP/s relative to " << baseline_id
        << (baseline_ran ? " at the same size in this run" : " (not in this run)")
        << "; noise: half the interquartile range over the median.\n";
  } else {
    print_memory_rows(out, rows, w);
    out << "GB/s: bytes read + written once over the median time; % copy: relative to "
        << ceiling_id << " moving the same bytes in this run; % base: relative to " << baseline_id
        << ".\nregs, smem: cudaFuncGetAttributes; occ, limiter: theoretical occupancy at the "
           "launch configuration (tilekit's occupancy calculator).\n";
  }
  print_trust_notes(out, rows);
}

Status write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows,
                       const Environment& env) {
  std::ostringstream s;
  s << "op,kernel,size,m,n,k,outcome,median_ms,min_ms,max_ms,q1_ms,q3_ms,samples,noise,converged,noisy,"
       "gflops,bytes,gbps,baseline_ratio,ceiling_ratio,max_rel_error,registers,smem_bytes,"
       "occupancy,limiter,detail,backend,device,compute_capability,sm_count,sm_clock_mhz,"
       "memory_clock_mhz,cuda_runtime,cuda_driver,cublas,openblas,cpu_threads,timing,tilekit,"
       "timestamp_utc,command\n";
  for (const auto& r : rows) {
    s << r.op << ',' << csv_field(r.kernel) << ',' << r.size << ',' << r.shape.m << ','
      << r.shape.n << ',' << r.shape.k << ',' << outcome_name(r.outcome) << ',' << std::setprecision(9)
      << r.timing.median_s * 1e3 << ',' << r.timing.min_s * 1e3 << ',' << r.timing.max_s * 1e3
      << ',' << r.timing.q1_s * 1e3 << ',' << r.timing.q3_s * 1e3 << ',' << r.timing.samples
      << ',' << r.timing.noise << ',' << (r.timing.converged ? 1 : 0) << ','
      << (r.noisy ? 1 : 0) << ',' << r.gflops << ','
      << r.bytes << ',' << r.gbps << ',' << r.baseline_ratio << ',' << r.ceiling_ratio << ','
      << r.max_rel_error << ',' << r.registers << ',' << r.smem_bytes << ',' << r.occupancy << ','
      << csv_field(r.limiter) << ',' << csv_field(r.detail) << ',' << env.backend << ','
      << csv_field(env.device) << ',' << env.compute_capability << ',' << env.sm_count << ','
      << env.sm_clock_mhz << ',' << env.memory_clock_mhz << ',' << env.cuda_runtime << ','
      << env.cuda_driver << ',' << env.cublas << ',' << csv_field(env.openblas) << ','
      << env.cpu_threads << ',' << csv_field(env.timing_method) << ',' << env.tilekit_version
      << ',' << env.timestamp_utc << ',' << csv_field(env.command_line) << '\n';
  }
  return write_file_atomically(path, s.str());
}

nlohmann::json environment_json(const Environment& env) {
  return {{"backend", env.backend},
          {"device", env.device},
          {"compute_capability", env.compute_capability},
          {"sm_count", env.sm_count},
          {"sm_clock_mhz", env.sm_clock_mhz},
          {"memory_clock_mhz", env.memory_clock_mhz},
          {"cuda_runtime", env.cuda_runtime},
          {"cuda_driver", env.cuda_driver},
          {"cublas", env.cublas},
          {"openblas", env.openblas},
          {"cpu_threads", env.cpu_threads},
          {"timing", env.timing_method},
          {"tilekit", env.tilekit_version},
          {"timestamp_utc", env.timestamp_utc},
          {"command", env.command_line}};
}

nlohmann::json row_json(const BenchRow& r) {
  return {{"op", r.op},
          {"kernel", r.kernel},
          {"resolved", r.resolved},
          {"size", r.size},
          {"m", r.shape.m},
          {"n", r.shape.n},
          {"k", r.shape.k},
          {"outcome", outcome_name(r.outcome)},
          {"detail", r.detail},
          {"median_ms", r.timing.median_s * 1e3},
          {"min_ms", r.timing.min_s * 1e3},
          {"max_ms", r.timing.max_s * 1e3},
          {"q1_ms", r.timing.q1_s * 1e3},
          {"q3_ms", r.timing.q3_s * 1e3},
          {"samples", r.timing.samples},
          {"noise", r.timing.noise},
          {"converged", r.timing.converged},
          {"noisy", r.noisy},
          {"gflops", r.gflops},
          {"bytes", r.bytes},
          {"gbps", r.gbps},
          {"baseline_ratio", r.baseline_ratio},
          {"ceiling_ratio", r.ceiling_ratio},
          {"max_rel_error", r.max_rel_error},
          {"registers", r.registers},
          {"smem_bytes", r.smem_bytes},
          {"occupancy", r.occupancy},
          {"limiter", r.limiter},
          {"is_baseline", r.is_baseline}};
}

Status write_bench_json(const std::string& path, const std::vector<BenchRow>& rows,
                        const Environment& env) {
  nlohmann::json j;
  j["environment"] = environment_json(env);
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows) j["rows"].push_back(row_json(r));
  // The command line and paths are the user's bytes: invalid UTF-8 is replaced, not thrown.
  return write_file_atomically(
      path, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace tilekit::bench
