// tune_cache.cpp — the autotuner's cache file: keys, buckets, JSON, atomic writes.
#include "tilekit/tune_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/output_file.hpp"

namespace tilekit {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "tilekit-tune-cache";
constexpr int kSchemaVersion = 2;  // 2: ld16 (strides in 16-byte units) replaced ld_mult4

const char* op_letter(Op op) { return op == Op::kN ? "N" : "T"; }

json types_json(const GemmTypes& t) {
  return {{"a", dtype_name(t.a)}, {"b", dtype_name(t.b)}, {"c", dtype_name(t.c)},
          {"compute", compute_name(t.compute)}};
}

json entry_json(const TuneEntry& e) {
  const TuneBucket& b = e.bucket;
  json j = {{"log2_m", b.log2_m},         {"log2_n", b.log2_n},
            {"log2_k", b.log2_k},         {"op_a", op_letter(b.op_a)},
            {"op_b", op_letter(b.op_b)},  {"layout", layout_name(b.layout)},
            {"aligned16", b.aligned16},   {"ld16", b.ld16},
            {"types", types_json(b.types)}, {"kernel", e.kernel},
            {"m", e.m}, {"n", e.n}, {"k", e.k}};
  if (e.time_s > 0) j["time_s"] = e.time_s;
  if (e.split_k > 0) j["split_k"] = e.split_k;
  if (!e.candidates.empty()) {
    json list = json::array();
    for (const TuneCandidate& c : e.candidates) {
      json item = {{"kernel", c.kernel}, {"split_k", c.split_k}, {"time_s", c.time_s}};
      if (c.screened) item["screened"] = true;
      list.push_back(item);
    }
    j["candidates"] = list;
  }
  return j;
}

json key_json(const TuneDeviceKey& k) {
  return {{"backend", k.backend},       {"name", k.name},
          {"sm_count", k.sm_count},     {"compute_capability", k.compute_capability},
          {"driver_version", k.driver_version}};
}

// Reads j[field] as T; an error naming the field when it is missing or of another type.
template <typename T>
Status get(const json& j, const char* field, T* out) {
  auto it = j.find(field);
  if (it == j.end()) return invalid_argument(std::string("missing \"") + field + "\"");
  try {
    *out = it->get<T>();
  } catch (const json::exception&) {
    return invalid_argument(std::string("\"") + field + "\" has the wrong type");
  }
  return Status::ok();
}

Status parse_op(const std::string& s, Op* out) {
  if (s != "N" && s != "T") return invalid_argument("op \"" + s + "\" is not N or T");
  *out = s == "N" ? Op::kN : Op::kT;
  return Status::ok();
}

Status parse_types(const json& j, GemmTypes* t) {
  if (!j.is_object()) return invalid_argument("\"types\" is not an object");
  std::string a, b, c, compute;
  TILEKIT_RETURN_IF_ERROR(get(j, "a", &a));
  TILEKIT_RETURN_IF_ERROR(get(j, "b", &b));
  TILEKIT_RETURN_IF_ERROR(get(j, "c", &c));
  TILEKIT_RETURN_IF_ERROR(get(j, "compute", &compute));
  TILEKIT_RETURN_IF_ERROR(parse_dtype(a, "types.a", &t->a));
  TILEKIT_RETURN_IF_ERROR(parse_dtype(b, "types.b", &t->b));
  TILEKIT_RETURN_IF_ERROR(parse_dtype(c, "types.c", &t->c));
  TILEKIT_RETURN_IF_ERROR(parse_compute(compute, "types.compute", &t->compute));
  return validate(*t);
}

Status parse_entry(const json& j, TuneEntry* e) {
  if (!j.is_object()) return invalid_argument("an entry is not an object");
  TuneBucket& b = e->bucket;
  std::string op_a, op_b, layout;
  TILEKIT_RETURN_IF_ERROR(get(j, "log2_m", &b.log2_m));
  TILEKIT_RETURN_IF_ERROR(get(j, "log2_n", &b.log2_n));
  TILEKIT_RETURN_IF_ERROR(get(j, "log2_k", &b.log2_k));
  TILEKIT_RETURN_IF_ERROR(get(j, "op_a", &op_a));
  TILEKIT_RETURN_IF_ERROR(get(j, "op_b", &op_b));
  TILEKIT_RETURN_IF_ERROR(get(j, "layout", &layout));
  TILEKIT_RETURN_IF_ERROR(get(j, "aligned16", &b.aligned16));
  TILEKIT_RETURN_IF_ERROR(get(j, "ld16", &b.ld16));
  TILEKIT_RETURN_IF_ERROR(get(j, "kernel", &e->kernel));
  TILEKIT_RETURN_IF_ERROR(parse_op(op_a, &b.op_a));
  TILEKIT_RETURN_IF_ERROR(parse_op(op_b, &b.op_b));
  if (layout != "row" && layout != "col")
    return invalid_argument("layout \"" + layout + "\" is not row or col");
  b.layout = layout == "row" ? Layout::kRowMajor : Layout::kColMajor;
  auto types = j.find("types");
  if (types == j.end()) return invalid_argument("missing \"types\"");
  TILEKIT_RETURN_IF_ERROR(parse_types(*types, &b.types));
  // Optional fields: absent is fine, present with the wrong type is not.
  if (j.contains("time_s")) TILEKIT_RETURN_IF_ERROR(get(j, "time_s", &e->time_s));
  if (j.contains("split_k")) TILEKIT_RETURN_IF_ERROR(get(j, "split_k", &e->split_k));
  if (j.contains("m")) TILEKIT_RETURN_IF_ERROR(get(j, "m", &e->m));
  if (j.contains("n")) TILEKIT_RETURN_IF_ERROR(get(j, "n", &e->n));
  if (j.contains("k")) TILEKIT_RETURN_IF_ERROR(get(j, "k", &e->k));
  if (j.contains("candidates")) {
    const json& list = j["candidates"];
    if (!list.is_array()) return invalid_argument("\"candidates\" is not an array");
    for (const json& item : list) {
      if (!item.is_object()) return invalid_argument("a candidate is not an object");
      TuneCandidate c;
      TILEKIT_RETURN_IF_ERROR(get(item, "kernel", &c.kernel));
      TILEKIT_RETURN_IF_ERROR(get(item, "split_k", &c.split_k));
      TILEKIT_RETURN_IF_ERROR(get(item, "time_s", &c.time_s));
      if (item.contains("screened")) TILEKIT_RETURN_IF_ERROR(get(item, "screened", &c.screened));
      e->candidates.push_back(c);
    }
  }
  if (std::abs(b.log2_m) > 62 || std::abs(b.log2_n) > 62 || std::abs(b.log2_k) > 62)
    return invalid_argument("a log2 size is out of range");
  return Status::ok();
}

Status parse_key(const json& j, TuneDeviceKey* k) {
  if (!j.is_object()) return invalid_argument("\"device\" is not an object");
  TILEKIT_RETURN_IF_ERROR(get(j, "backend", &k->backend));
  TILEKIT_RETURN_IF_ERROR(get(j, "name", &k->name));
  TILEKIT_RETURN_IF_ERROR(get(j, "sm_count", &k->sm_count));
  TILEKIT_RETURN_IF_ERROR(get(j, "compute_capability", &k->compute_capability));
  TILEKIT_RETURN_IF_ERROR(get(j, "driver_version", &k->driver_version));
  return Status::ok();
}

Status parse_cache(const json& j, TuneCache* out) {
  if (!j.is_object()) return invalid_argument("not a JSON object");
  std::string schema;
  int version = 0;
  TILEKIT_RETURN_IF_ERROR(get(j, "schema", &schema));
  if (schema != kSchema) return invalid_argument("schema is \"" + schema + "\", not " + kSchema);
  TILEKIT_RETURN_IF_ERROR(get(j, "version", &version));
  if (version != kSchemaVersion)
    return invalid_argument("schema version " + std::to_string(version) + ", this build reads " +
                            std::to_string(kSchemaVersion));
  auto device = j.find("device");
  if (device == j.end()) return invalid_argument("missing \"device\"");
  TILEKIT_RETURN_IF_ERROR(parse_key(*device, &out->key));
  TILEKIT_RETURN_IF_ERROR(get(j, "build", &out->key.build));
  auto entries = j.find("entries");
  if (entries == j.end() || !entries->is_array())
    return invalid_argument("\"entries\" is missing or not an array");
  for (const json& e : *entries) {
    TuneEntry entry;
    TILEKIT_RETURN_IF_ERROR(parse_entry(e, &entry));
    out->put(entry);
  }
  return Status::ok();
}

// Device names hold spaces and slashes; a file name keeps letters, digits, '-', '_' and '.'.
std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out.empty() ? "unnamed" : out;
}

