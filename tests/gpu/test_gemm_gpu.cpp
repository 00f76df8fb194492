// Every registered CUDA GEMM kernel, of every type and compute mode, and gemm("auto") on the GPU,
// against the double reference: sizes around tile edges, non-square mixes, both layouts, all ops,
// alpha/beta variety, NaN in C with beta = 0, sentinel bands around C, padded leading dimensions,
// operands on and off a 16-byte boundary, exact small integers (exact in BF16 and TF32 too).
// Skips without a GPU (fails if TILEKIT_REQUIRE_GPU=1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <tuple>

#include "support/gemm_case.hpp"
#include "support/gpu_gate.hpp"
#include "support/scoped_cache_dir.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit::testing {
namespace {

std::vector<const GemmKernel*> cuda_kernels() {
  std::vector<const GemmKernel*> out;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCuda) out.push_back(&k);
  // An empty list would make the suite vanish silently; keep one null entry that skips.
  if (out.empty()) out.push_back(nullptr);
  return out;
}

// The cases every CUDA kernel runs, each its own test so that a refusal is reported as that
// case being skipped (with can_implement's reason), never folded into a pass.
std::vector<GemmCase> cases() {
  std::vector<GemmCase> out;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    GemmCase c;
    c.m = m;
    c.n = n;
    c.k = k;
    out.push_back(c);
    return &out.back();
  };
  // Sizes around every tile edge (16, 32, 64), primes, one big odd size.
  for (int64_t s : {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 509, 1000, 4097})
    add(s, s, s);
  // Non-square mixes.
  add(257, 1, 513);
  add(1, 4097, 3);
  add(33, 65, 17);
  add(1000, 7, 129);
  add(7, 1000, 64);
  add(129, 127, 1);
  add(128, 64, 96);
  // Both layouts × all four ops × three betas (0 poisons C with NaN), padded leading dimensions;
  // the odd sizes also with A, B and C off a 16-byte boundary.
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        for (float beta : {0.0f, 1.0f, -0.5f})
          for (int64_t s : {64, 129}) {
            GemmCase* c = add(s, s / 2 + 1, s - 1);
            c->layout = layout;
            c->op_a = op_a;
            c->op_b = op_b;
            c->alpha = beta == 1.0f ? 1.0f : -1.25f;
            c->beta = beta;
            c->ld_pad = 5;
            c->misalign = s == 129 ? 1 : 0;
          }
  // The tensor-core modes: small integers are exact in BF16 and TF32 too, so a bf16,
  // tf32 or 3xtf32 kernel must match the reference bit for bit like an f32 one — on a shape of
  // whole 64/128/256 tiles with everything 16-byte aligned (the TMA path), and on odd sizes with
  // leading dimensions TMA cannot describe and operands off a 16-byte boundary, every op and
  // layout.
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmCase* whole = add(256, 128, 64);
        GemmCase* odd = add(129, 257, 65);
        for (GemmCase* c : {whole, odd}) {
          c->layout = layout;
          c->op_a = op_a;
          c->op_b = op_b;
          c->exact = true;
          c->beta = 2.0f;
        }
        odd->ld_pad = 5;
        odd->misalign = 1;
      }
  // Sizes that are multiples of 4 with 16-byte-aligned leading dimensions, edges inside every tile:
  // the simt kernels' float4 / 16-byte cp.async paths with all ops and both layouts.
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmCase* c = add(132, 68, 260);
        c->layout = layout;
        c->op_a = op_a;
        c->op_b = op_b;
        c->alpha = 0.75f;
        c->beta = -0.5f;
        c->ld_pad = 4;
      }
  // Few C tiles and a long k: the split_k kernels slice k; odd and aligned variants.
  for (Op op : {Op::kN, Op::kT}) {
    GemmCase* c = add(36, 44, 4100);
    c->op_a = op;
    c->beta = 1.0f;
    GemmCase* d = add(7, 130, 2053);
    d->op_b = op;
    d->layout = Layout::kColMajor;
    d->ld_pad = 5;
  }
  // Multiples of 32 with transposes (what step 02 accepts) and padding.
  for (Op op : {Op::kN, Op::kT}) {
    GemmCase* c = add(96, 64, 128);
    c->op_a = op;
    c->op_b = op;
    c->ld_pad = 3;
    c->layout = op == Op::kT ? Layout::kColMajor : Layout::kRowMajor;
  }
  // Around the Hopper family's tiles (128 × 128 or 256, k-tiles of 64) and more C tiles than
  // SMs (a persistent block walks several), every op and both layouts.
  add(255, 257, 191);
  // An A that TMA could read in place (rows of 144 bytes) but that the Hopper family repacks:
  // its rows are off 128-byte lines and each element enters n ≥ 3072 products.
  add(64, 3100, 72);
  // Rows of 160 bytes, off lines but on 32-byte sectors: 128 × 256 tiles and clusters read
  // them in place, lone 128 × 128 tiles repack them (repack_pays). As FP32 (320 and 288 bytes:
  // on sectors) tf32 reads both A's in place; rows of 304 bytes (k = 76) are off sectors, and
  // tf32 prepares that A.
  add(64, 3100, 80);
  add(64, 3100, 76);
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmCase* c = add(2000, 2100, 136);
        c->layout = layout;
        c->op_a = op_a;
        c->op_b = op_b;
        c->beta = 0.5f;
      }
  // Exact small-integer mode: bit-for-bit equality with the reference.
  for (int64_t s : {16, 33, 64, 127, 256}) {
    GemmCase* c = add(s, s, s);
    c->exact = true;
    c->beta = 2.0f;
  }
  return out;
}

std::string case_name(const GemmCase& c) {
  std::string s = std::string(c.layout == Layout::kRowMajor ? "row" : "col") + "_" +
                  op_char(c.op_a) + op_char(c.op_b) + "_" + std::to_string(c.m) + "x" +
                  std::to_string(c.n) + "x" + std::to_string(c.k);
  if (c.beta != 0.0f) s += c.beta == 1.0f ? "_beta1" : c.beta == 2.0f ? "_beta2" : "_betaneg";
  if (c.ld_pad) s += "_pad";
  if (c.misalign) s += "_misaligned";
  if (c.exact) s += "_exact";
  return s;
}

std::string sanitize(std::string s) {
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

using KernelAndCase = std::tuple<const GemmKernel*, GemmCase>;

class CudaKernel : public ::testing::TestWithParam<KernelAndCase> {};

TEST_P(CudaKernel, MatchesTheReference) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const GemmKernel* kernel = std::get<0>(GetParam());
  if (kernel == nullptr) GTEST_SKIP() << "this build registers no CUDA kernels";
  GemmCase c = std::get<1>(GetParam());
  c.seed = test_seed() + static_cast<uint64_t>(c.m * 131 + c.n * 7 + c.k);
  const CaseResult r = run_gemm_case(c, Context::cuda(0), kernel);
  if (r.skipped) GTEST_SKIP() << kernel->info.id << " refuses " << c.describe() << ": " << r.status.message();
  EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
      << kernel->info.id << " " << c.describe() << ": " << r.message();
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaKernel,
                         ::testing::Combine(::testing::ValuesIn(cuda_kernels()),
                                            ::testing::ValuesIn(cases())),
                         [](const auto& info) {
                           const GemmKernel* k = std::get<0>(info.param);
                           return sanitize((k ? k->info.id : "none") + "__" +
                                           case_name(std::get<1>(info.param)));
                         });

