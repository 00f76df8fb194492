// The benchmark harness: size parsing, statistics, and a tiny end-to-end CPU run.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "gemm_bench.hpp"
#include "kernel_select.hpp"
#include "memory_bench.hpp"
#include "memory_plan.hpp"
#include "report.hpp"
#include "timing.hpp"

namespace tilekit::bench {
namespace {

TEST(Sizes, ListRangeAndTriples) {
  std::vector<GemmShape> s;
  ASSERT_TRUE(parse_sizes("1024,4096", &s).is_ok());
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].k, 4096);
  ASSERT_TRUE(parse_sizes("256:512:128", &s).is_ok());
  ASSERT_EQ(s.size(), 3u);  // 256, 384, 512: stop included
  EXPECT_EQ(s[2].m, 512);
  ASSERT_TRUE(parse_sizes("257x1x513,64", &s).is_ok());
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].m, 257);
  EXPECT_EQ(s[0].n, 1);
  EXPECT_EQ(s[0].k, 513);
  EXPECT_EQ(s[0].str(), "257x1x513");
  EXPECT_EQ(s[1].str(), "64");
}

TEST(Sizes, BadSpecsNameThePiece) {
  std::vector<GemmShape> s;
  for (const char* bad : {"", "abc", "10,,20", "-5", "1x2", "1x2x3x4", "5:1:1", "1:5:0", "1:5"}) {
    const Status st = parse_sizes(bad, &s);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(parse_sizes("64,abc", &s).message().find("'abc'"), std::string::npos);
}

TEST(Timing, MedianQuartilesAndNoise) {
  const Timing t = summarize({5, 1, 3, 2, 4}, 0.5);
  EXPECT_EQ(t.samples, 5);
  EXPECT_DOUBLE_EQ(t.median_s, 3);
  EXPECT_DOUBLE_EQ(t.min_s, 1);
  EXPECT_DOUBLE_EQ(t.max_s, 5);
  EXPECT_DOUBLE_EQ(t.q1_s, 2);
  EXPECT_DOUBLE_EQ(t.q3_s, 4);
  EXPECT_DOUBLE_EQ(t.noise, 1.0 / 3.0);
  EXPECT_TRUE(t.converged);
}

TEST(Timing, MeasureStopsAtMaxSamples) {
  auto timer = make_cpu_timer();
  TimingPolicy policy;
  policy.warmup = 1;
  policy.min_samples = 3;
  policy.max_samples = 7;
  policy.min_time_s = 100;  // never reached: max_samples stops it
  int calls = 0;
  Timing t;
  ASSERT_TRUE(measure(*timer, [&] { ++calls; return Status::ok(); }, policy, nullptr, &t).is_ok());
  EXPECT_EQ(t.samples, 7);
  EXPECT_EQ(calls, 8);  // one warm-up
}

// A run that --max-time ends before --min-samples is unconverged and marked short of samples,
// and its row's verdict in the table says how many it took.
TEST(Timing, MaxTimeBeforeMinSamplesMarksTheRow) {
  auto timer = make_cpu_timer();
  TimingPolicy policy;
  policy.warmup = 0;
  policy.min_samples = 50;
  policy.max_time_s = 0.02;
  Timing t;
  ASSERT_TRUE(measure(*timer, [] { std::this_thread::sleep_for(std::chrono::milliseconds(15)); return Status::ok(); },
                      policy, nullptr, &t).is_ok());
  ASSERT_GE(t.samples, 1);  // 15 ms each: 20 ms of samples end it after one or two
  ASSERT_LT(t.samples, policy.min_samples);
  EXPECT_TRUE(t.few_samples);
  EXPECT_FALSE(t.converged);

  BenchRow row;
  row.kernel = "gemm.cpu.blocked.f32";
  row.outcome = RowOutcome::kOk;
  row.size = "256";
  row.timing = t;
  std::ostringstream table;
  print_bench_table(table, {row}, "gemm.cpu.openblas.f32");
  const std::string marked = std::to_string(t.samples) + (t.samples == 1 ? " sample" : " samples");
  EXPECT_NE(table.str().find("PASS (" + marked + "; max rel err"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("before --min-samples"), std::string::npos) << table.str();

  Timing enough = t;
  enough.few_samples = false;
  policy.min_samples = 2;
  mark_few_samples(&enough, policy);
  EXPECT_FALSE(enough.few_samples);
}

TEST(Timing, RoundsSplitThePolicyAndWarmUpOnce) {
  TimingPolicy policy;
  policy.warmup = 2;
  policy.min_samples = 10;
  policy.max_samples = 200;
  policy.min_time_s = 0.08;
  policy.max_time_s = 2.0;
  const TimingPolicy first = round_policy(policy, 4, 0), later = round_policy(policy, 4, 3);
  EXPECT_EQ(first.warmup, 2);
  EXPECT_EQ(later.warmup, 0);
  EXPECT_EQ(later.min_samples, 3);  // rounded up: four rounds take at least the 10 asked for
  EXPECT_EQ(later.max_samples, 50);
  EXPECT_DOUBLE_EQ(later.min_time_s, 0.02);
  EXPECT_DOUBLE_EQ(later.max_time_s, 0.5);
  EXPECT_EQ(round_policy(policy, 1, 0).min_samples, 10);  // one round is the policy itself
  EXPECT_EQ(round_policy(policy, 500, 1).max_samples, 1);  // never a round without a sample
}

// Rounds start at rows spread over the list: with 5 rows in 3 rounds at rows 0, 1 and 3, so a
// row is never last in every round.
TEST(Timing, RoundsStartAtRowsSpreadOverTheList) {
  EXPECT_EQ(round_start(5, 3, 0), 0u);
  EXPECT_EQ(round_start(5, 3, 1), 1u);
  EXPECT_EQ(round_start(5, 3, 2), 3u);
  EXPECT_EQ(round_start(2, 4, 3), 1u);
  EXPECT_EQ(round_start(4, 1, 0), 0u);  // one round: the list's order
  EXPECT_EQ(round_start(0, 3, 2), 0u);
  std::vector<int> last_in_round(5, 0);
  for (int round = 0; round < 3; ++round) ++last_in_round[(round_start(5, 3, round) + 4) % 5];
  for (int count : last_in_round) EXPECT_LE(count, 1);
}

TEST(Timing, CancelStopsMeasurement) {
  auto timer = make_cpu_timer();
  std::atomic<bool> cancel{true};
  Timing t;
  EXPECT_EQ(measure(*timer, [] { return Status::ok(); }, TimingPolicy{}, &cancel, &t).code(),
            StatusCode::kCancelled);
}

TEST(GemmBench, CpuRunVerifiesEveryRowAndComparesWithTheBaseline) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  ASSERT_TRUE(parse_sizes("33,64x16x40", &cfg.shapes).is_ok());
  cfg.kernels = "gemm.cpu.*";
  cfg.timing.min_samples = 2;
  cfg.timing.max_time_s = 0.05;
  cfg.beta = 0.5f;
  std::vector<BenchRow> rows;
  ASSERT_TRUE(run_gemm_bench(cfg, &rows).is_ok());
  int baseline_rows = 0;
  for (const auto& r : rows) {
    const GemmKernel* kernel = Registry::instance().find_gemm(r.kernel);
    ASSERT_NE(kernel, nullptr) << r.kernel;
    if (kernel->info.types != GemmTypes{}) {  // the sweep is float32: other types are skipped
      EXPECT_EQ(r.outcome, RowOutcome::kSkipped) << r.kernel;
      EXPECT_NE(r.detail.find("implements " + types_tag(kernel->info.types)), std::string::npos)
          << r.detail;
      continue;
    }
    EXPECT_EQ(r.outcome, RowOutcome::kOk) << r.kernel << " " << r.shape.str() << ": " << r.detail;
    EXPECT_EQ(r.verification.rfind("PASS", 0), 0u) << r.verification;
    EXPECT_GT(r.gflops, 0);
    EXPECT_GT(r.baseline_ratio, 0);
    if (r.kernel == "gemm.cpu.openblas.f32") {
      ++baseline_rows;
      EXPECT_DOUBLE_EQ(r.baseline_ratio, 1.0);
    }
  }
  EXPECT_EQ(baseline_rows, 2);
  // Every kernel the glob selects that computes the run's types (f32 by default): kernels of other
  // compute modes (the tf32, bf16, ... references) are left out, not run in the wrong mode.
  size_t f32_kernels = 0;
  for (const GemmKernel* k : Registry::instance().match_gemm("gemm.cpu.*"))
    f32_kernels += k->info.types == GemmTypes{} ? 1 : 0;
  EXPECT_EQ(rows.size(), 2 * f32_kernels);
}

// The tuner's passes over one shape share a ReferenceCache: the reference is computed once for
// the same inputs, and again for anything it depends on (beta, the seed); every row still
// verifies against the reference of its own inputs.
TEST(GemmBench, ACachedReferenceServesEveryRunOverTheSameInputs) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  ASSERT_TRUE(parse_sizes("24x40x33", &cfg.shapes).is_ok());
  cfg.kernels = "gemm.cpu.*";
  cfg.timing.max_time_s = 1e-12;
  cfg.beta = 0.5f;
  ReferenceCache references;
  cfg.references = &references;
  int announced = 0;
  cfg.progress = [&](int, int, const std::string& what) {
    announced += what.rfind("reference for", 0) == 0 ? 1 : 0;
  };
  auto run_and_verify = [&] {
    std::vector<BenchRow> rows;
    ASSERT_TRUE(run_gemm_bench(cfg, &rows).is_ok());
    ASSERT_FALSE(rows.empty());
    for (const auto& r : rows)
      if (r.outcome != RowOutcome::kSkipped)
        EXPECT_EQ(r.verification.rfind("PASS", 0), 0u) << r.kernel << ": " << r.verification;
  };
  run_and_verify();
  run_and_verify();
  EXPECT_EQ(references.computed(), 1);
  EXPECT_EQ(announced, 1);  // "reference for" only when one is computed
  cfg.beta = std::nextafter(0.5f, 1.0f);  // the key holds beta to the last bit
  run_and_verify();
  EXPECT_EQ(references.computed(), 2);
  cfg.beta = -1.5f;
  run_and_verify();
  EXPECT_EQ(references.computed(), 3);
  cfg.seed += 1;
  run_and_verify();
  EXPECT_EQ(references.computed(), 4);
  cfg.beta = 0.5f;
  cfg.seed -= 1;
  run_and_verify();
  EXPECT_EQ(references.computed(), 4);
}