// An exclusive flock on `path`.lock for the scope; released (and the fd closed) on destruction.
class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace

bool TuneDeviceKey::same_device(const TuneDeviceKey& o) const {
  return backend == o.backend && name == o.name && sm_count == o.sm_count &&
         compute_capability == o.compute_capability && driver_version == o.driver_version;
}
bool TuneDeviceKey::operator==(const TuneDeviceKey& o) const {
  return same_device(o) && build == o.build;
}
std::string TuneDeviceKey::describe() const {
  std::string s = name + " (" + backend;
  if (backend == "cuda")
    s += ", cc " + std::to_string(compute_capability / 10) + "." +
         std::to_string(compute_capability % 10) + ", " + std::to_string(sm_count) +
         " SMs, driver " + std::to_string(driver_version);
  else
    s += ", " + std::to_string(sm_count) + " logical cores";
  return s + ")";
}

Status tune_device_key(const Context& ctx, TuneDeviceKey* out) {
  *out = TuneDeviceKey{};
  out->backend = backend_name(ctx.backend);
  out->build = tilekit_build_id();
  if (ctx.backend == Backend::kCpu) {
    const CpuInfo cpu = query_cpu();
    out->name = cpu.model.empty() ? "cpu" : cpu.model;
    out->sm_count = cpu.logical_cores;
    return Status::ok();
  }
  DeviceInfo d;
  TILEKIT_RETURN_IF_ERROR(query_device(ctx.device, &d));
  out->name = d.name;
  out->sm_count = d.sm_count;
  out->compute_capability = d.sm_version();
  out->driver_version = d.driver_version;
  return Status::ok();
}