// The suite's reach, checked without a GPU: it takes every CUDA kernel of the registry whatever
// its types (the cuBLAS BF16, FP16 and TF32 baselines now, the Hopper family the moment it is
// registered), and its cases hold what the tensor-core modes need: exact small integers in every
// layout and op, both on whole aligned tiles and on odd, misaligned operands with padded ld.
TEST(CudaSuite, TakesEveryCudaKernelAndTheCasesEveryModeNeeds) {
  const std::vector<const GemmKernel*> in_suite = cuda_kernels();
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCuda)
      EXPECT_NE(std::find(in_suite.begin(), in_suite.end(), &k), in_suite.end()) << k.info.id;
  if (built_with_cuda())
    for (const char* id :
         {"gemm.cuda.cublas.bf16", "gemm.cuda.cublas.f16", "gemm.cuda.cublas.f32_tf32"}) {
      const GemmKernel* k = Registry::instance().find_gemm(id);
      ASSERT_NE(k, nullptr) << id;
      EXPECT_NE(std::find(in_suite.begin(), in_suite.end(), k), in_suite.end()) << id;
    }
  const std::vector<GemmCase> all = cases();
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        auto has = [&](bool misaligned) {
          return std::any_of(all.begin(), all.end(), [&](const GemmCase& c) {
            return c.exact && c.layout == layout && c.op_a == op_a && c.op_b == op_b &&
                   (c.misalign != 0 && c.ld_pad % 4 != 0) == misaligned && c.m % 2 == misaligned;
          });
        };
        EXPECT_TRUE(has(false)) << layout_name(layout) << " " << op_char(op_a) << op_char(op_b);
        EXPECT_TRUE(has(true)) << layout_name(layout) << " " << op_char(op_a) << op_char(op_b);
      }
  // Random reals too on misaligned operands (the bound, not bit-equality, checks those).
  EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                          [](const GemmCase& c) { return !c.exact && c.misalign != 0; }));
}

TEST(CudaGemm, AutoServesEveryLayoutAndOp) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT}) {
        GemmCase c;
        c.layout = layout;
        c.op_a = op_a;
        c.op_b = op_b;
        c.m = 100;
        c.n = 37;
        c.k = 65;
        c.beta = 0.5f;
        c.ld_pad = 2;
        c.seed = test_seed();
        const CaseResult r = run_gemm_case(c, Context::cuda(0), nullptr);
        EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
            << c.describe() << ": " << r.message();
      }
}

TEST(CudaGemm, AlphaZeroOnlyScalesCOnTheDevice) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (float beta : {0.0f, 3.0f}) {
    GemmCase c;  // beta = 0 also poisons C with NaN: the result must be exact zeros
    c.m = 70;
    c.n = 50;
    c.k = 30;
    c.alpha = 0.0f;
    c.beta = beta;
    c.ld_pad = 3;
    c.seed = test_seed();
    const CaseResult r = run_gemm_case(c, Context::cuda(0), nullptr);
    EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
        << c.describe() << ": " << r.message();
  }
}

// An operand spanning more than 2^31 − 1 elements (a 65536² FP32 matrix does) is beyond the SIMT
// kernels' 32-bit offsets: the cp_async and branch_free kernels on whole k (.rows, .grouped) run
// such a problem in pieces (for_each_32bit_piece), the others refuse it with the reason. Here A has
// a huge leading dimension, so a few rows span 2^31 elements while the problem stays small: as
// m × k (C's rows in pieces) and stored transposed (k in slices, later slices adding into C with
// beta = 1). Small integers, so the pieces' sums are exact and must equal the reference bit for
// bit.
TEST(CudaGemm, OperandsPast32BitOffsetsRunInPieces) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const int64_t lda = (int64_t{1} << 29) + 8;  // 4 rows span 2^31 + 32 + a few elements
  DeviceBuffer<float> da;
  const Status alloc = da.allocate(static_cast<size_t>(5 * lda), "A");
  if (!alloc.is_ok()) GTEST_SKIP() << "needs 10.7 GB of GPU memory: " << alloc.message();
  int pieced = 0;
  for (const Op op_a : {Op::kN, Op::kT}) {
    GemmProblem p;
    p.op_a = op_a;
    p.m = op_a == Op::kN ? 5 : 6;
    p.k = op_a == Op::kN ? 7 : 5;
    p.n = 9;
    p.alpha = 1.25f;
    p.beta = -0.5f;
    p.lda = lda;
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc();
    const int64_t a_rows = op_a == Op::kN ? p.m : p.k, a_cols = op_a == Op::kN ? p.k : p.m;
    ASSERT_GT(p.a_span(), int64_t{INT32_MAX}) << "the case must need pieces";
    std::vector<float> a(static_cast<size_t>(a_rows * a_cols)), b(static_cast<size_t>(p.k * p.n)),
        c0(static_cast<size_t>(p.m * p.n));
    auto small_integers = [](std::vector<float>& x, size_t step, int modulus) {
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(static_cast<int>(i * step % modulus) - modulus / 2);
    };
    small_integers(a, 7, 17);
    small_integers(b, 5, 13);
    small_integers(c0, 1, 9);
    for (int64_t r = 0; r < a_rows; ++r)
      ASSERT_TRUE(copy_host_to_device(da.get() + r * lda, a.data() + r * a_cols,
                                      a_cols * sizeof(float)).is_ok());
    std::vector<double> want(c0.size());
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < p.k; ++q) {
          const float a_iq = op_a == Op::kN ? a[i * a_cols + q] : a[q * a_cols + i];
          sum += static_cast<double>(a_iq) * b[q * p.n + j];
        }
        want[i * p.n + j] = 1.25 * sum - 0.5 * c0[i * p.n + j];
      }
    DeviceBuffer<float> db, dc;
    ASSERT_TRUE(db.allocate(b.size(), "B").is_ok() && db.upload(b.data(), b.size()).is_ok());
    ASSERT_TRUE(dc.allocate(c0.size(), "C").is_ok());
    p.a = da.get();
    p.b = db.get();
    p.c = dc.get();
    for (const GemmKernel& kernel : Registry::instance().gemm_kernels()) {
      if ((kernel.info.family != "ladder" && kernel.info.family != "simt") || kernel.info.types != p.types) continue;
      const Status can = kernel.can_implement(p, nullptr);
      const int step = kernel.info.step;
      const bool pipelined = step == 8 || step == 9 || step == 12;
      EXPECT_EQ(can.is_ok(), pipelined) << kernel.info.id << ": " << can.message();
      if (!can.is_ok()) continue;
      ASSERT_TRUE(dc.upload(c0.data(), c0.size()).is_ok());
      GemmOptions options;
      options.kernel = kernel.info.id;
      const Status st = gemm(Context::cuda(0), p, options);
      ASSERT_TRUE(st.is_ok()) << kernel.info.id << ": " << st.message();
      std::vector<float> got(c0.size());
      ASSERT_TRUE(dc.download(got.data(), got.size()).is_ok());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(static_cast<double>(got[i]), want[i])
            << kernel.info.id << " op_a " << op_char(op_a) << ", C[" << i << "]";
      ++pieced;
    }
  }
  EXPECT_GE(pieced, 2 * 12) << "cp_async and branch_free .rows/.grouped: at least 12 FP32 kernels";
}