TEST(GemmBench, RoundsTimeEveryVerifiedRowInTurns) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  ASSERT_TRUE(parse_sizes("20,8x24x16", &cfg.shapes).is_ok());
  cfg.kernels = "gemm.cpu.*,auto";
  cfg.rounds = 3;
  cfg.timing.max_time_s = 1e-12;  // one sample a round
  std::vector<BenchRow> rows;
  ASSERT_TRUE(run_gemm_bench(cfg, &rows).is_ok());
  int ran = 0;
  for (const auto& r : rows) {
    if (r.outcome != RowOutcome::kOk) continue;
    ++ran;
    EXPECT_EQ(r.timing.samples, 3) << r.kernel;
    EXPECT_GT(r.gflops, 0) << r.kernel;
  }
  EXPECT_EQ(ran, 2 * 4);  // reference, blocked, OpenBLAS and auto at both sizes
}

TEST(GemmBench, OtherComputeModesAndTheAutoRow) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  ASSERT_TRUE(parse_sizes("24", &cfg.shapes).is_ok());
  cfg.kernels = "auto,gemm.cpu.reference*";
  cfg.types = {DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  cfg.timing.min_samples = 2;
  cfg.timing.max_time_s = 0.02;
  std::vector<BenchRow> rows;
  ASSERT_TRUE(run_gemm_bench(cfg, &rows).is_ok());
  ASSERT_EQ(rows.size(), 2u);  // the bf16 reference and auto (OpenBLAS computes f32 only)
  EXPECT_EQ(rows[0].kernel, "gemm.cpu.reference.bf16");
  EXPECT_EQ(rows[1].kernel, "auto");
  EXPECT_EQ(rows[1].resolved, "gemm.cpu.reference.bf16");
  for (const auto& r : rows) EXPECT_EQ(r.outcome, RowOutcome::kOk) << r.kernel << ": " << r.detail;
}

