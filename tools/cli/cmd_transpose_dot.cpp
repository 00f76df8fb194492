// cmd_transpose_dot.cpp — `tilekit transpose` and `tilekit dot`: one call on random inputs or
// .npy files, with --kernel and --check.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>

#include "cli_common.hpp"
#include "memory_plan.hpp"
#include "tilekit/npy.hpp"
#include "tilekit/sizes.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::cli {
namespace {

struct TransposeOptions {
  std::string a_path, out_path, kernel = "auto";
  int64_t rows = -1, cols = -1;
  bool check = false;
  uint64_t seed = 1;
  BackendOptions backend;
};

struct DotOptions {
  std::string x_path, y_path, kernel = "auto";
  int64_t n = -1;
  bool check = false;
  uint64_t seed = 1;
  BackendOptions backend;
};

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A from --a or random --rows x --cols, and room for B = Aᵀ: both checked against the memory
// that exists before either is allocated.
Status load_transpose_input(const TransposeOptions& o, const Context& ctx, NpyMatrix* a,
                            std::vector<float>* b) {
  const bool file = !o.a_path.empty();
  if (file && (o.rows >= 0 || o.cols >= 0))
    return invalid_argument("give either --a or --rows and --cols, not both");
  if (!file && (o.rows < 0 || o.cols < 0))
    return invalid_argument("give --rows and --cols (random input) or --a (a .npy file)");
  if (file) TILEKIT_RETURN_IF_ERROR(read_npy_input(o.a_path, false, a));
  const int64_t rows = file ? a->rows : o.rows, cols = file ? a->cols : o.cols;
  bench::MemoryPlan plan;
  plan.add("A", rows, cols, sizeof(float));
  plan.add("Aᵀ", cols, rows, sizeof(float));
  TILEKIT_RETURN_IF_ERROR(plan.check_host());
  if (ctx.backend == Backend::kCuda) TILEKIT_RETURN_IF_ERROR(plan.check_device(ctx.device));
  int64_t count = 0;
  TILEKIT_RETURN_IF_ERROR(checked_elements(rows, cols, "A", &count));
  if (!file) {
    a->rows = rows;
    a->cols = cols;
    TILEKIT_RETURN_IF_ERROR(checked_resize(a->data, count, "A"));
    fill_uniform(a->data.data(), a->data.size(), o.seed);
  }
  // NaN until written, so an element a kernel skips fails the check.
  TILEKIT_RETURN_IF_ERROR(checked_resize(*b, count, "Aᵀ"));
  std::fill(b->begin(), b->end(), std::numeric_limits<float>::quiet_NaN());
  return Status::ok();
}

int run_transpose_cmd(const TransposeOptions& o) {
  Status s;
  Context ctx;
  if (!(s = resolve_context(o.backend, &ctx))) return fail(s);
  NpyMatrix a;
  std::vector<float> b;
  if (!(s = load_transpose_input(o, ctx, &a, &b))) return fail(s);
  const TransposeKernel* kernel = nullptr;
  if (o.kernel != "auto" && !(kernel = Registry::instance().transpose.find(o.kernel)))
    return fail(invalid_argument("--kernel: unknown transpose kernel '" + o.kernel + "'"));

  const size_t count = a.data.size();
  const int64_t lda = std::max<int64_t>(1, a.cols), ldb = std::max<int64_t>(1, a.rows);
  TransposeProblem p{a.rows, a.cols, a.data.data(), lda, b.data(), ldb};
  DeviceBuffer<float> d_a, d_b;
  const bool gpu = ctx.backend == Backend::kCuda;
  if (gpu) {
    if (!(s = d_a.allocate(count, "A")) || !(s = d_b.allocate(count, "B")) ||
        !(s = d_a.upload(a.data.data(), count)))
      return fail(s);
    p.a = d_a.get();
    p.b = d_b.get();
  }
  const auto t0 = std::chrono::steady_clock::now();
  KernelOptions options;
  options.kernel = o.kernel;
  s = kernel ? run_transpose_kernel(*kernel, ctx, p)
             : transpose(ctx, p.rows, p.cols, p.a, p.lda, p.b, p.ldb, options);
  if (s) s = device_synchronize(ctx);
  const double ms = elapsed_ms(t0);
  if (!s) return fail(s);
  if (gpu && !(s = d_b.download(b.data(), count))) return fail(s);
  std::cout << "transpose " << a.rows << "x" << a.cols << " -> " << a.cols << "x" << a.rows
            << " on " << backend_name(ctx.backend) << (kernel ? " with " + kernel->info.id : "")
            << "\ntime: " << ms << " ms for one call (not a benchmark: see `tilekit bench transpose`)\n";
  if (o.check) {
    // In place against A: a NaN in A must be a NaN in B, every other element the same bits.
    const int64_t wrong = count_transpose_mismatches(a.data.data(), a.rows, a.cols, lda,
                                                     b.data(), ldb);
    std::cout << "check: " << (wrong ? "FAIL " + std::to_string(wrong) + " elements differ"
                                     : std::string("PASS exact"))
              << "\n";
    if (wrong) {
      if (!o.out_path.empty())
        std::cerr << "tilekit: not writing " << o.out_path << ": the result failed the check\n";
      return kExitVerify;
    }
  }
  if (!o.out_path.empty()) {
    if (!(s = write_npy_result(o.out_path, b.data(), a.cols, a.rows, ldb, Layout::kRowMajor)))
      return fail(s);
    std::cout << "wrote " << o.out_path << " (" << a.cols << " x " << a.rows << " float32)\n";
  }
  return kExitOk;
}

// x and y from .npy files or random --n, checked against the memory that exists first.
Status load_dot_inputs(const DotOptions& o, const Context& ctx, NpyMatrix* x, NpyMatrix* y) {
  const bool files = !o.x_path.empty() || !o.y_path.empty();
  if (files && o.n >= 0) return invalid_argument("give either --n or --x and --y, not both");
  if (files) {
    if (o.x_path.empty() || o.y_path.empty())
      return invalid_argument("--x and --y are needed together");
    TILEKIT_RETURN_IF_ERROR(read_npy_input(o.x_path, true, x));
    TILEKIT_RETURN_IF_ERROR(read_npy_input(o.y_path, true, y));
    if (x->data.size() != y->data.size())
      return invalid_argument("length mismatch: " + o.x_path + " has " +
                              std::to_string(x->data.size()) + " elements, " + o.y_path +
                              " has " + std::to_string(y->data.size()));
  } else if (o.n < 0) {
    return invalid_argument("give --n (random inputs) or --x and --y (.npy files)");
  }
  const int64_t n = files ? static_cast<int64_t>(x->data.size()) : o.n;
  bench::MemoryPlan plan;
  plan.add("x", n, 1, sizeof(float));
  plan.add("y", n, 1, sizeof(float));
  TILEKIT_RETURN_IF_ERROR(plan.check_host());
  if (ctx.backend == Backend::kCuda) TILEKIT_RETURN_IF_ERROR(plan.check_device(ctx.device));
  if (!files) {
    TILEKIT_RETURN_IF_ERROR(checked_resize(x->data, n, "x"));
    TILEKIT_RETURN_IF_ERROR(checked_resize(y->data, n, "y"));
    fill_uniform(x->data.data(), x->data.size(), o.seed * 2);
    fill_uniform(y->data.data(), y->data.size(), o.seed * 2 + 1);
  }
  return Status::ok();
}

int run_dot_cmd(const DotOptions& o) {
  Status s;
  Context ctx;
  if (!(s = resolve_context(o.backend, &ctx))) return fail(s);
  NpyMatrix x, y;
  if (!(s = load_dot_inputs(o, ctx, &x, &y))) return fail(s);
  const DotKernel* kernel = nullptr;
  if (o.kernel != "auto" && !(kernel = Registry::instance().dot.find(o.kernel)))
    return fail(invalid_argument("--kernel: unknown dot kernel '" + o.kernel + "'"));
  const int64_t n = static_cast<int64_t>(x.data.size());
  float result = std::numeric_limits<float>::quiet_NaN();
  DotProblem p{n, x.data.data(), y.data.data(), &result};
  DeviceBuffer<float> d_x, d_y, d_r;
  const bool gpu = ctx.backend == Backend::kCuda;
  if (gpu) {
    if (!(s = d_x.allocate(x.data.size(), "x")) || !(s = d_y.allocate(y.data.size(), "y")) ||
        !(s = d_r.allocate(1, "result")) || !(s = d_x.upload(x.data.data(), x.data.size())) ||
        !(s = d_y.upload(y.data.data(), y.data.size())))
      return fail(s);
    p = DotProblem{n, d_x.get(), d_y.get(), d_r.get()};
  }
  const auto t0 = std::chrono::steady_clock::now();
  KernelOptions options;
  options.kernel = o.kernel;
  s = kernel ? run_dot_kernel(*kernel, ctx, p) : dot(ctx, p.n, p.x, p.y, p.result, options);
  if (s) s = device_synchronize(ctx);
  const double ms = elapsed_ms(t0);
  if (!s) return fail(s);
  if (gpu && !(s = d_r.download(&result, 1))) return fail(s);
  std::cout << "dot n=" << n << " on " << backend_name(ctx.backend)
            << (kernel ? " with " + kernel->info.id : "") << ", " << ms << " ms for one call\n";
  int code = kExitOk;
  if (o.check) {
    const DotCheck check =
        check_dot_result(result, dot_reference(x.data.data(), y.data.data(), n), n);
    std::cout << "check: " << check.summary() << "\n";
    if (!check.passed) code = kExitVerify;
  }
  char value[64];
  std::snprintf(value, sizeof value, "%.9g", static_cast<double>(result));
  std::cout << "result: " << value << "\n";
  return code;
}

}  // namespace