// A and B of `p` (its shape, lds and input types): uniform random values from `seed` and
// `seed` + 1, stored as the types, on the GPU; p.a and p.b point at them.
struct DeviceOperands {
  DeviceBuffer<unsigned char> a, b;
};
void upload_random_operands(GemmProblem& p, uint64_t seed, DeviceOperands& out) {
  const struct {
    DeviceBuffer<unsigned char>& buffer;
    int64_t span;
    DType type;
    const char* name;
  } operands[] = {{out.a, p.a_span(), p.types.a, "A"}, {out.b, p.b_span(), p.types.b, "B"}};
  for (const auto& o : operands) {
    std::vector<float> values(static_cast<size_t>(o.span));
    fill_uniform(values.data(), values.size(), seed++);
    std::vector<unsigned char> stored(values.size() * dtype_size(o.type));
    encode_from_f32(values.data(), values.size(), o.type, stored.data());
    EXPECT_TRUE(o.buffer.allocate(stored.size(), o.name).is_ok());
    EXPECT_TRUE(o.buffer.upload(stored.data(), stored.size()).is_ok());
  }
  p.a = out.a.get();
  p.b = out.b.get();
}

// A row-major m × n × k problem of `types` with the least ld, as the tests below run it;
// pointers unset.
GemmProblem packed_problem(int64_t m, int64_t n, int64_t k, const GemmTypes& types,
                           float alpha = 1.0f, float beta = 0.0f) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.types = types;
  p.alpha = alpha;
  p.beta = beta;
  p.lda = p.min_lda();
  p.ldb = p.min_ldb();
  p.ldc = p.min_ldc();
  return p;
}

// Split-K adds its k slices in a fixed order: every run gives the same bits (no atomics).
// Runs every kernel whose id contains `id_part` 10 times on one problem of `m`×`n`×`k`
// (random inputs stored as `type`) and expects the same bits each time; returns how many ran.
// `compute`: the mode asked for (FP32 inputs: kF32 unless given; 16-bit inputs: their tensor-core
// mode).
int expect_bit_identical_runs(const std::string& id_part, DType type, int64_t m, int64_t n, int64_t k,
                              std::optional<Compute> compute = std::nullopt) {
  GemmTypes types;
  types.a = types.b = type;
  types.compute = compute.value_or(type == DType::kF32 ? Compute::kF32 : Compute::kBF16);
  GemmProblem p = packed_problem(m, n, k, types);
  DeviceOperands operands;
  upload_random_operands(p, 11, operands);
  DeviceBuffer<float> dc;
  EXPECT_TRUE(dc.allocate(static_cast<size_t>(p.c_span()), "C").is_ok());
  p.c = dc.get();
  int tested = 0;
  DeviceInfo device;
  EXPECT_TRUE(query_device(0, &device).is_ok());
  for (const GemmKernel& kernel : Registry::instance().gemm_kernels()) {
    if (kernel.info.id.find(id_part) == std::string::npos || kernel.info.types != p.types) continue;
    // A kernel matching the words that refuses the shape is not counted (a narrow tile refuses
    // a 16-bit short side stored MN-major); the callers expect some kernel to run it.
    if (kernel.can_implement && !kernel.can_implement(p, &device).is_ok()) continue;
    ++tested;
    std::vector<float> first, again(static_cast<size_t>(p.c_span()));
    for (int run = 0; run < 10; ++run) {
      GemmOptions options;
      options.kernel = kernel.info.id;
      const Status st = gemm(Context::cuda(0), p, options);
      EXPECT_TRUE(st.is_ok()) << kernel.info.id << ": " << st.message();
      if (!st.is_ok()) break;
      EXPECT_TRUE(dc.download(again.data(), again.size()).is_ok());
      if (run == 0) first = again;
      EXPECT_EQ(0, std::memcmp(first.data(), again.data(), first.size() * sizeof(float)))
          << kernel.info.id << ": run " << run << " differs from run 0";
    }
  }
  return tested;
}

TEST(CudaGemm, SplitKIsBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  EXPECT_GT(expect_bit_identical_runs(".cp_async.split_k", DType::kF32, 64, 200, 8191), 0)
      << "no split-K kernel registered";
  // The straight and cross_tile kernels on their own loops (both operands in whole 16-byte chunks)
  // and on their fallback; the packed ones copy A (K-major here) and read B in place in both.
  for (const char* step : {".straight.split_k", ".cross_tile.split_k", ".packed.split_k"}) {
    EXPECT_GT(expect_bit_identical_runs(step, DType::kF32, 64, 200, 8192), 0) << step;
    EXPECT_GT(expect_bit_identical_runs(step, DType::kF32, 64, 200, 8191), 0) << step;
  }
}

// The packed.stream_k kernels cut the last rounds' tiles between blocks, and the block finishing a
// tile adds the others' partial tiles nearest first: the same bits every run. Few tiles with a long
// k (every block holds a piece of some tile), and more tiles than blocks with a short k.
TEST(CudaGemm, LadderStreamKIsBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  EXPECT_GT(expect_bit_identical_runs(".packed.stream_k", DType::kF32, 300, 500, 8191), 0);
  EXPECT_GT(expect_bit_identical_runs(".packed.stream_k", DType::kF32, 2100, 2100, 256), 0);
}

// Runs every CUDA kernel whose id contains `id_part` at each m × n × k (beta −0.5, fresh random
// inputs) against the reference; none may refuse. Returns how many cases ran.
int expect_correct_at(const std::string& id_part,
                      std::initializer_list<std::tuple<int64_t, int64_t, int64_t>> shapes) {
  int tested = 0;
  for (const GemmKernel* kernel : cuda_kernels()) {
    if (kernel == nullptr || kernel->info.id.find(id_part) == std::string::npos) continue;
    for (auto [m, n, k] : shapes) {
      GemmCase c;
      c.m = m;
      c.n = n;
      c.k = k;
      c.beta = -0.5f;
      c.seed = test_seed();
      const CaseResult r = run_gemm_case(c, Context::cuda(0), kernel);
      EXPECT_FALSE(r.skipped) << kernel->info.id << " refuses " << c.describe();
      if (r.skipped) continue;
      EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
          << kernel->info.id << " " << c.describe() << ": " << r.message();
      ++tested;
    }
  }
  return tested;
}

// The packed.hybrid_stream_k kernels run the whole rounds in one kernel and stream the rest in a
// second that may overlap it. 2048×3840 has 240 tiles of 128×256 on the H200's 132 slots (or 480 of
// 128×128 on 264): its partial round is streamed alone; 4097² (561 and 1089 tiles) has a thin one,
// streamed with the last full round. Correct against the reference, and the same bits every run.
TEST(CudaGemm, LadderHybridStreamKIsCorrectAndBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  EXPECT_GT(expect_correct_at(".packed.hybrid_stream_k", {{2048, 3840, 520}, {4097, 4097, 520}}), 0)
      << "no packed.hybrid_stream_k kernel registered";
  EXPECT_GT(expect_bit_identical_runs(".packed.hybrid_stream_k", DType::kF32, 2048, 3840, 520), 0);
  EXPECT_GT(expect_bit_identical_runs(".packed.hybrid_stream_k", DType::kF32, 4097, 4097, 520), 0);
}

