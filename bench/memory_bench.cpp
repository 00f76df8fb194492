#include "memory_bench.hpp"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>

#include "kernel_select.hpp"
#include "memory_plan.hpp"
#include "tilekit/occupancy.hpp"
#include "tilekit/sizes.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::bench {
namespace {

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

// The elements of one size (rows × cols), checked so that its byte sizes fit in 64 bits.
Status memory_elements(const MemorySize& size, int64_t* elements) {
  size_t bytes = 0;
  TILEKIT_RETURN_IF_ERROR(checked_matrix_bytes(size.rows, size.cols, sizeof(float), "the input", &bytes));
  return checked_elements(size.rows, size.cols, "the input", elements);
}

Status memory_size_fits(const MemorySize& size) {
  int64_t elements = 0;
  return memory_elements(size, &elements);
}

// What one size holds at once: the input x (and y for a dot), the kernel's output and the
// ceiling's copy of x — on the host, and on a GPU their device copies.
MemoryPlan size_memory(MemoryOp op, const MemorySize& size) {
  MemoryPlan plan;
  plan.add("x", size.rows, size.cols, sizeof(float));
  if (op == MemoryOp::kDot) plan.add("y", size.rows, size.cols, sizeof(float));
  if (op != MemoryOp::kDot) plan.add("the output", size.rows, size.cols, sizeof(float));
  plan.add("the copy of x", size.rows, size.cols, sizeof(float));
  return plan;
}

Status check_sweep_memory(const MemoryBenchConfig& cfg) {
  for (const MemorySize& size : cfg.sizes) {
    const MemoryPlan plan = size_memory(cfg.op, size);
    Status s = plan.check_host();
    if (s && cfg.ctx.backend == Backend::kCuda) s = plan.check_device(cfg.ctx.device);
    if (!s) return Status(s.code(), "size " + size.str() + ": " + s.message());
  }
  return Status::ok();
}

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
    if (out->size() == kMaxSizes) return bad("makes more than " + std::to_string(kMaxSizes) + " sizes");
    MemorySize s;
    const auto x = piece.find('x');
    if (op == MemoryOp::kTranspose && x != std::string::npos) {
      if (Status e = parse_size_number(piece.substr(0, x), &s.rows); !e)
        return bad("is not ROWSxCOLS: ROWS " + e.message());
      if (Status e = parse_size_number(piece.substr(x + 1), &s.cols); !e)
        return bad("is not ROWSxCOLS: COLS " + e.message());
    } else if (Status e = parse_size_number(piece, &s.rows); !e) {
      return bad(op == MemoryOp::kTranspose ? "is not a size or ROWSxCOLS: " + e.message()
                                            : "is not an element count (e.g. 268435456 or 2^28): " +
                                                  e.message());
    } else if (op == MemoryOp::kTranspose) {
      s.cols = s.rows;
    }
    if (Status e = memory_size_fits(s); !e) return bad("is too large: " + e.message());
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

// The kernels of one family that the globs select, plus its baseline.
template <typename K>
Status select(const KernelList<K>& list, const MemoryBenchConfig& cfg,
              const std::string& baseline_id, std::vector<const K*>* out) {
  TILEKIT_RETURN_IF_ERROR(
      select_kernels(list, cfg.kernels, memory_op_name(cfg.op), cfg.ctx.backend, out));
  const K* base = list.find(baseline_id);
  if (cfg.add_baseline && base && std::find(out->begin(), out->end(), base) == out->end())
    out->insert(out->begin(), base);
  return Status::ok();
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
  std::vector<const CopyKernel*> copies;
  std::vector<const TransposeKernel*> transposes;
  std::vector<const DotKernel*> dots;
  if (cfg.op == MemoryOp::kCopy) {
    TILEKIT_RETURN_IF_ERROR(select(reg.copy, cfg, baseline_id, &copies));
    for (const CopyKernel* k : copies)
      entries.push_back({&k->info, &k->resources,
                         [k](Buffers& b, const MemorySize& s, const DeviceInfo* d) {
                           return k->can_implement(CopyProblem{s.rows, b.x_ptr(), b.out_ptr()}, d);
                         },
                         [k, &ctx](Buffers& b, const MemorySize& s) {
                           return run_copy_kernel(*k, ctx, CopyProblem{s.rows, b.x_ptr(), b.out_ptr()});
                         }});
  } else if (cfg.op == MemoryOp::kTranspose) {
    TILEKIT_RETURN_IF_ERROR(select(reg.transpose, cfg, baseline_id, &transposes));
    for (const TransposeKernel* k : transposes) {
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
    TILEKIT_RETURN_IF_ERROR(select(reg.dot, cfg, baseline_id, &dots));
    for (const DotKernel* k : dots)
      entries.push_back({&k->info, &k->resources,
                         [k](Buffers& b, const MemorySize& s, const DeviceInfo* d) {
                           return k->can_implement(DotProblem{s.rows, b.x_ptr(), b.y_ptr(), b.out_ptr()}, d);
                         },
                         [k, &ctx](Buffers& b, const MemorySize& s) {
                           return run_dot_kernel(*k, ctx, DotProblem{s.rows, b.x_ptr(), b.y_ptr(), b.out_ptr()});
                         }});
  }
  if (entries.empty())
    return invalid_argument("--kernels: no " + std::string(memory_op_name(cfg.op)) +
                            " kernel to run on the " + backend_name(ctx.backend) + " backend");
  for (const MemorySize& size : cfg.sizes)
    if (Status s = memory_size_fits(size); !s)
      return Status(s.code(), "size " + size.str() + ": " + s.message());
  TILEKIT_RETURN_IF_ERROR(check_sweep_memory(cfg));

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
    int64_t elems = 0;
    TILEKIT_RETURN_IF_ERROR(memory_elements(size, &elems));
    const uint64_t seed = cfg.seed + si;
    if (cfg.progress) cfg.progress(done, total, "inputs for " + size.str());
    Buffers b;
    b.gpu = gpu;
    TILEKIT_RETURN_IF_ERROR(checked_resize(b.x, elems, "x"));
    // Dot inputs are in [0, 1): with no cancellation the error bound, relative to Σ|x·y|, is
    // also relative to the result (≈ 1.2% at n = 2^28, less for smaller n), so a kernel that
    // skipped a larger share of the products fails. The tests' exact small-integer cases catch
    // any skipped product.
    const float lo = cfg.op == MemoryOp::kDot ? 0.0f : -1.0f;
    fill_uniform(b.x.data(), b.x.size(), seed * 2, lo, 1.0f);
    if (cfg.op == MemoryOp::kDot) {
      TILEKIT_RETURN_IF_ERROR(checked_resize(b.y, elems, "y"));
      fill_uniform(b.y.data(), b.y.size(), seed * 2 + 1, lo, 1.0f);
    }
    const int64_t out_count = cfg.op == MemoryOp::kDot ? 1 : elems;
    TILEKIT_RETURN_IF_ERROR(checked_resize(b.out, out_count, "the output"));
    TILEKIT_RETURN_IF_ERROR(checked_resize(b.copy, elems, "the copy of x"));
    if (gpu) {
      TILEKIT_RETURN_IF_ERROR(b.d_x.allocate(b.x.size(), "x"));
      TILEKIT_RETURN_IF_ERROR(b.d_x.upload(b.x.data(), b.x.size(), ctx.stream));
      if (!b.y.empty()) {
        TILEKIT_RETURN_IF_ERROR(b.d_y.allocate(b.y.size(), "y"));
        TILEKIT_RETURN_IF_ERROR(b.d_y.upload(b.y.data(), b.y.size(), ctx.stream));
      }
      TILEKIT_RETURN_IF_ERROR(b.d_out.allocate(b.out.size(), "output"));
      TILEKIT_RETURN_IF_ERROR(b.d_copy.allocate(b.copy.size(), "copy of x"));
    }
    // The reference: exact for copy and transpose; for dot, Σ x·y and Σ |x·y| in double.
    const DotReference dot_ref =
        cfg.op == MemoryOp::kDot ? dot_reference(b.x.data(), b.y.data(), elems) : DotReference{};
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
          if (!same_element(dst[i], b.x[i])) ++wrong;
      } else if (cfg.op == MemoryOp::kTranspose) {
        wrong = count_transpose_mismatches(b.x.data(), size.rows, size.cols,
                                           std::max<int64_t>(1, size.cols), dst.data(),
                                           std::max<int64_t>(1, size.rows));
      } else {
        const DotCheck check = check_dot_result(dst[0], dot_ref, elems);
        row->max_rel_error = dot_ref.value != 0 ? check.error / std::fabs(dot_ref.value) : check.error;
        std::ostringstream v;
        v << (check.passed ? "PASS" : "FAIL") << " |err| " << std::scientific
          << std::setprecision(2) << check.error << (check.passed ? " <= " : " > ") << check.bound;
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
        row.outcome = RowOutcome::kSkipped;
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
        row.outcome = RowOutcome::kFail;
        row.detail = row.verification + " (seed " + std::to_string(seed) + ")";
        rows->push_back(row);
        continue;
      }
      s = measure(*timer, [&] { return e.run(b, size); }, cfg.timing, cfg.cancel, &row.timing);
      if (!s) {
        TILEKIT_RETURN_IF_ERROR(record_error_row(s, row, rows));
        continue;
      }
      row.outcome = RowOutcome::kOk;
      mark_noise(&row);
      row.detail = row.verification;
      row.gbps = row.timing.median_s > 0 ? row.bytes / row.timing.median_s / 1e9 : 0;
      if (is_ceiling_row) ceiling_gbps = row.gbps;
      if (e.info->id == baseline_id) baseline_gbps = row.gbps;
      rows->push_back(row);
    }
    for (size_t i = first_row; i < rows->size(); ++i) {
      BenchRow& r = (*rows)[i];
      if (r.outcome != RowOutcome::kOk) continue;
      if (ceiling_gbps > 0) r.ceiling_ratio = r.gbps / ceiling_gbps;
      if (baseline_gbps > 0) r.baseline_ratio = r.gbps / baseline_gbps;
    }
  }
  if (cfg.progress) cfg.progress(done, total, "done");
  return Status::ok();
}

}  // namespace tilekit::bench
