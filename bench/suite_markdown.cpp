#include "suite_markdown.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace tilekit::bench {
namespace {

using nlohmann::json;

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// About four significant digits without an exponent: 2.674, 0.01234, 148.2.
std::string ms_text(double ms) {
  const int digits = ms >= 1000 ? 0 : ms >= 100 ? 1 : ms >= 10 ? 2 : ms >= 1 ? 3 : ms >= 0.1 ? 4 : 5;
  return fixed(ms, digits);
}

std::string ratio_text(double r) { return r > 0 ? fixed(r, 2) + "×" : "-"; }

// "gemm.cuda.sm90.bf16.x" → "sm90.bf16.x": the op and the backend say nothing within a table.
std::string short_id(const std::string& id) {
  const size_t first = id.find('.');
  const size_t second = first == std::string::npos ? first : id.find('.', first + 1);
  return second == std::string::npos ? id : id.substr(second + 1);
}

std::string code(const std::string& id) { return id.empty() ? "-" : "`" + short_id(id) + "`"; }

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string json_error(const std::exception& e) {
  const std::string what = e.what();
  const size_t tag = what.find("] ");
  return tag == std::string::npos ? what : what.substr(tag + 2);
}

// The names of suites go into HTML comments and file names: nothing that could end a comment.
bool plain_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

// "NVIDIA H200 (cc 9.0, 132 SMs, max SM clock 1980 MHz), CUDA 13.0, driver 13.0, cuBLAS 13.1.0,
// cuda-events, L2 flushed"; what the record leaves out is left out.
std::string device_details(const json& env) {
  const auto text = [&](const char* key) { return env.value(key, std::string()); };
  std::vector<std::string> parts;
  std::string device = env.value("device", std::string("unknown device"));
  if (text("backend") == "cuda") {
    device += " (cc " + text("compute_capability") + ", " + std::to_string(env.value("sm_count", 0)) +
              " SMs, max SM clock " + std::to_string(env.value("sm_clock_mhz", 0)) + " MHz)";
    parts = {device, "CUDA " + text("cuda_runtime"), "driver " + text("cuda_driver"),
             "cuBLAS " + text("cublas")};
  } else {
    parts = {device + " (" + std::to_string(env.value("cpu_threads", 0)) + " threads)"};
    if (!text("openblas").empty()) parts.push_back(text("openblas"));
  }
  if (!text("timing").empty()) parts.push_back(text("timing"));
  return join(parts, ", ");
}

SuiteRecord::Part read_part(const json& p) {
  SuiteRecord::Part part;
  part.op = p.at("op").get<std::string>();
  part.mode = p.value("mode", part.op);
  part.ops_layout = p.value("layout", std::string("row")) == "col" ? " col" : "";
  part.baseline = p.value("baseline", std::string());
  part.ceiling = p.value("ceiling", std::string());
  const json targets = p.value("targets", json::object());  // kept: items() refers into it
  for (const auto& [size, ratio] : targets.items()) part.targets.emplace_back(size, ratio.get<double>());
  part.bandwidth_target = p.value("bandwidth_target", 0.0);
  return part;
}

SuiteRecord::Row read_row(const json& r, const std::vector<SuiteRecord::Part>& parts) {
  SuiteRecord::Row row;
  row.part = r.at("part").get<int>();
  if (row.part < 0 || row.part >= static_cast<int>(parts.size()))
    throw std::out_of_range("part " + std::to_string(row.part) + " is not in parts");
  row.ops = r.value("ops", std::string());
  row.kernel = r.at("kernel").get<std::string>();
  row.resolved = r.value("resolved", std::string());
  row.size = r.at("size").get<std::string>();
  row.outcome = r.at("outcome").get<std::string>();
  row.median_ms = r.value("median_ms", 0.0);
  row.rate = r.value(parts[row.part].op == "gemm" ? "gflops" : "gbps", 0.0);
  row.gbps = r.value("gbps", 0.0);
  row.baseline_ratio = r.value("baseline_ratio", 0.0);
  row.ceiling_ratio = r.value("ceiling_ratio", 0.0);
  row.noisy = r.value("noisy", false);
  row.vendor = r.value("is_baseline", false);
  return row;
}

// ---- the tables ----------------------------------------------------------------------------

using Part = SuiteRecord::Part;
using Row = SuiteRecord::Row;

// The rows of one shape of one bench run, and what the table says of them.
struct Cell {
  int part = 0;
  std::string ops, size;
  std::vector<const Row*> rows;
  const Row *base = nullptr, *automatic = nullptr, *best = nullptr;
  std::vector<std::string> problems;
  bool noisy = false;
  double target = 0;            // least best own / baseline; 0: none
  double bandwidth_target = 0;  // least GB/s of auto; 0: none
};

void judge(const Part& part, Cell* c) {
  for (const Row* r : c->rows) {
    if (r->kernel == part.baseline && !c->base) c->base = r;
    else if (r->kernel == "auto") c->automatic = r;
    else if (!r->vendor && r->kernel != part.ceiling && r->outcome == "ok" &&
             (!c->best || r->rate > c->best->rate))
      c->best = r;
    if (r->outcome == "FAIL" || r->outcome == "error")
      c->problems.push_back(r->outcome + " " + short_id(r->kernel));
  }
  if (c->automatic && c->automatic->outcome == "skipped") c->problems.push_back("auto skipped");
  if (!c->base || c->base->outcome != "ok") c->problems.push_back("no baseline");
  for (const Row* r : {c->base, c->automatic, c->best}) c->noisy = c->noisy || (r && r->noisy);
  for (const auto& [size, ratio] : part.targets)
    if (size == c->size) c->target = ratio;
  c->bandwidth_target = part.bandwidth_target;
}

bool ok(const Row* r) { return r && r->outcome == "ok"; }

// Whether the cell's targets hold: the best own kernel's ratio, auto's bandwidth.
bool targets_met(const Cell& c) {
  const bool ratio = c.target <= 0 || (c.best && c.best->baseline_ratio >= c.target);
  const bool bandwidth =
      c.bandwidth_target <= 0 || (ok(c.automatic) && c.automatic->gbps >= c.bandwidth_target);
  return ratio && bandwidth;
}

// "≥ 1.2×", "auto ≥ 4300 GB/s", or both.
std::string targets_text(const Cell& c) {
  std::vector<std::string> parts;
  if (c.target > 0) parts.push_back("≥ " + fixed(c.target, 1) + "×");
  if (c.bandwidth_target > 0) parts.push_back("auto ≥ " + fixed(c.bandwidth_target, 0) + " GB/s");
  return join(parts, ", ");
}

std::vector<Cell> cells_of(const SuiteRecord& rec, const std::string& mode) {
  std::vector<Cell> cells;
  for (const Row& r : rec.rows) {
    if (rec.parts[r.part].mode != mode) continue;
    auto it = std::find_if(cells.begin(), cells.end(), [&](const Cell& c) {
      return c.part == r.part && c.ops == r.ops && c.size == r.size;
    });
    if (it == cells.end()) {
      it = cells.insert(cells.end(), Cell());
      it->part = r.part;
      it->ops = r.ops;
      it->size = r.size;
    }
    it->rows.push_back(&r);
  }
  for (Cell& c : cells) judge(rec.parts[c.part], &c);
  return cells;
}

std::string verdict(const Cell& c) {
  std::string text;
  if (!c.problems.empty()) {
    text = "**" + join(c.problems, "; ") + "**";
  } else if (c.target > 0 || c.bandwidth_target > 0) {
    text = std::string(targets_met(c) ? "met" : "**missed**") + " (" + targets_text(c) + ")";
  } else {
    text = "PASS";
  }
  return c.noisy ? text + ", noisy" : text;
}

std::string ms_of(const Row* r) { return ok(r) ? ms_text(r->median_ms) : "-"; }
std::string ratio_of(const Row* r) { return ok(r) ? ratio_text(r->baseline_ratio) : "-"; }

// Whether any shape of a mode timed an own kernel besides auto (a suite of auto against the
// baseline alone leaves the own-kernel columns and figures out).
bool any_own(const std::vector<Cell>& cells) {
  return std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return c.best != nullptr; });
}