// Each mode is compared with cuBLAS in that mode's arithmetic, except the FP32-accurate 3xTF32
// (and f32 inputs in bf16 mode), which are measured against FP32 SGEMM. The CPU keeps
// OpenBLAS. Every CUDA id chosen is registered in a CUDA build.
TEST(GemmBaseline, EachModeHasItsOwnYardstick) {
  const GemmTypes f32{}, bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16},
      f16{DType::kF16, DType::kF16, DType::kF32, Compute::kBF16};
  GemmTypes tf32, x3, f32_as_bf16;
  tf32.compute = Compute::kTF32;
  x3.compute = Compute::kF32x3TF32;
  f32_as_bf16.compute = Compute::kBF16;
  const std::pair<GemmTypes, const char*> expected[] = {
      {f32, "gemm.cuda.cublas.f32"},         {x3, "gemm.cuda.cublas.f32"},
      {f32_as_bf16, "gemm.cuda.cublas.f32"}, {tf32, "gemm.cuda.cublas.f32_tf32"},
      {bf16, "gemm.cuda.cublas.bf16"},       {f16, "gemm.cuda.cublas.f16"}};
  for (const auto& [types, id] : expected) {
    EXPECT_EQ(baseline_kernel_id(Backend::kCuda, types), id) << describe(types);
    EXPECT_EQ(baseline_kernel_id(Backend::kCpu, types), "gemm.cpu.openblas.f32") << describe(types);
    if (built_with_cuda()) {
      const GemmKernel* k = Registry::instance().find_gemm(id);
      ASSERT_NE(k, nullptr) << id;
      EXPECT_TRUE(baseline_joins(k->info.types, types)) << id << " for " << describe(types);
    }
  }
  EXPECT_EQ(baseline_kernel_id(Backend::kCuda), "gemm.cuda.cublas.f32");  // the default: f32
  // The baseline reads the sweep's stored inputs; 16-bit inputs never sit beside SGEMM.
  EXPECT_TRUE(baseline_joins(f32, x3));
  EXPECT_FALSE(baseline_joins(f32, bf16));
}

