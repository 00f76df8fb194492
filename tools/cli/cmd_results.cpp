// cmd_results.cpp — `tilekit results`: suite records (`tilekit bench --suite`) as markdown
// tables, printed or put between their suite's markers in a page such as docs/results.md.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli_common.hpp"
#include "core/output_file.hpp"
#include "suite.hpp"
#include "suite_markdown.hpp"

namespace tilekit::cli {
namespace {

struct ResultsOptions {
  std::vector<std::string> records;
  bool markdown = false;
  std::string update;
};

// No records named: every results/*.json, in name order.
Status default_records(std::vector<std::string>* out) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it("results", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") out->push_back(it->path().string());
  std::sort(out->begin(), out->end());
  if (out->empty())
    return invalid_argument("results: no records named and none in results/ (`tilekit bench "
                            "--suite NAME` writes them)");
  return Status::ok();
}

// The latest record of each suite (by the date it was measured), in the order the suites come.
Status read_latest(const std::vector<std::string>& paths, std::vector<bench::SuiteRecord>* out) {
  for (const std::string& path : paths) {
    std::string text;
    bench::SuiteRecord rec;
    TILEKIT_RETURN_IF_ERROR(bench::read_text_file(path, "record", &text));
    TILEKIT_RETURN_IF_ERROR(bench::parse_suite_record_text(text, path, &rec));
    auto same = std::find_if(out->begin(), out->end(),
                             [&](const bench::SuiteRecord& r) { return r.suite == rec.suite; });
    if (same == out->end()) out->push_back(std::move(rec));
    else if (rec.date > same->date) *same = std::move(rec);  // ISO 8601 UTC: text order is time order
  }
  return Status::ok();
}

// Each suite's block replaced in the page (made if missing), the page written once, whole.
Status update_page(const std::string& page, const std::vector<bench::SuiteRecord>& records) {
  std::string text;
  std::error_code ec;
  if (std::filesystem::exists(page, ec))
    TILEKIT_RETURN_IF_ERROR(bench::read_text_file(page, "--update", &text));
  for (const bench::SuiteRecord& rec : records)
    TILEKIT_RETURN_IF_ERROR(
        bench::replace_results_block(text, rec.suite, bench::suite_markdown(rec), page, &text));
  return write_output_file(page, text, "--update");
}

int run_results(const ResultsOptions& o) {
  std::vector<std::string> paths = o.records;
  Status s;
  if (paths.empty()) s = default_records(&paths);
  std::vector<bench::SuiteRecord> records;
  if (s) s = read_latest(paths, &records);
  if (s && !o.update.empty()) s = update_page(o.update, records);
  if (!s) return fail(s);
  for (const bench::SuiteRecord& rec : records)
    std::cout << (o.markdown ? bench::suite_markdown(rec) + "\n" : bench::suite_summary(rec));
  if (!o.update.empty()) {
    std::string suites;
    for (const auto& rec : records) suites += (suites.empty() ? "" : ", ") + rec.suite;
    // With --markdown stdout is the markdown alone, so that it can be redirected.
    (o.markdown ? std::cerr : std::cout) << "updated " << o.update << " (" << suites << ")\n";
  }
  return kExitOk;
}

}  // namespace

void add_results_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ResultsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "results", "Turn suite records (`tilekit bench --suite`) into tables; regenerate a page");
  cmd->add_option("records", o->records, "suite records (default: every results/*.json)");
  cmd->add_flag("--markdown", o->markdown,
                "print each suite's tables as markdown (default: one summary line per mode)");
  cmd->add_option("--update", o->update,
                  "replace each suite's block between its markers in this markdown file "
                  "(added at the end where missing)")
      ->check(output_path());
  cmd->callback([exit_code, o] { *exit_code = run_results(*o); });
}

}  // namespace tilekit::cli
