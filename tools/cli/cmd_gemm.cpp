// cmd_gemm.cpp — `tilekit gemm`: one GEMM, on random inputs or on the user's .npy matrices.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli_common.hpp"
#include "core/dispatch.hpp"
#include "core/tune_on_line.hpp"
#include "tilekit/tune_cache.hpp"
#include "memory_plan.hpp"
#include "tilekit/npy.hpp"
#include "tilekit/sizes.hpp"
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
  std::string dtype = "f32";    // storage of A and B
  std::string compute;          // empty: f32 for f32 inputs, bf16 for 16-bit ones
  bool explain = false;
  bool allow_vendor = false;
  double tune_budget_ms = 0;  // GemmOptions::tune_budget_ms
  bool check = false;
  bool verbose = false;
  uint64_t seed = 1;
  BackendOptions backend;
};

std::string dims(int64_t r, int64_t c) { return std::to_string(r) + " x " + std::to_string(c); }

// Host copies of the operands and C, in the problem's layout with tight leading dimensions.
// With --check and beta != 0 on the CPU, c0 keeps C before the call (the reference reads it);
// that copy is the only C-sized buffer besides C itself.
struct HostProblem {
  GemmProblem p;  // pointers into the vectors below
  std::vector<float> a, b, c, c0;
  std::vector<uint16_t> a16, b16;  // A and B stored as bf16 or f16 (--dtype), else empty
};

// The types --dtype and --compute ask for; C is float32.
Status parse_types(const GemmCommandOptions& o, GemmTypes* out) {
  DType in = DType::kF32;
  TILEKIT_RETURN_IF_ERROR(parse_dtype(o.dtype, "--dtype", &in));
  Compute compute = in == DType::kF32 ? Compute::kF32 : Compute::kBF16;
  if (!o.compute.empty()) TILEKIT_RETURN_IF_ERROR(parse_compute(o.compute, "--compute", &compute));
  *out = GemmTypes{in, in, DType::kF32, compute};
  if (Status v = validate(*out); !v)
    return Status(v.code(), "--dtype " + o.dtype + " --compute " + compute_name(compute) + ": " +
                                v.message());
  return Status::ok();
}

// A and B in their 16-bit storage (--dtype bf16|f16): the float inputs rounded once, as a
// caller holding 16-bit data would pass them; the float copies are then released.
void store_inputs_16bit(HostProblem* h) {
  const DType t = h->p.types.a;
  auto encode = [t](const std::vector<float>& in, std::vector<uint16_t>* out) {
    out->resize(in.size());
    encode_from_f32(in.data(), in.size(), t, out->data());
  };
  encode(h->a, &h->a16);
  encode(h->b, &h->b16);
  std::vector<float>().swap(h->a);
  std::vector<float>().swap(h->b);
  h->p.a = h->a16.data();
  h->p.b = h->b16.data();
}

bool keeps_c0_on_host(const GemmCommandOptions& o, const Context& ctx) {
  return o.check && o.beta != 0.0f && ctx.backend == Backend::kCpu;
}

