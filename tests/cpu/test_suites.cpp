// Benchmark suites as data (bench/suite.hpp) and the tables generated from their records
// (bench/suite_markdown.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "suite.hpp"
#include "suite_markdown.hpp"

namespace tilekit::bench {
namespace {

using nlohmann::json;

// The error of parsing `text` as suite file "s.json"; empty when it parsed.
std::string suite_error(const std::string& text) {
  Suite suite;
  const Status s = parse_suite(text, "s.json", &suite);
  return s ? "" : s.message();
}

// A one-part suite whose part is `part` (a JSON object's text).
std::string with_part(const std::string& part) {
  return R"({"name": "s", "parts": [)" + part + "]}";
}

void expect_one_line(const std::string& message) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(SuiteFile, PartsShapesAndModes) {
  Suite suite;
  const Status s = parse_suite(R"({"name": "s", "description": "d", "parts": [
      {"op": "gemm", "dtype": "bf16", "ops": ["NN", "TT"], "shapes": [64, [8, 16, 32], "2^5"],
       "kernels": ["gemm.cpu.*", "auto"], "interleave": 3, "targets": {"8x16x32": 2.5}},
      {"op": "gemm", "compute": "f32_3xtf32", "layout": "col", "shapes": [16]},
      {"op": "transpose", "shapes": [[100, 37], 256]},
      {"op": "copy", "shapes": ["2^16"], "max_time": 0.1, "min_samples": 3}]})",
                               "s.json", &suite);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(suite.parts.size(), 4u);
  const SuitePart& g = suite.parts[0];
  EXPECT_EQ(part_mode(g), "bf16");
  EXPECT_EQ(g.compute, "bf16");  // the 16-bit default, as `bench gemm --dtype bf16`
  EXPECT_EQ(g.ops, (std::vector<std::string>{"NN", "TT"}));
  ASSERT_EQ(g.gemm_shapes.size(), 3u);
  EXPECT_EQ(g.gemm_shapes[1].str(), "8x16x32");
  EXPECT_EQ(g.gemm_shapes[2].str(), "32");
  EXPECT_EQ(g.interleave, 3);
  EXPECT_DOUBLE_EQ(g.targets.at("8x16x32"), 2.5);
  EXPECT_EQ(part_mode(suite.parts[1]), "f32_3xtf32");
  EXPECT_EQ(suite.parts[1].ops, (std::vector<std::string>{"NN"}));
  EXPECT_EQ(suite.parts[1].layout, "col");
  ASSERT_EQ(suite.parts[2].memory_sizes.size(), 2u);
  EXPECT_EQ(suite.parts[2].memory_sizes[0].str(), "100x37");
  EXPECT_EQ(part_mode(suite.parts[3]), "copy");
  EXPECT_EQ(suite.parts[3].memory_sizes[0].rows, 65536);
  EXPECT_DOUBLE_EQ(suite.parts[3].max_time, 0.1);
}

TEST(SuiteFile, BadJsonNamesTheFile) {
  const std::string e = suite_error(R"({"name": "s", "parts": [)");
  EXPECT_EQ(e.rfind("s.json: not valid JSON: ", 0), 0u) << e;
  EXPECT_NE(e.find("line 1"), std::string::npos) << e;
  expect_one_line(e);
  EXPECT_EQ(suite_error("[1, 2]"), "s.json: must be a JSON object");
}

TEST(SuiteFile, UnknownOpNamesTheField) {
  const std::string e = suite_error(with_part(R"({"op": "gemv", "shapes": [4]})"));
  EXPECT_EQ(e, "s.json: parts[0].op: 'gemv' is not one of gemm, transpose, dot, copy");
  EXPECT_NE(suite_error(with_part(R"({"shapes": [4]})")).find("parts[0].op: is missing"),
            std::string::npos);
}

TEST(SuiteFile, EmptyOrMissingShapesNameTheField) {
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "shapes": []})")),
            "s.json: parts[0].shapes: is empty");
  EXPECT_EQ(suite_error(with_part(R"({"op": "dot"})")), "s.json: parts[0].shapes: is missing");
  EXPECT_EQ(suite_error(R"({"name": "s", "parts": []})"), "s.json: parts: is empty");
}

