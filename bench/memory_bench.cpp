#include "memory_bench.hpp"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>

#include "tilekit/occupancy.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::bench {
namespace {

bool parse_count(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  const auto caret = s.find('^');
  char* end = nullptr;
  if (caret != std::string::npos) {
    // Named copies: `end` points into them, so they must outlive the checks of *end.
    const std::string base_text = s.substr(0, caret), exp_text = s.substr(caret + 1);
    const long long base = std::strtoll(base_text.c_str(), &end, 10);
    if (*end) return false;
    const long long exp = std::strtoll(exp_text.c_str(), &end, 10);
    if (*end || base < 0 || exp < 0 || exp > 62) return false;
    long long x = 1;
    for (long long i = 0; i < exp; ++i) {
      if (base != 0 && x > std::numeric_limits<long long>::max() / base) return false;
      x *= base;
    }
    *v = x;
    return true;
  }
  *v = std::strtoll(s.c_str(), &end, 10);
  return *end == '\0' && *v >= 0;
}

// Device (or host) copies of one size's operands.
// `out` receives the op's result (n floats, or 1 for a dot); `copy` the ceiling's copy of x
// (the same storage as `out` except for a dot).
struct Buffers {
  std::vector<float> x, y, out, copy;  // host: inputs, outputs as downloaded
  DeviceBuffer<float> d_x, d_y, d_out, d_copy;
  bool gpu = false;
  float* x_ptr() { return gpu ? d_x.get() : x.data(); }
  float* y_ptr() { return gpu ? d_y.get() : y.data(); }
  float* out_ptr() { return gpu ? d_out.get() : out.data(); }
  float* copy_ptr() { return gpu ? d_copy.get() : copy.data(); }
};

}  // namespace

const char* memory_op_name(MemoryOp op) {
  return op == MemoryOp::kCopy ? "copy" : op == MemoryOp::kTranspose ? "transpose" : "dot";
}

std::string MemorySize::str() const {
  return cols == 1 ? std::to_string(rows) : std::to_string(rows) + "x" + std::to_string(cols);
}

Status parse_memory_sizes(MemoryOp op, const std::string& spec, std::vector<MemorySize>* out) {
  out->clear();
  std::stringstream ss(spec);
  for (std::string piece; std::getline(ss, piece, ',');) {
    auto bad = [&](const std::string& why) {
      return invalid_argument("--sizes: '" + piece + "' " + why);
    };
    MemorySize s;
    if (op == MemoryOp::kTranspose) {
      const auto x = piece.find('x');
      if (x == std::string::npos) {
        if (!parse_count(piece, &s.rows)) return bad("is not a size or ROWSxCOLS");
        s.cols = s.rows;
      } else if (!parse_count(piece.substr(0, x), &s.rows) ||
                 !parse_count(piece.substr(x + 1), &s.cols)) {
        return bad("is not ROWSxCOLS");
      }
    } else if (!parse_count(piece, &s.rows)) {
      return bad("is not an element count (e.g. 268435456 or 2^28)");
    }
    out->push_back(s);
  }
  if (out->empty()) return invalid_argument("--sizes: no sizes given");
  return Status::ok();
}

std::string memory_baseline_id(MemoryOp op, Backend backend) {
  const bool gpu = backend == Backend::kCuda;
  switch (op) {
    case MemoryOp::kCopy: return gpu ? "copy.cuda.memcpy.f32" : "copy.cpu.memcpy.f32";
    case MemoryOp::kTranspose: return gpu ? "transpose.cuda.cublas_geam.f32" : "transpose.cpu.blocked.f32.32";
    case MemoryOp::kDot: return gpu ? "dot.cuda.cub.f32" : "dot.cpu.openmp.f64acc";
  }
  return "";
}

std::string memory_ceiling_id(Backend backend) {
  return backend == Backend::kCuda ? "copy.cuda.memcpy.f32" : "copy.cpu.memcpy.f32";
}

