#include "accuracy.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include "core/backend.hpp"
#include "gemm_bench.hpp"
#include "kernel_select.hpp"
#include "memory_plan.hpp"
#include "report.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::bench {

const char* accuracy_outcome_name(AccuracyOutcome o) {
  switch (o) {
    case AccuracyOutcome::kOk: return "ok";
    case AccuracyOutcome::kSkipped: return "skipped";
    case AccuracyOutcome::kError: return "error";
  }
  return "?";
}

int compute_order(Compute c) {
  switch (c) {
    case Compute::kF32: return 0;
    case Compute::kF32x3TF32: return 1;
    case Compute::kTF32: return 2;
    case Compute::kBF16: return 3;
  }
  return 4;
}

void measure_accuracy(const float* c, const GemmReference& ref, int64_t k, AccuracyRow* row) {
  // The verification check with safety 4 and nothing added for the inputs is exactly the accuracy
  // table's bound 4·γ(k+2)·|A||B| (alpha = 1, beta = 0): its worst ratio is the bound ratio.
  CheckOptions bound;
  bound.safety = 4.0;
  const GemmCheck check = check_gemm_result(c, ref.n, Layout::kRowMajor, ref, k, bound);
  double max_magnitude = 0;
  for (double v : ref.magnitude) max_magnitude = std::max(max_magnitude, v);
  row->nonfinite = check.nonfinite;
  row->max_abs_error = check.max_abs_error;
  const double inf = std::numeric_limits<double>::infinity();
  row->normwise_error = check.nonfinite > 0 ? inf
                        : max_magnitude > 0 ? check.max_abs_error / max_magnitude
                                            : check.max_abs_error;
  row->bound_ratio = check.nonfinite > 0 ? inf : check.worst_ratio;
}

namespace {

// One operand's bytes in a kernel's storage type, on the host and (CUDA) on the device.
struct StagedOperand {
  std::vector<unsigned char> host;
  DeviceBuffer<unsigned char> device;

  Status stage(const Context& ctx, const std::vector<float>& values, DType type, const char* what) {
    host.resize(values.size() * dtype_size(type));
    encode_from_f32(values.data(), values.size(), type, host.data());
    if (ctx.backend != Backend::kCuda) return Status::ok();
    TILEKIT_RETURN_IF_ERROR(device.allocate(host.size(), what));
    return device.upload(host.data(), host.size(), ctx.stream);
  }
  unsigned char* data(const Context& ctx) {
    return ctx.backend == Backend::kCuda ? device.get() : host.data();
  }
};

// The inputs of one k: A and B in FP32 and the FP64 reference of their product.
struct KInputs {
  std::vector<float> a, b;
  GemmReference ref;
};

GemmProblem row_major_problem(int64_t m, int64_t n, int64_t k, const GemmTypes& types) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.types = types;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  return p;
}

Status check_memory(const AccuracyConfig& cfg, int64_t k) {
  MemoryPlan plan;
  plan.add("A", cfg.m, k, 2 * sizeof(float));  // FP32 and one staged copy
  plan.add("B", k, cfg.n, 2 * sizeof(float));
  plan.add("C", cfg.m, cfg.n, sizeof(float));
  plan.add("the reference", cfg.m, cfg.n, 2 * sizeof(double));
  TILEKIT_RETURN_IF_ERROR(plan.overflow());
  TILEKIT_RETURN_IF_ERROR(plan.check_host());
  if (cfg.ctx.backend == Backend::kCuda) TILEKIT_RETURN_IF_ERROR(plan.check_device(cfg.ctx.device));
  return Status::ok();
}

// Random FP32 inputs for k (a seed of their own per k) and the FP64 product of them as they are.
Status make_inputs(const AccuracyConfig& cfg, int64_t k, uint64_t seed, KInputs* out) {
  GemmProblem p = row_major_problem(cfg.m, cfg.n, k, GemmTypes{});
  out->a.resize(static_cast<size_t>(cfg.m * k));
  out->b.resize(static_cast<size_t>(k * cfg.n));
  fill_uniform(out->a.data(), out->a.size(), seed * 2 + 0);
  fill_uniform(out->b.data(), out->b.size(), seed * 2 + 1);
  StagedOperand a, b;
  TILEKIT_RETURN_IF_ERROR(a.stage(cfg.ctx, out->a, DType::kF32, "A"));
  TILEKIT_RETURN_IF_ERROR(b.stage(cfg.ctx, out->b, DType::kF32, "B"));
  p.a = a.data(cfg.ctx);
  p.b = b.data(cfg.ctx);
  std::vector<float> unused_c(1);  // beta = 0: C is not read
  p.c = unused_c.data();
  return compute_gemm_reference(cfg.ctx, p, &out->ref);
}

