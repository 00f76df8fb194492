// test_tune_cache.cpp — the autotuner's cache file and the tuned step of kernel "auto".
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <thread>
#include <tuple>

#include "core/dispatch.hpp"
#include "core/schedules/schedules.hpp"
#include "core/tile_model.hpp"
#include "core/tune_replay.hpp"
#include "core/tune_select.hpp"
#include "support/scoped_cache_dir.hpp"
#include "support/stand_in_device.hpp"
#include "tilekit/tilekit.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards; TILEKIT_CACHE_DIR points at it meanwhile.
class TuneCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scoped_.emplace(::testing::UnitTest::GetInstance()->current_test_info()->name());
    dir_ = scoped_->path();
    ASSERT_TRUE(tune_device_key(Context::cpu(), &key_));
    path_ = tune_cache_file(dir_.string(), key_);
  }
  void TearDown() override { scoped_.reset(); }
  void write_text(const std::string& text) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
  }
  std::string read_text() {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // Writes `c` and loads it under this machine's key: refused with a message naming `why`, and
  // nothing loaded.
  void expect_refused(const TuneCache& c, const std::string& why) {
    ASSERT_TRUE(write_tune_cache(path_, c));
    TuneCache back;
    bool found = false;
    const Status s = load_tune_cache(path_, key_, &back, &found);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
    EXPECT_TRUE(back.entries.empty());
  }
  // A cache for this CPU holding `entries`, installed as the process's cache.
  void install(const std::vector<TuneEntry>& entries) {
    TuneCache c;
    c.key = key_;
    for (const auto& e : entries) c.put(e);
    ASSERT_TRUE(write_tune_cache(path_, c));
    reload_tune_caches();
  }

  std::optional<testing::ScopedTuneCacheDir> scoped_;
  fs::path dir_;
  std::string path_;
  TuneDeviceKey key_;
};

// A row-major NN float32 problem on real buffers (16-byte aligned, ld = the minimum).
struct Buffers {
  std::vector<float> a, b, c;
  GemmProblem p;
  Buffers(int64_t m, int64_t n, int64_t k, GemmTypes t = {}) : a(m * k + 4), b(k * n + 4), c(m * n + 4) {
    p.m = m;
    p.n = n;
    p.k = k;
    p.types = t;
    p.a = a.data();
    p.b = b.data();
    p.c = c.data();
    p.lda = k;
    p.ldb = n;
    p.ldc = n;
  }
};

TuneEntry entry_for(const GemmProblem& p, const std::string& kernel, double t = 1e-3) {
  TuneEntry e;
  e.bucket = bucket_of(p);
  e.kernel = kernel;
  e.time_s = t;
  e.m = p.m;
  e.n = p.n;
  e.k = p.k;
  return e;
}

const char* kBlocked = "gemm.cpu.blocked.f32.6x16_kc256";
const char* kOpenblas = "gemm.cpu.openblas.f32";

TEST_F(TuneCacheTest, IdsUsedHereAreRegistered) {
  // The selection tests below name these kernels; they must exist for the tests to mean anything.
  ASSERT_NE(Registry::instance().find_gemm(kBlocked), nullptr);
  ASSERT_NE(Registry::instance().find_gemm(kOpenblas), nullptr);
}

TEST(TuneBucket, RoundsToNearestPowerOfTwoAndRecordsAlignment) {
  EXPECT_EQ(log2_bucket(1), 0);
  EXPECT_EQ(log2_bucket(1000), 10);
  EXPECT_EQ(log2_bucket(1024), 10);
  EXPECT_EQ(log2_bucket(1500), 11);  // log2(1500) = 10.55
  Buffers x(100, 100, 100);
  EXPECT_TRUE(bucket_of(x.p).aligned16);
  EXPECT_TRUE(bucket_of(x.p).ld16);
  x.p.a = x.a.data() + 1;  // 4 bytes off
  EXPECT_FALSE(bucket_of(x.p).aligned16);
  Buffers y(10, 10, 10);
  EXPECT_FALSE(bucket_of(y.p).ld16);
  // In bytes: 12 bf16 elements are 24 bytes (not 16-byte units), 16 are 32.
  const GemmTypes bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  Buffers h(12, 16, 12, bf16);
  h.p.ldc = 16;
  EXPECT_FALSE(bucket_of(h.p).ld16);
  Buffers g(16, 16, 16, bf16);
  EXPECT_TRUE(bucket_of(g.p).ld16);
}

TEST_F(TuneCacheTest, RoundTrip) {
  Buffers x(512, 256, 1000);
  TuneCache c;
  c.key = key_;
  TuneEntry e = entry_for(x.p, kBlocked, 0.0125);
  e.split_k = 4;
  e.candidates = {{kBlocked, 4, 0.0125}, {kOpenblas, 0, 0.013}, {kBlocked, 0, 0.02, true}};
  c.put(e);
  TuneEntry other_shape = e;  // same bucket (2^9 x 2^8 x 2^10), another shape: kept beside it
  other_shape.m = 500;
  c.put(other_shape);
  c.put(other_shape);  // the same shape again replaces
  TuneEntry plain = entry_for(Buffers(64, 64, 64).p, kBlocked, 0);  // no optional fields
  plain.bucket.op_a = Op::kT;
  plain.bucket.layout = Layout::kColMajor;
  plain.bucket.aligned16 = false;
  plain.bucket.types = GemmTypes{DType::kBF16, DType::kBF16, DType::kBF16, Compute::kBF16};
  c.put(plain);
  ASSERT_TRUE(write_tune_cache(path_, c));
  TuneCache back;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(path_, key_, &back, &found));
  EXPECT_TRUE(found);
  EXPECT_TRUE(back.key == key_);
  ASSERT_EQ(back.entries.size(), 3u);
  EXPECT_TRUE(back.entries[0].bucket == e.bucket);
  EXPECT_EQ(back.entries[1].m, 500);
  back.entries.erase(back.entries.begin() + 1);
  EXPECT_EQ(back.entries[0].kernel, kBlocked);
  EXPECT_DOUBLE_EQ(back.entries[0].time_s, 0.0125);
  EXPECT_EQ(back.entries[0].split_k, 4);
  EXPECT_EQ(back.entries[0].k, 1000);
  ASSERT_EQ(back.entries[0].candidates.size(), 3u);
  EXPECT_EQ(back.entries[0].candidates[1].kernel, kOpenblas);
  EXPECT_FALSE(back.entries[0].candidates[1].screened);
  EXPECT_TRUE(back.entries[0].candidates[2].screened);
  EXPECT_EQ(back.entries[0].candidates[0].split_k, 4);
  EXPECT_DOUBLE_EQ(back.entries[0].candidates[1].time_s, 0.013);
  EXPECT_TRUE(back.entries[1].bucket == plain.bucket);
  EXPECT_EQ(back.entries[1].time_s, 0);
  EXPECT_EQ(back.entries[1].split_k, 0);
  EXPECT_TRUE(back.entries[1].candidates.empty());
  // Nothing is left behind but the file itself.
  int files = 0;
  for (const auto& f : fs::directory_iterator(dir_)) files += f.is_regular_file();
  EXPECT_EQ(files, 1);
}

// `tilekit tune --kernels`: the kernels measured again replace their own candidates (same kernel
// and split; a screened time not a fully measured one), the others stay, and the fastest fully
// measured candidate becomes the choice.
TEST_F(TuneCacheTest, AddedCandidatesJoinTheEntryOfTheirShape) {
  Buffers x(512, 256, 1000);
  TuneCache c;
  c.key = key_;
  TuneEntry old = entry_for(x.p, kOpenblas, 0.013);
  old.candidates = {{kOpenblas, 0, 0.013}, {kBlocked, 4, 0.014}, {kBlocked, 0, 0.03, true}};
  c.put(old);
  TuneEntry fresh = entry_for(x.p, kBlocked, 0.012);
  fresh.split_k = 4;
  // kOpenblas only screened this time: its full measurement stays.
  fresh.candidates = {{kBlocked, 4, 0.012}, {kBlocked, 8, 0.05, true}, {kOpenblas, 0, 0.02, true}};
  TuneEntry other = entry_for(Buffers(64, 64, 64).p, kBlocked, 0.001);
  other.candidates = {{kBlocked, 0, 0.001}};
  ASSERT_TRUE(write_tune_cache(path_, c));
  TuneCache add;
  add.key = key_;
  add.entries = {fresh, other};
  ASSERT_TRUE(merge_tune_cache(path_, add, TuneMerge::kAddCandidates));
  TuneCache back;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(path_, key_, &back, &found));
  ASSERT_EQ(back.entries.size(), 2u);  // the new shape is added as put adds it
  const TuneEntry& e = back.entries[0];
  EXPECT_EQ(e.kernel, kBlocked);
  EXPECT_EQ(e.split_k, 4);
  EXPECT_DOUBLE_EQ(e.time_s, 0.012);
  ASSERT_EQ(e.candidates.size(), 4u);
  const std::vector<std::tuple<std::string, int, double, bool>> expected = {
      {kBlocked, 4, 0.012, false}, {kOpenblas, 0, 0.013, false},  // measured, fastest first
      {kBlocked, 0, 0.03, true}, {kBlocked, 8, 0.05, true}};      // then the screened ones
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(std::make_tuple(e.candidates[i].kernel, e.candidates[i].split_k,
                              e.candidates[i].time_s, e.candidates[i].screened),
              expected[i])
        << "candidate " << i;
  EXPECT_EQ(back.entries[1].m, 64);
  // A merge that replaces entries (a run over every kernel) drops what it did not measure.
  add.entries = {fresh};
  ASSERT_TRUE(merge_tune_cache(path_, add));
  ASSERT_TRUE(load_tune_cache(path_, key_, &back, &found));
  EXPECT_EQ(back.entries[0].candidates.size(), 3u);
}

TEST_F(TuneCacheTest, MissingFileIsNotAnError) {
  TuneCache c;
  bool found = true;
  EXPECT_TRUE(load_tune_cache(path_, key_, &c, &found));
  EXPECT_FALSE(found);
  TuneCacheInfo info;
  ASSERT_TRUE(tune_cache_info(Context::cpu(), &info));
  EXPECT_TRUE(info.warning);
  EXPECT_EQ(info.path, path_);
}

