// The distributed GEMM on real GPUs through NCCL, over every visible GPU (2, 4 or 8: limit them
// with CUDA_VISIBLE_DEVICES; skips with fewer than 2 unless TILEKIT_REQUIRE_GPU=1): results
// equal one GPU's result of the same kernel bit for bit, for both splits, every replica source,
// resident and host operands; faults (a missing device, ranks that disagree, a rank with bad
// blocks, a rank that never comes) end in an error on every rank, within the timeout, with
// nothing written to C. One test needs one GPU only: each position-independent kernel gives the
// same bits on panels of a problem (what every rank runs) as on the whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "core/schedules/schedules.hpp"
#include "support/gpu_gate.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit::testing {
namespace {

// The distributed tests use every visible GPU as one rank each.
#define REQUIRE_TWO_GPUS_OR_SKIP()                                                          \
  do {                                                                                      \
    if (!built_with_nccl()) GTEST_SKIP() << "built without NCCL";                           \
    if (cuda_device_count() < 2) {                                                          \
      if (gpu_required()) FAIL() << "TILEKIT_REQUIRE_GPU=1 but fewer than 2 GPUs";          \
      GTEST_SKIP() << "fewer than 2 CUDA GPUs";                                             \
    }                                                                                       \
  } while (0)

int gpu_count() { return cuda_device_count(); }

std::vector<float> random_floats(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

// Row-major NN host problem with padded leading dimensions.
struct HostCase {
  int64_t m, n, k;
  std::vector<float> a, b, c;
  GemmProblem p;
  HostCase(int64_t m_, int64_t n_, int64_t k_, float beta, uint32_t seed) : m(m_), n(n_), k(k_) {
    a = random_floats(static_cast<size_t>(m * (k + 1)), seed);
    b = random_floats(static_cast<size_t>(k * (n + 2)), seed + 1);
    c = random_floats(static_cast<size_t>(m * (n + 3)), seed + 2);
    p.m = m;
    p.n = n;
    p.k = k;
    p.alpha = 1.25f;
    p.beta = beta;
    p.a = a.data();
    p.lda = k + 1;
    p.b = b.data();
    p.ldb = n + 2;
    p.c = c.data();
    p.ldc = n + 3;
  }
};

// One GPU, one call of `kernel`: the result the distributed call must reproduce. A kernel that
// refuses the shape sets *refused (when given) instead of failing the test.
std::vector<float> one_gpu(const HostCase& h, const std::string& kernel, bool* refused = nullptr) {
  const Context ctx = Context::cuda(0);
  DeviceBuffer<float> a, b, c;
  EXPECT_TRUE(a.allocate_on(0, h.a.size(), "A") && b.allocate_on(0, h.b.size(), "B") &&
              c.allocate_on(0, h.c.size(), "C"));
  EXPECT_TRUE(a.upload(h.a.data(), h.a.size()) && b.upload(h.b.data(), h.b.size()) &&
              c.upload(h.c.data(), h.c.size()));
  GemmProblem p = h.p;
  p.a = a.get();
  p.b = b.get();
  p.c = c.get();
  GemmOptions o;
  o.kernel = kernel;
  const Status s = gemm(ctx, p, o);
  if (refused) *refused = s.code() == StatusCode::kNotSupported;
  if (!refused || !*refused) EXPECT_TRUE(s) << s.to_string();
  EXPECT_TRUE(device_synchronize(ctx));
  std::vector<float> out(h.c.size());
  EXPECT_TRUE(c.download(out.data(), out.size()));
  return out;
}

// Own f32 CUDA kernels whose result per element does not depend on the shape around it: split-K
// kernels (split_k -1: chosen per shape), stream-K kernels (stream_k and hybrid_stream_k: the
// k-ranges of a round's tiles follow the tile count), the skinny kernel (k sliced by shape) and
// kernels that pick their tile when launched choose from the shape, so a panel may be summed in
// another order than the whole. Highest auto rank first.
std::vector<std::string> position_independent_kernels() {
  std::vector<const GemmKernel*> out;
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCuda && k.info.role == KernelRole::kOwn &&
        k.info.types == GemmTypes{} && (k.info.tiling.split_k == 0 || k.info.tiling.split_k == 1) &&
        !is_stream_k(k.info.tiling.schedule) && !k.info.tiling.chosen_at_run_time &&
        k.info.id.find("skinny") == std::string::npos)
      out.push_back(&k);
  std::stable_sort(out.begin(), out.end(), [](const GemmKernel* a, const GemmKernel* b) {
    return a->info.auto_rank > b->info.auto_rank;
  });
  std::vector<std::string> ids;
  for (const GemmKernel* k : out) ids.push_back(k->info.id);
  return ids;
}

// One rank per visible GPU.
std::unique_ptr<DistributedContext> all_gpus(double timeout_s = 60, bool copy_engines = true) {
  std::unique_ptr<DistributedContext> ctx;
  DistributedConfig config;
  config.timeout_s = timeout_s;
  config.copy_engines = copy_engines;
  std::vector<int> devices;
  for (int d = 0; d < gpu_count(); ++d) devices.push_back(d);
  const Status s = DistributedContext::create(devices, config, &ctx);
  EXPECT_TRUE(s) << s.to_string();
  return ctx;
}

// One GPU: every position-independent kernel run on panels of a problem — column panels (C's
// and B's pointers moved to an odd column: no 16-byte alignment, so float4 paths give way to
// scalar ones) and row panels (tiles that were interior become edge tiles) — writes the same
// bits as one launch over the whole. This is what the distributed path relies on; with beta != 0
// it caught the epilogue `alpha * acc + beta * c` being contracted into an FMA differently on
// different code paths of one kernel (alpha_acc_beta_c in ladder_common.cuh).
TEST(OneGpuPanels, EveryKernelGivesTheSameBitsOnPanelsAsOnTheWhole) {
  TILEKIT_REQUIRE_GPU_OR_SKIP();
  const auto kernels = position_independent_kernels();
  ASSERT_FALSE(kernels.empty());
  const Context ctx = Context::cuda(0);
  for (const std::string& kernel : kernels)
    for (const bool by_columns : {true, false}) {
      HostCase h(1000, 777, 333, 0.5f, 11);
      bool refused = false;
      const std::vector<float> expected = one_gpu(h, kernel, &refused);
      if (refused) continue;
      DeviceBuffer<float> a, b, c;
      ASSERT_TRUE(a.allocate_on(0, h.a.size(), "A") && b.allocate_on(0, h.b.size(), "B") &&
                  c.allocate_on(0, h.c.size(), "C"));
      ASSERT_TRUE(a.upload(h.a.data(), h.a.size()) && b.upload(h.b.data(), h.b.size()) &&
                  c.upload(h.c.data(), h.c.size()));
      GemmOptions o;
      o.kernel = kernel;
      const int parts = 7;  // 111 columns or 142-143 rows: odd offsets, partial tiles
      for (int i = 0; i < parts; ++i) {
        GemmProblem q = h.p;
        q.a = a.get();
        q.b = b.get();
        q.c = c.get();
        if (by_columns) {
          const IndexRange cols = block_range(h.n, parts, i);
          q.n = cols.size;
          q.b = b.get() + cols.begin;
          q.c = c.get() + cols.begin;
        } else {
          const IndexRange rows = block_range(h.m, parts, i);
          q.m = rows.size;
          q.a = a.get() + rows.begin * h.p.lda;
          q.c = c.get() + rows.begin * h.p.ldc;
        }
        const Status s = gemm(ctx, q, o);
        ASSERT_TRUE(s) << kernel << " panel " << i << ": " << s.to_string();
      }
      ASSERT_TRUE(device_synchronize(ctx));
      std::vector<float> got(h.c.size());
      ASSERT_TRUE(c.download(got.data(), got.size()));
      size_t differ = 0, first = got.size();
      for (size_t e = 0; e < got.size(); ++e)
        if (std::memcmp(&got[e], &expected[e], sizeof(float)) != 0) {
          if (first == got.size()) first = e;
          ++differ;
        }
      EXPECT_EQ(differ, 0u) << kernel << (by_columns ? " column" : " row") << " panels: " << differ
                            << " elements differ from the whole launch, the first at row "
                            << (first / (h.n + 3)) << ", column " << (first % (h.n + 3));
    }
}

TEST(MultiGpu, HostOperandsMatchOneGpuBitForBitForEveryKernel) {
  REQUIRE_TWO_GPUS_OR_SKIP();
  auto ctx = all_gpus();
  ASSERT_TRUE(ctx);
  for (const std::string& kernel : position_independent_kernels()) {
    HostCase h(1000, 777, 333, 0.5f, 7);
    bool refused = false;
    const std::vector<float> expected = one_gpu(h, kernel, &refused);
    if (refused) continue;  // the kernel cannot run this shape on one GPU either
    DistributedOptions o;
    o.kernel = kernel;
    const Status s = gemm_distributed_host(*ctx, h.p, o);
    if (s.code() == StatusCode::kNotSupported) continue;  // the kernel refuses the shape
    ASSERT_TRUE(s) << kernel << ": " << s.to_string();
    EXPECT_EQ(std::memcmp(expected.data(), h.c.data(), expected.size() * sizeof(float)), 0)
        << kernel;
  }
}

TEST(MultiGpu, EverySplitAndSourceMatchesOneGpuBitForBit) {
  REQUIRE_TWO_GPUS_OR_SKIP();
  const auto kernels = position_independent_kernels();
  ASSERT_FALSE(kernels.empty());
  const std::string kernel = kernels.front();
  auto ctx = all_gpus();
  ASSERT_TRUE(ctx);
  uint32_t seed = 100;
  struct Shape { int64_t m, n, k; };
  for (const Shape shape : {Shape{512, 512, 256}, Shape{1, 300, 64}, Shape{300, 1, 64},
                            Shape{129, 257, 65}, Shape{64, 64, 0}})
    for (DistSplit split : {DistSplit::kRows, DistSplit::kColumns})
      for (ReplicaSource source :
           {ReplicaSource::kBlocks, ReplicaSource::kRoot, ReplicaSource::kEveryRank})
        for (int panels : {1, 3}) {
          ++seed;  // (beta from the seed before the seed is passed: argument order is unspecified)
          const float beta = seed % 2 ? 0.0f : 0.5f;
          HostCase h(shape.m, shape.n, shape.k, beta, seed);
          const std::vector<float> expected = one_gpu(h, kernel);
          DistributedOptions o;
          o.kernel = kernel;
          o.split = split;
          o.source = source;
          o.panels_per_block = panels;
          DistributedStats stats;
          const Status s = gemm_distributed_host(*ctx, h.p, o, &stats);
          const std::string what = kernel + " " + std::to_string(shape.m) + "x" +
                                   std::to_string(shape.n) + "x" + std::to_string(shape.k) + " " +
                                   dist_split_name(split) + " " + replica_source_name(source) +
                                   " panels " + std::to_string(panels);
          ASSERT_TRUE(s) << what << ": " << s.to_string();
          EXPECT_EQ(std::memcmp(expected.data(), h.c.data(), expected.size() * sizeof(float)), 0)
              << what;
          ASSERT_EQ(stats.ranks.size(), static_cast<size_t>(gpu_count()));
        }
}

// Resident blocks of a row-major NN problem, rows split, B's column blocks all-gathered.
struct ResidentBlocks {
  std::vector<DeviceBuffer<float>> a, b, c;
  std::vector<LocalBlocks> blocks;
};
ResidentBlocks upload_blocks(const HostCase& h, const DistributionPlan& plan) {
  ResidentBlocks r;
  const int ranks = plan.ranks;
  r.a.resize(ranks);
  r.b.resize(ranks);
  r.c.resize(ranks);
  for (int g = 0; g < ranks; ++g) {
    const IndexRange rows = plan.rows[g], cols = plan.cols[g];
    std::vector<float> a(static_cast<size_t>(std::max<int64_t>(1, rows.size * h.k)));
    std::vector<float> b(static_cast<size_t>(std::max<int64_t>(1, h.k * cols.size)));
    std::vector<float> c(static_cast<size_t>(std::max<int64_t>(1, rows.size * h.n)));
    for (int64_t i = 0; i < rows.size; ++i)
      for (int64_t j = 0; j < h.k; ++j) a[i * h.k + j] = h.a[(rows.begin + i) * h.p.lda + j];
    for (int64_t i = 0; i < h.k; ++i)
      for (int64_t j = 0; j < cols.size; ++j) b[i * cols.size + j] = h.b[i * h.p.ldb + cols.begin + j];
    for (int64_t i = 0; i < rows.size; ++i)
      for (int64_t j = 0; j < h.n; ++j) c[i * h.n + j] = h.c[(rows.begin + i) * h.p.ldc + j];
    EXPECT_TRUE(r.a[g].allocate_on(g, a.size(), "A") && r.a[g].upload(a.data(), a.size()));
    EXPECT_TRUE(r.b[g].allocate_on(g, b.size(), "B") && r.b[g].upload(b.data(), b.size()));
    EXPECT_TRUE(r.c[g].allocate_on(g, c.size(), "C") && r.c[g].upload(c.data(), c.size()));
    r.blocks.push_back({r.a[g].get(), std::max<int64_t>(1, h.k), r.b[g].get(),
                        std::max<int64_t>(1, cols.size), r.c[g].get(), std::max<int64_t>(1, h.n)});
  }
  return r;
}
std::vector<float> download_rows(ResidentBlocks& r, const HostCase& h, const DistributionPlan& plan) {
  std::vector<float> out = h.c;
  for (int g = 0; g < plan.ranks; ++g) {
    const IndexRange rows = plan.rows[g];
    std::vector<float> c(static_cast<size_t>(std::max<int64_t>(1, rows.size * h.n)));
    EXPECT_TRUE(r.c[g].download(c.data(), c.size()));
    for (int64_t i = 0; i < rows.size; ++i)
      for (int64_t j = 0; j < h.n; ++j) out[(rows.begin + i) * h.p.ldc + j] = c[i * h.n + j];
  }
  return out;
}

TEST(MultiGpu, ResidentBlocksMatchOneGpuBitForBit) {
  REQUIRE_TWO_GPUS_OR_SKIP();
  const std::string kernel = position_independent_kernels().front();
  auto ctx = all_gpus();
  ASSERT_TRUE(ctx);
  HostCase h(2048, 1536, 1024, 0.0f, 42);
  const std::vector<float> expected = one_gpu(h, kernel);
  DistributedOptions o;
  o.kernel = kernel;
  o.split = DistSplit::kRows;
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(h.p, ctx->ranks(), o, &plan));
  ResidentBlocks r = upload_blocks(h, plan);
  DistributedStats stats;
  const Status s = gemm_distributed(*ctx, h.p, r.blocks, o, &stats);
  ASSERT_TRUE(s) << s.to_string();
  const std::vector<float> got = download_rows(r, h, plan);
  EXPECT_EQ(std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)), 0);
  for (const RankStats& rs : stats.ranks) {
    EXPECT_GT(rs.compute_ms, 0.0) << "rank " << rs.rank;
    EXPECT_GT(rs.transfer_ms, 0.0) << "rank " << rs.rank;
  }
  // Through the staging copy of C: the same bits.
  ResidentBlocks staged = upload_blocks(h, plan);
  o.all_or_nothing = true;
  const Status s2 = gemm_distributed(*ctx, h.p, staged.blocks, o);
  ASSERT_TRUE(s2) << s2.to_string();
  EXPECT_EQ(download_rows(staged, h, plan), got);
  // With NCCL's kernels instead of the copy engines (and so the SM cap on the GEMMs beside
  // them): the same bits, and the stats say which ran.
  auto kernels_ctx = all_gpus(60, /*copy_engines=*/false);
  ASSERT_TRUE(kernels_ctx);
  ResidentBlocks again = upload_blocks(h, plan);
  o.all_or_nothing = false;
  DistributedStats kernel_stats;
  const Status s3 = gemm_distributed(*kernels_ctx, h.p, again.blocks, o, &kernel_stats);
  ASSERT_TRUE(s3) << s3.to_string();
  EXPECT_EQ(download_rows(again, h, plan), got);
  for (const RankStats& rs : kernel_stats.ranks) EXPECT_FALSE(rs.copy_engines) << "rank " << rs.rank;
}