// Whether any shape of a mode has a bandwidth target: its table then shows GB/s.
bool any_bandwidth(const std::vector<Cell>& cells) {
  return std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return c.bandwidth_target > 0; });
}

std::string gbps_of(const Row* r) { return ok(r) ? fixed(r->gbps, 0) : "-"; }

void gemm_table(std::ostream& out, const SuiteRecord& rec, const std::vector<Cell>& cells) {
  const bool own = any_own(cells), bandwidth = any_bandwidth(cells);
  out << "| ops | shape | baseline ms | auto ms | auto / base | "
      << (bandwidth ? "baseline GB/s | auto GB/s | " : "") << "auto ran | "
      << (own ? "best own kernel | ms | own / base | " : "") << "verdict |\n|---|---|--:|--:|--:|"
      << (bandwidth ? "--:|--:|" : "") << "---|" << (own ? "---|--:|--:|" : "") << "---|\n";
  for (const Cell& c : cells) {
    const Row* a = c.automatic;
    out << "| " << c.ops << rec.parts[c.part].ops_layout << " | " << c.size << " | " << ms_of(c.base)
        << " | " << ms_of(a) << " | " << ratio_of(a) << " | ";
    if (bandwidth) out << gbps_of(c.base) << " | " << gbps_of(a) << " | ";
    out << (ok(a) ? code(a->resolved) : "-") << " | ";
    if (own)
      out << (c.best ? code(c.best->kernel) : "-") << " | " << ms_of(c.best) << " | "
          << ratio_of(c.best) << " | ";
    out << verdict(c) << " |\n";
  }
}

