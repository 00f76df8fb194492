#include "suite.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel_select.hpp"
#include "tilekit_git_commit.h"  // generated at build time: TILEKIT_GIT_COMMIT

namespace tilekit::bench {
namespace {

using nlohmann::json;

const std::vector<std::string> kOps = {"gemm", "transpose", "dot", "copy"};
const std::vector<std::string> kGemmOps = {"NN", "NT", "TN", "TT"};
const std::vector<std::string> kSuiteFields = {"name", "description", "parts"};
const std::vector<std::string> kPartFields = {"op",      "dtype",       "compute",    "ops",
                                              "layout",  "shapes",      "kernels",    "max_time",
                                              "min_samples", "interleave", "targets",
                                              "bandwidth_target"};
const std::vector<std::string> kGemmOnlyFields = {"dtype", "compute", "ops", "layout", "interleave",
                                                  "bandwidth_target"};

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

bool contains(const std::vector<std::string>& items, const std::string& s) {
  return std::find(items.begin(), items.end(), s) != items.end();
}

// Drops a leading "--sizes: " or "--kernels: ": in a suite the field, not the option, is named.
std::string without_option(const std::string& message) {
  for (const char* prefix : {"--sizes: ", "--kernels: "})
    if (message.rfind(prefix, 0) == 0) return message.substr(std::strlen(prefix));
  return message;
}

// Errors "FILE: FIELD: why", one line each.
class Fields {
 public:
  explicit Fields(const std::string& file) : file_(file) {}
  Status bad(const std::string& field, const std::string& why) const {
    return invalid_argument(file_ + ": " + field + ": " + why);
  }
  const std::string& file() const { return file_; }

 private:
  const std::string& file_;
};

// A typo in a field name must not silently fall back to the default.
Status check_fields(const json& obj, const std::vector<std::string>& allowed,
                    const std::string& where, const Fields& f) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!contains(allowed, it.key()))
      return f.bad(where + it.key(), "unknown field (fields: " + join(allowed, ", ") + ")");
  return Status::ok();
}

Status get_string(const json& obj, const std::string& key, const std::string& field,
                  const Fields& f, std::string* out) {
  if (!obj.contains(key)) return Status::ok();
  if (!obj[key].is_string()) return f.bad(field, "must be a string");
  *out = obj[key].get<std::string>();
  if (out->empty()) return f.bad(field, "is empty");
  return Status::ok();
}

Status get_strings(const json& obj, const std::string& key, const std::string& field,
                   const Fields& f, std::vector<std::string>* out) {
  if (!obj.contains(key)) return Status::ok();
  const json& list = obj[key];
  if (!list.is_array()) return f.bad(field, "must be a list of strings");
  if (list.empty()) return f.bad(field, "is empty");
  out->clear();
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    if (!list[i].is_string() || list[i].get<std::string>().empty())
      return f.bad(item, "must be a non-empty string");
    out->push_back(list[i].get<std::string>());
  }
  return Status::ok();
}

Status get_number(const json& obj, const std::string& key, const std::string& field,
                  const Fields& f, double* out) {
  if (!obj.contains(key)) return Status::ok();
  if (!obj[key].is_number() || !(obj[key].get<double>() > 0) ||
      !std::isfinite(obj[key].get<double>()))
    return f.bad(field, "must be a number above 0");
  *out = obj[key].get<double>();
  return Status::ok();
}

Status get_int(const json& obj, const std::string& key, const std::string& field, int lo, int hi,
               const Fields& f, int* out) {
  if (!obj.contains(key)) return Status::ok();
  const json& v = obj[key];
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    return f.bad(field, "must be an integer from " + std::to_string(lo) + " to " +
                            std::to_string(hi));
  *out = static_cast<int>(v.get<int64_t>());
  return Status::ok();
}

