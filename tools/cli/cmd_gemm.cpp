// cmd_gemm.cpp — `tilekit gemm`: one GEMM, on random inputs or on the user's .npy matrices.
#include <chrono>
#include <iostream>

#include "cli_common.hpp"
#include "tilekit/npy.hpp"
#include "tilekit/verify.hpp"

namespace tilekit::cli {
namespace {

struct GemmCommandOptions {
  int64_t m = -1, n = -1, k = -1;
  std::string a_path, b_path, c_path, out_path;
  float alpha = 1.0f, beta = 0.0f;
  bool trans_a = false, trans_b = false;
  std::string layout = "row";
  std::string kernel = "auto";
  bool check = false;
  bool verbose = false;
  uint64_t seed = 1;
  BackendOptions backend;
};

std::string dims(int64_t r, int64_t c) { return std::to_string(r) + " x " + std::to_string(c); }

// Host copies of the operands and C, in the problem's layout with tight leading dimensions.
struct HostProblem {
  GemmProblem p;  // pointers into the vectors below
  std::vector<float> a, b, c;
};

Status load_problem(const GemmCommandOptions& o, HostProblem* h) {
  GemmProblem& p = h->p;
  p.op_a = o.trans_a ? Op::kT : Op::kN;
  p.op_b = o.trans_b ? Op::kT : Op::kN;
  p.alpha = o.alpha;
  p.beta = o.beta;
  const bool files = !o.a_path.empty() || !o.b_path.empty();
  const bool sizes = o.m >= 0 || o.n >= 0 || o.k >= 0;
  if (files && sizes) return invalid_argument("give either --m --n --k or --a and --b, not both");
  if (files) {
    if (o.a_path.empty() || o.b_path.empty())
      return invalid_argument("--a and --b are needed together");
    if (o.layout != "row")
      return invalid_argument("--layout applies to random inputs; .npy inputs are read row-major");
    NpyMatrix a, b, c;
    TILEKIT_RETURN_IF_ERROR(read_npy_matrix(o.a_path, &a));
    TILEKIT_RETURN_IF_ERROR(read_npy_matrix(o.b_path, &b));
    p.layout = Layout::kRowMajor;
    p.m = o.trans_a ? a.cols : a.rows;
    p.k = o.trans_a ? a.rows : a.cols;
    const int64_t kb = o.trans_b ? b.cols : b.rows;
    p.n = o.trans_b ? b.rows : b.cols;
    if (kb != p.k)
      return invalid_argument("shape mismatch: op(A) is " + dims(p.m, p.k) + " (" + o.a_path +
                              " is " + dims(a.rows, a.cols) + ") but op(B) is " + dims(kb, p.n) +
                              " (" + o.b_path + " is " + dims(b.rows, b.cols) + ")");
    if (!o.c_path.empty()) {
      TILEKIT_RETURN_IF_ERROR(read_npy_matrix(o.c_path, &c));
      if (c.rows != p.m || c.cols != p.n)
        return invalid_argument("shape mismatch: C must be " + dims(p.m, p.n) + " but " +
                                o.c_path + " is " + dims(c.rows, c.cols));
    } else if (o.beta != 0.0f) {
      return invalid_argument("--beta " + std::to_string(o.beta) +
                              " needs --c (the matrix that beta scales)");
    }
    h->a = std::move(a.data);
    h->b = std::move(b.data);
    h->c = o.c_path.empty() ? std::vector<float>(static_cast<size_t>(p.m * p.n), 0.0f)
                            : std::move(c.data);
    p.lda = p.min_lda();
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc();
  } else {
    if (o.m < 0 || o.n < 0 || o.k < 0)
      return invalid_argument("give --m, --n and --k (random inputs) or --a and --b (.npy files)");
    if (!o.c_path.empty()) return invalid_argument("--c needs --a and --b");
    p.layout = o.layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
    p.m = o.m;
    p.n = o.n;
    p.k = o.k;
    p.lda = p.min_lda();
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc();
    h->a.resize(static_cast<size_t>(p.a_span()));
    h->b.resize(static_cast<size_t>(p.b_span()));
    h->c.resize(static_cast<size_t>(p.c_span()));
    fill_uniform(h->a.data(), h->a.size(), o.seed * 3);
    fill_uniform(h->b.data(), h->b.size(), o.seed * 3 + 1);
    fill_uniform(h->c.data(), h->c.size(), o.seed * 3 + 2);
  }
  p.a = h->a.data();
  p.b = h->b.data();
  p.c = h->c.data();
  return Status::ok();
}

int run_gemm(const GemmCommandOptions& o) {
  HostProblem h;
  Status s = load_problem(o, &h);
  if (!s) return fail(s);
  Context ctx;
  s = resolve_context(o.backend, &ctx);
  if (!s) return fail(s);
  GemmProblem& hp = h.p;
  if (Status v = validate(hp); !v) return fail(v);

  // Which kernel will run, and why.
  const GemmKernel* kernel = nullptr;
  if (o.kernel == "auto") {
    if (!is_quick_return(hp) && !only_scales_c(hp)) {
      s = select_gemm_kernel(hp, ctx, &kernel);
      if (!s) return fail(s);
    }
  } else {
    kernel = Registry::instance().find_gemm(o.kernel);
    if (!kernel)
      return fail(invalid_argument("--kernel: unknown kernel '" + o.kernel +
                                   "' (`tilekit list` shows the registered ids)"));
  }

  const std::vector<float> c0 = h.c;  // C before the call, for the check
  GemmProblem p = hp;                  // what the kernel sees (device pointers on CUDA)
  DeviceBuffer<float> d_a, d_b, d_c, d_c0;
  const bool gpu = ctx.backend == Backend::kCuda;
  if (gpu) {
    if (!(s = d_a.allocate(h.a.size(), "A")) || !(s = d_b.allocate(h.b.size(), "B")) ||
        !(s = d_c.allocate(h.c.size(), "C")) || !(s = d_a.upload(h.a.data(), h.a.size())) ||
        !(s = d_b.upload(h.b.data(), h.b.size())) || !(s = d_c.upload(h.c.data(), h.c.size())))
      return fail(s);
    p.a = d_a.get();
    p.b = d_b.get();
    p.c = d_c.get();
  }
  if (o.verbose) {
    std::cerr << "problem: " << hp.describe() << ", alpha " << hp.alpha << ", beta " << hp.beta
              << ", lda " << hp.lda << ", ldb " << hp.ldb << ", ldc " << hp.ldc << "\n"
              << "backend: " << backend_name(ctx.backend) << "\n";
    std::string notes;
    if (kernel && kernel->launch_notes && kernel->launch_notes(&notes))
      std::cerr << "launch: " << notes << "\n";
  }

  const auto t0 = std::chrono::steady_clock::now();
  s = kernel ? run_gemm_kernel(*kernel, ctx, p) : gemm(ctx, p);
  if (s) s = device_synchronize(ctx);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!s) return fail(s);
  if (gpu && !(s = d_c.download(h.c.data(), h.c.size()))) return fail(s);