// Context::sm_limit shrinks the slots the packed.stream_k and packed.hybrid_stream_k kernels plan
// for, so small problems take every path the large ones do. 300×700 is 9 tiles of 128×256 (one
// block an SM) or 18 of 128×128 (two): on 2, 4 and 5 SMs hybrid_stream_k streams a partial round
// alone (9 on 2 and 5 slots, 18 on 4 and 10) or a thin one with the last full round (9 on 4, 18 on
// 8), and stream_k streams 18 tiles on 4, 8 and 10 slots. On 20 SMs, 2432×256 is 19 tiles of
// 128×256 on 20 slots (38 of 128×128 on 40): a partial round that fills 95% of them, which
// hybrid_stream_k runs whole. Small enough for the sanitizers.
TEST(CudaGemm, LadderStreamKIsCorrectUnderAnSmLimit) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  int tested = 0;
  for (const GemmKernel* kernel : cuda_kernels()) {
    if (kernel == nullptr || (kernel->info.id.find(".packed.stream_k") == std::string::npos &&
                              kernel->info.id.find(".packed.hybrid_stream_k") == std::string::npos))
      continue;
    for (auto [limit, m, n] : {std::tuple<int, int64_t, int64_t>{2, 300, 700},
                               {4, 300, 700},
                               {5, 300, 700},
                               {20, 2432, 256}}) {
      GemmCase c;
      c.m = m;
      c.n = n;
      c.k = 300;
      c.beta = 0.5f;
      c.seed = test_seed();
      Context ctx = Context::cuda(0);
      ctx.sm_limit = limit;
      const CaseResult r = run_gemm_case(c, ctx, kernel);
      ASSERT_FALSE(r.skipped) << kernel->info.id << " refuses " << c.describe();
      ++tested;
      EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
          << kernel->info.id << " " << c.describe() << ", sm_limit " << limit << ": "
          << r.message();
    }
  }
  EXPECT_GT(tested, 0) << "no packed.stream_k or packed.hybrid_stream_k kernel registered";
}

// The simt split_k kernels sum their planes four columns a thread where C's rows allow (n and ldc
// multiples of 4, C 16-byte aligned) and one element a thread elsewhere. Both add in plane order
// and round alike: the same problem with C one float off that alignment gives the same bits
// (beta != 0, so C is read too).
TEST(CudaGemm, SplitKSumGivesTheSameBitsWithAndWithoutFloat4) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  GemmProblem p = packed_problem(64, 200, 8191, GemmTypes{}, 1.5f, -0.5f);  // FP32 throughout
  DeviceOperands operands;
  upload_random_operands(p, 21, operands);
  const size_t c_count = static_cast<size_t>(p.c_span());
  std::vector<float> c0(c_count);
  fill_uniform(c0.data(), c0.size(), 23);
  DeviceBuffer<float> dc;
  ASSERT_TRUE(dc.allocate(c_count + 1, "C").is_ok());
  int tested = 0;
  for (const GemmKernel& kernel : Registry::instance().gemm_kernels()) {
    const bool split_k = kernel.info.family == "simt" &&
                         kernel.info.id.find(".split_k") != std::string::npos;
    if (!split_k || kernel.info.types != p.types) continue;
    std::vector<float> result[2];
    for (int offset : {0, 1}) {  // C at the allocation's start (aligned), then one float on
      std::vector<float> staged(c_count + 1, 0.0f);
      std::copy(c0.begin(), c0.end(), staged.begin() + offset);
      ASSERT_TRUE(dc.upload(staged.data(), staged.size()).is_ok());
      p.c = dc.get() + offset;
      GemmOptions options;
      options.kernel = kernel.info.id;
      const Status st = gemm(Context::cuda(0), p, options);
      ASSERT_TRUE(st.is_ok()) << kernel.info.id << ": " << st.message();
      ASSERT_TRUE(dc.download(staged.data(), staged.size()).is_ok());
      result[offset].assign(staged.begin() + offset, staged.begin() + offset + c_count);
    }
    ++tested;
    EXPECT_EQ(0, std::memcmp(result[0].data(), result[1].data(), c_count * sizeof(float)))
        << kernel.info.id << ": C aligned and C one float off differ";
  }
  EXPECT_GT(tested, 0) << "no split-K kernel registered";
}

// skinny_m8's slices meet in the kernel: whichever block arrives last adds them in slice order.
TEST(CudaGemm, SkinnyIsBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  EXPECT_GT(expect_bit_identical_runs("simt.f32.skinny_m8", DType::kF32, 5, 300, 8191), 0);
  EXPECT_GT(expect_bit_identical_runs("simt.f32.skinny_m8", DType::kF32, 1, 4096, 4096), 0);
}

// The gemv family streams W once for C with a side of at most 16 (its k sliced over blocks and
// summed in slice order): the same bits on every run, sliced (a few outputs, a long k) or whole,
// W along k (x·Wᵀ: packed_problem's B is k × n, so m small is along the outputs and n small is
// along k) and along the outputs.
TEST(CudaGemm, GemvIsBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (DType type : {DType::kF32, DType::kBF16, DType::kF16}) {
    EXPECT_GT(expect_bit_identical_runs("gemv.", type, 5, 300, 8191), 0) << dtype_name(type);
    EXPECT_GT(expect_bit_identical_runs("gemv.", type, 4096, 3, 4097), 0) << dtype_name(type);
    EXPECT_GT(expect_bit_identical_runs("gemv.", type, 16, 8192, 1024), 0) << dtype_name(type);
  }
}

// auto sends a product with a short side and W's lines along k to the gemv family (16-bit
// inputs up to 16 rows, FP32 up to 8), and leaves the others to the tables and the ranking.
TEST(CudaGemm, AutoStreamsShortSidesWithWAlongK) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  struct Expect {
    GemmTypes types;
    int64_t m, n;
    Op op_a, op_b;
    bool gemv;
  };
  const GemmTypes f32{}, bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  const GemmTypes tf32{DType::kF32, DType::kF32, DType::kF32, Compute::kTF32};
  for (const Expect& e : {Expect{bf16, 16, 8192, Op::kN, Op::kT, true},   // x·Wᵀ
                          Expect{bf16, 8192, 3, Op::kN, Op::kN, true},    // A·b
                          Expect{f32, 8, 8192, Op::kN, Op::kT, true},
                          Expect{f32, 16, 8192, Op::kN, Op::kT, false},   // FP32 past 8 rows
                          Expect{f32, 4, 8192, Op::kN, Op::kN, false},    // x·W: W along n
                          Expect{bf16, 17, 8192, Op::kN, Op::kT, false},  // no short side
                          Expect{bf16, 4, 8192, Op::kT, Op::kT, true},    // X gathered, 4 rows
                          Expect{bf16, 8, 8192, Op::kT, Op::kT, false},   // ... 8 rows
                          Expect{tf32, 4, 8192, Op::kN, Op::kT, false}}) {  // tf32: its tiles
    GemmProblem p = packed_problem(e.m, e.n, 1024, e.types);
    p.op_a = e.op_a;
    p.op_b = e.op_b;
    p.lda = p.min_lda();
    p.ldb = p.min_ldb();
    alignas(16) static float nothing[8];  // selection reads shapes, types and addresses only
    p.a = p.b = p.c = nothing;
    Selection<GemmProblem> chosen;
    ASSERT_TRUE(select_gemm_kernel(p, Context::cuda(0), false, &chosen, true)) << p.describe();
    EXPECT_EQ(chosen.kernel->info.family == "gemv", e.gemv)
        << p.describe() << ": " << chosen.kernel->info.id << " (" << chosen.reason << ")";
  }
}