// A cache written and then damaged; each damage is reported naming the file, never trusted.
TEST_F(TuneCacheTest, CorruptFilesAreIgnoredWithAWarning) {
  Buffers x(256, 256, 256);
  install({entry_for(x.p, kBlocked)});
  const std::string good = read_text();
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"garbage", "\x01\x02 not json at all"},
      {"empty", ""},
      {"truncated", good.substr(0, good.size() / 2)},
      {"array", "[1, 2, 3]"},
      {"other schema", R"({"schema": "something-else", "version": 1})"},
      {"newer version", std::string(good).replace(good.find("\"version\": 2"), 12, "\"version\": 99")},
      {"version 1 (ld_mult4)", std::string(good).replace(good.find("\"version\": 2"), 12, "\"version\": 1")},
      {"entry of wrong type", std::string(good).replace(good.find("\"log2_m\": 8"), 11, "\"log2_m\": \"8\"")},
      {"bad op", std::string(good).replace(good.find("\"op_a\": \"N\""), 11, "\"op_a\": \"X\"")},
      {"candidates not a list", std::string(good).replace(good.find("\"kernel\""), 8, "\"candidates\": 3, \"kernel\"")},
      {"no entries", R"({"schema": "tilekit-tune-cache", "version": 2, "device": {}, "build": ""})"},
  };
  for (const auto& [what, text] : damages) {
    SCOPED_TRACE(what);
    write_text(text);
    TuneCache c;
    bool found = false;
    Status s = load_tune_cache(path_, key_, &c, &found);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find(path_), std::string::npos) << s.message();
    EXPECT_TRUE(c.entries.empty());
    // The selector: one warning for the process, and the ranking decides.
    reload_tune_caches();
    TuneCacheInfo info;
    ASSERT_TRUE(tune_cache_info(Context::cpu(), &info));
    EXPECT_FALSE(info.warning);
    Selection<GemmProblem> chosen;
    ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &chosen));
    EXPECT_EQ(chosen.reason.rfind("ranking", 0), 0u) << chosen.reason;
  }
}

// A cache path that cannot be read says why, and merging never replaces it: it may hold entries
// that are not ours to drop.
TEST_F(TuneCacheTest, DirectoryAtTheCachePathIsReportedAndKept) {
  fs::create_directories(path_);
  TuneCache c;
  bool found = false;
  const Status s = load_tune_cache(path_, key_, &c, &found);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
  TuneCache add;
  add.key = key_;
  add.put(entry_for(Buffers(64, 64, 64).p, kBlocked));
  const Status merged = merge_tune_cache(path_, add);
  EXPECT_EQ(merged.code(), StatusCode::kIoError) << merged.to_string();
  EXPECT_TRUE(fs::is_directory(path_));
}

TEST_F(TuneCacheTest, UnreadableCacheIsReportedAndKept) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a file whatever its mode";
  write_text("{\"not\": \"ours to replace\"}");
  fs::permissions(path_, fs::perms::none);
  TuneCache c;
  bool found = false;
  const Status s = load_tune_cache(path_, key_, &c, &found);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("cannot be read"), std::string::npos) << s.message();
  TuneCache add;
  add.key = key_;
  add.put(entry_for(Buffers(64, 64, 64).p, kBlocked));
  EXPECT_EQ(merge_tune_cache(path_, add).code(), StatusCode::kIoError);
  fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(read_text(), "{\"not\": \"ours to replace\"}");
}

TEST_F(TuneCacheTest, SymlinkAtTheCachePathIsNotWrittenThrough) {
  const std::string victim = (dir_ / "victim.txt").string();
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, path_);
  TuneCache add;
  add.key = key_;
  add.put(entry_for(Buffers(64, 64, 64).p, kBlocked));
  EXPECT_FALSE(merge_tune_cache(path_, add));
  std::ifstream in(victim);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "precious");
  EXPECT_TRUE(fs::is_symlink(path_));
}

TEST_F(TuneCacheTest, ForeignDeviceIsIgnored) {
  TuneCache c;
  c.key = key_;
  c.key.name = "Some Other Processor";
  c.put(entry_for(Buffers(64, 64, 64).p, kBlocked));
  expect_refused(c, "Some Other Processor");
  TuneCache back;
  bool found = false;
  c.key = key_;
  c.key.sm_count += 1;
  ASSERT_TRUE(write_tune_cache(path_, c));
  EXPECT_FALSE(load_tune_cache(path_, key_, &back, &found));
}

TEST_F(TuneCacheTest, StaleBuildIsIgnored) {
  TuneCache c;
  c.key = key_;
  c.key.build = "0.0.1+deadbee";
  c.put(entry_for(Buffers(64, 64, 64).p, kBlocked));
  expect_refused(c, "deadbee");
  TuneCache back;
  bool found = false;
  // `tilekit tune` replaces a stale file rather than mixing builds.
  TuneCache fresh;
  fresh.key = key_;
  fresh.put(entry_for(Buffers(128, 128, 128).p, kBlocked));
  ASSERT_TRUE(merge_tune_cache(path_, fresh));
  ASSERT_TRUE(load_tune_cache(path_, key_, &back, &found));
  EXPECT_EQ(back.entries.size(), 1u);
}

// Distinct entries per writer: after all writers finish, the file is one valid cache holding
// every entry (the lock serializes read-modify-write; rename makes each write whole).
TuneEntry numbered_entry(int writer, int i) {
  TuneEntry e;
  e.bucket.log2_m = writer;
  e.bucket.log2_n = i;
  e.bucket.log2_k = 3;
  e.kernel = kBlocked;
  e.time_s = 1e-3 * (i + 1);
  return e;
}

TEST_F(TuneCacheTest, ConcurrentThreadsLoseNothing) {
  constexpr int kWriters = 6, kEach = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        TuneCache add;
        add.key = key_;
        add.put(numbered_entry(w, i));
        if (!merge_tune_cache(path_, add)) ++failures;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  TuneCache back;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(path_, key_, &back, &found));
  EXPECT_EQ(back.entries.size(), static_cast<size_t>(kWriters * kEach));
}

TEST_F(TuneCacheTest, ConcurrentProcessesLeaveAValidFile) {
  constexpr int kWriters = 4, kEach = 10;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      for (int i = 0; i < kEach; ++i) {
        TuneCache add;
        add.key = key_;
        add.put(numbered_entry(w, i));
        bad += !merge_tune_cache(path_, add);
      }
      ::_exit(bad == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  // Meanwhile this process reads: every read sees a complete cache or none.
  for (int i = 0; i < 50; ++i) {
    TuneCache back;
    bool found = false;
    Status s = load_tune_cache(path_, key_, &back, &found);
    EXPECT_TRUE(s) << s.message();
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  TuneCache back;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(path_, key_, &back, &found));
  EXPECT_EQ(back.entries.size(), static_cast<size_t>(kWriters * kEach));
}

// ---- selection through the process's cache (the real registry) ----

// A thread remembers its last tuned choice for the next call at the same shape; a reloaded
// cache is read afresh, and another shape is chosen afresh.
TEST_F(TuneCacheTest, RepeatedShapeIsRememberedUntilTheCacheIsReloaded) {
  Buffers x(64, 64, 64);
  install({entry_for(x.p, kBlocked, 2e-3)});
  Selection<GemmProblem> first, again;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &first));
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &again));
  EXPECT_EQ(again.kernel, first.kernel);
  EXPECT_EQ(again.reason, first.reason);
  EXPECT_NE(first.reason.find("2 ms"), std::string::npos) << first.reason;
  install({entry_for(x.p, kBlocked, 3e-3)});  // reloads
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &again));
  EXPECT_NE(again.reason.find("3 ms"), std::string::npos) << again.reason;
  Buffers other(64, 64, 128);
  ASSERT_TRUE(select_gemm_kernel(other.p, Context::cpu(), false, &again));
  EXPECT_NE(again.reason.find("nearest shape"), std::string::npos) << again.reason;
}

TEST_F(TuneCacheTest, AutoUsesTheCacheAndSaysSo) {
  Buffers x(300, 200, 100);
  install({entry_for(x.p, kBlocked, 0.002)});
  Selection<GemmProblem> chosen;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &chosen));
  EXPECT_EQ(chosen.kernel->info.id, kBlocked);
  EXPECT_NE(chosen.reason.find("cache " + path_), std::string::npos) << chosen.reason;
  EXPECT_NE(chosen.reason.find("(this shape)"), std::string::npos) << chosen.reason;
  // And gemm() runs it correctly.
  for (size_t i = 0; i < x.a.size(); ++i) x.a[i] = 1.0f;
  for (size_t i = 0; i < x.b.size(); ++i) x.b[i] = 2.0f;
  ASSERT_TRUE(gemm(Context::cpu(), x.p));
  EXPECT_FLOAT_EQ(x.c[0], 200.0f);
}

TEST_F(TuneCacheTest, VendorKernelFromTheCacheOnlyWhenAllowed) {
  Buffers x(256, 256, 256);
  install({entry_for(x.p, kOpenblas)});
  Selection<GemmProblem> chosen;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &chosen));
  EXPECT_EQ(chosen.kernel->info.id, kBlocked);
  EXPECT_EQ(chosen.reason.rfind("ranking", 0), 0u) << chosen.reason;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), true, &chosen));
  EXPECT_EQ(chosen.kernel->info.id, kOpenblas);
  EXPECT_NE(chosen.reason.find("cache"), std::string::npos) << chosen.reason;
}

TEST_F(TuneCacheTest, UnknownIdsReferencesAndOtherTypesAreSkipped) {
  Buffers x(256, 256, 256);
  Buffers far(16, 16, 16);
  install({entry_for(x.p, "gemm.cpu.kernel_that_was_removed"),
           entry_for(Buffers(256, 256, 128).p, "gemm.cpu.reference.f32"),
           entry_for(far.p, kBlocked)});
  Selection<GemmProblem> chosen;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), true, &chosen));
  // Past the removed id and the reference, to the nearest usable bucket.
  EXPECT_EQ(chosen.kernel->info.id, kBlocked);
  EXPECT_NE(chosen.reason.find("nearest shape, distance 12"), std::string::npos) << chosen.reason;
  // A bf16 request is never served by an entry naming an f32 kernel.
  const GemmTypes bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  Buffers h(256, 256, 256, bf16);
  TuneEntry wrong = entry_for(h.p, kBlocked);
  install({wrong});
  ASSERT_TRUE(select_gemm_kernel(h.p, Context::cpu(), false, &chosen));
  EXPECT_EQ(chosen.kernel->info.types, bf16);
  EXPECT_EQ(chosen.reason.rfind("ranking", 0), 0u) << chosen.reason;
}

// ---- pick_tuned on kernels made here: refusals, precision, nearest ----