// Fills p's shape from --m --n --k or from the .npy files' shapes (loading A and B, which are
// needed anyway, and C when given).
Status shape_problem(const GemmCommandOptions& o, HostProblem* h, NpyMatrix* c_file) {
  GemmProblem& p = h->p;
  p.op_a = o.trans_a ? Op::kT : Op::kN;
  p.op_b = o.trans_b ? Op::kT : Op::kN;
  p.alpha = o.alpha;
  p.beta = o.beta;
  const bool files = !o.a_path.empty() || !o.b_path.empty();
  const bool sizes = o.m >= 0 || o.n >= 0 || o.k >= 0;
  if (files && sizes) return invalid_argument("give either --m --n --k or --a and --b, not both");
  if (!files) {
    if (o.m < 0 || o.n < 0 || o.k < 0)
      return invalid_argument("give --m, --n and --k (random inputs) or --a and --b (.npy files)");
    if (!o.c_path.empty()) return invalid_argument("--c needs --a and --b");
    p.layout = o.layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
    p.m = o.m;
    p.n = o.n;
    p.k = o.k;
    return Status::ok();
  }
  if (o.a_path.empty() || o.b_path.empty())
    return invalid_argument("--a and --b are needed together");
  if (o.layout != "row")
    return invalid_argument("--layout applies to random inputs; .npy inputs are read row-major");
  if (o.c_path.empty() && o.beta != 0.0f)
    return invalid_argument("--beta " + std::to_string(o.beta) +
                            " needs --c (the matrix that beta scales)");
  NpyMatrix a, b;
  TILEKIT_RETURN_IF_ERROR(read_npy_input(o.a_path, false, &a));
  TILEKIT_RETURN_IF_ERROR(read_npy_input(o.b_path, false, &b));
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
    TILEKIT_RETURN_IF_ERROR(read_npy_input(o.c_path, false, c_file));
    if (c_file->rows != p.m || c_file->cols != p.n)
      return invalid_argument("shape mismatch: C must be " + dims(p.m, p.n) + " but " +
                              o.c_path + " is " + dims(c_file->rows, c_file->cols));
  }
  h->a = std::move(a.data);
  h->b = std::move(b.data);
  return Status::ok();
}

// What the command holds at once on the host, or on the GPU: A, B and C; C0 when --check keeps
// it (beta != 0); one tile of the blockwise reference with --check.
bench::MemoryPlan memory_needed(const GemmCommandOptions& o, const GemmProblem& p, bool keeps_c0) {
  bench::MemoryPlan plan;
  plan.add("A", p.a_rows(), p.a_cols(), sizeof(float));
  plan.add("B", p.b_rows(), p.b_cols(), sizeof(float));
  plan.add("C", p.m, p.n, sizeof(float));
  if (keeps_c0) plan.add("C0 (kept for --check)", p.m, p.n, sizeof(float));
  int64_t c_count = 0;
  if (o.check && multiply_fits(p.m, p.n, &c_count))
    plan.add("the reference tile", std::min(c_count, kVerifyTileElements), 1, 2 * sizeof(double));
  return plan;
}

// Checked before the first large allocation: a size that overflows is bad input (exit 2), one
// the machine cannot hold is out of memory (exit 1), both at once.
Status check_memory(const GemmCommandOptions& o, const Context& ctx, const GemmProblem& p) {
  const bool gpu = ctx.backend == Backend::kCuda;
  TILEKIT_RETURN_IF_ERROR(memory_needed(o, p, keeps_c0_on_host(o, ctx)).check_host());
  if (!gpu) return Status::ok();
  return memory_needed(o, p, o.check && o.beta != 0.0f).check_device(ctx.device);
}

// Shapes the problem, checks that it fits, then allocates and fills the host buffers.
Status load_problem(const GemmCommandOptions& o, const Context& ctx, HostProblem* h) {
  NpyMatrix c_file;
  TILEKIT_RETURN_IF_ERROR(parse_types(o, &h->p.types));
  TILEKIT_RETURN_IF_ERROR(shape_problem(o, h, &c_file));
  GemmProblem& p = h->p;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  TILEKIT_RETURN_IF_ERROR(check_memory(o, ctx, p));
  int64_t c_count = 0;
  TILEKIT_RETURN_IF_ERROR(checked_elements(p.m, p.n, "C", &c_count));
  const bool random = o.a_path.empty();
  if (random) {
    int64_t a_count = 0, b_count = 0;
    TILEKIT_RETURN_IF_ERROR(checked_elements(p.a_rows(), p.a_cols(), "A", &a_count));
    TILEKIT_RETURN_IF_ERROR(checked_elements(p.b_rows(), p.b_cols(), "B", &b_count));
    TILEKIT_RETURN_IF_ERROR(checked_resize(h->a, a_count, "A"));
    TILEKIT_RETURN_IF_ERROR(checked_resize(h->b, b_count, "B"));
    TILEKIT_RETURN_IF_ERROR(checked_resize(h->c, c_count, "C"));
    fill_uniform(h->a.data(), h->a.size(), o.seed * 3);
    fill_uniform(h->b.data(), h->b.size(), o.seed * 3 + 1);
    fill_uniform(h->c.data(), h->c.size(), o.seed * 3 + 2);
  } else if (!o.c_path.empty()) {
    h->c = std::move(c_file.data);
  } else {
    TILEKIT_RETURN_IF_ERROR(checked_resize(h->c, c_count, "C"));  // zeros: beta is 0
  }
  if (keeps_c0_on_host(o, ctx)) {
    TILEKIT_RETURN_IF_ERROR(checked_resize(h->c0, c_count, "C0"));
    std::copy(h->c.begin(), h->c.end(), h->c0.begin());
  }
  p.a = h->a.data();
  p.b = h->b.data();
  p.c = h->c.data();
  if (p.types.a != DType::kF32) store_inputs_16bit(h);
  return Status::ok();
}

