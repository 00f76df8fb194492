// cmd_transpose_dot.cpp — `tilekit transpose` and `tilekit dot`: one call on random inputs or
// .npy files, with --kernel and --check.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

#include "cli_common.hpp"
#include "tilekit/npy.hpp"
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

int run_transpose_cmd(const TransposeOptions& o) {
  NpyMatrix a;
  Status s;
  const bool file = !o.a_path.empty();
  if (file && (o.rows >= 0 || o.cols >= 0))
    return fail(invalid_argument("give either --a or --rows and --cols, not both"));
  if (file) {
    if (!(s = read_npy_matrix(o.a_path, &a))) return fail(s);
  } else {
    if (o.rows < 0 || o.cols < 0)
      return fail(invalid_argument("give --rows and --cols (random input) or --a (a .npy file)"));
    a.rows = o.rows;
    a.cols = o.cols;
    a.data.resize(static_cast<size_t>(a.rows * a.cols));
    fill_uniform(a.data.data(), a.data.size(), o.seed);
  }
  Context ctx;
  if (!(s = resolve_context(o.backend, &ctx))) return fail(s);
  const TransposeKernel* kernel = nullptr;
  if (o.kernel != "auto" && !(kernel = Registry::instance().transpose.find(o.kernel)))
    return fail(invalid_argument("--kernel: unknown transpose kernel '" + o.kernel + "'"));

  const size_t count = a.data.size();
  std::vector<float> b(count, std::numeric_limits<float>::quiet_NaN());
  TransposeProblem p{a.rows, a.cols, a.data.data(), std::max<int64_t>(1, a.cols), b.data(),
                     std::max<int64_t>(1, a.rows)};
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
    int64_t wrong = 0;
    for (int64_t r = 0; r < a.rows; ++r)
      for (int64_t c = 0; c < a.cols; ++c)
        if (b[static_cast<size_t>(c * a.rows + r)] != a.data[static_cast<size_t>(r * a.cols + c)] ||
            std::isnan(b[static_cast<size_t>(c * a.rows + r)]) !=
                std::isnan(a.data[static_cast<size_t>(r * a.cols + c)]))
          ++wrong;
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
    if (!(s = write_npy_matrix(o.out_path, b.data(), a.cols, a.rows))) return fail(s);
    std::cout << "wrote " << o.out_path << " (" << a.cols << " x " << a.rows << " float32)\n";
  }
  return kExitOk;
}

int run_dot_cmd(const DotOptions& o) {
  NpyMatrix x, y;
  Status s;
  const bool files = !o.x_path.empty() || !o.y_path.empty();
  if (files && o.n >= 0) return fail(invalid_argument("give either --n or --x and --y, not both"));
  if (files) {
    if (o.x_path.empty() || o.y_path.empty())
      return fail(invalid_argument("--x and --y are needed together"));
    if (!(s = read_npy_vector(o.x_path, &x)) || !(s = read_npy_vector(o.y_path, &y)))
      return fail(s);
    if (x.data.size() != y.data.size())
      return fail(invalid_argument("length mismatch: " + o.x_path + " has " +
                                   std::to_string(x.data.size()) + " elements, " + o.y_path +
                                   " has " + std::to_string(y.data.size())));
  } else {
    if (o.n < 0) return fail(invalid_argument("give --n (random inputs) or --x and --y (.npy files)"));
    x.data.resize(static_cast<size_t>(o.n));
    y.data.resize(static_cast<size_t>(o.n));
    fill_uniform(x.data.data(), x.data.size(), o.seed * 2);
    fill_uniform(y.data.data(), y.data.size(), o.seed * 2 + 1);
  }
  Context ctx;
  if (!(s = resolve_context(o.backend, &ctx))) return fail(s);
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
    double ref = 0, mag = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double prod = static_cast<double>(x.data[static_cast<size_t>(i)]) * y.data[static_cast<size_t>(i)];
      ref += prod;
      mag += std::fabs(prod);
    }
    const double err = std::fabs(static_cast<double>(result) - ref);
    const double bound = dot_error_bound_factor(n) * mag + std::fabs(ref) / 16777216.0 +
                         std::numeric_limits<float>::min();
    const bool ok = std::isfinite(result) && err <= bound;
    char line[200];
    std::snprintf(line, sizeof line, "check: %s |err| %.3g <= bound %.3g (reference %.17g)",
                  ok ? "PASS" : "FAIL", err, bound, ref);
    std::cout << line << "\n";
    if (!ok) code = kExitVerify;
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
  cmd->add_option("--rows", o->rows, "rows of a random A")->check(non_negative());
  cmd->add_option("--cols", o->cols, "columns of a random A")->check(non_negative());
  cmd->add_option("--out", o->out_path, "write Aᵀ here (.npy, float32)");
  cmd->add_option("--kernel", o->kernel, "kernel id (`tilekit list transpose.*`) or auto")
      ->capture_default_str();
  cmd->add_flag("--check", o->check, "compare with A element by element; exit 3 if any differs");
  cmd->add_option("--seed", o->seed, "seed of the random input")->capture_default_str();
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_transpose_cmd(*o); });
}

void add_dot_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dot", "Dot product of two vectors (random or .npy); the result is the last token printed");
  cmd->add_option("--x", o->x_path, "x as .npy: shape (n,), (1, n) or (n, 1)");
  cmd->add_option("--y", o->y_path, "y as .npy, the same length");
  cmd->add_option("--n", o->n, "length of random x and y")->check(non_negative());
  cmd->add_option("--kernel", o->kernel, "kernel id (`tilekit list dot.*`) or auto")
      ->capture_default_str();
  cmd->add_flag("--check", o->check,
                "compare with a float64 reference within an error bound that grows with n; exit 3 "
                "outside it");
  cmd->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_dot_cmd(*o); });
}

}  // namespace tilekit::cli