GemmKernel fake_kernel(const std::string& id, GemmTypes types, bool refuses_large_k = false) {
  GemmKernel k;
  k.info.id = id;
  k.info.op = "gemm";
  k.info.backend = Backend::kCpu;
  k.info.types = types;
  k.can_implement = [refuses_large_k](const GemmProblem& p, const DeviceInfo*) {
    return refuses_large_k && p.k > 512 ? not_supported("k > 512") : Status::ok();
  };
  return k;
}

TEST(PickTuned, NearestAdmissibleBucketOfTheSameClass) {
  KernelList<GemmKernel> list;
  list.add(fake_kernel("small", GemmTypes{}));
  list.add(fake_kernel("large", GemmTypes{}));
  list.add(fake_kernel("picky", GemmTypes{}, /*refuses_large_k=*/true));
  list.add(fake_kernel("tf32", GemmTypes{DType::kF32, DType::kF32, DType::kF32, Compute::kTF32}));
  Buffers want(700, 700, 700);
  std::vector<TuneEntry> entries = {
      entry_for(Buffers(64, 64, 64).p, "small"),       // distance 9 + 9 + 9... from 2^9
      entry_for(Buffers(1024, 1024, 1024).p, "large"),  // distance 3 (2^10 vs 2^9 each)
  };
  TunedSource src = make_tuned_source("test", entries, list);
  Selection<GemmProblem> out;
  ASSERT_TRUE(pick_tuned(src, want.p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "large");
  // The exact bucket's kernel refuses k = 700 and a tf32 kernel (lower precision) sits at the
  // exact bucket too: neither is taken; the nearest admissible is.
  entries.push_back(entry_for(want.p, "picky"));
  TuneEntry lower = entry_for(want.p, "tf32");
  lower.bucket.log2_k += 1;  // a different bucket, distance 1, still the f32 class
  entries.push_back(lower);
  src = make_tuned_source("test", entries, list);
  ASSERT_TRUE(pick_tuned(src, want.p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "large");
  // Another class (TN) never stands in.
  Buffers tn(700, 700, 700);
  tn.p.op_a = Op::kT;
  tn.p.lda = 700;
  EXPECT_FALSE(pick_tuned(src, tn.p, Context::cpu(), nullptr, false, &out));
  // An unaligned problem does not take an aligned bucket's winner.
  Buffers off(700, 700, 700);
  off.p.b = off.b.data() + 1;
  EXPECT_FALSE(pick_tuned(src, off.p, Context::cpu(), nullptr, false, &out));
}

// A run-time split recorded with an entry reaches the launch for a kernel that takes one (step
// 10's TileDesc::split_k < 0), never for another, and never over the caller's own choice.
TEST(PickTuned, RunTimeSplitKTravelsWithTheChoice) {
  KernelList<GemmKernel> list;
  GemmKernel splitting = fake_kernel("splitting", GemmTypes{});
  splitting.info.tiling.split_k = -1;
  list.add(splitting);
  list.add(fake_kernel("fixed", GemmTypes{}));
  Buffers want(64, 64, 8192);
  TuneEntry e = entry_for(want.p, "splitting");
  e.split_k = 8;
  Selection<GemmProblem> out;
  ASSERT_TRUE(pick_tuned(make_tuned_source("test", {e}, list), want.p, Context::cpu(), nullptr,
                         false, &out));
  EXPECT_EQ(out.split_k, 8);
  EXPECT_NE(out.reason.find("split-k 8"), std::string::npos) << out.reason;
  EXPECT_EQ(with_selection(want.p, out).split_k, 8);
  GemmProblem named = want.p;
  named.split_k = 3;  // the caller's choice stands
  EXPECT_EQ(with_selection(named, out).split_k, 3);

  e.kernel = "fixed";  // a kernel without a run-time split ignores a recorded one
  ASSERT_TRUE(pick_tuned(make_tuned_source("test", {e}, list), want.p, Context::cpu(), nullptr,
                         false, &out));
  EXPECT_EQ(out.split_k, 0);
  EXPECT_EQ(with_selection(want.p, out).split_k, 0);
}

// The nearest entry's candidates are re-ranked at the shape asked for by how their tiles fill
// the GPU: at 2048² the 128×256 tile's 128 blocks make one round on 132 SMs and win; at 1500² it
// still takes that round with 72 blocks, while the 64×64 tile's 576 blocks now fit one round of
// its 6 per SM instead of two, so it is chosen there.
// A fake kernel of bm × bn × bk tiles, one block per tile; split_k as TileDesc::split_k (-1:
// it takes a run-time split).
GemmKernel tiled_kernel(const std::string& id, int bm, int bn, int bk, int split_k = 0) {
  GemmKernel k = fake_kernel(id, GemmTypes{});
  k.info.tiling.block_m = bm;
  k.info.tiling.block_n = bn;
  k.info.tiling.block_k = bk;
  k.info.tiling.split_k = split_k;
  k.info.tiling.schedule = schedule_tag<OneBlockPerTileSchedule>();
  return k;
}

// The model's device as on an H200: 132 SMs, one block of "big" an SM, six of the others.
TileModelDevice h200_like(const GemmKernel& k) {
  TileModelDevice d;
  d.sms = 132;
  d.blocks_per_sm = k.info.id == "big" ? 1 : 6;
  d.bytes_per_s = 3.6e12;
  return d;
}

TEST(PickTuned, TileModelCarriesCandidatesToTheShapeAskedFor) {
  KernelList<GemmKernel> list;
  list.add(tiled_kernel("big", 128, 256, 8));
  list.add(tiled_kernel("small", 64, 64, 16));
  TuneEntry e = entry_for(Buffers(2048, 2048, 2048).p, "big", 0.40e-3);
  e.candidates = {{"big", 0, 0.40e-3}, {"small", 0, 0.50e-3}};
  const TunedSource src = make_tuned_source("test", {e}, list, h200_like);
  Selection<GemmProblem> out;
  ASSERT_TRUE(pick_tuned(src, Buffers(2048, 2048, 2048).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "big") << out.reason;
  ASSERT_TRUE(pick_tuned(src, Buffers(1500, 1500, 1500).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "small") << out.reason;
  EXPECT_NE(out.reason.find("by the tile model"), std::string::npos) << out.reason;
}

// Between measured shapes the nearest three decide together. At 1440³ (log2 10.49) the 1024³
// entry is barely nearer than the 2048³ one: "a" won by 2 % at 1024³ but lost by 50 % at 2048³,
// so "b" is chosen; at 1024³ itself that entry decides. Both kernels tile alike, so the model
// scales their times alike and the measured ratios stand.
TEST(PickTuned, TheNearestShapesRankTheChoicesTogether) {
  KernelList<GemmKernel> list;
  list.add(tiled_kernel("a", 64, 64, 16));
  list.add(tiled_kernel("b", 64, 64, 16));
  std::vector<TuneEntry> entries;
  for (const auto& [size, a_s, b_s] : std::vector<std::tuple<int64_t, double, double>>{
           {512, 1.00e-3, 1.02e-3}, {1024, 1.00e-3, 1.02e-3}, {2048, 1.50e-3, 1.00e-3}}) {
    TuneEntry e = entry_for(Buffers(size, size, size).p, a_s < b_s ? "a" : "b", 1e-3);
    e.candidates = {{"a", 0, a_s}, {"b", 0, b_s}};
    entries.push_back(e);
  }
  const TunedSource src = make_tuned_source("test", entries, list, h200_like);
  Selection<GemmProblem> out;
  ASSERT_TRUE(pick_tuned(src, Buffers(1440, 1440, 1440).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "b") << out.reason;
  EXPECT_NE(out.reason.find("ranked over the 3 nearest measured shapes"), std::string::npos)
      << out.reason;
  // Explained by the nearest entry that measured it.
  EXPECT_NE(out.reason.find("measured at 1024x1024x1024: b took"), std::string::npos)
      << out.reason;
  ASSERT_TRUE(pick_tuned(src, Buffers(1024, 1024, 1024).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "a") << out.reason;
  EXPECT_NE(out.reason.find("(this shape)"), std::string::npos) << out.reason;
  // A kernel that ranks first but refuses the shape is passed over for the next in rank.
  list.add(fake_kernel("picky", GemmTypes{}, /*refuses_large_k=*/true));
  for (TuneEntry& e : entries) e.candidates.push_back({"picky", 0, 0.5e-3});
  const TunedSource with_picky = make_tuned_source("test", entries, list, h200_like);
  ASSERT_TRUE(
      pick_tuned(with_picky, Buffers(1440, 1440, 1440).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "b") << out.reason;
  ASSERT_TRUE(
      pick_tuned(with_picky, Buffers(400, 400, 400).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "picky") << out.reason;
}

// Splits of one kernel are choices of their own, each modelled with its split (from the kernel
// prepared once, TunedSource::models): the choice is the one the model makes candidate by
// candidate, at shapes where the splits and the tiles trade places.
TEST(PickTuned, SplitsOfOneKernelChooseAsTheModelDoes) {
  KernelList<GemmKernel> list;
  list.add(tiled_kernel("big", 128, 256, 8, -1));
  list.add(tiled_kernel("small", 64, 64, 16, -1));
  TuneEntry e = entry_for(Buffers(1024, 1024, 4096).p, "big", 0.30e-3);
  e.candidates = {{"big", 0, 0.30e-3}, {"small", 0, 0.32e-3}, {"big", 4, 0.25e-3},
                  {"small", 8, 0.26e-3}, {"big", 2, 0.27e-3}, {"small", 2, 0.29e-3}};
  const TunedSource src = make_tuned_source("test", {e}, list, h200_like);
  for (const auto& shape : std::vector<std::array<int64_t, 3>>{
           {1024, 1024, 4096}, {300, 300, 16000}, {2000, 2000, 500}, {1500, 700, 3000}}) {
    const Buffers x(shape[0], shape[1], shape[2]);
    double best = HUGE_VAL;
    std::string want;
    for (const ResolvedCandidate& c : src.candidates[0]) {
      const double t = carry_time(c.per_work_s,
                                  tile_model_cost(c.kernel->info.tiling, c.split_k, shape[0],
                                                  shape[1], shape[2], h200_like(*c.kernel)));
      if (t < best) {
        best = t;
        want = c.kernel->info.id + " " + std::to_string(c.split_k);
      }
    }
    Selection<GemmProblem> out;
    ASSERT_TRUE(pick_tuned(src, x.p, Context::cpu(), nullptr, false, &out));
    EXPECT_EQ(out.kernel->info.id + " " + std::to_string(out.split_k), want) << out.reason;
  }
}

// Choices whose kernels the model reads alike (one tiling, one occupancy, one split) share one
// model, which a search computes once; each model is the one its choices' kernels give.
TEST(PickTuned, ChoicesOfOneTilingAndOccupancyShareAModel) {
  KernelList<GemmKernel> list;
  list.add(tiled_kernel("a", 128, 128, 8));
  list.add(tiled_kernel("b", 128, 128, 8));    // a's tiling and occupancy: a's model
  list.add(tiled_kernel("big", 128, 128, 8));  // a's tiling, one block an SM: a model of its own
  list.add(tiled_kernel("small", 64, 64, 16));
  list.add(tiled_kernel("split", 128, 128, 8, -1));  // a model per split it runs
  TuneEntry e = entry_for(Buffers(1024, 1024, 1024).p, "a", 1.0e-4);
  e.candidates = {{"a", 0, 1.0e-4},     {"b", 0, 1.1e-4},     {"big", 0, 1.2e-4},
                  {"small", 0, 1.3e-4}, {"split", 0, 1.4e-4}, {"split", 4, 1.5e-4}};
  const TunedSource src = make_tuned_source("test", {e}, list, h200_like);
  ASSERT_EQ(src.choices.size(), 6u);
  EXPECT_EQ(src.models.size(), 5u);
  EXPECT_EQ(src.tilings.size(), 2u);  // 128×128×8 and 64×64×16
  EXPECT_EQ(src.choice_models[0], src.choice_models[1]);
  for (size_t ch = 0; ch < src.choices.size(); ++ch) {
    const GemmKernel& k = *src.choices[ch].kernel;
    const uint32_t model = src.choice_models[ch];
    EXPECT_TRUE(src.models[model] == tile_model_kernel(k.info.tiling, h200_like(k))) << k.info.id;
    EXPECT_EQ(src.model_splits[model], src.choices[ch].split_k) << k.info.id;
    EXPECT_TRUE(src.tilings[src.model_tilings[model]] == src.models[model].tile) << k.info.id;
  }
  // The class's rows: the entry's time per unit of work for each choice of the class, which
  // here are all of the source's, in ascending number.
  ASSERT_EQ(src.classes.size(), 1u);
  const TunedClass& cls = src.classes[0];
  ASSERT_EQ(cls.choices, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  ASSERT_EQ(cls.width, 8u);  // a row is padded to a multiple of 8
  ASSERT_EQ(cls.per_work_s.size(), 8u);
  for (const ResolvedCandidate& c : src.candidates[0]) {
    EXPECT_EQ(cls.per_work_s[c.choice], c.per_work_s);
    EXPECT_EQ(cls.choice_models[c.choice], src.choice_models[c.choice]);
  }
}

// A class's rows hold a time for each choice of the class, 0 where the entry measured none.
TEST(PickTuned, EachEntrysRowHasATimeForTheChoicesItMeasured) {
  KernelList<GemmKernel> list;
  for (const char* id : {"a", "b", "c"}) list.add(tiled_kernel(id, 128, 128, 8));
  TuneEntry first = entry_for(Buffers(1024, 1024, 1024).p, "c", 1.0e-4);
  first.candidates = {{"c", 0, 1.0e-4}, {"a", 0, 1.2e-4}};
  TuneEntry second = entry_for(Buffers(512, 512, 512).p, "b", 2.0e-5);
  second.candidates = {{"b", 0, 2.0e-5}, {"a", 0, 3.0e-5}};
  const TunedSource src = make_tuned_source("test", {first, second}, list, h200_like);
  ASSERT_EQ(src.classes.size(), 1u);
  const TunedClass& cls = src.classes[0];
  ASSERT_EQ(src.choices.size(), 3u);  // c, a, b: numbered as met
  ASSERT_EQ(cls.choices, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(cls.width, 8u);
  std::vector<double> rows(2 * 8, 0.0);  // the padding: times of 0, measured by none
  rows[0] = src.candidates[0][0].per_work_s;
  rows[1] = src.candidates[0][1].per_work_s;
  rows[8 + 1] = src.candidates[1][1].per_work_s;
  rows[8 + 2] = src.candidates[1][0].per_work_s;
  EXPECT_EQ(cls.per_work_s, rows);
  for (const auto& candidates : src.candidates)  // 0 marks "not measured": a time is never 0
    for (const ResolvedCandidate& c : candidates) EXPECT_GT(c.per_work_s, 0);
}

// A choice that none of the nearest entries measured is never ranked, even when every one they
// measured that is admissible has no credit (past the cap) and it has the lower number: here
// "a" is refused at k > 512, "c" was 4× slower than it everywhere, and "u", met first in the
// table, was measured only far away.
TEST(PickTuned, ChoicesNoNeighbourMeasuredAreNeverRanked) {
  KernelList<GemmKernel> list;
  list.add(fake_kernel("u", GemmTypes{}));
  list.add(fake_kernel("a", GemmTypes{}, /*refuses_large_k=*/true));
  list.add(fake_kernel("c", GemmTypes{}));
  std::vector<TuneEntry> entries;
  TuneEntry far = entry_for(Buffers(64, 64, 64).p, "u", 1e-5);
  far.candidates = {{"u", 0, 1e-5}};
  entries.push_back(far);
  for (const int64_t size : {900, 1024, 1100}) {
    TuneEntry e = entry_for(Buffers(size, size, size).p, "a", 1e-3);
    e.candidates = {{"a", 0, 1e-3}, {"c", 0, 4e-3}};
    entries.push_back(e);
  }
  const TunedSource src = make_tuned_source("test", entries, list);
  ASSERT_EQ(src.choices.front().kernel->info.id, "u");
  Selection<GemmProblem> out;
  ASSERT_TRUE(pick_tuned(src, Buffers(1000, 1000, 1000).p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "c") << out.reason;
}

// The ensemble's logarithm (log_of_ratio) over the ratios it is given, 1 to 3: within the
// 2e-6 its comment promises of the true log, and increasing, so that it ranks as log does.
TEST(PickTuned, SeriesLogarithmMatchesLogForRatiosUpToTheCap) {
  float previous = -1;
  for (double ratio = 1; ratio < kTunedMissingRatio; ratio += 1.0 / 1024) {
    const float y = static_cast<float>((ratio - 1) / (ratio + 1));
    const float got = log_of_ratio(y);
    EXPECT_NEAR(got, std::log((1.0 + y) / (1.0 - y)), 2e-6) << "ratio " << ratio;
    EXPECT_GT(got, previous) << "ratio " << ratio;
    previous = got;
  }
  EXPECT_EQ(log_of_ratio(0), 0.0f);
}

// A measured time carried in two halves (the seconds per unit of work, made once per
// measurement, then the time at another shape) is the time carried in one step.
TEST(TileModel, CarryInTwoHalvesIsTheOneStepCarry) {
  const TileModelCost at_s{1000, 5e-6}, at_q{2500, 8e-6};
  const double measured = 0.4e-3;
  const double one_step = kFixedLaunchSeconds +
                          (measured - kFixedLaunchSeconds - at_s.reduction_s) * 2500 / 1000 +
                          at_q.reduction_s;
  EXPECT_NEAR(carry_time(seconds_per_work(measured, at_s), at_q), one_step, 1e-15);
  EXPECT_NEAR(carry_time(measured, at_s, at_q), one_step, 1e-15);
  // A time below the fixed part scales from a floor, never negative.
  EXPECT_GT(carry_time(1e-6, at_s, at_q), kFixedLaunchSeconds);
}

// An entry keeps one candidate per choice, the fastest measured: a kernel without a run-time
// split, measured at several splits, is one choice; a kernel with one keeps each split.
TEST(PickTuned, OneCandidatePerChoiceTheFastest) {
  KernelList<GemmKernel> list;
  list.add(tiled_kernel("fixed", 128, 128, 8));
  list.add(tiled_kernel("split", 64, 64, 16, -1));
  TuneEntry e = entry_for(Buffers(512, 512, 512).p, "fixed", 0.20e-3);
  e.candidates = {{"fixed", 0, 0.22e-3}, {"split", 2, 0.25e-3}, {"fixed", 4, 0.20e-3},
                  {"split", 4, 0.21e-3}, {"fixed", 2, 0.20e-3}};
  const TunedSource src = make_tuned_source("test", {e}, list, h200_like);
  ASSERT_EQ(src.candidates[0].size(), 3u);
  EXPECT_EQ(src.candidates[0][0].kernel->info.id, "fixed");
  EXPECT_EQ(src.candidates[0][0].time_s, 0.20e-3);
  EXPECT_EQ(src.candidates[0][0].split_k, 4);  // the first of the two equally fast
  EXPECT_EQ(src.candidates[0][1].split_k, 2);
  EXPECT_EQ(src.candidates[0][2].split_k, 4);
}

// bf16 entries stand in for f16 with each kernel's f16 twin; kernels without a registered twin
// of exactly the f16 types are dropped, and other types' entries never stand in.
TEST(PickTuned, Bf16EntriesStandInForF16ThroughTheirTwins) {
  EXPECT_EQ(f16_twin_id("gemm.cuda.sm90.bf16.128x128x64_s6.coop.persistent.tma_store"),
            "gemm.cuda.sm90.f16.128x128x64_s6.coop.persistent.tma_store");
  EXPECT_EQ(f16_twin_id("gemm.cuda.gemv.bf16_cbf16.rows16"), "gemm.cuda.gemv.f16_cbf16.rows16");
  EXPECT_EQ(f16_twin_id("gemm.cuda.simt.f32.64x64"), "");
  EXPECT_EQ(f16_twin_id("gemm.x.bf16x"), "");
  const GemmTypes bf16{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
  const GemmTypes f16{DType::kF16, DType::kF16, DType::kF32, Compute::kBF16};
  KernelList<GemmKernel> list;
  list.add(fake_kernel("k.bf16.wide", bf16));
  list.add(fake_kernel("k.f16.wide", f16));
  list.add(fake_kernel("k.bf16.narrow", bf16));  // no f16 twin
  list.add(fake_kernel("k.bf16.odd", bf16));
  list.add(fake_kernel("k.f16.odd", bf16));  // named as a twin, but of the bf16 types
  TuneEntry wide = entry_for(Buffers(512, 512, 512, bf16).p, "k.bf16.wide");
  wide.candidates = {
      {"k.bf16.wide", 0, 1e-3}, {"k.bf16.narrow", 0, 1.1e-3}, {"k.bf16.odd", 0, 1.2e-3}};
  const TuneEntry narrow = entry_for(Buffers(64, 64, 64, bf16).p, "k.bf16.narrow");
  const TuneEntry f32 = entry_for(Buffers(512, 512, 512).p, "k.bf16.wide");
  const std::vector<TuneEntry> f16_entries = f16_stand_ins({wide, narrow, f32}, list);
  ASSERT_EQ(f16_entries.size(), 1u);
  EXPECT_EQ(f16_entries[0].kernel, "k.f16.wide");
  EXPECT_TRUE(f16_entries[0].bucket.types == f16);
  ASSERT_EQ(f16_entries[0].candidates.size(), 1u);
  EXPECT_EQ(f16_entries[0].candidates[0].kernel, "k.f16.wide");
  const TunedSource src = make_tuned_source("stand-ins", f16_entries, list);
  Selection<GemmProblem> out;
  Buffers want(400, 400, 400, f16);
  ASSERT_TRUE(pick_tuned(src, want.p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "k.f16.wide");
  Buffers bf16_want(400, 400, 400, bf16);
  EXPECT_FALSE(pick_tuned(src, bf16_want.p, Context::cpu(), nullptr, false, &out));
}

// A 3xTF32 entry takes the candidates of the f32 entry of its shape: an FP32 kernel that was
// faster there is chosen for the 3xTF32 mode (FP32 FMAs keep its promise), never for tf32; the
// ranking stays on the mode's own kernels.
TEST(PickTuned, F32CandidatesJoinThe3xTf32EntryOfTheirShape) {
  const GemmTypes x3{DType::kF32, DType::kF32, DType::kF32, Compute::kF32x3TF32};
  const GemmTypes tf32{DType::kF32, DType::kF32, DType::kF32, Compute::kTF32};
  KernelList<GemmKernel> list;
  GemmKernel fma = fake_kernel("fma", GemmTypes{});
  fma.info.auto_rank = 100;
  list.add(fma);
  list.add(fake_kernel("tensor", x3));
  TuneEntry own = entry_for(Buffers(512, 512, 512, x3).p, "tensor", 0.8e-3);
  own.candidates = {{"tensor", 0, 0.8e-3}, {"tensor", 2, 2.0e-3, true}};
  TuneEntry f32 = entry_for(Buffers(512, 512, 512).p, "fma", 0.5e-3);
  f32.candidates = {{"fma", 0, 0.5e-3}, {"fma", 4, 1.5e-3, true}};
  TuneEntry elsewhere = entry_for(Buffers(512, 512, 1024).p, "fma", 0.1e-3);
  elsewhere.candidates = {{"fma", 0, 0.1e-3}};
  std::vector<TuneEntry> entries = {own, f32, elsewhere};
  add_f32_candidates_to_3xtf32(&entries);
  const TuneEntry& merged = entries[0];
  ASSERT_EQ(merged.candidates.size(), 4u);
  EXPECT_EQ(merged.kernel, "fma");
  EXPECT_EQ(merged.time_s, 0.5e-3);
  EXPECT_EQ(merged.candidates[1].kernel, "tensor");
  EXPECT_FALSE(merged.candidates[1].screened);
  EXPECT_TRUE(merged.candidates[2].screened && merged.candidates[3].screened);
  EXPECT_EQ(entries[1].candidates.size(), 2u);  // the f32 entry is left as it was
  EXPECT_EQ(entries[2].candidates.size(), 1u);

  const TunedSource src = make_tuned_source("merged", entries, list);
  Selection<GemmProblem> out;
  Buffers want(512, 512, 512, x3);
  ASSERT_TRUE(pick_tuned(src, want.p, Context::cpu(), nullptr, false, &out));
  EXPECT_EQ(out.kernel->info.id, "fma");
  EXPECT_TRUE(check_kernel(*out.kernel, want.p, Context::cpu(), nullptr));
  Buffers lower(512, 512, 512, tf32);
  EXPECT_FALSE(check_kernel(*out.kernel, lower.p, Context::cpu(), nullptr));
  EXPECT_FALSE(check_kernel(*list.find("tensor"), Buffers(512, 512, 512).p, Context::cpu(),
                            nullptr));
  ASSERT_TRUE(select_kernel(list, want.p, Context::cpu(), nullptr, false, "gemm", &out));
  EXPECT_EQ(out.kernel->info.id, "tensor");
}

// The explanation's numbers are printf's: append_two_digits against "%.2g" at halfway points
// that binary fractions hit exactly (1.25, 12.5, 0.125), at decimal ones they miss by an ulp
// (0.35, 1.45), at every two-digit value and its neighbours, around the powers of ten and the
// ends of the range it rounds itself, and at many random values from 1e-5 to 1e3; append_decimal
// against to_string.
TEST(TuneSelect, TwoDigitsAsPrintfWrites) {
  std::vector<double> values{0.001, 0.00099999, 0.0099999, 0.099999, 0.99999, 9.9999, 99.4,
                             99.5, 99.51, 100, 1e-5, 1e5};
  for (int e = -4; e <= 2; ++e)
    for (int digits = 10; digits <= 99; ++digits)
      for (const double half : {0.0, 0.5, 0.49999, 0.50001}) {
        const double v = (digits + half) * std::pow(10.0, e - 1);
        values.insert(values.end(), {v, std::nextafter(v, 0.0), std::nextafter(v, 1e9)});
      }
  for (int eighths = 1; eighths < 1000; ++eighths) values.push_back(eighths / 8.0);
  for (int p = 1; p < 64; ++p) values.push_back(std::ldexp(1.0, -p) * 10);
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(-5, 3);
  for (int i = 0; i < 200000; ++i) values.push_back(std::pow(10.0, exponent(random)));
  for (const double v : values) {
    char want[32];
    std::snprintf(want, sizeof want, "%.2g", v);
    std::string got;
    append_two_digits(&got, v);
    ASSERT_EQ(got, want) << std::hexfloat << v;
  }
  for (const uint64_t v : {uint64_t{0}, uint64_t{7}, uint64_t{1234567}, ~uint64_t{0}}) {
    std::string got = "x";
    append_decimal(&got, v);
    EXPECT_EQ(got, "x" + std::to_string(v));
  }
}

// The model's divisions by multiplication (Divisor) are the integer divisions: every divisor
// from 1 to 3000 (powers of two, the SM counts, tile sizes) and some up to 2^32, at numerators
// around their multiples, near 2^32 where the multiplication stops, and past it.
TEST(TileModel, DivisorIsIntegerDivision) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= 3000; ++d) divisors.push_back(d);
  for (int64_t d : {65535LL, 65536LL, 1000003LL, (1LL << 31) - 1, 1LL << 31, (1LL << 32) - 1,
                    1LL << 32, (1LL << 32) + 7})
    divisors.push_back(d);
  for (const int64_t d : divisors) {
    const Divisor divisor(d);
    std::vector<int64_t> numerators = {0, 1, 2, d - 1, d, d + 1, 2 * d - 1, 2 * d, 7 * d + 3};
    for (int64_t n : {(1LL << 32) - 2, (1LL << 32) - 1, 1LL << 32, (1LL << 32) + 1, 1LL << 40})
      numerators.push_back(n);
    for (int64_t q = 1; q < (1LL << 32) / d; q = q * 3 + 1) {
      numerators.push_back(q * d - 1);
      numerators.push_back(q * d);
    }
    for (const int64_t n : numerators) {
      if (n < 0) continue;
      ASSERT_EQ(divisor.floor_of(n), n / d) << n << " / " << d;
      ASSERT_EQ(divisor.ceil_of(n), (n + d - 1) / d) << n << " / " << d;
    }
  }
  EXPECT_EQ(Divisor(0).value(), 1);  // a missing count divides as 1, as the model's max(1, ·)
}

// The split_k kernels' own split and the model's agree (one function), and the model charges a
// split's reduction pass: 64 tiles of 64×64 with 4 blocks an SM take 8 slices at 512×512×4096.
TEST(TileModel, DefaultSplitFillsTheResidentBlocks) {
  EXPECT_EQ(default_k_slices(512, 512, 4096, 64, 64, 16, 132 * 4), 8);
  EXPECT_EQ(default_k_slices(4096, 4096, 4096, 64, 64, 16, 132 * 4), 1);  // the tiles fill it
  EXPECT_EQ(default_k_slices(512, 512, 128, 64, 64, 16, 132 * 4), 2);     // slices of >= 64 k
  EXPECT_EQ(clamp_k_slices(100, 1000), 64);  // the reduction's cost
  EXPECT_EQ(clamp_k_slices(100, 50), 50);    // no empty slice
  EXPECT_EQ(clamp_k_slices(0, 50), 1);
  TileDesc t;
  t.block_m = t.block_n = 64;
  t.block_k = 16;
  t.split_k = -1;
  t.schedule = schedule_tag<OneBlockPerTileSchedule>();
  TileModelDevice d{132, 4, 3.6e12};
  const TileModelCost c = tile_model_cost(t, 0, 512, 512, 4096, d);
  // 512 blocks, 4 on the busiest SM: one round of 4 together (co_resident_time), 256 / 8 k-tiles.
  EXPECT_DOUBLE_EQ(c.busiest_sm_work, co_resident_time(4) * 32);
  EXPECT_GT(c.reduction_s, 0);
  EXPECT_EQ(tile_model_cost(t, 1, 512, 512, 4096, d).reduction_s, 0);
}

// Blocks resident together on an SM share it: x of them take longer than one but less than x
// one after another; the busiest SM's blocks run in rounds of as many as fit. 792 tiles of 64×64
// with 4 blocks an SM on 132 SMs: 6 on each SM, a round of 4 and a round of 2.
TEST(TileModel, CoResidentBlocksShareTheirSM) {
  EXPECT_DOUBLE_EQ(co_resident_time(1), 1);
  EXPECT_NEAR(co_resident_time(4), 2.8284, 1e-4);
  for (int64_t x = 2; x <= 32; ++x) {
    EXPECT_GT(co_resident_time(x), co_resident_time(x - 1)) << x;
    EXPECT_LT(co_resident_time(x), static_cast<double>(x)) << x;
  }
  TileDesc t;
  t.block_m = t.block_n = 64;
  t.block_k = 16;
  t.schedule = schedule_tag<OneBlockPerTileSchedule>();
  const TileModelDevice d{132, 4, 3.6e12};
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 64 * 22, 64 * 36, 1024, d).busiest_sm_work,
                   (co_resident_time(4) + co_resident_time(2)) * 64);
  // 132 tiles: one block on each SM, one round of one.
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 64 * 12, 64 * 11, 1024, d).busiest_sm_work, 64);
}

// The stream-K half tail streams the last round only when it is at most half full, as its plan
// does (StreamKHalfTailScheduler, sm90/schedule.hpp); the stream-K tail streams every partial
// round. 128 × 256 tiles on 132 SMs: 4096² is 512 tiles (last round 116 of 132: persistent
// rounds), 4097² is 561 (33: streamed).
TEST(TileModel, StreamKHalfTailStreamsOnlyAShortLastRound) {
  TileDesc t;
  t.block_m = 128;
  t.block_n = 256;
  t.block_k = 64;
  const TileModelDevice d{132, 1, 3.6e12};
  t.schedule = schedule_tag<StreamKHalfTailSchedule>();
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 4096, 4096, 4096, d).busiest_sm_work, 4 * 64);
  // Streamed: the even share, the pieces' wait and two pieces' fix-up (more tiles than SMs).
  const double streamed_4097 =
      561.0 * 65 / 132 + kStreamKWaitPerKTile * 65 + kStreamKFixUpPerPiece * 2;
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 4097, 4097, 4097, d).busiest_sm_work, streamed_4097);
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 128 * 12, 256 * 11, 4096, d).busiest_sm_work, 64);  // 132: one round
  t.schedule = schedule_tag<StreamKSchedule>();
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 4096, 4096, 4096, d).busiest_sm_work,
                   512.0 * 64 / 132 + kStreamKWaitPerKTile * 64 + kStreamKFixUpPerPiece * 2);
  // 8 tiles of 128 k-iterations on 132 SMs: at most stream_k_max_pieces(128) = 5 pieces a tile,
  // so 40 SMs, each SM's share 25.6 k-iterations (17 pieces of 7.8 without the cap).
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 128 * 2, 256 * 4, 8192, d).busiest_sm_work,
                   8.0 * 128 / 40 + kStreamKWaitPerKTile * 128 + kStreamKFixUpPerPiece * 5);
  // Never below the wait: a walk streamed over many SMs does not beat a persistent one by more.
  EXPECT_GT(tile_model_cost(t, 0, 128 * 2, 256 * 4, 8192, d).busiest_sm_work, 0.5 * 128);
  EXPECT_TRUE(is_stream_k(schedule_tag<StreamKHalfTailSchedule>()));
  EXPECT_FALSE(is_stream_k(schedule_tag<PersistentSchedule>()));
}