int log2_bucket(int64_t x) {
  if (x <= 1) return 0;
  return static_cast<int>(std::lround(std::log2(static_cast<double>(x))));
}

TuneBucket bucket_of(const GemmProblem& p) {
  TuneBucket b = class_of(p);
  b.log2_m = log2_bucket(p.m);
  b.log2_n = log2_bucket(p.n);
  b.log2_k = log2_bucket(p.k);
  return b;
}

TuneBucket class_of(const GemmProblem& p) {
  TuneBucket b;
  b.op_a = p.op_a;
  b.op_b = p.op_b;
  b.layout = p.layout;
  auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  b.aligned16 = aligned(p.a) && aligned(p.b) && aligned(p.c);
  // Strides in whole 16-byte units: what float4 loads and TMA descriptors need.
  auto ld16 = [](int64_t ld, DType t) { return ld * static_cast<int64_t>(dtype_size(t)) % 16 == 0; };
  b.ld16 = ld16(p.lda, p.types.a) && ld16(p.ldb, p.types.b) && ld16(p.ldc, p.types.c);
  b.types = p.types;
  return b;
}

bool TuneBucket::same_class(const TuneBucket& o) const {
  return op_a == o.op_a && op_b == o.op_b && layout == o.layout && aligned16 == o.aligned16 &&
         ld16 == o.ld16 && types == o.types;
}

int TuneBucket::distance(const TuneBucket& o) const {
  return std::abs(log2_m - o.log2_m) + std::abs(log2_n - o.log2_n) + std::abs(log2_k - o.log2_k);
}

std::string TuneBucket::describe() const {
  auto p2 = [](int e) { return "2^" + std::to_string(e); };
  return std::string(layout_name(layout)) + " " + op_letter(op_a) + op_letter(op_b) + " " +
         p2(log2_m) + "x" + p2(log2_n) + "x" + p2(log2_k) + " " + types_tag(types) +
         (aligned16 ? ", 16-byte aligned" : ", unaligned") +
         (ld16 ? ", ld in 16-byte units" : ", ld not in 16-byte units");
}

void TuneCache::put(const TuneEntry& e) {
  for (auto& old : entries)
    if (old.bucket == e.bucket && old.m == e.m && old.n == e.n && old.k == e.k) {
      old = e;
      return;
    }
  entries.push_back(e);
}

void TuneCache::add_candidates(const TuneEntry& e) {
  auto same_shape = [&](const TuneEntry& old) {
    return old.bucket == e.bucket && old.m == e.m && old.n == e.n && old.k == e.k;
  };
  const auto old = std::find_if(entries.begin(), entries.end(), same_shape);
  if (old == entries.end()) {
    entries.push_back(e);
    return;
  }
  auto same_choice = [](const TuneCandidate& x, const TuneCandidate& y) {
    return x.kernel == y.kernel && x.split_k == y.split_k;
  };
  auto measured_before = [&](const TuneCandidate& n) {
    return std::any_of(old->candidates.begin(), old->candidates.end(),
                       [&](const TuneCandidate& c) { return !c.screened && same_choice(c, n); });
  };
  // A screened time (one cold sample) does not replace a fully measured one.
  std::vector<TuneCandidate> all;
  for (const TuneCandidate& n : e.candidates)
    if (!n.screened || !measured_before(n)) all.push_back(n);
  for (const TuneCandidate& c : old->candidates) {
    const bool measured_again = std::any_of(all.begin(), all.end(), [&](const TuneCandidate& n) {
      return same_choice(c, n);
    });
    if (!measured_again) all.push_back(c);
  }
  // Fully measured ones first, fastest first, as the tuner writes them; then the screened ones.
  std::stable_sort(all.begin(), all.end(), [](const TuneCandidate& x, const TuneCandidate& y) {
    return x.screened != y.screened ? !x.screened : x.time_s < y.time_s;
  });
  old->candidates = std::move(all);
  if (!old->candidates.empty() && !old->candidates.front().screened) {
    old->kernel = old->candidates.front().kernel;
    old->split_k = old->candidates.front().split_k;
    old->time_s = old->candidates.front().time_s;
  }
}