TEST(SuiteFile, BadShapesNameTheEntry) {
  std::string e = suite_error(with_part(R"({"op": "gemm", "shapes": [4, [1, 2]]})"));
  EXPECT_EQ(e.rfind("s.json: parts[0].shapes[1]: must be a size, [m, n, k]", 0), 0u) << e;
  e = suite_error(with_part(R"({"op": "copy", "shapes": ["abc"]})"));
  EXPECT_EQ(e.rfind("s.json: parts[0].shapes[0]: 'abc'", 0), 0u) << e;
  e = suite_error(with_part(R"({"op": "gemm", "shapes": [-3]})"));
  EXPECT_EQ(e.rfind("s.json: parts[0].shapes[0]: must be", 0), 0u) << e;
  expect_one_line(e);
}

TEST(SuiteFile, TyposAreRefusedNotDefaulted) {
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "shape": [4], "shapes": [4]})"))
                .rfind("s.json: parts[0].shape: unknown field (fields: op, ", 0),
            0u);
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "ops": ["NX"], "shapes": [4]})")),
            "s.json: parts[0].ops[0]: 'NX' is not one of NN, NT, TN, TT");
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "dtype": "f64", "shapes": [4]})")),
            "s.json: parts[0].dtype: 'f64' is not a storage type (f32, bf16, f16)");
  EXPECT_EQ(suite_error(with_part(R"({"op": "copy", "ops": ["NN"], "shapes": [4]})")),
            "s.json: parts[0].ops: only gemm parts take it");
  EXPECT_EQ(suite_error(with_part(R"({"op": "copy", "kernels": ["auto"], "shapes": [4]})")),
            "s.json: parts[0].kernels[0]: auto is a gemm row; copy has none");
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "shapes": [4], "targets": {"5": 1.0}})")),
            "s.json: parts[0].targets.5: is not one of the part's sizes");
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "shapes": [4], "max_time": 0})")),
            "s.json: parts[0].max_time: must be a number above 0");
  EXPECT_EQ(suite_error(R"({"name": "a b", "parts": [{"op": "dot", "shapes": [4]}]})"),
            "s.json: name: 'a b' may hold only letters, digits, - _ .");
}

class SuiteDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tilekit-suites-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(SuiteDir, FindListsTheSuitesOfAnUnknownName) {
  write("alpha.json", with_part(R"({"op": "dot", "shapes": [4]})"));
  write("beta.json", "{}");
  write("notes.txt", "");
  EXPECT_EQ(suite_names({dir_, dir_ + "/missing"}), (std::vector<std::string>{"alpha", "beta"}));
  std::string path;
  ASSERT_TRUE(find_suite("alpha", {dir_ + "/missing", dir_}, &path));
  EXPECT_EQ(path, dir_ + "/alpha.json");
  const Status s = find_suite("gamma", {dir_}, &path);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--suite: no suite 'gamma' (suites: alpha, beta)");
}

TEST_F(SuiteDir, TheNameMustBeTheFilesName) {
  Suite suite;
  const std::string path = write("alpha.json", with_part(R"({"op": "dot", "shapes": [4]})"));
  const Status s = load_suite_file(path, &suite);
  EXPECT_EQ(s.message(), path + ": name: 's' is not the file's name, alpha");
  EXPECT_EQ(load_suite_file(dir_ + "/none.json", &suite).code(), StatusCode::kIoError);
}