void add_transpose_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<TransposeOptions>();
  CLI::App* cmd = app.add_subcommand("transpose", "Transpose a matrix (random or .npy), B = Aᵀ");
  cmd->add_option("--a", o->a_path, "A as .npy (float32/float64, C or Fortran order)");
  cmd->add_option("--rows", o->rows, "rows of a random A")->transform(size_value());
  cmd->add_option("--cols", o->cols, "columns of a random A")->transform(size_value());
  cmd->add_option("--out", o->out_path, "write Aᵀ here (.npy, float32)")->check(output_path());
  cmd->add_option("--kernel", o->kernel, "kernel id (`tilekit list transpose.*`) or auto")
      ->capture_default_str();
  cmd->add_flag("--check", o->check, "compare with A element by element; exit 3 if any differs");
  cmd->add_option("--seed", o->seed, "seed of the random input")
      ->transform(unsigned_value())
      ->capture_default_str();
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_transpose_cmd(*o); });
}

void add_dot_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dot", "Dot product of two vectors (random or .npy); the result is the last token printed");
  cmd->add_option("--x", o->x_path, "x as .npy: shape (n,), (1, n) or (n, 1)");
  cmd->add_option("--y", o->y_path, "y as .npy, the same length");
  cmd->add_option("--n", o->n, "length of random x and y")->transform(size_value());
  cmd->add_option("--kernel", o->kernel, "kernel id (`tilekit list dot.*`) or auto")
      ->capture_default_str();
  cmd->add_flag("--check", o->check,
                "compare with a float64 reference within an error bound that grows with n; exit 3 "
                "outside it");
  cmd->add_option("--seed", o->seed, "seed of the random inputs")
      ->transform(unsigned_value())
      ->capture_default_str();
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_dot_cmd(*o); });
}

}  // namespace tilekit::cli