Status tune_cache_dir(std::string* out) {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
  };
  if (std::string d = env("TILEKIT_CACHE_DIR"); !d.empty()) *out = d;
  else if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) *out = x + "/tilekit";
  else if (std::string h = env("HOME"); !h.empty()) *out = h + "/.cache/tilekit";
  else
    return not_supported("tune cache: none of TILEKIT_CACHE_DIR, XDG_CACHE_HOME, HOME is set");
  return Status::ok();
}

std::string tune_cache_file(const std::string& dir, const TuneDeviceKey& key) {
  return dir + "/gemm-" + file_safe(key.name) + "-" + key.backend + "-cc" +
         std::to_string(key.compute_capability) + "-" + std::to_string(key.sm_count) + "sm.json";
}

Status parse_tune_cache(const std::string& text, TuneCache* out) {
  *out = TuneCache{};
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid_argument("not valid JSON (corrupt or truncated)");
  TuneCache parsed;
  TILEKIT_RETURN_IF_ERROR(parse_cache(j, &parsed));
  *out = std::move(parsed);
  return Status::ok();
}

namespace {

// The file's text; *found = false when there is none. A path that exists but cannot be read
// (a directory, no permission) is kIoError: such a cache is reported, never replaced.
Status read_cache_text(const std::string& path, std::string* text, bool* found) {
  struct stat info {};
  *found = ::stat(path.c_str(), &info) == 0;
  if (!*found) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::ok();
    return io_error("tune cache " + path + " cannot be used: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode))
    return io_error("tune cache " + path + " cannot be used: it is " +
                    (S_ISDIR(info.st_mode) ? "a directory" : "not a regular file"));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return io_error("tune cache " + path + " cannot be read: " + std::strerror(errno));
  std::stringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return io_error("tune cache " + path + " cannot be read");
  *text = contents.str();
  return Status::ok();
}

}  // namespace

Status load_tune_cache(const std::string& path, const TuneDeviceKey& expect, TuneCache* out,
                       bool* found) {
  *out = TuneCache{};
  std::string text;
  TILEKIT_RETURN_IF_ERROR(read_cache_text(path, &text, found));
  if (!*found) return Status::ok();
  auto bad = [&](const std::string& why) {
    *out = TuneCache{};
    return invalid_argument("tune cache " + path + " ignored: " + why);
  };
  TuneCache parsed;
  if (Status s = parse_tune_cache(text, &parsed); !s) return bad(s.message());
  if (!parsed.key.same_device(expect))
    return bad("made on " + parsed.key.describe() + ", this is " + expect.describe());
  if (parsed.key.build != expect.build)
    return bad("made by tilekit build " + parsed.key.build + ", this is " + expect.build +
               " (run `tilekit tune` again)");
  *out = std::move(parsed);
  return Status::ok();
}

Status write_tune_cache(const std::string& path, const TuneCache& cache) {
  json j = {{"schema", kSchema}, {"version", kSchemaVersion}, {"device", key_json(cache.key)},
            {"build", cache.key.build}, {"entries", json::array()}};
  for (const auto& e : cache.entries) j["entries"].push_back(entry_json(e));
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return io_error("tune cache: cannot create " + dir.string() + ": " + ec.message());
  return write_output_file(path, j.dump(1) + "\n", "tune cache");
}

Status merge_tune_cache(const std::string& path, const TuneCache& add, TuneMerge how) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return io_error("tune cache: cannot create " + dir.string() + ": " + ec.message());
  FileLock lock(path);
  if (!lock.locked()) return io_error("tune cache: cannot lock " + path + ".lock");
  TuneCache merged;
  bool found = false;
  // A corrupt, foreign or stale file is replaced: its entries are not ours to keep. One that
  // cannot be read is not: it may hold another user's or another build's entries.
  if (Status s = load_tune_cache(path, add.key, &merged, &found); !s) {
    if (s.code() == StatusCode::kIoError) return s;
    merged = TuneCache{};
  }
  merged.key = add.key;
  for (const auto& e : add.entries) {
    if (how == TuneMerge::kAddCandidates)
      merged.add_candidates(e);
    else
      merged.put(e);
  }
  return write_tune_cache(path, merged);
}

}  // namespace tilekit