// One entry of "shapes" in the --sizes grammar: 1024, [m, n, k] (gemm), [rows, cols]
// (transpose), or a string ("2^28", "80x5000x5000").
Status shape_text(const json& v, const std::string& op, const std::string& field, const Fields& f,
                  std::string* out) {
  if (v.is_number_unsigned()) {
    *out = std::to_string(v.get<uint64_t>());
    return Status::ok();
  }
  if (v.is_string() && !v.get<std::string>().empty()) {
    *out = v.get<std::string>();
    return Status::ok();
  }
  const size_t dims = op == "gemm" ? 3 : op == "transpose" ? 2 : 0;
  const std::string forms = dims == 3   ? "a size, [m, n, k] or a string such as \"2^12\""
                            : dims == 2 ? "a size, [rows, cols] or a string such as \"4097x17\""
                                        : "a size or a string such as \"2^28\"";
  if (!v.is_array() || dims == 0 || v.size() != dims) return f.bad(field, "must be " + forms);
  out->clear();
  for (const json& d : v) {
    if (!d.is_number_unsigned()) return f.bad(field, "must be " + forms);
    *out += (out->empty() ? "" : "x") + std::to_string(d.get<uint64_t>());
  }
  return Status::ok();
}

MemoryOp memory_op(const std::string& op) {
  return op == "copy" ? MemoryOp::kCopy : op == "transpose" ? MemoryOp::kTranspose : MemoryOp::kDot;
}

Status parse_shapes(const json& j, const std::string& field, const Fields& f, SuitePart* p) {
  if (!j.contains("shapes")) return f.bad(field, "is missing");
  const json& list = j["shapes"];
  if (!list.is_array()) return f.bad(field, "must be a list");
  if (list.empty()) return f.bad(field, "is empty");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    std::string text;
    TILEKIT_RETURN_IF_ERROR(shape_text(list[i], p->op, item, f, &text));
    Status s;
    if (p->op == "gemm") {
      std::vector<GemmShape> shapes;
      if ((s = parse_sizes(text, &shapes)))
        p->gemm_shapes.insert(p->gemm_shapes.end(), shapes.begin(), shapes.end());
    } else {
      std::vector<MemorySize> sizes;
      if ((s = parse_memory_sizes(memory_op(p->op), text, &sizes)))
        p->memory_sizes.insert(p->memory_sizes.end(), sizes.begin(), sizes.end());
    }
    if (!s) return f.bad(item, without_option(s.message()));
    p->shapes.push_back(text);
  }
  return Status::ok();
}

Status parse_types(const json& j, const std::string& where, const Fields& f, SuitePart* p) {
  TILEKIT_RETURN_IF_ERROR(get_string(j, "dtype", where + "dtype", f, &p->dtype));
  DType in = DType::kF32;
  TILEKIT_RETURN_IF_ERROR(parse_dtype(p->dtype, f.file() + ": " + where + "dtype", &in));
  p->compute = in == DType::kF32 ? "f32" : "bf16";  // as `bench gemm` defaults
  TILEKIT_RETURN_IF_ERROR(get_string(j, "compute", where + "compute", f, &p->compute));
  Compute compute = Compute::kF32;
  TILEKIT_RETURN_IF_ERROR(parse_compute(p->compute, f.file() + ": " + where + "compute", &compute));
  p->types = GemmTypes{in, in, DType::kF32, compute};
  if (Status s = validate(p->types); !s) return f.bad(where + "compute", s.message());
  return Status::ok();
}

Status parse_gemm_fields(const json& j, const std::string& where, const Fields& f, SuitePart* p) {
  TILEKIT_RETURN_IF_ERROR(parse_types(j, where, f, p));
  TILEKIT_RETURN_IF_ERROR(get_strings(j, "ops", where + "ops", f, &p->ops));
  for (size_t i = 0; i < p->ops.size(); ++i)
    if (!contains(kGemmOps, p->ops[i]))
      return f.bad(where + "ops[" + std::to_string(i) + "]",
                   "'" + p->ops[i] + "' is not one of " + join(kGemmOps, ", "));
  TILEKIT_RETURN_IF_ERROR(get_string(j, "layout", where + "layout", f, &p->layout));
  if (p->layout != "row" && p->layout != "col")
    return f.bad(where + "layout", "'" + p->layout + "' is not row or col");
  return get_int(j, "interleave", where + "interleave", 1, 100, f, &p->interleave);
}

Status parse_kernels(const json& j, const std::string& where, const Fields& f, SuitePart* p) {
  TILEKIT_RETURN_IF_ERROR(get_strings(j, "kernels", where + "kernels", f, &p->kernels));
  for (size_t i = 0; i < p->kernels.size(); ++i) {
    const std::string item = where + "kernels[" + std::to_string(i) + "]";
    if (p->kernels[i].find(',') != std::string::npos)
      return f.bad(item, "one glob an entry, not '" + p->kernels[i] + "'");
    if (p->kernels[i] == "auto" && p->op != "gemm")
      return f.bad(item, "auto is a gemm row; " + p->op + " has none");
  }
  return Status::ok();
}