// auto lends measurements between modes (docs/tuning.md): at 256³, where the shipped table's f32
// entry beat every 3xTF32 kernel, the 3xTF32 mode runs an FP32 kernel; f16, which no table
// measured, is chosen from the bf16 entries and runs an f16 kernel. Either result meets its
// mode's check.
TEST(CudaGemm, AutoLendsMeasurementsBetweenModes) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const GemmTypes x3{DType::kF32, DType::kF32, DType::kF32, Compute::kF32x3TF32};
  const GemmTypes f16{DType::kF16, DType::kF16, DType::kF32, Compute::kBF16};
  for (const GemmTypes& t : {x3, f16}) {
    GemmProblem p = packed_problem(256, 256, 256, t);
    alignas(16) static float nothing[8];  // selection reads shapes, types and addresses only
    p.a = p.b = p.c = nothing;
    Selection<GemmProblem> chosen;
    ASSERT_TRUE(select_gemm_kernel(p, Context::cuda(0), false, &chosen, true)) << p.describe();
    const std::string what =
        p.describe() + ": " + chosen.kernel->info.id + " (" + chosen.reason + ")";
    if (t == x3) {
      EXPECT_EQ(chosen.kernel->info.types, GemmTypes{}) << what;
    } else {
      EXPECT_EQ(chosen.kernel->info.types, f16) << what;
      EXPECT_NE(chosen.reason.find("bf16 entries standing in for f16"), std::string::npos) << what;
    }
    GemmCase c;
    c.m = c.n = c.k = 256;
    c.types = t;
    c.alpha = 1.5f;
    c.beta = -0.5f;
    c.seed = test_seed() + 256;
    const CaseResult r = run_gemm_case(c, Context::cuda(0), nullptr);
    EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
        << c.describe() << ": " << r.message();
  }
}

// The gemv family's shapes: C's short side from 1 to 17 as C's rows and as its columns, the long
// side a few strips with a partial one, k long, odd and short, every layout and op, the three
// betas (0 poisons C with NaN), padded and misaligned operands, and exact small integers.
std::vector<GemmCase> gemv_cases() {
  std::vector<GemmCase> out;
  int index = 0;
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        for (int64_t side : {1, 2, 3, 8, 9, 16, 17}) {
          GemmCase c;
          c.layout = layout;
          c.op_a = op_a;
          c.op_b = op_b;
          const int64_t longer = index % 3 == 0 ? 1000 : index % 3 == 1 ? 129 : 4100;
          const bool short_rows = index % 2 == 0;
          c.m = short_rows ? side : longer;
          c.n = short_rows ? longer : side;
          // 1024 and 1000 (padded by 8) keep 16-bit lines on 16-byte boundaries (the
          // tensor-core path), 1000 with a partial last chunk of 32.
          c.k = index % 4 == 0 ? 2053 : index % 4 == 1 ? 17 : index % 4 == 2 ? 1024 : 1000;
          c.beta = index % 3 == 0 ? 0.0f : index % 3 == 1 ? 1.0f : -0.5f;
          c.alpha = c.beta == 1.0f ? 1.0f : -1.25f;
          c.ld_pad = index % 4 == 1 ? 5 : index % 4 == 3 ? 8 : 0;
          c.misalign = index % 5 == 2 ? 1 : 0;
          c.exact = index % 7 == 3;
          if (c.exact) c.beta = 2.0f;
          out.push_back(c);
          ++index;
        }
  return out;
}

std::vector<const GemmKernel*> gemv_kernels() {
  std::vector<const GemmKernel*> out;
  for (const GemmKernel* k : cuda_kernels())
    if (k != nullptr && k->info.family == "gemv") out.push_back(k);
  if (out.empty()) out.push_back(nullptr);
  return out;
}

class GemvKernel : public ::testing::TestWithParam<KernelAndCase> {};

TEST_P(GemvKernel, MatchesTheReference) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const GemmKernel* kernel = std::get<0>(GetParam());
  if (kernel == nullptr) GTEST_SKIP() << "this build registers no gemv kernel";
  GemmCase c = std::get<1>(GetParam());
  c.seed = test_seed() + static_cast<uint64_t>(c.m * 131 + c.n * 7 + c.k);
  const CaseResult r = run_gemm_case(c, Context::cuda(0), kernel);
  const bool short_side = std::min(c.m, c.n) <= 16;
  if (r.skipped) {
    EXPECT_FALSE(short_side) << kernel->info.id << " refuses " << c.describe() << ": "
                             << r.status.message();
    GTEST_SKIP() << kernel->info.id << " refuses " << c.describe() << ": " << r.status.message();
  }
  EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
      << kernel->info.id << " " << c.describe() << ": " << r.message();
}

INSTANTIATE_TEST_SUITE_P(Family, GemvKernel,
                         ::testing::Combine(::testing::ValuesIn(gemv_kernels()),
                                            ::testing::ValuesIn(gemv_cases())),
                         [](const auto& info) {
                           const GemmKernel* k = std::get<0>(info.param);
                           return sanitize((k ? k->info.id : "none") + "__" +
                                           case_name(std::get<1>(info.param)));
                         });

// The CUDA kernels that take GemmProblem::split_k at run time (the tuner sets it), one test
// each, so that a sanitizer run can pick a few by name.
std::vector<const GemmKernel*> run_time_split_kernels() {
  std::vector<const GemmKernel*> out;
  for (const GemmKernel* k : cuda_kernels())
    if (k != nullptr && takes_run_time_split_k(k->info)) out.push_back(k);
  if (out.empty()) out.push_back(nullptr);  // a build without CUDA kernels: one test that skips
  return out;
}

class RunTimeSplitK : public ::testing::TestWithParam<const GemmKernel*> {};

// Any count gives a correct result (one, odd, more slices than k-tiles, more than the cap).
TEST_P(RunTimeSplitK, IsCorrectForAnyCount) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const GemmKernel* kernel = GetParam();
  if (kernel == nullptr) GTEST_SKIP() << "this build registers no CUDA kernel that takes a split";
  int tested = 0;
  for (int split : {1, 2, 3, 16, 100000}) {
    // A few rows (the skinny kernel's shape) and a tile-sized block, both with a long odd k; rows
    // of C not a multiple of 4 floats (the split_k sum then takes one element a thread), over
    // several tiles with a partial one at each edge; and the same with every size a multiple of 4
    // (the straight and cross_tile kernels' own loops) and a partial k-tile.
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{5, 300, 2001}, {64, 200, 8191},
                           {130, 263, 999}, {132, 260, 1000}}) {
      GemmCase c;
      c.m = m;
      c.n = n;
      c.k = k;
      c.beta = -0.5f;
      c.split_k = split;
      c.seed = test_seed();
      const CaseResult first = run_gemm_case(c, Context::cuda(0), kernel);
      if (first.skipped) continue;
      ++tested;
      EXPECT_TRUE(first.status.is_ok() && first.check.passed && first.guard_violations == 0)
          << kernel->info.id << " " << c.describe() << ": " << first.message();
    }
  }
  EXPECT_GT(tested, 0) << kernel->info.id << " refused every shape";
}