// The sm90 split_tiles kernels as their plan runs them (split_tiles_plan): with few tiles, one
// piece of the k-tiles and the shared sum; else persistent rounds.
TEST(TileModel, SplitTilesCountsOnePieceAndTheSum) {
  TileDesc t;
  t.block_m = 128;
  t.block_n = 128;
  t.block_k = 64;
  t.schedule = schedule_tag<SplitTilesSchedule>();
  const TileModelDevice d{132, 1, 3.6e12};
  // One tile of 469 k-tiles in 117 pieces: 5 k-tiles on the busiest SM, then the sum.
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 100, 100, 30000, d).busiest_sm_work, 5 + kSplitTilesSum);
  // 16 tiles of 128: 8 pieces of 16.
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 512, 512, 8192, d).busiest_sm_work, 16 + kSplitTilesSum);
  // 1024 tiles: persistent rounds, as the persistent.tma_store kernels' walk.
  EXPECT_DOUBLE_EQ(tile_model_cost(t, 0, 4096, 4096, 4096, d).busiest_sm_work, 8 * 64);
  EXPECT_EQ(tile_model_cost(t, 0, 4096, 4096, 4096, d).reduction_s, 0);
  EXPECT_FALSE(is_stream_k(schedule_tag<SplitTilesSchedule>()));
}