void memory_table(std::ostream& out, const std::vector<Cell>& cells) {
  out << "| size | baseline ms | baseline GB/s | best own kernel | GB/s | own / base | % copy | "
         "verdict |\n|---|--:|--:|---|--:|--:|--:|---|\n";
  for (const Cell& c : cells) {
    const bool best = ok(c.best);
    out << "| " << c.size << " | " << ms_of(c.base) << " | "
        << (ok(c.base) ? fixed(c.base->rate, 0) : "-") << " | " << (best ? code(c.best->kernel) : "-")
        << " | " << (best ? fixed(c.best->rate, 0) : "-") << " | " << ratio_of(c.best) << " | "
        << (best && c.best->ceiling_ratio > 0 ? fixed(100 * c.best->ceiling_ratio, 1) : "-")
        << " | " << verdict(c) << " |\n";
  }
}

// "at 30 of 48 shapes, geomean 1.04×": ratios at least 1, over `shapes`; 0 where not measured.
std::string tally(const std::vector<double>& ratios, size_t shapes) {
  size_t measured = 0, at_least = 0;
  double logs = 0;
  for (double r : ratios) {
    if (r <= 0) continue;
    ++measured;
    at_least += r >= 1.0;
    logs += std::log(r);
  }
  std::string text = "at " + std::to_string(at_least) + " of " + std::to_string(shapes) + " shapes";
  if (measured > 0) text += ", geomean " + fixed(std::exp(logs / static_cast<double>(measured)), 2) + "×";
  if (measured < shapes) text += " (" + std::to_string(measured) + " measured)";
  return text;
}

// One line; `bold` (markdown) sets the mode in bold.
std::string summary(const std::string& mode, bool gemm, const std::vector<Cell>& cells, bool bold) {
  std::vector<double> autos, owns;
  size_t targets = 0, met = 0, failing = 0;
  for (const Cell& c : cells) {
    autos.push_back(ok(c.automatic) ? c.automatic->baseline_ratio : 0);
    owns.push_back(ok(c.best) ? c.best->baseline_ratio : 0);
    failing += !c.problems.empty();
    if (c.target > 0 || c.bandwidth_target > 0) {
      ++targets;
      met += targets_met(c);
    }
  }
  std::vector<std::string> clauses;
  if (gemm) clauses.push_back("auto ≥ 1.0× the baseline " + tally(autos, cells.size()));
  if (!gemm || any_own(cells)) clauses.push_back("best own kernel ≥ 1.0× " + tally(owns, cells.size()));
  std::string text = (bold ? "**" + mode + "**" : mode) + ": " + join(clauses, "; ");
  if (targets > 0) text += "; targets met at " + std::to_string(met) + " of " + std::to_string(targets);
  if (failing > 0) text += "; " + std::to_string(failing) + " with a problem (verdict)";
  return text + ".";
}

std::vector<std::string> modes_of(const SuiteRecord& rec) {
  std::vector<std::string> modes;
  for (const Row& r : rec.rows)
    if (std::find(modes.begin(), modes.end(), rec.parts[r.part].mode) == modes.end())
      modes.push_back(rec.parts[r.part].mode);
  return modes;
}

// The baselines (and ceiling) a mode's rows were measured against, for the line over its table.
std::string against(const SuiteRecord& rec, const std::string& mode) {
  std::vector<std::string> bases, ceilings;
  for (const Part& p : rec.parts) {
    if (p.mode != mode) continue;
    if (!p.baseline.empty() && std::find(bases.begin(), bases.end(), p.baseline) == bases.end())
      bases.push_back(p.baseline);
    if (!p.ceiling.empty() && std::find(ceilings.begin(), ceilings.end(), p.ceiling) == ceilings.end())
      ceilings.push_back(p.ceiling);
  }
  std::string text;
  for (const auto& b : bases) text += " · baseline `" + b + "`";
  for (const auto& c : ceilings) text += " · ceiling `" + c + "`";
  return text;
}

// The command as recorded, less the folder of the program ("build/bin/tilekit bench" →
// "tilekit bench"): a page shows what to type, not where one build lay.
std::string command_shown(const std::string& command) {
  const size_t word = command.find(' ');
  const std::string program = command.substr(0, word);
  const size_t slash = program.rfind('/');
  if (program.empty() || program[0] == '\'' || slash == std::string::npos) return command;
  return command.substr(slash + 1);
}

std::string provenance(const SuiteRecord& rec) {
  return "Made by `" + command_shown(rec.command) + "` at commit `" + rec.commit + "`, " +
         rec.date + ".";
}

}  // namespace