// Every shipped suite parses, and auto-vs-cublas holds 48 shapes a mode (12 an op).
TEST(ShippedSuites, ParseAndHoldTheirShapes) {
  const std::vector<std::string> names = suite_names({TILEKIT_SUITES_DIR});
  for (const char* expected :
       {"auto-vs-cublas", "decode", "evaluation", "hopper-targets", "ladder-targets", "memory",
        "smoke", "streamed-limits"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const std::string& name : names) {
    Suite suite;
    const Status s = load_suite_file(std::string(TILEKIT_SUITES_DIR) + "/" + name + ".json", &suite);
    EXPECT_TRUE(s) << s.message();
  }
  Suite suite;
  ASSERT_TRUE(load_suite_file(std::string(TILEKIT_SUITES_DIR) + "/auto-vs-cublas.json", &suite));
  std::map<std::string, size_t> shapes;
  for (const SuitePart& p : suite.parts) shapes[part_mode(p)] += p.gemm_shapes.size() * p.ops.size();
  EXPECT_EQ(shapes, (std::map<std::string, size_t>{
                        {"bf16", 48}, {"tf32", 48}, {"f32_3xtf32", 48}, {"f32", 48}}));
}

// The public evaluation suite: 160 shapes a mode (40 an op, four ops) in every mode, and none of
// them a shape the shipped tune table was trained on or the autotuner's own evaluation shapes
// (auto-vs-cublas): what it measures is how auto does on shapes it has not seen.
TEST(ShippedSuites, TheEvaluationSuiteHoldsNoTrainingShape) {
  Suite eval, tuner_eval;
  ASSERT_TRUE(load_suite_file(std::string(TILEKIT_SUITES_DIR) + "/evaluation.json", &eval));
  ASSERT_TRUE(load_suite_file(std::string(TILEKIT_SUITES_DIR) + "/auto-vs-cublas.json", &tuner_eval));
  std::map<std::string, size_t> per_mode;
  for (const SuitePart& p : eval.parts) per_mode[part_mode(p)] += p.gemm_shapes.size() * p.ops.size();
  EXPECT_EQ(per_mode, (std::map<std::string, size_t>{{"bf16", 160}, {"f16", 160}, {"tf32", 160},
                                                      {"f32_3xtf32", 160}, {"f32", 160}}));
  std::set<std::tuple<int64_t, int64_t, int64_t>> seen;
  std::ifstream table_file(std::string(TILEKIT_SUITES_DIR) + "/../../src/core/tune_tables/nvidia-h200.json");
  ASSERT_TRUE(table_file.good());
  const nlohmann::json table = nlohmann::json::parse(table_file);
  for (const auto& e : table.at("entries"))
    seen.insert({e.at("m").get<int64_t>(), e.at("n").get<int64_t>(), e.at("k").get<int64_t>()});
  ASSERT_GT(seen.size(), 50u);  // the table was read
  for (const SuitePart& p : tuner_eval.parts)
    for (const GemmShape& g : p.gemm_shapes) seen.insert({g.m, g.n, g.k});
  for (const SuitePart& p : eval.parts)
    for (const GemmShape& g : p.gemm_shapes)
      EXPECT_EQ(seen.count({g.m, g.n, g.k}), 0u) << g.str() << " is a training or tuner shape";
}

TEST(SuiteNames, DeviceSlug) {
  EXPECT_EQ(device_slug("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(device_slug("  Intel(R) Xeon(R) CPU @ 2.20GHz "), "intel-r-xeon-r-cpu-2-20ghz");
  EXPECT_EQ(device_slug("!!"), "unknown");
  EXPECT_LE(device_slug(std::string(100, 'a')).size(), 40u);
}

// ---- records and their tables ----------------------------------------------------------------

json row(int part, const std::string& ops, const std::string& kernel, const std::string& size,
         double ms, double rate, double ratio, const std::string& outcome = "ok") {
  return {{"part", part},         {"ops", ops},       {"kernel", kernel},
          {"size", size},         {"outcome", outcome}, {"median_ms", ms},
          {"gflops", rate},       {"gbps", rate},     {"baseline_ratio", ratio},
          {"is_baseline", kernel.find("blas") != std::string::npos || kernel.find("memcpy") != std::string::npos},
          {"resolved", kernel == "auto" ? "gemm.cpu.blocked.f32.6x16_kc256" : ""}};
}

// Two gemm shapes (auto ahead at one, behind at the other; a target met and one missed, a
// failed kernel) and one copy size.
json made_up_record() {
  const std::string base = "gemm.cpu.openblas.f32", own = "gemm.cpu.blocked.f32.6x16_kc256";
  json rows = json::array({row(0, "NN", base, "64", 1.0, 100, 1.0),
                           row(0, "NN", own, "64", 0.8, 125, 1.25),
                           row(0, "NN", "auto", "64", 0.8, 125, 1.25),
                           row(0, "NN", base, "96x80x72", 2.0, 200, 1.0),
                           row(0, "NN", own, "96x80x72", 4.0, 100, 0.5),
                           row(0, "NN", "auto", "96x80x72", 4.0, 100, 0.5),
                           row(0, "NN", "gemm.cpu.other", "96x80x72", 0, 0, 0, "FAIL"),
                           row(1, "", "copy.cpu.memcpy.f32", "65536", 0.01, 50, 1.0)});
  return {{"suite", "made-up"},
          {"description", "A record for the tests."},
          {"commit", "abc1234"},
          {"command", "tilekit bench --suite made-up --backend cpu"},
          {"date", "2026-01-02T03:04:05Z"},
          {"complete", true},
          {"environment", {{"backend", "cpu"}, {"device", "Test CPU"}, {"cpu_threads", 2}}},
          {"parts", json::array({{{"op", "gemm"}, {"mode", "f32"}, {"baseline", base},
                                  {"targets", {{"64", 1.2}, {"96x80x72", 1.0}}}},
                                 {{"op", "copy"}, {"mode", "copy"}, {"baseline", "copy.cpu.memcpy.f32"},
                                  {"ceiling", "copy.cpu.memcpy.f32"}}})},
          {"rows", rows}};
}

std::string made_up_markdown() {
  SuiteRecord rec;
  const Status s = parse_suite_record(made_up_record(), "results/made-up.json", &rec);
  EXPECT_TRUE(s) << s.message();
  return suite_markdown(rec);
}

TEST(SuiteMarkdown, ATableAModeWithRatiosVerdictsAndWhereFrom) {
  const std::string md = made_up_markdown();
  EXPECT_NE(md.find("### Suite `made-up`"), std::string::npos) << md;
  EXPECT_NE(md.find("**f32** · baseline `gemm.cpu.openblas.f32`"), std::string::npos) << md;
  EXPECT_NE(md.find("| ops | shape | baseline ms | auto ms | auto / base | auto ran |"), std::string::npos);
  EXPECT_NE(md.find("| NN | 64 | 1.000 | 0.8000 | 1.25× | `blocked.f32.6x16_kc256` | "
                    "`blocked.f32.6x16_kc256` | 0.8000 | 1.25× | met (≥ 1.2×) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| NN | 96x80x72 | 2.000 | 4.000 | 0.50× |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **FAIL other** |"), std::string::npos) << md;
  EXPECT_NE(md.find("auto ≥ 1.0× the baseline at 1 of 2 shapes, geomean 0.79×"), std::string::npos) << md;
  EXPECT_NE(md.find("targets met at 1 of 2; 1 with a problem"), std::string::npos) << md;
  EXPECT_NE(md.find("**copy** · baseline `copy.cpu.memcpy.f32` · ceiling `copy.cpu.memcpy.f32`"),
            std::string::npos);
  EXPECT_NE(md.find("| 65536 | 0.01000 | 50 | - |"), std::string::npos) << md;
  // Once, under the last table, for the record all tables come from: the command, the commit,
  // the date and the device.
  const std::string made_by = "Made by `tilekit bench --suite made-up --backend cpu` at commit "
                              "`abc1234`, 2026-01-02T03:04:05Z. Device: Test CPU (2 threads).";
  const size_t first = md.find(made_by);
  ASSERT_NE(first, std::string::npos) << md;
  EXPECT_EQ(md.find(made_by, first + 1), std::string::npos) << md;
  EXPECT_GT(first, md.find("| 65536 |")) << md;
}

// A suite that times auto against the baseline alone has no own-kernel columns and says nothing
// of own kernels: no "0 of N (0 measured)".
TEST(SuiteMarkdown, AutoAgainstTheBaselineAloneLeavesTheOwnKernelColumnsOut) {
  json rec = made_up_record();
  json rows = json::array();
  for (const json& r : rec["rows"])
    if (r["part"] == 0 && (r["kernel"] == "auto" || r.value("is_baseline", false))) rows.push_back(r);
  rec["rows"] = rows;
  SuiteRecord parsed;
  ASSERT_TRUE(parse_suite_record(rec, "r.json", &parsed));
  const std::string md = suite_markdown(parsed);
  EXPECT_NE(md.find("| ops | shape | baseline ms | auto ms | auto / base | auto ran | verdict |\n"
                    "|---|---|--:|--:|--:|---|---|\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("best own kernel"), std::string::npos) << md;
  EXPECT_NE(md.find("auto ≥ 1.0× the baseline at "), std::string::npos) << md;
}

// A bandwidth target (a decode suite's): the mode's table shows the baseline's and auto's GB/s,
// and the verdict holds auto's GB/s to it at every shape (rows carry rate and GB/s alike here:
// 125 at 64, 100 at 96x80x72).
TEST(SuiteMarkdown, ABandwidthTargetShowsGbpsAndJudgesAuto) {
  json rec = made_up_record();
  rec["parts"][0].erase("targets");
  rec["parts"][0]["bandwidth_target"] = 110.0;
  SuiteRecord parsed;
  ASSERT_TRUE(parse_suite_record(rec, "r.json", &parsed));
  const std::string md = suite_markdown(parsed);
  EXPECT_NE(md.find("| ops | shape | baseline ms | auto ms | auto / base | baseline GB/s | auto GB/s "
                    "| auto ran |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| NN | 64 | 1.000 | 0.8000 | 1.25× | 100 | 125 | "), std::string::npos) << md;
  EXPECT_NE(md.find("| met (auto ≥ 110 GB/s) |"), std::string::npos) << md;
  EXPECT_NE(md.find("targets met at 1 of 2"), std::string::npos) << md;
  // The copy table has no bandwidth target: it keeps its own columns.
  EXPECT_NE(md.find("| size | baseline ms | baseline GB/s | best own kernel |"), std::string::npos);
}

// A suite's bandwidth target is a gemm part's number above 0.
TEST(SuiteFile, BandwidthTargetIsAGemmNumber) {
  EXPECT_EQ(suite_error(with_part(R"({"op": "gemm", "shapes": [4], "bandwidth_target": 0})")),
            "s.json: parts[0].bandwidth_target: must be a number above 0");
  EXPECT_EQ(suite_error(with_part(R"({"op": "copy", "shapes": [4], "bandwidth_target": 10})")),
            "s.json: parts[0].bandwidth_target: only gemm parts take it");
}

TEST(SuiteMarkdown, AMissedTargetAndAnInterruptedRunSaySo) {
  json rec = made_up_record();
  rec["parts"][0]["targets"]["64"] = 2.0;
  rec["complete"] = false;
  rec["errors"] = json::array({"part 2/2: copy: out of memory"});
  SuiteRecord parsed;
  ASSERT_TRUE(parse_suite_record(rec, "r.json", &parsed));
  const std::string md = suite_markdown(parsed);
  EXPECT_NE(md.find("| **missed** (≥ 2.0×) |"), std::string::npos) << md;
  EXPECT_NE(md.find("**Incomplete**"), std::string::npos) << md;
  EXPECT_NE(md.find("**Part failed**: part 2/2: copy: out of memory"), std::string::npos) << md;
  const std::string summary = suite_summary(parsed);
  EXPECT_NE(summary.find("made-up (r.json): Made by `tilekit bench"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\n  f32: auto ≥ 1.0×"), std::string::npos) << summary;
}

TEST(SuiteMarkdown, RecordsThatAreNotOneAreRefusedByName) {
  SuiteRecord rec;
  Status s = parse_suite_record(json{{"rows", json::array()}}, "r.json", &rec);
  EXPECT_EQ(s.message().rfind("r.json: not a suite record", 0), 0u) << s.message();
  json bad = made_up_record();
  bad["rows"][0]["part"] = 7;
  s = parse_suite_record(bad, "r.json", &rec);
  EXPECT_EQ(s.message(), "r.json: not a suite record: part 7 is not in parts");
  bad = made_up_record();
  bad["rows"][0]["median_ms"] = "fast";
  s = parse_suite_record(bad, "r.json", &rec);
  EXPECT_EQ(s.message().rfind("r.json: not a suite record: type must be number", 0), 0u) << s.message();
  s = parse_suite_record_text("{", "r.json", &rec);
  EXPECT_EQ(s.message().rfind("r.json: not valid JSON: ", 0), 0u) << s.message();
}

// What run_suite keeps, written by suite_record and read back: the two ends agree.
TEST(SuiteMarkdown, TheWrittenRecordReadsBack) {
  Suite suite;
  ASSERT_TRUE(parse_suite(with_part(R"({"op": "gemm", "ops": ["TN"], "shapes": [64], "kernels": ["auto"]})"),
                          "s.json", &suite));
  SuiteRun run;
  run.baselines = {"gemm.cpu.openblas.f32"};
  run.ceilings = {""};
  run.complete = true;
  for (const char* kernel : {"gemm.cpu.openblas.f32", "auto"}) {
    BenchRow r;
    r.kernel = kernel;
    r.size = "64";
    r.outcome = RowOutcome::kOk;
    r.timing.median_s = 2e-3;
    r.gflops = 10;
    r.baseline_ratio = 1.0;
    run.rows.push_back({r, 0, "TN"});
  }
  Environment env;
  env.backend = "cpu";
  env.device = "Test CPU";
  env.command_line = "build/bin/tilekit bench --suite s";  // the folder is left out
  env.timestamp_utc = "2026-01-02T03:04:05Z";
  const json record = suite_record(suite, run, env);
  EXPECT_EQ(record["suite"], "s");
  EXPECT_FALSE(record["commit"].get<std::string>().empty());
  EXPECT_EQ(record["rows"].size(), 2u);
  SuiteRecord parsed;
  ASSERT_TRUE(parse_suite_record(record, "x.json", &parsed));
  const std::string md = suite_markdown(parsed);
  EXPECT_NE(md.find("| TN | 64 | 2.000 | 2.000 | 1.00× |"), std::string::npos) << md;
  EXPECT_NE(md.find("Made by `tilekit bench --suite s` at commit `"), std::string::npos) << md;
}

// ---- the generated blocks of a page ----------------------------------------------------------

std::string replaced(const std::string& text, const std::string& block) {
  std::string out;
  const Status s = replace_results_block(text, "s", block, "page.md", &out);
  EXPECT_TRUE(s) << s.message();
  return out;
}

TEST(ResultsBlock, AddedOnceThenReplacedInPlace) {
  const std::string begin = results_begin_marker("s"), end = results_end_marker("s");
  EXPECT_EQ(begin, "<!-- tilekit results: s begin -->");
  const std::string page = "# Results\n\nProse.\n";
  const std::string once = replaced(page, "table 1\n");
  EXPECT_EQ(once, page + "\n" + begin + "\ntable 1\n" + end + "\n");
  EXPECT_EQ(replaced(once, "table 1\n"), once);  // regenerated, not appended
  const std::string twice = replaced(once + "After.\n", "table 2");
  EXPECT_EQ(twice, page + "\n" + begin + "\ntable 2\n" + end + "\nAfter.\n");
  EXPECT_EQ(replaced("", "t\n"), begin + "\nt\n" + end + "\n");
  // Another suite's block is left alone.
  std::string other;
  ASSERT_TRUE(replace_results_block(twice, "other", "x\n", "page.md", &other));
  EXPECT_EQ(other.rfind(twice, 0), 0u);
}

TEST(ResultsBlock, BrokenMarkersAreNamedNotGuessed) {
  const std::string begin = results_begin_marker("s"), end = results_end_marker("s");
  std::string out;
  Status s = replace_results_block(begin + "\n" + end + "\n" + begin + "\n" + end, "s", "t", "page.md", &out);
  EXPECT_EQ(s.message(), "page.md: the markers of suite s appear more than once");
  s = replace_results_block(end + "\n" + begin, "s", "t", "page.md", &out);
  EXPECT_EQ(s.message(), "page.md: '" + end + "' comes before its begin marker");
  s = replace_results_block("x\n" + begin + "\n", "s", "t", "page.md", &out);
  EXPECT_EQ(s.message(), "page.md: '" + begin + "' has no end marker");
  s = replace_results_block(end, "s", "t", "page.md", &out);
  EXPECT_EQ(s.message(), "page.md: '" + end + "' has no begin marker");
}

}  // namespace
}  // namespace tilekit::bench