// Runs `kernel` on the inputs (staged in its storage types) and measures its result.
Status run_one(const AccuracyConfig& cfg, const GemmKernel& kernel, const KInputs& in, int64_t k,
               AccuracyRow* row) {
  const Context& ctx = cfg.ctx;
  GemmProblem p = row_major_problem(cfg.m, cfg.n, k, kernel.info.types);
  StagedOperand a, b, c;
  TILEKIT_RETURN_IF_ERROR(a.stage(ctx, in.a, p.types.a, "A"));
  TILEKIT_RETURN_IF_ERROR(b.stage(ctx, in.b, p.types.b, "B"));
  // C starts as NaN: an element the kernel does not write shows up as non-finite.
  const std::vector<float> nan_c(static_cast<size_t>(cfg.m * cfg.n),
                                 std::numeric_limits<float>::quiet_NaN());
  TILEKIT_RETURN_IF_ERROR(c.stage(ctx, nan_c, p.types.c, "C"));
  p.a = a.data(ctx);
  p.b = b.data(ctx);
  p.c = c.data(ctx);
  TILEKIT_RETURN_IF_ERROR(run_gemm_kernel(kernel, ctx, p));
  TILEKIT_RETURN_IF_ERROR(device_synchronize(ctx));
  if (ctx.backend == Backend::kCuda)
    TILEKIT_RETURN_IF_ERROR(c.device.download(c.host.data(), c.host.size(), ctx.stream));
  std::vector<float> result(nan_c.size());
  decode_to_f32(c.host.data(), result.size(), p.types.c, result.data());
  measure_accuracy(result.data(), in.ref, k, row);
  return Status::ok();
}

// The selected kernels, grouped by compute mode (f32, 3xTF32, TF32, BF16), each group in
// registration order.
Status selected_kernels(const AccuracyConfig& cfg, std::vector<const GemmKernel*>* out) {
  TILEKIT_RETURN_IF_ERROR(
      select_kernels(Registry::instance().gemm, cfg.kernels, "gemm", cfg.ctx.backend, out));
  std::stable_sort(out->begin(), out->end(), [](const GemmKernel* x, const GemmKernel* y) {
    return compute_order(x->info.types.compute) < compute_order(y->info.types.compute);
  });
  if (out->empty())
    return invalid_argument("--kernels: no GEMM kernel on the " +
                            std::string(backend_name(cfg.ctx.backend)) + " backend");
  return Status::ok();
}

// Each row's normwise error over its mode's baseline's at the same k, where that ran.
void fill_baseline_ratios(Backend backend, std::vector<AccuracyRow>* rows) {
  std::map<std::pair<std::string, int64_t>, double> error_of;
  for (const auto& r : *rows)
    if (r.outcome == AccuracyOutcome::kOk) error_of[{r.kernel, r.k}] = r.normwise_error;
  for (auto& r : *rows) {
    const auto base = error_of.find({baseline_kernel_id(backend, r.types), r.k});
    if (r.outcome == AccuracyOutcome::kOk && base != error_of.end() && base->second > 0)
      r.baseline_ratio = r.normwise_error / base->second;
  }
}

}  // namespace