  const double flops = 2.0 * static_cast<double>(hp.m) * static_cast<double>(hp.n) *
                       static_cast<double>(hp.k);
  std::cout << "gemm " << hp.describe() << " alpha " << hp.alpha << " beta " << hp.beta << "\n"
            << "kernel: " << (kernel ? kernel->info.id : std::string("(none: quick return or C scaling)"))
            << " on " << backend_name(ctx.backend) << "\n"
            << "time: " << ms << " ms for one call (not a benchmark: see `tilekit bench gemm`)";
  if (ms > 0 && flops > 0) std::cout << ", " << flops / ms / 1e6 << " GFLOP/s";
  std::cout << "\n";

  int code = kExitOk;
  if (o.check) {
    // The oracle reads the original inputs and C0 on the same backend.
    GemmReference ref;
    GemmProblem rp = gpu ? p : hp;
    if (gpu) {
      if (!(s = d_c0.allocate(c0.size(), "C0")) || !(s = d_c0.upload(c0.data(), c0.size())))
        return fail(s);
      rp.c = d_c0.get();
    } else {
      rp.c = const_cast<float*>(c0.data());  // read only: beta != 0 reads C0, nothing writes
    }
    if (!(s = compute_gemm_reference(ctx, rp, &ref))) return fail(s);
    const GemmCheck check = check_gemm_result(h.c.data(), hp.ldc, hp.layout, ref, hp.k);
    std::cout << "check: " << check.summary() << "\n"
              << "max abs error " << check.max_abs_error << ", max rel error "
              << check.max_rel_error << "\n";
    if (!check.passed) code = kExitVerify;
  }
  if (!o.out_path.empty() && code != kExitOk) {
    std::cerr << "tilekit: not writing " << o.out_path << ": the result failed the check\n";
  } else if (!o.out_path.empty()) {
    std::vector<float> row_major(static_cast<size_t>(hp.m * hp.n));
    for (int64_t i = 0; i < hp.m; ++i)
      for (int64_t j = 0; j < hp.n; ++j)
        row_major[static_cast<size_t>(i * hp.n + j)] =
            hp.layout == Layout::kRowMajor ? h.c[static_cast<size_t>(i * hp.ldc + j)]
                                           : h.c[static_cast<size_t>(j * hp.ldc + i)];
    if (!(s = write_npy_matrix(o.out_path, row_major.data(), hp.m, hp.n))) return fail(s);
    std::cout << "wrote " << o.out_path << " (" << dims(hp.m, hp.n) << " float32)\n";
  }
  return code;
}

}  // namespace

void add_gemm_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GemmCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "Run one GEMM C = alpha·op(A)·op(B) + beta·C on random inputs or .npy files");
  cmd->add_option("--m", o->m, "rows of op(A) and C (random inputs)")->check(non_negative());
  cmd->add_option("--n", o->n, "columns of op(B) and C (random inputs)")->check(non_negative());
  cmd->add_option("--k", o->k, "columns of op(A), rows of op(B) (random inputs)")
      ->check(non_negative());
  cmd->add_option("--a", o->a_path, "A as .npy (float32/float64, C or Fortran order)");
  cmd->add_option("--b", o->b_path, "B as .npy");
  cmd->add_option("--c", o->c_path, "C as .npy, read when beta != 0");
  cmd->add_option("--out", o->out_path, "write the result C here (.npy, float32)");
  cmd->add_option("--alpha", o->alpha, "alpha")->capture_default_str();
  cmd->add_option("--beta", o->beta, "beta")->capture_default_str();
  cmd->add_flag("--trans-a", o->trans_a, "use Aᵀ");
  cmd->add_flag("--trans-b", o->trans_b, "use Bᵀ");
  cmd->add_option("--layout", o->layout, "row or col (random inputs)")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_option("--kernel", o->kernel, "kernel id (`tilekit list`) or auto")->capture_default_str();
  cmd->add_flag("--check", o->check,
                "compare with the double-precision reference; exit 3 if outside the error bound");
  cmd->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
  cmd->add_flag("--verbose,-v", o->verbose, "say what runs where");
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_gemm(*o); });
}

}  // namespace tilekit::cli