INSTANTIATE_TEST_SUITE_P(CudaGemm, RunTimeSplitK, ::testing::ValuesIn(run_time_split_kernels()),
                         [](const auto& info) {
                           return sanitize(info.param ? info.param->info.id : "none");
                         });

// Few tiles (every tile cut between several blocks) and a tail round after whole tiles.
TEST(CudaGemm, StreamKIsBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  if (!query_device(0, &d).is_ok() || d.sm_version() != 90) GTEST_SKIP() << "sm_90 kernels only";
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k.direct_store", DType::kBF16, 1000, 1000, 4096), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k.direct_store", DType::kF16, 2100, 2100, 256), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k.direct_store", DType::kF32, 1000, 1000, 2048, Compute::kF32x3TF32), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k.direct_store", DType::kF32, 2100, 2100, 256, Compute::kTF32), 0);
  // The stream_k_half.tma_store kernels' walk, storing C through TMA (n % 4 = 0) and through its
  // warps (n odd).
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k_half.tma_store", DType::kBF16, 1000, 1000, 4096), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k_half.tma_store", DType::kF16, 2101, 2101, 256), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k_half.tma_store", DType::kF32, 1001, 1001, 2048,
                                      Compute::kF32x3TF32), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.stream_k_half.tma_store", DType::kF32, 2100, 2100, 256, Compute::kTF32), 0);
}

// The sm90 coop.split_tiles kernels: few tiles, each cut into equal pieces whose blocks sum shares
// of it. One tile of 469 (bf16) or 938 (tf32) k-tiles in 117 or 132 pieces; 9 tiles in 14 pieces
// each with n odd (C stored element by element either way); 16 tiles of 3xTF32 in 8 pieces; beta
// read on the way. Correct, and the same bits every run.
TEST(CudaGemm, SplitTilesIsCorrectAndBitIdenticalRunToRun) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  if (!query_device(0, &d).is_ok() || d.sm_version() != 90) GTEST_SKIP() << "sm_90 kernels only";
  EXPECT_GT(expect_correct_at(".coop.split_tiles.",
                              {{100, 100, 30000}, {257, 257, 8193}, {512, 512, 8192}}), 0)
      << "no coop.split_tiles kernel registered";
  EXPECT_GT(expect_bit_identical_runs(".coop.split_tiles.", DType::kBF16, 100, 100, 30000), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.split_tiles.", DType::kF32, 257, 257, 8193, Compute::kTF32), 0);
  EXPECT_GT(expect_bit_identical_runs(".coop.split_tiles.", DType::kF32, 512, 512, 8192,
                                      Compute::kF32x3TF32), 0);
}

// Tuning on line on the GPU (GemmOptions::tune_budget_ms): the first call at a shape measures
// its candidates into a fresh cache (events on the stream, each on a copy of C) and computes C
// once, with beta reading the caller's C: the same bits as the cache's fastest kernel named.
TEST(CudaGemm, TuneBudgetMeasuresANewShapeIntoTheCache) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const testing::ScopedTuneCacheDir scoped("on_line_gpu");
  const std::string dir = scoped.path().string();
  const GemmTypes bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  GemmProblem p = packed_problem(333, 517, 1029, bf16, 1.0f, 0.5f);
  DeviceOperands operands;
  upload_random_operands(p, 21, operands);
  std::vector<float> c0(static_cast<size_t>(p.c_span())), tuned(c0.size()), named(c0.size());
  fill_uniform(c0.data(), c0.size(), 23);
  DeviceBuffer<float> dc;
  ASSERT_TRUE(dc.allocate(c0.size(), "C").is_ok());
  ASSERT_TRUE(dc.upload(c0.data(), c0.size()).is_ok());
  p.c = dc.get();
  GemmOptions o;
  o.tune_budget_ms = 50;
  ASSERT_TRUE(gemm(Context::cuda(0), p, o));
  ASSERT_TRUE(dc.download(tuned.data(), tuned.size()).is_ok());
  TuneDeviceKey key;
  ASSERT_TRUE(tune_device_key(Context::cuda(0), &key));
  TuneCache cache;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(tune_cache_file(dir, key), key, &cache, &found));
  ASSERT_TRUE(found);
  ASSERT_EQ(cache.entries.size(), 1u);
  EXPECT_GE(cache.entries[0].candidates.size(), 2u);
  ASSERT_TRUE(dc.upload(c0.data(), c0.size()).is_ok());
  GemmOptions named_kernel;
  named_kernel.kernel = cache.entries[0].kernel;
  ASSERT_TRUE(gemm(Context::cuda(0), p, named_kernel));
  ASSERT_TRUE(dc.download(named.data(), named.size()).is_ok());
  EXPECT_EQ(0, std::memcmp(tuned.data(), named.data(), tuned.size() * sizeof(float)))
      << "the tuned call's C is not " << named_kernel.kernel << "'s";
}

// The sm90 narrow tiles (n = 16, 32, 64) put C's short side along their n: swapped where m < n
// (C then stored transposed), as they are where m >= n. Every op, a short side of 1 to 64 rows
// or columns against a long one not a multiple of the tile, an odd k, beta read, ld padded;
// a 16-bit short side stored MN-major refused by the 16- and 32-wide tiles (and only there).
// Stream-K cuts their few tiles' k among the SMs: the same bits every run.
TEST(CudaGemm, NarrowTilesPutTheShortSideAlongN) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  if (!query_device(0, &d).is_ok() || d.sm_version() != 90) GTEST_SKIP() << "sm_90 kernels only";
  int tested = 0, refused = 0;
  for (const GemmKernel* kernel : cuda_kernels()) {
    if (kernel == nullptr || kernel->info.id.find("gemm.cuda.sm90.") != 0 ||
        kernel->info.tiling.block_n >= 128)
      continue;
    for (Op op_a : {Op::kN, Op::kT})
      for (Op op_b : {Op::kN, Op::kT})
        for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 3001, 1031}, {16, 4000, 3001},
                               {64, 333, 520}, {2999, 24, 1000}, {257, 40, 77}}) {
          GemmCase c;
          c.op_a = op_a;
          c.op_b = op_b;
          c.m = m;
          c.n = n;
          c.k = k;
          c.beta = -0.5f;
          c.ld_pad = 3;
          c.seed = test_seed();
          const CaseResult r = run_gemm_case(c, Context::cuda(0), kernel);
          if (r.skipped) {
            ++refused;
            EXPECT_NE(r.status.message().find("stored MN-major"), std::string::npos)
                << kernel->info.id << " " << c.describe() << ": " << r.message();
            continue;
          }
          ++tested;
          EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
              << kernel->info.id << " " << c.describe() << ": " << r.message();
        }
  }
  EXPECT_GT(tested, 0) << "no narrow sm90 kernel registered";
  EXPECT_GT(refused, 0) << "no 16-bit short side stored MN-major was refused";
  EXPECT_GT(expect_bit_identical_runs("x16x64_s8.coop.stream_k", DType::kBF16, 16, 4096, 4096), 0);
  EXPECT_GT(expect_bit_identical_runs("x64x64_s8.coop.stream_k", DType::kF16, 3000, 40, 2048), 0);
  EXPECT_GT(expect_bit_identical_runs("x32x32_s8.a_regs.coop.stream_k", DType::kF32, 8, 5000, 4096,
                                      Compute::kTF32), 0);
}