Status run_accuracy(const AccuracyConfig& cfg, std::vector<AccuracyRow>* rows) {
  if (cfg.m <= 0 || cfg.n <= 0) return invalid_argument("--m and --n must be at least 1");
  if (cfg.ks.empty()) return invalid_argument("--k: no inner dimension given");
  for (int64_t k : cfg.ks) {
    if (k <= 0) return invalid_argument("--k: " + std::to_string(k) + " is not at least 1");
    if (Status s = check_memory(cfg, k); !s)
      return Status(s.code(), "k = " + std::to_string(k) + ": " + s.message());
  }
  std::vector<const GemmKernel*> kernels;
  TILEKIT_RETURN_IF_ERROR(selected_kernels(cfg, &kernels));
  DeviceScope device_scope(cfg.ctx);
  TILEKIT_RETURN_IF_ERROR(device_scope.status());

  // k outer (one reference each), kernels inner; rows are put in table order at the end.
  std::vector<AccuracyRow> done_rows;
  const int total = static_cast<int>(cfg.ks.size() * kernels.size());
  int done = 0;
  Status stopped;
  for (size_t ki = 0; ki < cfg.ks.size() && stopped; ++ki) {
    const int64_t k = cfg.ks[ki];
    if (cfg.progress) cfg.progress(done, total, "reference for k = " + std::to_string(k));
    KInputs in;
    if (Status s = make_inputs(cfg, k, cfg.seed + ki, &in); !s) {
      stopped = Status(s.code(), "k = " + std::to_string(k) + ": " + s.message());
      break;  // the rows of the k before are kept
    }
    for (const GemmKernel* kernel : kernels) {
      if (cfg.cancel && cfg.cancel->load()) {
        stopped = Status(StatusCode::kCancelled, "interrupted");
        break;
      }
      if (cfg.progress) cfg.progress(done, total, kernel->info.id + " k = " + std::to_string(k));
      ++done;
      AccuracyRow row;
      row.kernel = kernel->info.id;
      row.types = kernel->info.types;
      row.m = cfg.m;
      row.n = cfg.n;
      row.k = k;
      const Status s = run_one(cfg, *kernel, in, k, &row);
      if (s.code() == StatusCode::kNotSupported) {
        row.outcome = AccuracyOutcome::kSkipped;
        row.detail = s.message();
      } else if (!s) {
        // A CUDA error may leave the context unusable: stop there, keep what finished.
        if (s.code() == StatusCode::kCudaError) {
          stopped = s;
          break;
        }
        row.outcome = AccuracyOutcome::kError;
        row.detail = s.message();
      }
      done_rows.push_back(row);
    }
  }
  // Table order: the kernels' order (grouped by mode), k in the order given.
  for (const GemmKernel* kernel : kernels)
    for (const auto& r : done_rows)
      if (r.kernel == kernel->info.id) rows->push_back(r);
  fill_baseline_ratios(cfg.ctx.backend, rows);
  if (cfg.progress) cfg.progress(done, total, "done");
  return stopped;
}

namespace {

std::string scientific(double v, int digits = 2) {
  if (std::isinf(v)) return "inf";
  std::ostringstream s;
  s << std::scientific << std::setprecision(digits) << v;
  return s.str();
}

// "0.32x", "2.1x", "1.4e+04x": a ratio to the baseline.
std::string times(double v) {
  std::ostringstream s;
  s << std::setprecision(2) << v << "x";
  return s.str();
}

// The cell of one kernel at one k: its measure, or why there is none.
std::string cell(const AccuracyRow* r, double AccuracyRow::*measure) {
  if (r == nullptr) return "-";
  if (r->outcome != AccuracyOutcome::kOk) return accuracy_outcome_name(r->outcome);
  return scientific(r->*measure);
}

struct TableShape {
  std::vector<std::string> kernels;  // in row order
  std::vector<int64_t> ks;           // in column order
  size_t width = 6;
};

TableShape table_shape(const std::vector<AccuracyRow>& rows) {
  TableShape t;
  for (const auto& r : rows) {
    if (std::find(t.kernels.begin(), t.kernels.end(), r.kernel) == t.kernels.end())
      t.kernels.push_back(r.kernel);
    if (std::find(t.ks.begin(), t.ks.end(), r.k) == t.ks.end()) t.ks.push_back(r.k);
    t.width = std::max(t.width, r.kernel.size());
  }
  return t;
}

const AccuracyRow* find_row(const std::vector<AccuracyRow>& rows, const std::string& kernel,
                            int64_t k) {
  for (const auto& r : rows)
    if (r.kernel == kernel && r.k == k) return &r;
  return nullptr;
}

void print_one_table(std::ostream& out, const std::vector<AccuracyRow>& rows, const TableShape& t,
                     double AccuracyRow::*measure, bool with_baseline) {
  out << std::left << std::setw(static_cast<int>(t.width)) << "kernel" << std::right
      << std::setw(12) << "types";
  for (int64_t k : t.ks) out << std::setw(10) << ("k=" + std::to_string(k));
  if (with_baseline) out << std::setw(10) << "vs base";
  out << "\n";
  for (const std::string& kernel : t.kernels) {
    const AccuracyRow* any = nullptr;  // the kernel's first row: its mode
    for (const auto& r : rows)
      if (!any && r.kernel == kernel) any = &r;
    out << std::left << std::setw(static_cast<int>(t.width)) << kernel << std::right
        << std::setw(12) << types_tag(any->types);
    double worst_vs_base = 0;
    for (int64_t k : t.ks) {
      const AccuracyRow* r = find_row(rows, kernel, k);
      out << std::setw(10) << cell(r, measure);
      if (r) worst_vs_base = std::max(worst_vs_base, r->baseline_ratio);
    }
    if (with_baseline) out << std::setw(10) << (worst_vs_base > 0 ? times(worst_vs_base) : "-");
    out << "\n";
  }
}

}  // namespace