// A sweep in another mode on the same stored inputs: OpenBLAS SGEMM runs in f32 beside the tf32
// reference kernel, each verified against its own reference, and is the ratios' 100%.
TEST(GemmBench, TheBaselineRunsInItsOwnModeOnTheSameInputs) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  ASSERT_TRUE(parse_sizes("40x24x56", &cfg.shapes).is_ok());
  cfg.kernels = "gemm.cpu.reference.f32_tf32";
  cfg.types.compute = Compute::kTF32;
  cfg.timing.min_samples = 2;
  cfg.timing.max_time_s = 0.02;
  std::vector<BenchRow> rows;
  ASSERT_TRUE(run_gemm_bench(cfg, &rows).is_ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel, "gemm.cpu.openblas.f32");
  EXPECT_EQ(rows[1].kernel, "gemm.cpu.reference.f32_tf32");
  for (const auto& r : rows) {
    EXPECT_EQ(r.outcome, RowOutcome::kOk) << r.kernel << ": " << r.detail;
    EXPECT_GT(r.baseline_ratio, 0) << r.kernel;
  }
  EXPECT_DOUBLE_EQ(rows[0].baseline_ratio, 1.0);
  // SGEMM's error is FP32's, far below TF32's: each row was checked against its own reference.
  EXPECT_LT(rows[0].max_rel_error, 1e-5);
}

TEST(GemmBench, UnmatchedGlobIsAnError) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  cfg.shapes = {{8, 8, 8}};
  cfg.kernels = "gemm.cpu.nothing*";
  cfg.add_baseline = false;
  std::vector<BenchRow> rows;
  EXPECT_EQ(run_gemm_bench(cfg, &rows).code(), StatusCode::kInvalidArgument);
}