// Parts that change how C is reached but not what is summed give their twin's bits: the
// staged-store epilogue the TMA-store epilogue's (the same accumulators, each element rounded by
// one epilogue_value), balanced rounds the persistent walk's (the same whole tiles, each summed
// by one block). Every kernel whose id holds `word` and its twin (the id with `twin_word`) run
// the same problems, random A, B and C, beta read: n a multiple of 4 (C stored by TMA) and odd
// (by the warps), a partial last round. Returns how many pairs ran.
int expect_twin_bits(const std::string& word, const std::string& twin_word) {
  int pairs = 0;
  for (const GemmKernel& kernel : Registry::instance().gemm_kernels()) {
    const size_t at = kernel.info.id.find(word);
    if (at == std::string::npos) continue;
    std::string twin_id = kernel.info.id;
    twin_id.replace(at, word.size(), twin_word);
    const GemmKernel* twin = Registry::instance().find_gemm(twin_id);
    EXPECT_NE(twin, nullptr) << kernel.info.id << " has no twin " << twin_id;
    if (twin == nullptr) continue;
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1000, 1000, 512},
                           {3000, 1501, 256},
                           {130, 4100, 1000}}) {
      GemmProblem p = packed_problem(m, n, k, kernel.info.types, 1.5f, -0.5f);
      DeviceOperands operands;
      upload_random_operands(p, 31, operands);
      std::vector<float> c0(static_cast<size_t>(p.c_span()));
      fill_uniform(c0.data(), c0.size(), 33);
      DeviceBuffer<float> dc;
      EXPECT_TRUE(dc.allocate(c0.size(), "C").is_ok()) << "C";
      if (dc.get() == nullptr) return pairs;
      p.c = dc.get();
      std::vector<float> result[2];
      const GemmKernel* both[2] = {&kernel, twin};
      for (int i = 0; i < 2; ++i) {
        result[i].assign(c0.size(), 0.0f);
        GemmOptions options;
        options.kernel = both[i]->info.id;
        const Status st = dc.upload(c0.data(), c0.size()).is_ok()
                              ? gemm(Context::cuda(0), p, options)
                              : io_error("uploading C");
        EXPECT_TRUE(st.is_ok()) << both[i]->info.id << ": " << st.message();
        EXPECT_TRUE(dc.download(result[i].data(), result[i].size()).is_ok()) << "C";
      }
      EXPECT_EQ(0, std::memcmp(result[0].data(), result[1].data(), c0.size() * sizeof(float)))
          << kernel.info.id << " and " << twin_id << " differ at " << m << "x" << n << "x" << k;
      EXPECT_NE(0, std::memcmp(result[0].data(), c0.data(), c0.size() * sizeof(float)))
          << kernel.info.id << " left C as it was at " << m << "x" << n << "x" << k;
    }
    ++pairs;
  }
  return pairs;
}

TEST(CudaGemm, TwinPartsGiveTheSameBits) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  if (!query_device(0, &d).is_ok() || d.sm_version() != 90) GTEST_SKIP() << "sm_90 kernels only";
  EXPECT_GT(expect_twin_bits(".balanced_rounds.", ".persistent."), 0) << "no balanced-rounds kernel";
  EXPECT_GT(expect_twin_bits(".staged_store", ".tma_store"), 0) << "no staged-store kernel";
}