namespace {

// Kernel resources and theoretical occupancy at its launch configuration (GPU kernels we built).
void fill_resources(const std::function<Status(KernelResources*)>& resources,
                    const ArchProperties* arch, BenchRow* row) {
  if (!resources || !arch) return;
  KernelResources r;
  if (!resources(&r) || !r.available) return;
  row->registers = r.registers_per_thread;
  row->smem_bytes = static_cast<long long>(r.static_smem_bytes + r.dynamic_smem_bytes);
  OccupancyQuery q{r.block_threads, r.registers_per_thread, r.static_smem_bytes,
                   r.dynamic_smem_bytes};
  OccupancyResult o;
  if (!compute_occupancy(*arch, q, &o)) return;
  row->occupancy = o.occupancy;
  for (const auto& l : o.limiters) row->limiter += (row->limiter.empty() ? "" : ",") + l;
}

// The kernels of one family that the glob selects, plus its baseline and the copy ceiling.
template <typename K>
std::vector<const K*> select(const KernelList<K>& list, const MemoryBenchConfig& cfg,
                             const std::string& baseline_id) {
  const std::string glob = cfg.kernels.empty()
                               ? std::string(memory_op_name(cfg.op)) + "." +
                                     backend_name(cfg.ctx.backend) + ".*"
                               : cfg.kernels;
  std::vector<const K*> out;
  for (const K* k : list.match(glob)) {
    if (k->info.backend != cfg.ctx.backend) continue;
    if (k->info.is_reference && cfg.kernels.empty()) continue;
    out.push_back(k);
  }
  const K* base = list.find(baseline_id);
  if (cfg.add_baseline && base && std::find(out.begin(), out.end(), base) == out.end())
    out.insert(out.begin(), base);
  return out;
}

}  // namespace