// ---- hostile input ----

TEST(Sizes, NumbersThatDoNotFitAreErrorsNeverClamped) {
  std::vector<GemmShape> s;
  for (const char* bad : {"99999999999999999999", "9223372036854775808", "2^63", "2^64x1x1",
                          "3x6148914691236517206x0", "1x4611686018427387904x1", "+5", " 5", "0x10",
                          "5:1:0", "9223372036854775800:9223372036854775807:5"}) {
    const Status st = parse_sizes(bad, &s);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find(std::string("'") + bad + "'"), std::string::npos) << st.message();
  }
  EXPECT_NE(parse_sizes("99999999999999999999", &s).message().find("does not fit in 64 bits"),
            std::string::npos);
  EXPECT_NE(parse_sizes("3x6148914691236517206x0", &s).message().find("overflow"), std::string::npos);
}

TEST(Sizes, PowersAndLargeShapesThatFit) {
  std::vector<GemmShape> s;
  ASSERT_TRUE(parse_sizes("2^10,2^0x3x0", &s).is_ok());
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].m, 1024);
  EXPECT_EQ(s[1].m, 1);
  EXPECT_EQ(s[1].k, 0);
  // Fits in 64 bits (the memory check at run time is another matter).
  ASSERT_TRUE(parse_sizes("1000000000", &s).is_ok());
}

TEST(Sizes, RangesAreCapped) {
  std::vector<GemmShape> s;
  ASSERT_TRUE(parse_sizes("1:10000:1", &s).is_ok());
  EXPECT_EQ(s.size(), kMaxSizes);
  EXPECT_EQ(parse_sizes("0:10000:1", &s).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parse_sizes("1:10000:1,5", &s).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parse_sizes("0:1000000000000:1", &s).code(), StatusCode::kInvalidArgument);
}

// parse_count used to read through a pointer into a destroyed temporary for every 2^N (ASan:
// stack-use-after-scope), which is every default size of `bench copy` and `bench dot`.
TEST(MemorySizes, PowersParseToTheirValues) {
  std::vector<MemorySize> s;
  ASSERT_TRUE(parse_memory_sizes(MemoryOp::kDot, "2^24,2^0,10^3,0^0,7", &s).is_ok());
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].rows, int64_t{1} << 24);
  EXPECT_EQ(s[1].rows, 1);
  EXPECT_EQ(s[2].rows, 1000);
  EXPECT_EQ(s[3].rows, 1);
  EXPECT_EQ(s[4].rows, 7);
  ASSERT_TRUE(parse_memory_sizes(MemoryOp::kTranspose, "2^12x17,64", &s).is_ok());
  EXPECT_EQ(s[0].rows, 4096);
  EXPECT_EQ(s[0].cols, 17);
  EXPECT_EQ(s[1].cols, 64);
}

TEST(MemorySizes, BadAndOverflowingSizesAreErrors) {
  std::vector<MemorySize> s;
  for (const char* bad : {"", "abc", "2^", "^3", "2^x", "-4", "2^63", "2^61", "99999999999999999999",
                          "1x2", "8,,8"})
    EXPECT_EQ(parse_memory_sizes(MemoryOp::kCopy, bad, &s).code(), StatusCode::kInvalidArgument) << bad;
  for (const char* bad : {"2^32x2^32", "2^40x2^22", "3x", "x3", "2x3x4"})
    EXPECT_EQ(parse_memory_sizes(MemoryOp::kTranspose, bad, &s).code(), StatusCode::kInvalidArgument)
        << bad;
}