TEST(GemmValidate, NegativeSplitKIsRefusedByName) {
  Buffers x(8, 8, 8);
  x.p.split_k = -2;
  const Status s = validate(x.p);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("split_k"), std::string::npos) << s.message();
  x.p.split_k = 4;
  EXPECT_TRUE(validate(x.p));
}

// The tables compiled into the library (src/core/tune_tables/*.json) parse; in a build with the
// CUDA kernels every entry names a registered own kernel of the entry's types, so none of them
// is silently dead.
TEST(ShippedTuneTables, ParseAndNameOwnKernelsOfTheirTypes) {
  for (const ShippedTuneTable& t : shipped_tune_tables()) {
    TuneCache c;
    const Status s = parse_tune_cache(t.json, &c);
    ASSERT_TRUE(s) << t.file << ": " << s.message();
    EXPECT_FALSE(c.entries.empty()) << t.file;
    std::string made_on;
    EXPECT_FALSE(shipped_tune_table(c.key, &made_on).empty()) << t.file;
    EXPECT_EQ(made_on, c.key.describe());
    if (c.key.backend == "cuda" && !TILEKIT_WITH_CUDA) continue;
    for (const TuneEntry& e : c.entries) {
      const GemmKernel* k = Registry::instance().find_gemm(e.kernel);
      ASSERT_NE(k, nullptr) << t.file << ": " << e.kernel << " is not registered";
      EXPECT_EQ(k->info.role, KernelRole::kOwn) << t.file << ": " << e.kernel;
      EXPECT_TRUE(k->info.types == e.bucket.types) << t.file << ": " << e.kernel;
    }
  }
}

