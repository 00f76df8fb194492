// The benchmark harness: size parsing, statistics, and a tiny end-to-end CPU run.
#include <gtest/gtest.h>

#include "gemm_bench.hpp"
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
    EXPECT_EQ(r.outcome, "ok") << r.kernel << " " << r.shape.str() << ": " << r.detail;
    EXPECT_EQ(r.verification.rfind("PASS", 0), 0u) << r.verification;
    EXPECT_GT(r.gflops, 0);
    EXPECT_GT(r.baseline_ratio, 0);
    if (r.kernel == "gemm.cpu.openblas.f32") {
      ++baseline_rows;
      EXPECT_DOUBLE_EQ(r.baseline_ratio, 1.0);
    }
  }
  EXPECT_EQ(baseline_rows, 2);
  EXPECT_EQ(rows.size(), 2 * Registry::instance().match_gemm("gemm.cpu.*").size());
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

}  // namespace
}  // namespace tilekit::bench