Status parse_suite_record(const json& j, const std::string& path, SuiteRecord* out) {
  *out = SuiteRecord{};
  out->path = path;
  if (!j.is_object() || !j.contains("suite") || !j.contains("parts") || !j.contains("rows"))
    return invalid_argument(path + ": not a suite record (it needs suite, parts and rows, as "
                                   "`tilekit bench --suite` writes)");
  try {
    out->suite = j.at("suite").get<std::string>();
    if (!plain_name(out->suite))
      return invalid_argument(path + ": suite: '" + out->suite +
                              "' is not a name (letters, digits, - _ .)");
    out->description = j.value("description", std::string());
    out->commit = j.value("commit", std::string("unknown"));
    out->command = j.value("command", std::string());
    out->date = j.value("date", std::string());
    out->complete = j.value("complete", true);
    out->errors = j.value("errors", std::vector<std::string>());
    const json env = j.value("environment", json::object());
    out->device = env.value("device", std::string());
    out->details = device_details(env);
    for (const json& p : j.at("parts")) out->parts.push_back(read_part(p));
    for (const json& r : j.at("rows")) out->rows.push_back(read_row(r, out->parts));
  } catch (const std::exception& e) {  // a field of the wrong type, or a row of no part
    return invalid_argument(path + ": not a suite record: " + json_error(e));
  }
  return Status::ok();
}

Status parse_suite_record_text(const std::string& text, const std::string& path, SuiteRecord* out) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return invalid_argument(path + ": not valid JSON: " + json_error(e));
  }
  return parse_suite_record(j, path, out);
}

std::string suite_markdown(const SuiteRecord& rec) {
  std::ostringstream out;
  out << "### Suite `" << rec.suite << "`\n\n";
  if (!rec.description.empty()) out << rec.description << "\n\n";
  if (!rec.complete)
    out << "**Incomplete**: the run was interrupted; the tables hold the rows that finished.\n\n";
  for (const std::string& e : rec.errors) out << "**Part failed**: " << e << "\n\n";
  for (const std::string& mode : modes_of(rec)) {
    const std::vector<Cell> cells = cells_of(rec, mode);
    const bool gemm = rec.parts[cells.front().part].op == "gemm";
    out << "**" << mode << "**" << against(rec, mode) << "\n\n";
    if (gemm) gemm_table(out, rec, cells);
    else memory_table(out, cells);
    out << "\n" << summary(mode, gemm, cells, true) << "\n\n";
  }
  // Once for the suite: every table above comes from this one record.
  out << provenance(rec) << " Device: " << rec.details << ". Record: `" << rec.path << "`.\n";
  return out.str();
}

std::string suite_summary(const SuiteRecord& rec) {
  std::ostringstream out;
  out << rec.suite << " (" << rec.path << "): " << provenance(rec) << "\n";
  for (const std::string& mode : modes_of(rec)) {
    const std::vector<Cell> cells = cells_of(rec, mode);
    out << "  " << summary(mode, rec.parts[cells.front().part].op == "gemm", cells, false) << "\n";
  }
  if (!rec.complete) out << "  incomplete: the run was interrupted\n";
  for (const std::string& e : rec.errors) out << "  part failed: " << e << "\n";
  return out.str();
}

std::string results_begin_marker(const std::string& suite) {
  return "<!-- tilekit results: " + suite + " begin -->";
}
std::string results_end_marker(const std::string& suite) {
  return "<!-- tilekit results: " + suite + " end -->";
}

Status replace_results_block(const std::string& text, const std::string& suite,
                             const std::string& block, const std::string& file, std::string* out) {
  const std::string begin = results_begin_marker(suite), end = results_end_marker(suite);
  const size_t b = text.find(begin), e = text.find(end);
  const auto repeated = [&](size_t at, const std::string& marker) {
    return at != std::string::npos && text.find(marker, at + marker.size()) != std::string::npos;
  };
  if (repeated(b, begin) || repeated(e, end))
    return invalid_argument(file + ": the markers of suite " + suite + " appear more than once");
  const std::string body = block.empty() || block.back() == '\n' ? block : block + "\n";
  if (b == std::string::npos && e == std::string::npos) {
    const std::string gap = text.empty() ? "" : text.back() == '\n' ? "\n" : "\n\n";
    *out = text + gap + begin + "\n" + body + end + "\n";
    return Status::ok();
  }
  if (b == std::string::npos) return invalid_argument(file + ": '" + end + "' has no begin marker");
  if (e == std::string::npos) return invalid_argument(file + ": '" + begin + "' has no end marker");
  if (e < b) return invalid_argument(file + ": '" + end + "' comes before its begin marker");
  *out = text.substr(0, b + begin.size()) + "\n" + body + text.substr(e);
  return Status::ok();
}

}  // namespace tilekit::bench