// Every bf16 entry of a shipped CUDA table has an f16 stand-in whose kernels are all registered
// f16 twins: the Hopper table has one row of each type for every tiling.
TEST(ShippedTuneTables, Bf16EntriesStandInForF16WithEveryCandidate) {
  if (!TILEKIT_WITH_CUDA) GTEST_SKIP() << "the CUDA kernels are not built";
  for (const ShippedTuneTable& t : shipped_tune_tables()) {
    TuneCache c;
    ASSERT_TRUE(parse_tune_cache(t.json, &c));
    if (c.key.backend != "cuda") continue;
    std::vector<const TuneEntry*> bf16;
    for (const TuneEntry& e : c.entries)
      if (e.bucket.types.a == DType::kBF16) bf16.push_back(&e);
    const std::vector<TuneEntry> f16 = f16_stand_ins(c.entries, Registry::instance().gemm);
    ASSERT_EQ(f16.size(), bf16.size()) << t.file;
    for (size_t i = 0; i < f16.size(); ++i) {
      EXPECT_EQ(f16[i].bucket.types.a, DType::kF16);
      EXPECT_EQ(f16[i].candidates.size(), bf16[i]->candidates.size()) << f16[i].kernel;
      EXPECT_EQ(f16[i].kernel, f16_twin_id(bf16[i]->kernel));
    }
  }
}

// A device with no table of its own and another compute capability gets none.
TEST(ShippedTuneTables, NoneForAnUnknownDevice) {
  TuneDeviceKey key;
  key.backend = "cuda";
  key.name = "Imaginary GPU";
  key.compute_capability = 11;
  std::string made_on = "?";
  EXPECT_TRUE(shipped_tune_table(key, &made_on).empty());
  EXPECT_EQ(made_on, "");
}

// ---- the replay (`tilekit tune --replay`): auto's selection scored on a table's own entries ----

// A CPU table's entry at size³ (NN, f32 unless `types` says otherwise) with candidates
// {kernel: seconds}. Times of seconds, so that the 3 µs of launch the model does not scale are
// lost in them, and kernels the model does not tile: their times carry alike between shapes,
// and each entry's ratios stand wherever it is carried.
TuneEntry replay_entry(int64_t size, std::vector<std::pair<std::string, double>> times,
                       GemmTypes types = {}) {
  TuneEntry e = entry_for(Buffers(size, size, size, types).p, times.front().first,
                          times.front().second);
  for (const auto& [kernel, seconds] : times) e.candidates.push_back({kernel, 0, seconds});
  return e;
}

ReplayDevice cpu_replay_device() {
  TuneDeviceKey key;
  key.backend = "cpu";
  ReplayDevice d;
  EXPECT_TRUE(replay_device(key, 4800, &d));
  return d;
}

// Two kernels, "fast" at half the time of "slow" at every shape: whichever entry is left out,
// its neighbours choose "fast", its own fastest. "slow" ranks higher, so this is the tuned
// choice's doing, not the ranking's; the tf32 entry is of another class and another type.
TEST(TuneReplay, OneKernelFasterEverywhereIsChosenAtEveryEntry) {
  KernelList<GemmKernel> list;
  list.add(fake_kernel("fast", GemmTypes{}));
  GemmKernel slow = fake_kernel("slow", GemmTypes{});
  slow.info.auto_rank = 10;
  list.add(slow);
  const GemmTypes tf32{DType::kF32, DType::kF32, DType::kF32, Compute::kTF32};
  list.add(fake_kernel("tf32", tf32));
  std::vector<TuneEntry> entries;
  for (int64_t size : {256, 512, 1024, 2048}) {
    const double t = 1e-9 * static_cast<double>(size * size * size);
    entries.push_back(replay_entry(size, {{"fast", t}, {"slow", 2 * t}}));
  }
  entries.push_back(replay_entry(1024, {{"tf32", 0.5}}, tf32));
  const ReplayDevice d = cpu_replay_device();
  const ReplayScores scores = replay_leave_one_out(entries, GemmTypes{}, list, d);
  EXPECT_EQ(scores.unscored, 0u);
  ASSERT_EQ(scores.ratios.size(), 4u);
  for (double r : scores.ratios) EXPECT_DOUBLE_EQ(r, 1.0);
  const ReplaySummary s = summarize_replay(scores.ratios);
  EXPECT_EQ(s.shapes, 4u);
  EXPECT_EQ(s.within_1_05, 4u);  // 100 % within 1.05x
  EXPECT_EQ(s.above_1_3, 0u);
  EXPECT_DOUBLE_EQ(s.geomean, 1.0);
  // The tf32 entry alone in its class: nothing tuned to choose from, so the ranking's kernel,
  // the one it measured.
  EXPECT_EQ(replay_leave_one_out(entries, tf32, list, d).ratios, std::vector<double>{1.0});
}