TEST(MemoryPlan, OverflowIsBadInputAndTooMuchIsOutOfMemory) {
  MemoryPlan overflow;
  overflow.add("A", int64_t{1} << 40, int64_t{1} << 30, sizeof(float));
  EXPECT_EQ(overflow.check_host().code(), StatusCode::kInvalidArgument);
  MemoryPlan too_much;
  too_much.add("A", 8, 8, sizeof(float));
  too_much.add("C", int64_t{1} << 24, int64_t{1} << 24, sizeof(float));  // 1.1 PB
  const Status s = too_much.check_host();
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(s.message().find("C needs 1.13 PB"), std::string::npos) << s.message();
  MemoryPlan together;  // each fits, the sum does not
  const int64_t half = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE) / 2;
  together.add("A", half / 3, 4, 1);
  together.add("B", half / 3, 4, 1);
  const Status t = together.check_host();
  EXPECT_EQ(t.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(t.message().find("A and B together"), std::string::npos) << t.message();
}

TEST(GemmBench, ShapeThatCannotFitFailsBeforeAnyWork) {
  GemmBenchConfig cfg;
  cfg.ctx = Context::cpu();
  cfg.shapes = {{8, 8, 8}, {10000000, 10000000, 2}};
  std::vector<BenchRow> rows;
  const auto start = std::chrono::steady_clock::now();
  const Status s = run_gemm_bench(cfg, &rows);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_NE(s.message().find("size 10000000x10000000x2"), std::string::npos) << s.message();
  EXPECT_TRUE(rows.empty());  // not even the small size ran
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(KernelGlobs, ListsSelectEachGlobInRegistrationOrder) {
  std::vector<const GemmKernel*> k;
  const auto& gemm = Registry::instance().gemm;
  ASSERT_TRUE(select_kernels(gemm, "gemm.cpu.openblas*,gemm.cpu.blocked*", "gemm", Backend::kCpu, &k)
                  .is_ok());
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0]->info.id.rfind("gemm.cpu.blocked", 0), 0u);
  EXPECT_EQ(k[1]->info.id, "gemm.cpu.openblas.f32");
  ASSERT_TRUE(select_kernels(gemm, "gemm.cpu.*,gemm.cpu.openblas*", "gemm", Backend::kCpu, &k).is_ok());
  EXPECT_EQ(k.size(), gemm.match("gemm.cpu.*").size());  // no duplicates, references when named
  ASSERT_TRUE(select_kernels(gemm, "", "gemm", Backend::kCpu, &k).is_ok());
  for (const GemmKernel* kernel : k) EXPECT_FALSE(kernel->info.is_reference) << kernel->info.id;
}

TEST(KernelGlobs, EachGlobMustMatchAKernelOfTheBackend) {
  std::vector<const GemmKernel*> k;
  const auto& gemm = Registry::instance().gemm;
  for (const char* spec : {"gemm.cpu.blocked*,gemm.zzz*", "gemm.cuda.cublas*", ",gemm.cpu.*",
                           "gemm.cpu.*,", "gemm.cpu.*,,gemm.cpu.*"}) {
    const Status s = select_kernels(gemm, spec, "gemm", Backend::kCpu, &k);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << spec;
  }
  const Status s = select_kernels(gemm, "gemm.cpu.blocked*,gemm.zzz*", "gemm", Backend::kCpu, &k);
  EXPECT_NE(s.message().find("'gemm.zzz*'"), std::string::npos) << s.message();
}

TEST(MemoryBench, UnmatchedGlobIsAnErrorEvenWithTheBaseline) {
  for (MemoryOp op : {MemoryOp::kCopy, MemoryOp::kTranspose, MemoryOp::kDot}) {
    MemoryBenchConfig cfg;
    cfg.ctx = Context::cpu();
    cfg.op = op;
    cfg.sizes = {{64, 1}};
    cfg.kernels = std::string(memory_op_name(op)) + ".cuda.*";
    std::vector<BenchRow> rows;
    const Status s = run_memory_bench(cfg, &rows);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << memory_op_name(op);
    EXPECT_NE(s.message().find(cfg.kernels), std::string::npos) << s.message();
    EXPECT_TRUE(rows.empty());
  }
}