// A target names one of the part's sizes as bench prints it ("4097", "80x5000x5000").
Status parse_targets(const json& j, const std::string& where, const Fields& f, SuitePart* p) {
  if (!j.contains("targets")) return Status::ok();
  if (!j["targets"].is_object()) return f.bad(where + "targets", "must be an object of size: ratio");
  std::vector<std::string> sizes;
  for (const auto& s : p->gemm_shapes) sizes.push_back(s.str());
  for (const auto& s : p->memory_sizes) sizes.push_back(s.str());
  for (auto it = j["targets"].begin(); it != j["targets"].end(); ++it) {
    const std::string field = where + "targets." + it.key();
    if (!contains(sizes, it.key())) return f.bad(field, "is not one of the part's sizes");
    double ratio = 0;
    TILEKIT_RETURN_IF_ERROR(get_number(j["targets"], it.key(), field, f, &ratio));
    p->targets[it.key()] = ratio;
  }
  return Status::ok();
}

Status parse_part(const json& j, const std::string& field, const Fields& f, SuitePart* p) {
  if (!j.is_object()) return f.bad(field, "must be an object");
  const std::string where = field + ".";
  TILEKIT_RETURN_IF_ERROR(check_fields(j, kPartFields, where, f));
  if (!j.contains("op")) return f.bad(where + "op", "is missing (one of " + join(kOps, ", ") + ")");
  TILEKIT_RETURN_IF_ERROR(get_string(j, "op", where + "op", f, &p->op));
  if (!contains(kOps, p->op))
    return f.bad(where + "op", "'" + p->op + "' is not one of " + join(kOps, ", "));
  if (p->op == "gemm") {
    TILEKIT_RETURN_IF_ERROR(parse_gemm_fields(j, where, f, p));
  } else {
    for (const std::string& key : kGemmOnlyFields)
      if (j.contains(key)) return f.bad(where + key, "only gemm parts take it");
  }
  TILEKIT_RETURN_IF_ERROR(parse_shapes(j, where + "shapes", f, p));
  TILEKIT_RETURN_IF_ERROR(parse_kernels(j, where, f, p));
  TILEKIT_RETURN_IF_ERROR(get_number(j, "max_time", where + "max_time", f, &p->max_time));
  TILEKIT_RETURN_IF_ERROR(
      get_number(j, "bandwidth_target", where + "bandwidth_target", f, &p->bandwidth_target));
  TILEKIT_RETURN_IF_ERROR(
      get_int(j, "min_samples", where + "min_samples", 1, 1000000, f, &p->min_samples));
  return parse_targets(j, where, f, p);
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 3, ..." without its tag.
std::string json_error(const std::exception& e) {
  const std::string what = e.what();
  const size_t tag = what.find("] ");
  return tag == std::string::npos ? what : what.substr(tag + 2);
}

}  // namespace