// Worked by hand (tune_select.hpp's credit: over the neighbours that measured a choice,
// w · (log 3 − log ratio), w = 1 / (distance + 0.1)³; a choice a neighbour did not measure gets
// nothing from it). Entries at 256³ (fast 1, slow 2), 512³ (fast 8, slow 16), 1024³ (slow only):
//  - 256³ left out: 512³ is 3 away, 1024³ 6. fast: w₃ log 3 = 0.0369; slow: w₃ (log 3 − log 2)
//    + w₆ log 3 = 0.0136 + 0.0048. fast, its fastest: 1.
//  - 512³ left out: both 3 away. fast: w₃ log 3; slow: w₃ (log 3 − log 2) + w₃ log 3, more.
//    slow, at 16 against its fast 8: 2.
//  - 1024³ left out: both neighbours rank fast first, which it did not measure: 3.
// A TN entry alone in its class falls to the ranking (slow, ranked higher): 2. An entry naming
// only a kernel this build lacks is left out, unscored.
TEST(TuneReplay, ChoicesScoredAsMeasuredThereOrThreeTimesWhereNot) {
  KernelList<GemmKernel> list;
  list.add(fake_kernel("fast", GemmTypes{}));
  GemmKernel slow = fake_kernel("slow", GemmTypes{});
  slow.info.auto_rank = 10;
  list.add(slow);
  std::vector<TuneEntry> entries = {replay_entry(256, {{"fast", 1}, {"slow", 2}}),
                                    replay_entry(512, {{"fast", 8}, {"slow", 16}}),
                                    replay_entry(1024, {{"slow", 64}}),
                                    replay_entry(2048, {{"gone", 1}})};
  TuneEntry tn = replay_entry(512, {{"fast", 1}, {"slow", 2}});
  tn.bucket.op_a = Op::kT;
  entries.push_back(tn);
  const ReplayScores scores = replay_leave_one_out(entries, GemmTypes{}, list, cpu_replay_device());
  EXPECT_EQ(scores.unscored, 1u);
  ASSERT_EQ(scores.ratios.size(), 4u);
  EXPECT_NEAR(scores.ratios[0], 1.0, 1e-9);
  EXPECT_NEAR(scores.ratios[1], 2.0, 1e-9);
  EXPECT_EQ(scores.ratios[2], kReplayMissingRatio);
  EXPECT_NEAR(scores.ratios[3], 2.0, 1e-9);
  const ReplaySummary s = summarize_replay(scores.ratios);
  EXPECT_EQ(s.within_1_05, 1u);
  EXPECT_EQ(s.above_1_3, 3u);
  EXPECT_NEAR(s.geomean, std::pow(1.0 * 2 * 3 * 2, 0.25), 1e-12);
}

// Shapes of an evaluation (`tune --evaluate --json` rows): chosen over the whole table and
// scored by the row's medians.
TEST(TuneReplay, EvaluationShapesAreChosenOverTheWholeTable) {
  KernelList<GemmKernel> list;
  list.add(fake_kernel("fast", GemmTypes{}));
  list.add(fake_kernel("slow", GemmTypes{}));
  const std::vector<TuneEntry> entries = {replay_entry(512, {{"fast", 1}, {"slow", 2}}),
                                          replay_entry(1024, {{"fast", 8}, {"slow", 16}})};
  ReplayShape chose_fast;
  chose_fast.m = chose_fast.n = chose_fast.k = 700;
  chose_fast.kernel_times = {{"slow", 0.5}, {"fast", 1.0}};  // the row disagrees with the table
  ReplayShape fast_not_run = chose_fast;
  fast_not_run.kernel_times = {{"slow", 1.0}};
  ReplayShape nothing_here = chose_fast;
  nothing_here.kernel_times = {{"gone", 1.0}};
  const ReplayScores scores = replay_shapes(entries, {chose_fast, fast_not_run, nothing_here},
                                            list, cpu_replay_device());
  EXPECT_EQ(scores.ratios, (std::vector<double>{2.0, kReplayMissingRatio}));
  EXPECT_EQ(scores.unscored, 1u);
}

// The problem asked about is of the entry's class whatever its sizes divide into, and a CUDA
// table's device is its record: its SMs and compute capability, one block per SM.
TEST(TuneReplay, ProblemsOfTheEntrysClassOnTheRecordsDevice) {
  for (bool aligned : {true, false})
    for (bool ld16 : {true, false})
      for (int64_t size : {256, 1001}) {
        TuneBucket b;
        b.op_b = Op::kT;
        b.aligned16 = aligned;
        b.ld16 = ld16;
        b.types = {DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16};
        const GemmProblem p = replay_problem(b, size, size, size);
        EXPECT_TRUE(class_of(p).same_class(b)) << p.describe() << " " << b.describe();
        EXPECT_TRUE(validate(p)) << p.describe();
      }
  TuneDeviceKey key;
  key.backend = "cuda";
  key.name = "NVIDIA H200";
  key.sm_count = 132;
  key.compute_capability = 90;
  ReplayDevice d;
  ASSERT_TRUE(replay_device(key, 4800, &d));
  ASSERT_NE(d.device_or_null(), nullptr);
  EXPECT_EQ(d.ctx.backend, Backend::kCuda);
  EXPECT_EQ(d.device.sm_version(), 90);
  EXPECT_EQ(d.device.sm_count, 132);
  const TileModelDevice m = d.model_device(tiled_kernel("any", 128, 128, 32));
  EXPECT_EQ(m.sms, 132);
  EXPECT_EQ(m.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(m.bytes_per_s, kStreamedDramShare * 4800e9);
  key.backend = "tpu";
  EXPECT_FALSE(replay_device(key, 4800, &d));
}

// The tuned step's cost per call, through the public selector (validate + context + lookup);
// the target is 2 µs. The bound here is looser, for sanitizer and debug builds.
TEST_F(TuneCacheTest, SelectionCostPerCall) {
  std::vector<TuneEntry> entries;
  for (int m = 4; m <= 14; ++m)
    for (int k = 4; k <= 14; k += 2) {
      TuneEntry e;
      e.bucket.log2_m = e.bucket.log2_n = m;
      e.bucket.log2_k = k;
      e.kernel = kBlocked;
      // As many candidates as an entry of the shipped H200 table has on average (22), so that
      // the tile model's share of the cost shows.
      for (int c = 0; c < 22; ++c) e.candidates.push_back({kBlocked, c, 1e-3 * (1 + c)});
      entries.push_back(e);
    }
  install(entries);
  Buffers x(1000, 1000, 1000);
  Selection<GemmProblem> chosen;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), false, &chosen));  // loads the cache
  ASSERT_NE(chosen.reason.find("cache"), std::string::npos);
  // Calls cycling through `shapes` shapes: one (the thread's remembered choice), or more than a
  // thread remembers (a fresh search every call).
  std::vector<Buffers> others;
  for (size_t d = 1; d <= 2 * kRememberedTunedShapes; ++d)
    others.emplace_back(1000 - static_cast<int64_t>(d), 1000, 1000);
  auto per_call_us = [&](size_t shapes) {
    constexpr int kCalls = 20000;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < kCalls; ++i)
      (void)select_gemm_kernel(shapes == 1 ? x.p : others[i % shapes].p, Context::cpu(), false,
                               &chosen);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
               .count() / kCalls;
  };
  const double fresh = per_call_us(others.size());
  const double few = per_call_us(kRememberedTunedShapes / 2);
  const double tuned = per_call_us(1);
  // The same call with no cache: the static ranking alone, for comparison.
  fs::remove(path_);
  reload_tune_caches();
  const double ranking = per_call_us(1);
  EXPECT_EQ(chosen.reason.rfind("ranking", 0), 0u) << chosen.reason;
  std::printf("selection per call: %.3f us from the cache (%zu entries) at one shape, %.3f us "
              "cycling through %zu, %.3f us searching every call, %.3f us by ranking\n",
              tuned, entries.size(), few, kRememberedTunedShapes / 2, fresh, ranking);
  RecordProperty("fresh_selection_us", std::to_string(fresh));
  RecordProperty("tuned_selection_us", std::to_string(tuned));
  EXPECT_LT(tuned, 50.0);
  EXPECT_LT(few, 50.0);
}

// The shipped H200 table's entries, or none where there is no such table or this build lacks
// its CUDA kernels.
std::vector<TuneEntry> shipped_h200_entries() {
  TuneDeviceKey key;
  key.backend = "cuda";
  key.name = "NVIDIA H200";
  key.sm_count = 132;
  key.compute_capability = 90;
  std::vector<TuneEntry> table = shipped_tune_table(key, nullptr);
  if (!table.empty() && !Registry::instance().gemm.find(table.front().kernel)) table.clear();
  return table;
}

// Over the shipped H200 table, as auto reads it: at 256³ (its f32 entry 2.3× faster than every
// 3xTF32 kernel) a 3xTF32 problem takes an FP32 kernel, at 4096³ a tensor-core one; an f16
// problem, which the table never measured, takes an f16 kernel from the bf16 entries.
TEST(PickTuned, ShippedH200TableLendsMeasurementsBetweenModes) {
  std::vector<TuneEntry> table = shipped_h200_entries();
  const KernelList<GemmKernel>& gemm = Registry::instance().gemm;
  if (table.empty())
    GTEST_SKIP() << "no shipped H200 table, or its CUDA kernels are not in this build";
  add_f32_candidates_to_3xtf32(&table);
  const auto device = [](const GemmKernel&) { return TileModelDevice{132, 2, 3.6e12}; };
  const TunedSource f16_src =
      make_tuned_source("for f16", f16_stand_ins(table, gemm), gemm, device);
  const TunedSource src = make_tuned_source("shipped table", std::move(table), gemm, device);
  const DeviceInfo h200 = testing::stand_in_h200();
  alignas(16) static float nothing[8];  // selection reads shapes, types and addresses only
  const auto problem = [&](int64_t size, const GemmTypes& types) {
    GemmProblem p;
    p.m = p.n = p.k = size;
    p.types = types;
    p.a = p.b = p.c = nothing;
    p.lda = p.ldb = p.ldc = size;
    return p;
  };
  const GemmTypes x3{DType::kF32, DType::kF32, DType::kF32, Compute::kF32x3TF32};
  const GemmTypes f16{DType::kF16, DType::kF16, DType::kF32, Compute::kBF16};
  Selection<GemmProblem> out;
  ASSERT_TRUE(pick_tuned(src, problem(256, x3), Context::cuda(0), &h200, false, &out));
  EXPECT_EQ(out.kernel->info.types, GemmTypes{})
      << out.kernel->info.id << " (" << out.reason << ")";
  ASSERT_TRUE(pick_tuned(src, problem(4096, x3), Context::cuda(0), &h200, false, &out));
  EXPECT_EQ(out.kernel->info.types, x3) << out.kernel->info.id << " (" << out.reason << ")";
  EXPECT_FALSE(pick_tuned(src, problem(1024, f16), Context::cuda(0), &h200, false, &out));
  ASSERT_TRUE(pick_tuned(f16_src, problem(1024, f16), Context::cuda(0), &h200, false, &out));
  EXPECT_EQ(out.kernel->info.types, f16) << out.kernel->info.id;
}