Status run_memory_bench(const MemoryBenchConfig& cfg, std::vector<BenchRow>* rows) {
  const Context& ctx = cfg.ctx;
  const bool gpu = ctx.backend == Backend::kCuda;
  const Registry& reg = Registry::instance();
  const std::string baseline_id = memory_baseline_id(cfg.op, ctx.backend);
  const std::string ceiling_id = memory_ceiling_id(ctx.backend);
  const CopyKernel* ceiling = reg.copy.find(ceiling_id);
  if (!ceiling) return Status(StatusCode::kInternal, "no copy ceiling kernel " + ceiling_id);

  // The selected kernels as (info, can-run, runner-maker, resources).
  struct Entry {
    const KernelInfo* info;
    const std::function<Status(KernelResources*)>* resources;
    std::function<Status(Buffers&, const MemorySize&, const DeviceInfo*)> can_run;
    std::function<Status(Buffers&, const MemorySize&)> run;
  };
  std::vector<Entry> entries;
  if (cfg.op == MemoryOp::kCopy) {
    for (const CopyKernel* k : select(reg.copy, cfg, baseline_id))
      entries.push_back({&k->info, &k->resources,
                         [k](Buffers& b, const MemorySize& s, const DeviceInfo* d) {
                           return k->can_implement(CopyProblem{s.rows, b.x_ptr(), b.out_ptr()}, d);
                         },
                         [k, &ctx](Buffers& b, const MemorySize& s) {
                           return run_copy_kernel(*k, ctx, CopyProblem{s.rows, b.x_ptr(), b.out_ptr()});
                         }});
  } else if (cfg.op == MemoryOp::kTranspose) {
    for (const TransposeKernel* k : select(reg.transpose, cfg, baseline_id)) {
      auto problem = [](Buffers& b, const MemorySize& s) {
        return TransposeProblem{s.rows, s.cols, b.x_ptr(), std::max<int64_t>(1, s.cols),
                                b.out_ptr(), std::max<int64_t>(1, s.rows)};
      };
      entries.push_back({&k->info, &k->resources,
                         [k, problem](Buffers& b, const MemorySize& s, const DeviceInfo* d) {
                           return k->can_implement(problem(b, s), d);
                         },
                         [k, problem, &ctx](Buffers& b, const MemorySize& s) {
                           return run_transpose_kernel(*k, ctx, problem(b, s));
                         }});
    }
  } else {
    for (const DotKernel* k : select(reg.dot, cfg, baseline_id))
      entries.push_back({&k->info, &k->resources,
                         [k](Buffers& b, const MemorySize& s, const DeviceInfo* d) {
                           return k->can_implement(DotProblem{s.rows, b.x_ptr(), b.y_ptr(), b.out_ptr()}, d);
                         },
                         [k, &ctx](Buffers& b, const MemorySize& s) {
                           return run_dot_kernel(*k, ctx, DotProblem{s.rows, b.x_ptr(), b.y_ptr(), b.out_ptr()});
                         }});
  }
  if (entries.empty())
    return invalid_argument("--kernels: '" + cfg.kernels + "' matches no " +
                            memory_op_name(cfg.op) + " kernel on the " +
                            backend_name(ctx.backend) + " backend (`tilekit list` shows them)");

  std::unique_ptr<SampleTimer> timer;
  if (gpu) {
    TILEKIT_RETURN_IF_ERROR(make_gpu_timer(ctx, cfg.timing.flush_l2, &timer));
  } else {
    timer = make_cpu_timer();
  }
  DeviceInfo device_info;
  const DeviceInfo* device = nullptr;
  ArchProperties arch;
  const ArchProperties* arch_ptr = nullptr;
  if (gpu) {
    TILEKIT_RETURN_IF_ERROR(query_device(ctx.device, &device_info));
    device = &device_info;
    arch = architecture_of(device_info);
    arch_ptr = &arch;
  }

  const int total = static_cast<int>(cfg.sizes.size() * (entries.size() + 1));
  int done = 0;
  for (size_t si = 0; si < cfg.sizes.size(); ++si) {
    const MemorySize size = cfg.sizes[si];
    const int64_t elems = size.rows * size.cols;
    const uint64_t seed = cfg.seed + si;
    if (cfg.progress) cfg.progress(done, total, "inputs for " + size.str());
    Buffers b;
    b.gpu = gpu;
    b.x.resize(static_cast<size_t>(elems));
    // Dot inputs are in [0, 1): with no cancellation the error bound, relative to Σ|x·y|, is
    // also relative to the result (≈ 1.2% at n = 2^28, less for smaller n), so a kernel that
    // skipped a larger share of the products fails. The tests' exact small-integer cases catch
    // any skipped product.
    const float lo = cfg.op == MemoryOp::kDot ? 0.0f : -1.0f;
    fill_uniform(b.x.data(), b.x.size(), seed * 2, lo, 1.0f);
    if (cfg.op == MemoryOp::kDot) {
      b.y.resize(static_cast<size_t>(elems));
      fill_uniform(b.y.data(), b.y.size(), seed * 2 + 1, lo, 1.0f);
    }
    const size_t out_count = cfg.op == MemoryOp::kDot ? 1 : static_cast<size_t>(elems);
    b.out.assign(out_count, 0.0f);
    b.copy.assign(static_cast<size_t>(elems), 0.0f);
    if (gpu) {
      TILEKIT_RETURN_IF_ERROR(b.d_x.allocate(b.x.size(), "x"));
      TILEKIT_RETURN_IF_ERROR(b.d_x.upload(b.x.data(), b.x.size(), ctx.stream));
      if (!b.y.empty()) {
        TILEKIT_RETURN_IF_ERROR(b.d_y.allocate(b.y.size(), "y"));
        TILEKIT_RETURN_IF_ERROR(b.d_y.upload(b.y.data(), b.y.size(), ctx.stream));
      }
      TILEKIT_RETURN_IF_ERROR(b.d_out.allocate(out_count, "output"));
      TILEKIT_RETURN_IF_ERROR(b.d_copy.allocate(b.copy.size(), "copy of x"));
    }
    // The reference: exact for copy and transpose; for dot, Σ x·y and Σ |x·y| in double.
    double dot_ref = 0, dot_mag = 0;
    if (cfg.op == MemoryOp::kDot) {
      for (int64_t i = 0; i < elems; ++i) {
        const double p = static_cast<double>(b.x[static_cast<size_t>(i)]) * b.y[static_cast<size_t>(i)];
        dot_ref += p;
        dot_mag += std::fabs(p);
      }
    }
    const double bytes = cfg.op == MemoryOp::kDot ? 8.0 * static_cast<double>(elems) + 4.0
                                                  : 8.0 * static_cast<double>(elems);

    // Verify: poison the output, run once, compare. `into_copy`: the run writes b.copy (the
    // ceiling), which must then equal x.
    auto verify = [&](const Entry& e, bool into_copy, BenchRow* row) -> Status {
      std::vector<float>& dst = into_copy ? b.copy : b.out;
      DeviceBuffer<float>& d_dst = into_copy ? b.d_copy : b.d_out;
      std::fill(dst.begin(), dst.end(), std::numeric_limits<float>::quiet_NaN());
      if (gpu) TILEKIT_RETURN_IF_ERROR(d_dst.upload(dst.data(), dst.size(), ctx.stream));
      TILEKIT_RETURN_IF_ERROR(e.run(b, size));
      TILEKIT_RETURN_IF_ERROR(device_synchronize(ctx));
      if (gpu) TILEKIT_RETURN_IF_ERROR(d_dst.download(dst.data(), dst.size(), ctx.stream));
      int64_t wrong = 0;
      if (into_copy || cfg.op == MemoryOp::kCopy) {
        for (size_t i = 0; i < dst.size(); ++i)
          if (std::memcmp(&dst[i], &b.x[i], sizeof(float)) != 0) ++wrong;
      } else if (cfg.op == MemoryOp::kTranspose) {
        for (int64_t r = 0; r < size.rows; ++r)
          for (int64_t c = 0; c < size.cols; ++c)
            if (std::memcmp(&dst[static_cast<size_t>(c * size.rows + r)],
                            &b.x[static_cast<size_t>(r * size.cols + c)], sizeof(float)) != 0)
              ++wrong;
      } else {
        // Float accumulation in any order (or double), then one rounding to float.
        const double err = std::fabs(static_cast<double>(dst[0]) - dot_ref);
        const double bound = dot_error_bound_factor(elems) * dot_mag +
                             std::fabs(dot_ref) / 16777216.0 + std::numeric_limits<float>::min();
        const bool ok = std::isfinite(dst[0]) && err <= bound;
        row->max_rel_error = dot_ref != 0 ? err / std::fabs(dot_ref) : err;
        std::ostringstream v;
        v << (ok ? "PASS" : "FAIL") << " |err| " << std::scientific << std::setprecision(2)
          << err << " <= " << bound;
        row->verification = v.str();
        return Status::ok();
      }
      row->verification = wrong ? "FAIL " + std::to_string(wrong) + " elements differ"
                                : std::string("PASS exact");
      return Status::ok();
    };

    double ceiling_gbps = 0, baseline_gbps = 0;
    const size_t first_row = rows->size();
    // The ceiling first (a device copy of x: the same 8·n bytes), then the selected kernels.
    std::vector<Entry> plan;
    const bool ceiling_selected =
        cfg.op == MemoryOp::kCopy &&
        std::any_of(entries.begin(), entries.end(),
                    [&](const Entry& e) { return e.info->id == ceiling_id; });
    if (!ceiling_selected)
      plan.push_back({&ceiling->info, &ceiling->resources,
                      [](Buffers&, const MemorySize&, const DeviceInfo*) { return Status::ok(); },
                      [ceiling, &ctx, elems](Buffers& bb, const MemorySize&) {
                        return run_copy_kernel(*ceiling, ctx,
                                               CopyProblem{elems, bb.x_ptr(), bb.copy_ptr()});
                      }});
    plan.insert(plan.end(), entries.begin(), entries.end());
    for (size_t ei = 0; ei < plan.size(); ++ei) {
      const Entry& e = plan[ei];
      const bool is_ceiling_row = e.info->id == ceiling_id;
      const bool into_copy = is_ceiling_row && !ceiling_selected;
      if (cfg.cancel && cfg.cancel->load()) return Status(StatusCode::kCancelled, "interrupted");
      if (cfg.progress) cfg.progress(done, total, e.info->id + " " + size.str());
      ++done;
      BenchRow row;
      row.op = is_ceiling_row ? "copy" : memory_op_name(cfg.op);
      row.kernel = e.info->id;
      row.is_baseline = e.info->is_baseline;
      row.shape = {size.rows, size.cols, 0};
      row.size = size.str();
      row.bytes = is_ceiling_row ? 8.0 * static_cast<double>(elems) : bytes;
      fill_resources(*e.resources, arch_ptr, &row);
      Status can = e.can_run(b, size, device);
      if (!can) {
        row.outcome = "skipped";
        row.detail = can.message();
        rows->push_back(row);
        continue;
      }
      Status s = verify(e, into_copy, &row);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      if (row.verification.rfind("FAIL", 0) == 0) {
        row.outcome = "FAIL";
        row.detail = row.verification + " (seed " + std::to_string(seed) + ")";
        rows->push_back(row);
        continue;
      }
      s = measure(*timer, [&] { return e.run(b, size); }, cfg.timing, cfg.cancel, &row.timing);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      row.outcome = "ok";
      row.detail = row.verification;
      row.gbps = row.timing.median_s > 0 ? row.bytes / row.timing.median_s / 1e9 : 0;
      if (is_ceiling_row) ceiling_gbps = row.gbps;
      if (e.info->id == baseline_id) baseline_gbps = row.gbps;
      rows->push_back(row);
    }
    for (size_t i = first_row; i < rows->size(); ++i) {
      BenchRow& r = (*rows)[i];
      if (r.outcome != "ok") continue;
      if (ceiling_gbps > 0) r.ceiling_ratio = r.gbps / ceiling_gbps;
      if (baseline_gbps > 0) r.baseline_ratio = r.gbps / baseline_gbps;
    }
  }
  if (cfg.progress) cfg.progress(done, total, "done");
  return Status::ok();
}

}  // namespace tilekit::bench