void print_accuracy_table(std::ostream& out, const std::vector<AccuracyRow>& rows,
                          Backend backend) {
  if (rows.empty()) return;
  const TableShape t = table_shape(rows);
  const AccuracyRow& first = rows.front();
  out << "normwise error max|C - C_ref| / max(|A||B|), C_ref the FP64 product of the FP32 inputs ("
      << first.m << " x k x " << first.n << ", uniform [-1, 1)):\n";
  print_one_table(out, rows, t, &AccuracyRow::normwise_error, true);
  GemmTypes x3;
  x3.compute = Compute::kF32x3TF32;
  out << "vs base: the largest ratio, over k, of the normwise error to that of the mode's baseline"
      << " in this run (" << baseline_kernel_id(backend, x3) << " for f32_3xtf32)."
      << "\n\nbound ratio max_ij |C - C_ref|ij / (4 gamma(k+2) (|A||B|)ij), u = 2^-24 "
         "(<= 1: within FP32's elementwise bound):\n";
  print_one_table(out, rows, t, &AccuracyRow::bound_ratio, false);
  for (const auto& r : rows)
    if (r.outcome != AccuracyOutcome::kOk)
      out << r.kernel << " k=" << r.k << ": " << accuracy_outcome_name(r.outcome) << ": "
          << r.detail << "\n";
}

Status write_accuracy_csv(const std::string& path, const std::vector<AccuracyRow>& rows,
                          const std::string& command_line) {
  std::ostringstream s;
  s << "kernel,compute,m,n,k,outcome,normwise_error,bound_ratio,max_abs_error,nonfinite,"
       "baseline_ratio,detail,command\n";
  s << std::setprecision(9);
  for (const auto& r : rows)
    s << csv_field(r.kernel) << ',' << compute_name(r.types.compute) << ',' << r.m << ',' << r.n
      << ',' << r.k << ',' << accuracy_outcome_name(r.outcome) << ',' << r.normwise_error << ','
      << r.bound_ratio << ',' << r.max_abs_error << ',' << r.nonfinite << ',' << r.baseline_ratio
      << ',' << csv_field(r.detail) << ',' << csv_field(command_line) << '\n';
  return write_file_atomically(path, s.str());
}

Status write_accuracy_json(const std::string& path, const std::vector<AccuracyRow>& rows,
                           const std::string& command_line) {
  // Inf (a non-finite result) has no JSON number: null says "no finite measure".
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json j;
  j["command"] = command_line;
  j["measures"] = {
      {"normwise_error", "max_ij |C - C_ref|ij / max_ij (|A||B|)ij"},
      {"bound_ratio", "max_ij |C - C_ref|ij / (4 gamma(k+2) (|A||B|)ij), u = 2^-24"},
      {"reference", "FP64 product of the FP32 inputs, uniform [-1, 1), alpha 1, beta 0"}};
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows)
    j["rows"].push_back({{"kernel", r.kernel},
                         {"compute", compute_name(r.types.compute)},
                         {"types", types_tag(r.types)},
                         {"m", r.m},
                         {"n", r.n},
                         {"k", r.k},
                         {"outcome", accuracy_outcome_name(r.outcome)},
                         {"detail", r.detail},
                         {"normwise_error", number(r.normwise_error)},
                         {"bound_ratio", number(r.bound_ratio)},
                         {"max_abs_error", number(r.max_abs_error)},
                         {"nonfinite", r.nonfinite},
                         {"baseline_ratio", number(r.baseline_ratio)}});
  return write_file_atomically(
      path, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace tilekit::bench