// What a search costs on the CUDA path, measured where no GPU is: the shipped H200 table over the
// registered CUDA kernels and a stand-in H200 (each kernel modelled at 2 blocks per SM; on a GPU
// the figure comes from its compiled kernel's occupancy, and the model does the same arithmetic
// either way), through pick_tuned, at 16 shapes NT near 2200³ (as
// TuneGpu.SelectionCostWithTheShippedTable on the GPU); each must get a choice. Timed and
// printed, not asserted: the GPU test and
// `tilekit tune --evaluate` report the figure for the target above; this one is for work on
// the search where there is no GPU.
TEST(PickTuned, SearchCostOverTheShippedH200Table) {
  std::vector<TuneEntry> table = shipped_h200_entries();
  const KernelList<GemmKernel>& gemm = Registry::instance().gemm;
  if (table.empty())
    GTEST_SKIP() << "no shipped H200 table, or its CUDA kernels are not in this build";
  const DeviceInfo h200 = testing::stand_in_h200();
  const TunedSource src = make_tuned_source("shipped table", std::move(table), gemm,
                                            [](const GemmKernel&) {
                                              return TileModelDevice{132, 2, 3.6e12};
                                            });
  const Context ctx = Context::cuda(0);
  alignas(16) static float nothing[8];  // selection reads shapes, types and addresses only
  for (const GemmTypes& types :
       {GemmTypes{}, GemmTypes{DType::kBF16, DType::kBF16, DType::kF32, Compute::kBF16}}) {
    std::vector<GemmProblem> shapes;
    for (int64_t d = 0; d < 16; ++d) {
      GemmProblem p;
      p.op_b = Op::kT;
      p.m = 2200 - d;
      p.n = p.k = 2200;
      p.types = types;
      p.a = p.b = p.c = nothing;
      p.lda = p.min_lda();
      p.ldb = p.min_ldb();
      p.ldc = p.min_ldc();
      shapes.push_back(p);
    }
    Selection<GemmProblem> out, explained;
    for (const GemmProblem& p : shapes) {
      ASSERT_TRUE(pick_tuned(src, p, ctx, &h200, false, &explained)) << p.describe();
      // Without the explanation: the same choice, and no text.
      ASSERT_TRUE(pick_tuned(src, p, ctx, &h200, false, &out, /*explain=*/false));
      EXPECT_EQ(out.kernel, explained.kernel) << p.describe();
      EXPECT_EQ(out.split_k, explained.split_k) << p.describe();
      EXPECT_TRUE(out.reason.empty()) << out.reason;
      EXPECT_FALSE(explained.reason.empty());
    }
    constexpr int kCalls = 20000;
    auto per_search_us = [&](bool explain) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i)
        (void)pick_tuned(src, shapes[i % shapes.size()], ctx, &h200, false, &out, explain);
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                 .count() /
             kCalls;
    };
    const double us = per_search_us(false), explaining_us = per_search_us(true);
    std::printf("%s NT 2200^3 over the shipped H200 table: %.3f us a search, %.3f us with the "
                "explanation (%s)\n",
                types_tag(types).c_str(), us, explaining_us, out.kernel->info.id.c_str());
    RecordProperty(types_tag(types) + "_search_us", std::to_string(us));
    RecordProperty(types_tag(types) + "_explaining_us", std::to_string(explaining_us));
  }
}

// A remembered selection is the one a fresh search makes: each shape's first answer (a search)
// and its answers while the thread cycles through more shapes than it remembers, and fewer.
TEST_F(TuneCacheTest, RememberedSelectionsAreTheFreshOnes) {
  std::vector<TuneEntry> entries;
  for (int64_t size : {256, 1024, 4096}) {
    TuneEntry e = entry_for(Buffers(size, size, size).p, kBlocked, 1e-3);
    e.candidates = {{kBlocked, 0, 1e-3}, {kOpenblas, 0, size == 1024 ? 0.9e-3 : 1.1e-3}};
    entries.push_back(e);
  }
  install(entries);
  std::vector<Buffers> shapes;
  // Sizes in whole 16-byte rows, the entries' class.
  for (int64_t size = 64; shapes.size() < 3 * kRememberedTunedShapes; size += 40)
    shapes.emplace_back(size, size + 8, size + 4);
  std::vector<std::string> fresh;
  for (const Buffers& b : shapes) {
    Selection<GemmProblem> chosen;
    ASSERT_TRUE(select_gemm_kernel(b.p, Context::cpu(), false, &chosen));
    ASSERT_EQ(chosen.reason.rfind("cache", 0), 0u) << chosen.reason;
    fresh.push_back(chosen.kernel->info.id + " | " + chosen.reason);
  }
  for (size_t count : {shapes.size(), kRememberedTunedShapes / 2})
    for (int round = 0; round < 3; ++round)
      for (size_t i = 0; i < count; ++i) {
        Selection<GemmProblem> chosen;
        ASSERT_TRUE(select_gemm_kernel(shapes[i].p, Context::cpu(), false, &chosen));
        EXPECT_EQ(chosen.kernel->info.id + " | " + chosen.reason, fresh[i]);
      }
}

// ---- tuning on line (GemmOptions::tune_budget_ms) ----

// Random A, B and C in x's buffers.
void fill_random(Buffers* x, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto* v : {&x->a, &x->b, &x->c})
    for (float& e : *v) e = value(random);
}

// C as the reference computes it from x's inputs (x's C is left as it is).
std::vector<float> reference_c(const Buffers& x) {
  std::vector<float> c = x.c;
  GemmProblem p = x.p;
  p.c = c.data();
  GemmOptions o;
  o.kernel = "gemm.cpu.reference.f32";
  EXPECT_TRUE(gemm(Context::cpu(), p, o));
  return c;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4f * (1 + std::abs(want[i]))) << "element " << i;
}

// The first call at a new shape times its candidates (the own kernel and, vendor kernels
// allowed, OpenBLAS) on a copy of C, records them, and computes C once (beta read from the
// caller's C); the second measures nothing (the file is as it was) and the selector then
// chooses the entry's fastest from the cache.
TEST_F(TuneCacheTest, OnLineTuningMeasuresANewShapeOnceAndRunsItsFastest) {
  Buffers x(96, 80, 64);
  fill_random(&x, 3);
  x.p.beta = 0.5f;
  const std::vector<float> want = reference_c(x);
  GemmOptions o;
  o.allow_vendor = true;
  o.tune_budget_ms = 1000;
  ASSERT_TRUE(gemm(Context::cpu(), x.p, o));
  expect_near(x.c, want);
  TuneCache cache;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(path_, key_, &cache, &found));
  ASSERT_TRUE(found);
  ASSERT_EQ(cache.entries.size(), 1u);
  const TuneEntry& e = cache.entries[0];
  EXPECT_EQ(std::make_tuple(e.m, e.n, e.k), std::make_tuple(int64_t{96}, int64_t{80}, int64_t{64}));
  EXPECT_TRUE(e.bucket == bucket_of(x.p));
  ASSERT_EQ(e.candidates.size(), 2u);
  for (const TuneCandidate& c : e.candidates) {
    EXPECT_NE(Registry::instance().find_gemm(c.kernel), nullptr) << c.kernel;
    EXPECT_GT(c.time_s, 0);
  }
  EXPECT_LE(e.candidates[0].time_s, e.candidates[1].time_s);
  EXPECT_EQ(e.kernel, e.candidates[0].kernel);

  const std::string text = read_text();
  fill_random(&x, 4);
  const std::vector<float> again = reference_c(x);
  ASSERT_TRUE(gemm(Context::cpu(), x.p, o));
  expect_near(x.c, again);
  EXPECT_EQ(read_text(), text) << "a measured shape was measured again";
  Selection<GemmProblem> chosen;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), true, &chosen));
  EXPECT_EQ(chosen.kernel->info.id, e.kernel);
  EXPECT_EQ(chosen.reason.rfind("cache", 0), 0u) << chosen.reason;
}

// The selector's choice is measured first: a budget spent after one candidate measured it alone.
TEST_F(TuneCacheTest, OnLineTuningTimesTheSelectorsChoiceFirst) {
  Buffers x(72, 40, 56);
  fill_random(&x, 5);
  Selection<GemmProblem> before;
  ASSERT_TRUE(select_gemm_kernel(x.p, Context::cpu(), true, &before));
  GemmOptions o;
  o.allow_vendor = true;
  o.tune_budget_ms = 1e-9;
  ASSERT_TRUE(gemm(Context::cpu(), x.p, o));
  TuneCache cache;
  bool found = false;
  ASSERT_TRUE(load_tune_cache(path_, key_, &cache, &found));
  ASSERT_EQ(cache.entries.size(), 1u);
  ASSERT_EQ(cache.entries[0].candidates.size(), 1u);
  EXPECT_EQ(cache.entries[0].candidates[0].kernel, before.kernel->info.id);
}

// Bad budgets and a missing cache directory are one-line errors before anything is run or
// written; quick returns measure nothing.
TEST_F(TuneCacheTest, OnLineTuningRefusesWhatItCannotDoAndLeavesCAlone) {
  Buffers x(40, 24, 32);
  fill_random(&x, 6);
  const std::vector<float> c0 = x.c;
  GemmOptions o;
  for (double bad : {-1.0, std::nan("")}) {
    o.tune_budget_ms = bad;
    const Status s = gemm(Context::cpu(), x.p, o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("tune_budget_ms"), std::string::npos) << s.message();
  }
  o.tune_budget_ms = 10;
  Buffers empty(0, 24, 32);
  EXPECT_TRUE(gemm(Context::cpu(), empty.p, o));
  EXPECT_FALSE(fs::exists(path_));
  std::map<std::string, std::string> saved;
  for (const char* var : {"TILEKIT_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) {
    if (const char* v = std::getenv(var)) saved[var] = v;
    ::unsetenv(var);
  }
  const Status s = gemm(Context::cpu(), x.p, o);
  for (const auto& [var, value] : saved) ::setenv(var.c_str(), value.c_str(), 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tune_budget_ms"), std::string::npos) << s.message();
  EXPECT_EQ(x.c, c0);
  EXPECT_FALSE(fs::exists(path_));
}

}  // namespace
}  // namespace tilekit