// Device copies of A, B and C (and C0 for the check when beta != 0).
struct DeviceProblem {
  DeviceBuffer<unsigned char> a, b;  // in their storage type
  DeviceBuffer<float> c, c0;
};

// Host bytes of an operand in its storage type.
const unsigned char* bytes_of(const std::vector<float>& f32, const std::vector<uint16_t>& b16,
                              size_t* count) {
  if (!b16.empty() || f32.empty()) {
    *count = b16.size() * sizeof(uint16_t);
    return reinterpret_cast<const unsigned char*>(b16.data());
  }
  *count = f32.size() * sizeof(float);
  return reinterpret_cast<const unsigned char*>(f32.data());
}

Status upload_problem(const GemmCommandOptions& o, const HostProblem& h, DeviceProblem* d,
                      GemmProblem* p) {
  size_t a_bytes = 0, b_bytes = 0;
  const unsigned char* a = bytes_of(h.a, h.a16, &a_bytes);
  const unsigned char* b = bytes_of(h.b, h.b16, &b_bytes);
  TILEKIT_RETURN_IF_ERROR(d->a.allocate(a_bytes, "A"));
  TILEKIT_RETURN_IF_ERROR(d->b.allocate(b_bytes, "B"));
  TILEKIT_RETURN_IF_ERROR(d->c.allocate(h.c.size(), "C"));
  TILEKIT_RETURN_IF_ERROR(d->a.upload(a, a_bytes));
  TILEKIT_RETURN_IF_ERROR(d->b.upload(b, b_bytes));
  TILEKIT_RETURN_IF_ERROR(d->c.upload(h.c.data(), h.c.size()));
  if (o.check && o.beta != 0.0f) {
    TILEKIT_RETURN_IF_ERROR(d->c0.allocate(h.c.size(), "C0"));
    TILEKIT_RETURN_IF_ERROR(d->c0.upload(h.c.data(), h.c.size()));
  }
  p->a = d->a.get();
  p->b = d->b.get();
  p->c = d->c.get();
  return Status::ok();
}

// The check, tile by tile against the double-precision reference on the same backend; the
// reference reads the original inputs and C0 (only when beta != 0). `rounding`: how the kernel
// that ran rounds its inputs (a vendor TF32 kernel's faithful rounding widens its bound).
Status check_result(const Context& ctx, const HostProblem& h, const DeviceProblem& d,
                    InputRounding rounding, GemmCheck* check) {
  const bool gpu = ctx.backend == Backend::kCuda;
  GemmProblem inputs = h.p;
  if (gpu) {
    inputs.a = d.a.get();
    inputs.b = d.b.get();
    inputs.c = h.p.beta != 0.0f ? d.c0.get() : d.c.get();  // beta = 0: never read
  } else {
    inputs.c = h.p.beta != 0.0f ? const_cast<float*>(h.c0.data()) : const_cast<float*>(h.c.data());
  }
  return verify_gemm_result(ctx, inputs, h.c.data(),
                            check_options_for(inputs.types, false, rounding), check);
}