TEST(MultiGpuFaults, AMissingOrRepeatedDeviceIsNamed) {
  REQUIRE_TWO_GPUS_OR_SKIP();
  std::unique_ptr<DistributedContext> ctx;
  Status s = DistributedContext::create({0, 99}, {}, &ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("device 99 is missing"), std::string::npos) << s.message();
  s = DistributedContext::create({1, 1}, {}, &ctx);
  EXPECT_NE(s.message().find("listed twice"), std::string::npos) << s.message();
  EXPECT_EQ(std::string(std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : ""),
            "0");
}

// N "processes" (threads, each its own context made with join and one unique id), one per
// visible GPU: the path of a job spread over hosts.
struct Joined {
  std::vector<std::unique_ptr<DistributedContext>> ctx;
  Joined() = default;
  Joined(Joined&&) = default;
  // Processes would end their communicators at the same time: so do the threads.
  ~Joined() {
    std::vector<std::thread> threads;
    for (size_t r = 1; r < ctx.size(); ++r) threads.emplace_back([this, r] { ctx[r].reset(); });
    if (!ctx.empty()) ctx[0].reset();
    for (std::thread& t : threads) t.join();
  }
  bool all() const {
    for (const auto& c : ctx)
      if (!c) return false;
    return !ctx.empty();
  }
};
Joined join_all(double timeout_s) {
  const int ranks = gpu_count();
  std::string id;
  EXPECT_TRUE(new_unique_id(&id));
  Joined j;
  j.ctx.resize(ranks);
  std::vector<Status> st(ranks);
  DistributedConfig config;
  config.timeout_s = timeout_s;
  std::vector<std::thread> threads;
  for (int r = 1; r < ranks; ++r)
    threads.emplace_back([&, r] { st[r] = DistributedContext::join(id, ranks, r, r, config, &j.ctx[r]); });
  st[0] = DistributedContext::join(id, ranks, 0, 0, config, &j.ctx[0]);
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < ranks; ++r) EXPECT_TRUE(st[r]) << "rank " << r << ": " << st[r].to_string();
  return j;
}