// The sm90 split_tiles kernels refuse shapes whose tiles they would not cut (fewer than 2 k-pieces
// each): there they would be twins of the persistent kernels. Host code only (can_implement), so it
// runs without a GPU: with no device given, the H200's 132 SMs.
TEST(CudaGemm, SplitTilesRefusesTheShapesItWouldRunWhole) {
  int checked = 0;
  for (const GemmKernel* kernel : cuda_kernels()) {
    if (kernel == nullptr || kernel->info.id.find(".coop.split_tiles.") == std::string::npos)
      continue;
    GemmProblem p;
    p.types = kernel->info.types;
    p.lda = p.ldb = p.ldc = 30000;
    using Shape = std::tuple<int64_t, int64_t, int64_t, bool>;  // m, n, k, whether it splits
    for (auto [m, n, k, splits] : {Shape{100, 100, 30000, true},
                                   Shape{512, 512, 8192, true},     // 16 tiles, 8 pieces
                                   Shape{1408, 1408, 1408, false},  // 121 tiles
                                   Shape{100, 100, 200, false}}) {  // 2 or 4 k-tiles: short k
      p.m = m;
      p.n = n;
      p.k = k;
      const Status s = kernel->can_implement(p, nullptr);
      EXPECT_EQ(s.is_ok(), splits) << kernel->info.id << " at " << m << "x" << n << "x" << k;
      if (!splits)
        EXPECT_NE(s.message().find("k-pieces"), std::string::npos) << s.message();
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "this build registers no sm90 coop.split_tiles kernel";
}

// Context::sm_limit (the multi-GPU GEMM leaves SMs to NCCL with it) makes the sm90 kernels plan
// for fewer SMs, which can turn a whole-tile walk into stream-K with partials in the workspace:
// 132 tiles are one full round on the H200's 132 SMs, and a partial one on 126. The workspace
// must be sized for the SMs the launch will use (it once was not: "workspace of 0 bytes").
TEST(CudaGemm, Sm90KernelsAreCorrectUnderAnSmLimit) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  DeviceInfo d;
  if (!query_device(0, &d).is_ok() || d.sm_version() != 90) GTEST_SKIP() << "sm_90 kernels only";
  int tested = 0;
  for (const GemmKernel& kernel : Registry::instance().gemm_kernels()) {
    if (kernel.info.backend != Backend::kCuda || kernel.info.id.find(".sm90.") == std::string::npos)
      continue;
    // 12 x 11 tiles of 128 x 128, and 12 x 11 of 128 x 256.
    for (auto [m, n] : {std::pair<int64_t, int64_t>{1536, 1408}, {1536, 2816}}) {
      for (int limit : {126, 61}) {
        GemmCase c;
        c.m = m;
        c.n = n;
        c.k = 256;
        c.beta = 0.5f;
        c.seed = test_seed();
        Context ctx = Context::cuda(0);
        ctx.sm_limit = limit;
        const CaseResult r = run_gemm_case(c, ctx, &kernel);
        if (r.skipped) continue;
        ++tested;
        EXPECT_TRUE(r.status.is_ok() && r.check.passed && r.guard_violations == 0)
            << kernel.info.id << " " << c.describe() << ", sm_limit " << limit << ": " << r.message();
      }
    }
  }
  EXPECT_GT(tested, 0) << "no sm90 kernel ran";
}

// tf32 rounds each FP32 input to nearest, ties to even, whichever way it reaches the tensor
// cores: rounded by TMA as it loads (a K-major operand read in place) or by the pre-pass (an
// MN-major operand, or one whose ld TMA cannot read: ld = stored columns + 1). The inputs' 13
// dropped bits are a tie, above half or below half a TF32 unit, so rounding ties away, or
// truncating as the tensor cores do on their own, is off by ~2^-11 of a product: far outside
// the bound at k = 16, as the test checks for the ties-away reference.
std::vector<float> tf32_probe_inputs(size_t count, uint64_t seed) {
  std::vector<float> x(count);
  fill_uniform(x.data(), count, seed, 1.0f, 2.0f);
  const uint32_t dropped[4] = {0x1000u, 0x1800u, 0x0800u, 0x1000u};
  for (size_t i = 0; i < count; ++i) {
    const auto h = static_cast<uint32_t>((i + 1) * 2654435761u + seed * 40503u);  // mixed bits
    uint32_t bits = float_to_bits(x[i]) & 0xffffc000u;  // keep sign, exponent, 9 mantissa bits
    bits |= (h >> 7 & 1u) << 13;                        // the kept last bit: even or odd
    bits |= dropped[h >> 11 & 3u];
    x[i] = bits_to_float(bits) * (h >> 17 & 1u ? -1.0f : 1.0f);
  }
  return x;
}

TEST(CudaGemm, Tf32RoundsInputsToNearestEven) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  int tested = 0;
  for (const Op op_a : {Op::kN, Op::kT})
    for (const Op op_b : {Op::kN, Op::kT})
      for (const int64_t pad : {0, 1}) {
        GemmProblem p;
        p.op_a = op_a;
        p.op_b = op_b;
        p.m = 72;
        p.n = 40;
        p.k = 16;
        p.types.compute = Compute::kTF32;
        p.lda = p.min_lda() + pad;
        p.ldb = p.min_ldb() + pad;
        p.ldc = p.min_ldc();
        const std::vector<float> a = tf32_probe_inputs(static_cast<size_t>(p.a_span()), 3);
        const std::vector<float> b = tf32_probe_inputs(static_cast<size_t>(p.b_span()), 4);
        // The FP64 product of the inputs rounded to nearest even (round_to_tf32) and, to show
        // the test can fail, of the inputs rounded ties away.
        auto away = [](float x) { return bits_to_float((float_to_bits(x) + 0x1000u) & 0xffffe000u); };
        std::vector<double> even(static_cast<size_t>(p.m * p.n)), ties_away(even.size()),
            magnitude(even.size());
        for (int64_t i = 0; i < p.m; ++i)
          for (int64_t j = 0; j < p.n; ++j)
            for (int64_t l = 0; l < p.k; ++l) {
              const float x = a[op_a == Op::kN ? i * p.lda + l : l * p.lda + i];
              const float y = b[op_b == Op::kN ? l * p.ldb + j : j * p.ldb + l];
              even[i * p.n + j] += double(round_to_tf32(x)) * round_to_tf32(y);
              ties_away[i * p.n + j] += double(away(x)) * away(y);
              magnitude[i * p.n + j] += std::fabs(double(x) * y);
            }
        const double unit = 2 * p.k * std::ldexp(1.0, -24);  // twice γ(k) of FP32 accumulation
        size_t away_outside = 0;
        for (size_t e = 0; e < even.size(); ++e)
          away_outside += std::fabs(ties_away[e] - even[e]) > unit * magnitude[e];
        ASSERT_GT(away_outside, even.size() / 2) << "the inputs do not tell the roundings apart";
        DeviceBuffer<float> da, db, dc;
        ASSERT_TRUE(da.allocate(a.size(), "A").is_ok() && da.upload(a.data(), a.size()).is_ok());
        ASSERT_TRUE(db.allocate(b.size(), "B").is_ok() && db.upload(b.data(), b.size()).is_ok());
        ASSERT_TRUE(dc.allocate(static_cast<size_t>(p.c_span()), "C").is_ok());
        p.a = da.get();
        p.b = db.get();
        p.c = dc.get();
        for (const GemmKernel& kernel : Registry::instance().gemm_kernels()) {
          const KernelInfo& info = kernel.info;
          if (info.backend != Backend::kCuda || info.types != p.types ||
              info.input_rounding != InputRounding::kNearest)
            continue;
          GemmOptions options;
          options.kernel = info.id;
          const Status st = gemm(Context::cuda(0), p, options);
          if (st.code() == StatusCode::kNotSupported) continue;  // refused on this GPU: said so
          ASSERT_TRUE(st.is_ok()) << info.id << " " << p.describe() << ": " << st.message();
          std::vector<float> c(static_cast<size_t>(p.c_span()));
          ASSERT_TRUE(dc.download(c.data(), c.size()).is_ok());
          ++tested;
          for (int64_t i = 0; i < p.m; ++i)
            for (int64_t j = 0; j < p.n; ++j) {
              const size_t e = static_cast<size_t>(i * p.n + j);
              ASSERT_LE(std::fabs(c[i * p.ldc + j] - even[e]), unit * magnitude[e])
                  << info.id << " " << p.describe() << " pad " << pad << " at (" << i << ", " << j
                  << "): " << c[i * p.ldc + j] << " against " << even[e] << " (ties away "
                  << ties_away[e] << ")";
            }
        }
      }
  if (tested == 0) GTEST_SKIP() << "no own CUDA tf32 kernel ran on this GPU";
}

TEST(CudaReference, MatchesTheCpuReference) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  for (Layout layout : {Layout::kRowMajor, Layout::kColMajor}) {
    GemmProblem p;
    p.layout = layout;
    p.op_a = Op::kT;
    p.m = 77;
    p.n = 45;
    p.k = 130;
    p.alpha = 1.5f;
    p.beta = -2.0f;
    p.lda = p.min_lda() + 1;
    p.ldb = p.min_ldb();
    p.ldc = p.min_ldc() + 2;
    std::vector<float> a(static_cast<size_t>(p.a_span())), b(static_cast<size_t>(p.b_span())),
        c(static_cast<size_t>(p.c_span()));
    fill_uniform(a.data(), a.size(), 1);
    fill_uniform(b.data(), b.size(), 2);
    fill_uniform(c.data(), c.size(), 3);
    GemmProblem hp = p;
    hp.a = a.data();
    hp.b = b.data();
    hp.c = c.data();
    GemmReference cpu_ref, gpu_ref;
    ASSERT_TRUE(compute_gemm_reference(Context::cpu(), hp, &cpu_ref).is_ok());
    DeviceBuffer<float> da, db, dc;
    ASSERT_TRUE(da.allocate(a.size(), "A").is_ok());
    ASSERT_TRUE(db.allocate(b.size(), "B").is_ok());
    ASSERT_TRUE(dc.allocate(c.size(), "C").is_ok());
    ASSERT_TRUE(da.upload(a.data(), a.size()).is_ok());
    ASSERT_TRUE(db.upload(b.data(), b.size()).is_ok());
    ASSERT_TRUE(dc.upload(c.data(), c.size()).is_ok());
    GemmProblem dp = p;
    dp.a = da.get();
    dp.b = db.get();
    dp.c = dc.get();
    ASSERT_TRUE(compute_gemm_reference(Context::cuda(0), dp, &gpu_ref).is_ok());
    for (size_t i = 0; i < cpu_ref.value.size(); ++i) {
      // Both sum the same exact double products; only the summation order differs.
      EXPECT_NEAR(gpu_ref.value[i], cpu_ref.value[i], 1e-12 * (1 + cpu_ref.magnitude[i])) << i;
      EXPECT_NEAR(gpu_ref.magnitude[i], cpu_ref.magnitude[i], 1e-12 * (1 + cpu_ref.magnitude[i]));
    }
  }
}

}  // namespace
}  // namespace tilekit::testing