Status read_text_file(const std::string& path, const std::string& what, std::string* text) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    return io_error(what + " " + path + " cannot be read: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return io_error(what + " " + path + " cannot be read: it is " +
                    (S_ISDIR(info.st_mode) ? "a directory" : "not a regular file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(what + " " + path + " cannot be read: " + std::strerror(errno));
  std::stringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return io_error(what + " " + path + " cannot be read");
  *text = contents.str();
  return Status::ok();
}

Status parse_suite(const std::string& text, const std::string& file, Suite* out) {
  *out = Suite{};
  out->file = file;
  const Fields f(out->file);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return invalid_argument(file + ": not valid JSON: " + json_error(e));
  }
  if (!j.is_object()) return invalid_argument(file + ": must be a JSON object");
  TILEKIT_RETURN_IF_ERROR(check_fields(j, kSuiteFields, "", f));
  if (!j.contains("name")) return f.bad("name", "is missing");
  TILEKIT_RETURN_IF_ERROR(get_string(j, "name", "name", f, &out->name));
  // The name goes into file names and the HTML comments that mark its generated tables.
  const bool plain = std::all_of(out->name.begin(), out->name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
  if (!plain) return f.bad("name", "'" + out->name + "' may hold only letters, digits, - _ .");
  TILEKIT_RETURN_IF_ERROR(get_string(j, "description", "description", f, &out->description));
  if (!j.contains("parts")) return f.bad("parts", "is missing");
  if (!j["parts"].is_array()) return f.bad("parts", "must be a list");
  if (j["parts"].empty()) return f.bad("parts", "is empty");
  for (size_t i = 0; i < j["parts"].size(); ++i) {
    SuitePart part;
    TILEKIT_RETURN_IF_ERROR(parse_part(j["parts"][i], "parts[" + std::to_string(i) + "]", f, &part));
    out->parts.push_back(std::move(part));
  }
  return Status::ok();
}

Status load_suite_file(const std::string& path, Suite* out) {
  std::string text;
  TILEKIT_RETURN_IF_ERROR(read_text_file(path, "suite", &text));
  TILEKIT_RETURN_IF_ERROR(parse_suite(text, path, out));
  // The name is what `--suite` and the results markers use: it must match the file's.
  const std::string stem = std::filesystem::path(path).stem().string();
  if (out->name != stem)
    return Fields(path).bad("name", "'" + out->name + "' is not the file's name, " + stem);
  return Status::ok();
}

std::vector<std::string> suite_names(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json" && it->is_regular_file(ec))
        names.push_back(it->path().stem().string());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Status find_suite(const std::string& name, const std::vector<std::string>& dirs,
                  std::string* path) {
  const bool is_path = name.find('/') != std::string::npos ||
                       (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
  if (is_path) {
    *path = name;
    return Status::ok();
  }
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + name + ".json";
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) {
      *path = candidate;
      return Status::ok();
    }
  }
  const std::vector<std::string> names = suite_names(dirs);
  return invalid_argument("--suite: no suite '" + name + "' (" +
                          (names.empty() ? "no suites in " + join(dirs, ", ")
                                         : "suites: " + join(names, ", ")) +
                          ")");
}

std::string part_mode(const SuitePart& part) {
  if (part.op != "gemm") return part.op;
  if (part.dtype == "f32") return part.compute;
  return part.compute == "bf16" ? part.dtype : part.dtype + "_" + part.compute;
}

std::string device_slug(const std::string& device) {
  std::string slug;
  for (unsigned char c : device) {
    if (std::isalnum(c)) slug += static_cast<char>(std::tolower(c));
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.size() > 40) slug.resize(40);  // CPU model strings run long
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown" : slug;
}

namespace {

std::vector<std::string> globs_without_auto(const SuitePart& p) {
  std::vector<std::string> globs;
  for (const auto& k : p.kernels)
    if (k != "auto") globs.push_back(k);
  return globs;
}

template <typename K>
Status check_globs(const KernelList<K>& list, const SuitePart& p, Backend backend) {
  const std::vector<std::string> globs = globs_without_auto(p);
  if (globs.empty()) return Status::ok();
  std::vector<const K*> selected;
  return select_kernels(list, join(globs, ","), p.op, backend, &selected);
}

TimingPolicy part_timing(const SuitePart& p) {
  TimingPolicy t;
  t.max_time_s = p.max_time;
  t.min_samples = p.min_samples;
  return t;
}

std::string part_title(const SuitePart& p, const std::string& ops, size_t index, size_t parts) {
  std::string title = "part " + std::to_string(index + 1) + "/" + std::to_string(parts) + ": " + p.op;
  if (p.op == "gemm") title += " " + part_mode(p) + " " + ops + (p.layout == "col" ? " col" : "");
  return title;
}

// One `bench gemm` or `bench copy|transpose|dot` of the part; rows appended as they finish.
Status run_part(const SuitePart& p, const std::string& ops, const SuiteRunConfig& cfg,
                const std::string& title, std::vector<BenchRow>* rows) {
  auto progress = [&cfg, title](int done, int total, const std::string& what) {
    if (cfg.progress) cfg.progress(done, total, title + ": " + what);
  };
  if (p.op != "gemm") {
    MemoryBenchConfig m;
    m.ctx = cfg.ctx;
    m.op = memory_op(p.op);
    m.sizes = p.memory_sizes;
    m.kernels = join(p.kernels, ",");
    m.timing = part_timing(p);
    m.progress = progress;
    m.cancel = cfg.cancel;
    return run_memory_bench(m, rows);
  }
  GemmBenchConfig g;
  g.ctx = cfg.ctx;
  g.shapes = p.gemm_shapes;
  g.kernels = join(p.kernels, ",");
  g.types = p.types;
  g.layout = p.layout == "col" ? Layout::kColMajor : Layout::kRowMajor;
  g.op_a = ops[0] == 'T' ? Op::kT : Op::kN;
  g.op_b = ops[1] == 'T' ? Op::kT : Op::kN;
  g.timing = part_timing(p);
  g.rounds = p.interleave;
  g.progress = progress;
  g.cancel = cfg.cancel;
  return run_gemm_bench(g, rows);
}

}  // namespace

Status check_suite_kernels(const Suite& suite, Backend backend) {
  const Registry& reg = Registry::instance();
  for (size_t i = 0; i < suite.parts.size(); ++i) {
    const SuitePart& p = suite.parts[i];
    const Status s = p.op == "gemm"        ? check_globs(reg.gemm, p, backend)
                     : p.op == "transpose" ? check_globs(reg.transpose, p, backend)
                     : p.op == "dot"       ? check_globs(reg.dot, p, backend)
                                           : check_globs(reg.copy, p, backend);
    if (!s)
      return Fields(suite.file).bad("parts[" + std::to_string(i) + "].kernels",
                                    without_option(s.message()));
  }
  return Status::ok();
}

Status run_suite(const Suite& suite, const SuiteRunConfig& cfg, SuiteRun* out) {
  *out = SuiteRun{};
  const Backend backend = cfg.ctx.backend;
  Status first;
  for (size_t i = 0; i < suite.parts.size(); ++i) {
    const SuitePart& p = suite.parts[i];
    const bool gemm = p.op == "gemm";
    out->baselines.push_back(gemm ? baseline_kernel_id(backend, p.types)
                                  : memory_baseline_id(memory_op(p.op), backend));
    out->ceilings.push_back(gemm ? "" : memory_ceiling_id(backend));
    for (const std::string& ops : gemm ? p.ops : std::vector<std::string>{""}) {
      const std::string title = part_title(p, ops, i, suite.parts.size());
      std::vector<BenchRow> rows;
      const Status s = run_part(p, ops, cfg, title, &rows);
      if (cfg.on_run && !rows.empty()) cfg.on_run(title, rows, out->baselines[i], out->ceilings[i]);
      for (auto& r : rows) out->rows.push_back({std::move(r), static_cast<int>(i), ops});
      // After Ctrl-C, or a CUDA error that may have left the context unusable, nothing more runs.
      if (s.code() == StatusCode::kCancelled || s.code() == StatusCode::kCudaError) return s;
      if (!s) {
        out->errors.emplace_back(s.code(), title + ": " + s.message());
        if (first.is_ok()) first = out->errors.back();
      }
    }
  }
  out->complete = true;
  return first;
}

json suite_record(const Suite& suite, const SuiteRun& run, const Environment& env) {
  json parts = json::array();
  for (size_t i = 0; i < suite.parts.size(); ++i) {
    const SuitePart& p = suite.parts[i];
    json j = {{"op", p.op},           {"mode", part_mode(p)},
              {"shapes", p.shapes},   {"kernels", p.kernels},
              {"max_time", p.max_time}, {"min_samples", p.min_samples},
              {"targets", p.targets}};
    if (p.op == "gemm") {
      j["dtype"] = p.dtype;
      j["compute"] = p.compute;
      j["ops"] = p.ops;
      j["layout"] = p.layout;
      j["interleave"] = p.interleave;
      if (p.bandwidth_target > 0) j["bandwidth_target"] = p.bandwidth_target;
    }
    j["baseline"] = i < run.baselines.size() ? run.baselines[i] : "";
    j["ceiling"] = i < run.ceilings.size() ? run.ceilings[i] : "";
    parts.push_back(std::move(j));
  }
  json rows = json::array();
  for (const auto& r : run.rows) {
    json j = row_json(r.row);
    j["part"] = r.part;
    j["ops"] = r.ops;
    rows.push_back(std::move(j));
  }
  json errors = json::array();
  for (const Status& s : run.errors) errors.push_back(s.message());
  return {{"record", "tilekit bench --suite"},
          {"suite", suite.name},
          {"description", suite.description},
          {"suite_file", suite.file},
          {"commit", TILEKIT_GIT_COMMIT},
          {"command", env.command_line},
          {"date", env.timestamp_utc},
          {"complete", run.complete},
          {"errors", errors},
          {"environment", environment_json(env)},
          {"parts", parts},
          {"rows", rows}};
}

}  // namespace tilekit::bench