int run_gemm(const GemmCommandOptions& o) {
  Context ctx;
  Status s = resolve_context(o.backend, &ctx);
  if (!s) return fail(s);
  HostProblem h;
  if (!(s = load_problem(o, ctx, &h))) return fail(s);
  const GemmProblem& hp = h.p;
  if (Status v = validate(hp); !v) return fail(v);

  GemmProblem p = hp;  // what the kernel sees (device pointers on CUDA)
  DeviceProblem d;
  const bool gpu = ctx.backend == Backend::kCuda;
  if (gpu && !(s = upload_problem(o, h, &d, &p))) return fail(s);
  // Tuning on line measures into the cache first, so that the choice below reads it.
  if (o.kernel != "auto" && o.tune_budget_ms > 0)
    return fail(invalid_argument("--tune-budget: tunes --kernel auto's choice; --kernel names " +
                                 o.kernel));
  if (o.kernel == "auto" && o.tune_budget_ms > 0 &&
      !(s = tune_on_line(p, ctx, o.allow_vendor, o.tune_budget_ms * 1e-3)))
    return fail(s);

  // Which kernel will run, and why. A named kernel that refuses the problem, or a request no
  // kernel serves (a BF16 GEMM on a GPU without a BF16 kernel), is bad input: exit 2.
  const GemmKernel* kernel = nullptr;
  Selection<GemmProblem> chosen;  // auto's choice, with the k split it was tuned with
  std::string why;
  if (o.kernel == "auto") {
    if (!is_quick_return(hp) && !only_scales_c(hp)) {
      if (!(s = select_gemm_kernel(hp, ctx, o.allow_vendor, &chosen))) return fail(s);
      kernel = chosen.kernel;
      why = chosen.reason;
    } else {
      why = is_quick_return(hp) ? "BLAS quick return: nothing to compute"
                                : "alpha = 0 or k = 0: C is only scaled by beta";
    }
  } else {
    kernel = Registry::instance().find_gemm(o.kernel);
    if (!kernel)
      return fail(invalid_argument("--kernel: unknown kernel '" + o.kernel +
                                   "' (`tilekit list` shows the registered ids)"));
    why = "named by --kernel";
  }
  if (o.explain && o.kernel == "auto") {
    // A tune cache that was ignored (corrupt, another device or build) is said once, here.
    TuneCacheInfo tuning;
    if (tune_cache_info(ctx, &tuning) && !tuning.warning)
      std::cerr << "tilekit: warning: " << tuning.warning.message() << "\n";
  }
  if (o.explain)
    std::cout << "explain: " << (kernel ? kernel->info.id : std::string("no kernel")) << " — "
              << why << "\n";

  if (o.verbose) {
    std::cerr << "problem: " << hp.describe() << ", alpha " << hp.alpha << ", beta " << hp.beta
              << ", lda " << hp.lda << ", ldb " << hp.ldb << ", ldc " << hp.ldc << "\n"
              << "backend: " << backend_name(ctx.backend) << "\n";
    std::string notes;
    if (kernel && kernel->launch_notes && kernel->launch_notes(&notes))
      std::cerr << "launch: " << notes << "\n";
  }

  const auto t0 = std::chrono::steady_clock::now();
  GemmOptions options;
  options.allow_vendor = o.allow_vendor;
  // auto's choice runs as gemm() runs it: with its tuned split, not at the kernel's default one.
  if (chosen.kernel) p = with_selection(p, chosen);
  s = kernel ? run_gemm_kernel(*kernel, ctx, p) : gemm(ctx, p, options);
  if (s) s = device_synchronize(ctx);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!s) return fail(s);
  if (gpu && !(s = d.c.download(h.c.data(), h.c.size()))) return fail(s);

  const double flops = 2.0 * static_cast<double>(hp.m) * static_cast<double>(hp.n) *
                       static_cast<double>(hp.k);
  std::cout << "gemm " << hp.describe() << " alpha " << hp.alpha << " beta " << hp.beta << "\n"
            << "kernel: " << (kernel ? kernel->info.id : std::string("(none: quick return or C scaling)"))
            << (p.split_k > 0 ? " with split-k " + std::to_string(p.split_k) : std::string())
            << " on " << backend_name(ctx.backend) << "\n"
            << "time: " << ms << " ms for one call (not a benchmark: see `tilekit bench gemm`)";
  if (ms > 0 && flops > 0) std::cout << ", " << flops / ms / 1e6 << " GFLOP/s";
  std::cout << "\n";

  int code = kExitOk;
  if (o.check) {
    GemmCheck check;
    const InputRounding rounding = kernel ? kernel->info.input_rounding : InputRounding::kNearest;
    if (!(s = check_result(ctx, h, d, rounding, &check))) return fail(s);
    std::cout << "check: " << check.summary() << "\n"
              << "max abs error " << check.max_abs_error << ", max rel error "
              << check.max_rel_error << "\n";
    if (!check.passed) code = kExitVerify;
  }
  if (!o.out_path.empty() && code != kExitOk) {
    std::cerr << "tilekit: not writing " << o.out_path << ": the result failed the check\n";
  } else if (!o.out_path.empty()) {
    if (!(s = write_npy_result(o.out_path, h.c.data(), hp.m, hp.n, hp.ldc, hp.layout)))
      return fail(s);
    std::cout << "wrote " << o.out_path << " (" << dims(hp.m, hp.n) << " float32)\n";
  }
  return code;
}

}  // namespace

