#include "report.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tilekit::bench {
namespace {

// Writes `text` to `path` through a temporary file, so a failure leaves no partial file.
Status write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return io_error(path + ": cannot open for writing: " + std::strerror(errno));
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return io_error(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return io_error(path + ": cannot rename into place: " + std::strerror(errno));
  }
  return Status::ok();
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

void print_gemm_table(std::ostream& out, const std::vector<BenchRow>& rows,
                      const std::string& baseline_id) {
  size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.kernel.size());
  out << std::left << std::setw(static_cast<int>(w)) << "kernel" << "  " << std::setw(15) << "size"
      << std::right << std::setw(11) << "median ms" << std::setw(11) << "GFLOP/s"
      << std::setw(10) << "% base" << std::setw(9) << "samples" << std::setw(8) << "noise"
      << "  verdict\n";
  for (const auto& r : rows) {
    out << std::left << std::setw(static_cast<int>(w)) << r.kernel << "  " << std::setw(15)
        << r.shape.str() << std::right;
    if (r.outcome == "ok") {
      out << std::setw(11) << fixed(r.timing.median_s * 1e3, 3) << std::setw(11)
          << fixed(r.gflops, 1) << std::setw(10)
          << (r.baseline_ratio > 0 ? fixed(100 * r.baseline_ratio, 1) : std::string("-"))
          << std::setw(9) << r.timing.samples << std::setw(7) << fixed(100 * r.timing.noise, 1)
          << "%  PASS (max rel err " << std::scientific << std::setprecision(1)
          << r.max_rel_error << std::defaultfloat << ")\n";
    } else {
      out << std::setw(11) << "-" << std::setw(11) << "-" << std::setw(10) << "-" << std::setw(9)
          << "-" << std::setw(8) << "-" << "  " << r.outcome << ": " << r.detail << "\n";
    }
  }
  out << "% base: GFLOP/s relative to " << baseline_id
      << " at the same size in this run; noise: half the interquartile range over the median.\n";
}

Status write_gemm_csv(const std::string& path, const std::vector<BenchRow>& rows,
                      const Environment& env) {
  std::ostringstream s;
  s << "kernel,m,n,k,outcome,median_ms,min_ms,max_ms,q1_ms,q3_ms,samples,noise,converged,gflops,"
       "baseline_ratio,max_rel_error,detail,backend,device,compute_capability,sm_count,"
       "sm_clock_mhz,memory_clock_mhz,cuda_runtime,cuda_driver,cublas,openblas,cpu_threads,"
       "timing,tilekit,timestamp_utc,command\n";
  for (const auto& r : rows) {
    s << csv_field(r.kernel) << ',' << r.shape.m << ',' << r.shape.n << ',' << r.shape.k << ','
      << r.outcome << ',' << std::setprecision(9) << r.timing.median_s * 1e3 << ','
      << r.timing.min_s * 1e3 << ',' << r.timing.max_s * 1e3 << ',' << r.timing.q1_s * 1e3 << ','
      << r.timing.q3_s * 1e3 << ',' << r.timing.samples << ',' << r.timing.noise << ','
      << (r.timing.converged ? 1 : 0) << ',' << r.gflops << ',' << r.baseline_ratio << ','
      << r.max_rel_error << ',' << csv_field(r.detail) << ',' << env.backend << ','
      << csv_field(env.device) << ',' << env.compute_capability << ',' << env.sm_count << ','
      << env.sm_clock_mhz << ',' << env.memory_clock_mhz << ',' << env.cuda_runtime << ','
      << env.cuda_driver << ',' << env.cublas << ',' << csv_field(env.openblas) << ','
      << env.cpu_threads << ',' << csv_field(env.timing_method) << ',' << env.tilekit_version
      << ',' << env.timestamp_utc << ',' << csv_field(env.command_line) << '\n';
  }
  return write_file_atomically(path, s.str());
}

Status write_gemm_json(const std::string& path, const std::vector<BenchRow>& rows,
                       const Environment& env) {
  nlohmann::json j;
  j["environment"] = {{"backend", env.backend},
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
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows) {
    j["rows"].push_back({{"kernel", r.kernel},
                         {"m", r.shape.m},
                         {"n", r.shape.n},
                         {"k", r.shape.k},
                         {"outcome", r.outcome},
                         {"detail", r.detail},
                         {"median_ms", r.timing.median_s * 1e3},
                         {"min_ms", r.timing.min_s * 1e3},
                         {"max_ms", r.timing.max_s * 1e3},
                         {"q1_ms", r.timing.q1_s * 1e3},
                         {"q3_ms", r.timing.q3_s * 1e3},
                         {"samples", r.timing.samples},
                         {"noise", r.timing.noise},
                         {"converged", r.timing.converged},
                         {"gflops", r.gflops},
                         {"baseline_ratio", r.baseline_ratio},
                         {"max_rel_error", r.max_rel_error},
                         {"is_baseline", r.is_baseline}});
  }
  return write_file_atomically(path, j.dump(2) + "\n");
}

}  // namespace tilekit::bench
