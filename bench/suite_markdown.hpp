// suite_markdown.hpp — suite records (bench/suite.hpp) as markdown tables, and the generated
// blocks of a page such as docs/results.md, each between its suite's markers and regenerated in
// place.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilekit/status.hpp"

namespace tilekit::bench {

// What the tables need of a record.
struct SuiteRecord {
  struct Part {
    std::string op, mode, ops_layout, baseline, ceiling;
    std::vector<std::pair<std::string, double>> targets;  // size → least best own / baseline
    double bandwidth_target = 0;  // gemm: least GB/s of auto at every size (0: none)
  };
  struct Row {
    int part = 0;
    std::string ops, kernel, resolved, size, outcome;
    double median_ms = 0, rate = 0, baseline_ratio = 0, ceiling_ratio = 0;  // rate: GFLOP/s or GB/s
    double gbps = 0;  // the bytes that must move once, over the median
    bool noisy = false, vendor = false;
  };
  std::string path, suite, description, commit, command, date, device, details;
  bool complete = true;
  std::vector<std::string> errors;
  std::vector<Part> parts;
  std::vector<Row> rows;
};

// Reads a record's JSON; `path` names it in errors ("results/x.json: rows[3]: ...").
Status parse_suite_record(const nlohmann::json& record, const std::string& path, SuiteRecord* out);
Status parse_suite_record_text(const std::string& text, const std::string& path, SuiteRecord* out);

// The suite's tables, one per mode: per shape the baseline, auto and the best own kernel with
// their ratios to the baseline and a verdict; under each, the mode's summary and the command,
// commit and date that made it.
std::string suite_markdown(const SuiteRecord& record);
// One line per mode: the summary alone, for a terminal.
std::string suite_summary(const SuiteRecord& record);

// The markers around a suite's generated block.
std::string results_begin_marker(const std::string& suite);
std::string results_end_marker(const std::string& suite);
// `text` with the block between suite's markers replaced by `block` (the block and its markers
// added at the end when the markers are missing). Markers out of order or repeated are an error
// naming `file`: a page is never guessed at.
Status replace_results_block(const std::string& text, const std::string& suite,
                             const std::string& block, const std::string& file, std::string* out);

}  // namespace tilekit::bench