// Every rank r calls gemm_distributed(ctx[r], problems[r], {blocks[r]}) at once.
std::vector<Status> call_all(Joined& j, const std::vector<GemmProblem>& problems,
                             const std::vector<LocalBlocks>& blocks) {
  const size_t ranks = j.ctx.size();
  std::vector<Status> st(ranks);
  std::vector<std::thread> threads;
  for (size_t r = 1; r < ranks; ++r)
    threads.emplace_back([&, r] { st[r] = gemm_distributed(*j.ctx[r], problems[r], {blocks[r]}); });
  st[0] = gemm_distributed(*j.ctx[0], problems[0], {blocks[0]});
  for (std::thread& t : threads) t.join();
  return st;
}

TEST(MultiGpuFaults, RanksThatDisagreeFailEverywhereWithCUntouched) {
  REQUIRE_TWO_GPUS_OR_SKIP();
  Joined j = join_all(30);
  ASSERT_TRUE(j.all());
  const int ranks = static_cast<int>(j.ctx.size());
  HostCase h(256, 256, 128, 0.0f, 3);
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(h.p, ranks, {}, &plan));
  ResidentBlocks r = upload_blocks(h, plan);
  std::vector<GemmProblem> problems(ranks, h.p);
  problems[1].k = 127;  // rank 1 was told another k
  std::vector<Status> st = call_all(j, problems, r.blocks);
  for (int q = 0; q < ranks; ++q) {
    EXPECT_EQ(st[q].code(), StatusCode::kInvalidArgument) << "rank " << q;
    EXPECT_NE(st[q].message().find("disagree on k"), std::string::npos) << st[q].message();
  }
  EXPECT_EQ(download_rows(r, h, plan), h.c);
  // A rank with bad blocks: its own message, its peers' name it; C untouched again.
  std::vector<LocalBlocks> bad = r.blocks;
  bad[1].ldb = 1;
  st = call_all(j, std::vector<GemmProblem>(ranks, h.p), bad);
  EXPECT_NE(st[1].message().find("ldb = 1"), std::string::npos) << st[1].message();
  for (int q = 0; q < ranks; ++q)
    if (q != 1)
      EXPECT_NE(st[q].message().find("rank 1 failed before the multiplication"), std::string::npos)
          << "rank " << q << ": " << st[q].message();
  EXPECT_EQ(download_rows(r, h, plan), h.c);
}

TEST(MultiGpuFaults, ARankThatNeverComesEndsInATimeout) {
  REQUIRE_TWO_GPUS_OR_SKIP();
  Joined j = join_all(5);
  ASSERT_TRUE(j.all());
  HostCase h(256, 256, 128, 0.0f, 4);
  DistributionPlan plan;
  ASSERT_TRUE(plan_distribution(h.p, static_cast<int>(j.ctx.size()), {}, &plan));
  ResidentBlocks r = upload_blocks(h, plan);
  const auto start = std::chrono::steady_clock::now();
  const Status s = gemm_distributed(*j.ctx[0], h.p, {r.blocks[0]});  // the others never call
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("aborted"), std::string::npos) << s.message();
  EXPECT_LT(waited, 30.0);
  EXPECT_EQ(download_rows(r, h, plan), h.c);
  // The aborted context refuses further work with a message saying so.
  const Status again = gemm_distributed(*j.ctx[0], h.p, {r.blocks[0]});
  EXPECT_NE(again.message().find("aborted"), std::string::npos) << again.message();
}

}  // namespace
}  // namespace tilekit::testing