void add_gemm_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GemmCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "Run one GEMM C = alpha·op(A)·op(B) + beta·C on random inputs or .npy files");
  cmd->add_option("--m", o->m, "rows of op(A) and C (random inputs)")->transform(size_value());
  cmd->add_option("--n", o->n, "columns of op(B) and C (random inputs)")->transform(size_value());
  cmd->add_option("--k", o->k, "columns of op(A), rows of op(B) (random inputs)")
      ->transform(size_value());
  cmd->add_option("--a", o->a_path, "A as .npy (float32/float64, C or Fortran order)");
  cmd->add_option("--b", o->b_path, "B as .npy");
  cmd->add_option("--c", o->c_path, "C as .npy, read when beta != 0");
  cmd->add_option("--out", o->out_path, "write the result C here (.npy, float32)")
      ->check(output_path());
  cmd->add_option("--alpha", o->alpha, "alpha")->transform(float32_value())->capture_default_str();
  cmd->add_option("--beta", o->beta, "beta")->transform(float32_value())->capture_default_str();
  cmd->add_flag("--trans-a", o->trans_a, "use Aᵀ");
  cmd->add_flag("--trans-b", o->trans_b, "use Bᵀ");
  cmd->add_option("--layout", o->layout, "row or col (random inputs)")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_option("--kernel", o->kernel, "kernel id (`tilekit list`) or auto")->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "storage of A and B: f32, bf16 or f16 (C is f32)")
      ->capture_default_str();
  cmd->add_option("--compute", o->compute,
                  "f32 (IEEE FP32, the default for f32), f32_3xtf32, tf32, or bf16 (the default "
                  "for 16-bit inputs)");
  cmd->add_flag("--explain", o->explain, "print the kernel chosen and why");
  cmd->add_flag("--allow-vendor", o->allow_vendor,
                "let auto fall back to vendor kernels (cuBLAS, OpenBLAS) when no own kernel can run");
  cmd->add_option("--tune-budget", o->tune_budget_ms,
                  "with --kernel auto at a shape the tune cache has not measured: time the kernels "
                  "that can run it for up to MS milliseconds first and record them there "
                  "(docs/tuning.md, tuning on line)")
      ->check(CLI::Validator(
          [](std::string& v) {
            double ms = -1;
            return CLI::detail::lexical_cast(v, ms) && ms >= 0
                       ? std::string()
                       : "must be milliseconds >= 0 (0: no tuning on line), got " + v;
          },
          "MS"));
  cmd->add_flag("--check", o->check,
                "compare with the double-precision reference; exit 3 if outside the error bound");
  cmd->add_option("--seed", o->seed, "seed of the random inputs")
      ->transform(unsigned_value())
      ->capture_default_str();
  cmd->add_flag("--verbose,-v", o->verbose, "say what runs where");
  add_backend_options(cmd, &o->backend);
  cmd->callback([exit_code, o] { *exit_code = run_gemm(*o); });
}

}  // namespace tilekit::cli