// A row whose noise is above 10% says so in the table, the CSV and the JSON.
TEST(Noise, NoisyRowsSaySoEverywhere) {
  BenchRow quiet, noisy;
  quiet.kernel = "gemm.cpu.openblas.f32";
  quiet.outcome = RowOutcome::kOk;
  quiet.size = "256";
  quiet.timing.samples = 10;
  quiet.timing.median_s = 1e-3;
  quiet.timing.noise = 0.05;
  noisy = quiet;
  noisy.kernel = "gemm.cpu.blocked.f32";
  noisy.timing.noise = 0.23;
  mark_noise(&quiet);
  mark_noise(&noisy);
  EXPECT_FALSE(quiet.noisy);
  EXPECT_TRUE(noisy.noisy);
  std::ostringstream table;
  print_bench_table(table, {quiet, noisy}, "gemm.cpu.openblas.f32");
  EXPECT_NE(table.str().find("PASS (noisy: 23%"), std::string::npos) << table.str();
  EXPECT_EQ(table.str().find("noisy: 5%"), std::string::npos);
  EXPECT_NE(table.str().find("noise above 10%"), std::string::npos);

  BenchRow memory = noisy;
  memory.op = "copy";
  memory.verification = "PASS exact";
  std::ostringstream memory_table;
  print_bench_table(memory_table, {memory}, "copy.cpu.memcpy.f32", "copy.cpu.memcpy.f32");
  EXPECT_NE(memory_table.str().find("PASS (noisy: 23%) exact"), std::string::npos) << memory_table.str();

  const std::string dir = ::testing::TempDir();
  Environment env;
  ASSERT_TRUE(write_bench_csv(dir + "/noise.csv", {quiet, noisy}, env).is_ok());
  ASSERT_TRUE(write_bench_json(dir + "/noise.json", {quiet, noisy}, env).is_ok());
  std::ifstream csv(dir + "/noise.csv");
  std::string header, first, second;
  std::getline(csv, header);
  std::getline(csv, first);
  std::getline(csv, second);
  const auto column = [&header] {
    std::stringstream ss(header);
    int index = 0;
    for (std::string name; std::getline(ss, name, ','); ++index)
      if (name == "noisy") return index;
    return -1;
  }();
  ASSERT_GE(column, 0) << header;
  auto field = [column](const std::string& line) {
    std::stringstream ss(line);
    std::string value;
    for (int i = 0; i <= column; ++i) std::getline(ss, value, ',');
    return value;
  };
  EXPECT_EQ(field(first), "0");
  EXPECT_EQ(field(second), "1");
  std::ifstream json_file(dir + "/noise.json");
  const std::string json((std::istreambuf_iterator<char>(json_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"noisy\": true"), std::string::npos);
  EXPECT_NE(json.find("\"noisy\": false"), std::string::npos);
}

// OpenBLAS's thread count is process-wide: a Context's thread count must not outlive its call.
extern "C" int openblas_get_num_threads(void);  // OpenBLAS's own API, declared to avoid cblas.h
extern "C" void openblas_set_num_threads(int);

TEST(OpenblasThreads, RestoredAfterEachCall) {
  const GemmKernel* openblas = Registry::instance().find_gemm("gemm.cpu.openblas.f32");
  ASSERT_NE(openblas, nullptr);
  const int original = openblas_get_num_threads(), original_openmp = omp_get_max_threads();
  openblas_set_num_threads(2);
  const int before = openblas_get_num_threads();
  const int openmp_before = omp_get_max_threads();
  std::vector<float> a(64 * 64, 1.0f), b(64 * 64, 1.0f), c(64 * 64, 0.0f);
  GemmProblem p;
  p.m = p.n = p.k = 64;
  p.lda = p.ldb = p.ldc = 64;
  p.a = a.data();
  p.b = b.data();
  p.c = c.data();
  ASSERT_TRUE(run_gemm_kernel(*openblas, Context::cpu(1), p).is_ok());
  EXPECT_EQ(openblas_get_num_threads(), before);
  EXPECT_EQ(omp_get_max_threads(), openmp_before);
  EXPECT_EQ(c[0], 64.0f);
  openblas_set_num_threads(original);
  omp_set_num_threads(original_openmp);
}

}  // namespace
}  // namespace tilekit::bench
