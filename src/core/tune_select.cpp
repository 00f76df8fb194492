// tune_select.cpp — kernel "auto" for GEMM: the tuned measurements first, then the static ranking.
//
// Order: the device's tune cache (the measured shapes nearest the one asked for, of the same
// ops, layout, alignment and types; their candidates' times carried to the shape asked for by
// the tile model and ranked over those neighbours, tune_select.hpp), then the table shipped in
// the source, then each one's bf16 entries standing in for f16 (f16_stand_ins), then
// select_kernel's ranking; a product with a short side that the gemv family streams best goes
// there before any of them (pick_streamed). 3xTF32 entries carry their shapes' f32
// candidates too (add_f32_candidates_to_3xtf32). A tuned
// id is only a suggestion: it is run only when it is still registered, is one of tilekit's own
// kernels (a vendor kernel only when allowed), serves the requested types (exactly those, or an
// f32 kernel for the 3xTF32 mode: never a lower precision), and passes every check dispatch
// applies (backend, SM range, can_implement).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/tune_select.hpp"

#include "core/dispatch.hpp"
#include "core/gemv_view.hpp"
#include "tilekit/occupancy.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {
namespace {

struct DeviceTuning {
  TuneCacheInfo info;
  TunedSource cache, shipped;
  // Each one's bf16 entries as f16's (f16_stand_ins): asked only after both found no f16 class.
  TunedSource cache_for_f16, shipped_for_f16;
};

// How many of k's blocks fit on one SM of d: the occupancy of its default launch; 1 where its
// resources are not visible.
int blocks_per_sm_of(const GemmKernel& k, const DeviceInfo& d) {
  KernelResources r;
  OccupancyResult o;
  if (k.resources && k.resources(&r) &&
      compute_occupancy(architecture_of(d),
                        OccupancyQuery{r.block_threads, r.registers_per_thread, r.static_smem_bytes,
                                       r.dynamic_smem_bytes},
                        &o) &&
      o.blocks_per_sm > 0)
    return o.blocks_per_sm;
  return 1;
}

}  // namespace

std::string f16_twin_id(const std::string& bf16_id) {
  const size_t at = bf16_id.find(".bf16");
  if (at == std::string::npos) return std::string();
  const char after = at + 5 < bf16_id.size() ? bf16_id[at + 5] : '\0';
  if (after != '.' && after != '_') return std::string();
  return bf16_id.substr(0, at + 1) + bf16_id.substr(at + 2);
}

std::vector<TuneEntry> f16_stand_ins(const std::vector<TuneEntry>& entries,
                                     const KernelList<GemmKernel>& list) {
  std::vector<TuneEntry> out;
  for (const TuneEntry& e : entries) {
    if (e.bucket.types.a != DType::kBF16 || e.bucket.types.b != DType::kBF16) continue;
    GemmTypes twin_types = e.bucket.types;
    twin_types.a = twin_types.b = DType::kF16;
    const auto twin_of = [&](const std::string& id) {
      const std::string twin = f16_twin_id(id);
      const GemmKernel* k = twin.empty() ? nullptr : list.find(twin);
      return k && k->info.types == twin_types ? twin : std::string();
    };
    TuneEntry f = e;
    f.bucket.types = twin_types;
    f.kernel = twin_of(e.kernel);
    if (f.kernel.empty()) continue;
    f.candidates.clear();
    for (const TuneCandidate& c : e.candidates) {
      TuneCandidate t = c;
      t.kernel = twin_of(c.kernel);
      if (!t.kernel.empty()) f.candidates.push_back(std::move(t));
    }
    out.push_back(std::move(f));
  }
  return out;
}

void add_f32_candidates_to_3xtf32(std::vector<TuneEntry>* entries) {
  std::vector<size_t> f32;
  for (size_t i = 0; i < entries->size(); ++i)
    if ((*entries)[i].bucket.types.compute == Compute::kF32 &&
        (*entries)[i].bucket.types.a == DType::kF32)
      f32.push_back(i);
  for (TuneEntry& e : *entries) {
    if (e.bucket.types.compute != Compute::kF32x3TF32 || e.candidates.empty()) continue;
    TuneBucket as_f32 = e.bucket;
    as_f32.types.compute = Compute::kF32;
    const auto twin = std::find_if(f32.begin(), f32.end(), [&](size_t i) {
      const TuneEntry& o = (*entries)[i];
      return o.bucket == as_f32 && o.m == e.m && o.n == e.n && o.k == e.k;
    });
    if (twin == f32.end()) continue;
    const std::vector<TuneCandidate>& more = (*entries)[*twin].candidates;
    e.candidates.insert(e.candidates.end(), more.begin(), more.end());
    // The tuner's order: the fully measured, fastest first, then the screened.
    std::stable_sort(e.candidates.begin(), e.candidates.end(),
                     [](const TuneCandidate& x, const TuneCandidate& y) {
                       return x.screened != y.screened ? !x.screened : x.time_s < y.time_s;
                     });
    e.kernel = e.candidates.front().kernel;
    e.time_s = e.candidates.front().time_s;
    e.split_k = e.candidates.front().split_k;
  }
}

TileModelDevice tile_model_device(const GemmKernel& k, const DeviceInfo* device) {
  TileModelDevice m;
  if (!device) return m;
  m.sms = device->sm_count;
  m.bytes_per_s = kStreamedDramShare * device->peak_dram_gbps() * 1e9;
  m.blocks_per_sm = blocks_per_sm_of(k, *device);
  return m;
}

bool admissible(const GemmKernel& k, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor) {
  if (k.info.role == KernelRole::kReference) return false;
  if (k.info.role == KernelRole::kVendor && !allow_vendor) return false;
  return static_cast<bool>(check_kernel(k, p, ctx, device));  // types, backend, SM, can_implement
}

namespace {

std::shared_ptr<const DeviceTuning> load_device_tuning(const Context& ctx) {
  auto t = std::make_shared<DeviceTuning>();
  TuneDeviceKey key;
  if (Status s = tune_device_key(ctx, &key); !s) {
    t->info.warning = Status(s.code(), "tune cache not used: " + s.message());
    return t;
  }
  // The device queried once, each kernel's resources once: a table names each kernel often.
  DeviceInfo d;
  const bool gpu = ctx.backend == Backend::kCuda && query_device(ctx.device, &d);
  std::map<const GemmKernel*, TileModelDevice> seen;
  auto model_device = [&](const GemmKernel& k) {
    auto it = seen.find(&k);
    if (it == seen.end()) it = seen.emplace(&k, tile_model_device(k, gpu ? &d : nullptr)).first;
    return it->second;
  };
  // A source's entries as auto reads them: 3xTF32 entries with their shapes' f32 candidates,
  // and the bf16 entries again as f16's stand-ins, a source of their own.
  const KernelList<GemmKernel>& list = Registry::instance().gemm;
  const auto sources_of = [&](const std::string& name, std::vector<TuneEntry> entries,
                              TunedSource* source, TunedSource* for_f16) {
    add_f32_candidates_to_3xtf32(&entries);
    *for_f16 = make_tuned_source(name + ", bf16 entries standing in for f16",
                                 f16_stand_ins(entries, list), list, model_device);
    *source = make_tuned_source(name, std::move(entries), list, model_device);
  };
  std::string made_on;
  std::vector<TuneEntry> shipped = shipped_tune_table(key, &made_on);
  sources_of("shipped table (" + made_on + ")", std::move(shipped), &t->shipped,
             &t->shipped_for_f16);
  std::string dir;
  if (Status s = tune_cache_dir(&dir); !s) {
    t->info.warning = s;
    return t;
  }
  t->info.path = tune_cache_file(dir, key);
  TuneCache cache;
  bool found = false;
  t->info.warning = load_tune_cache(t->info.path, key, &cache, &found);
  t->info.entries = cache.entries.size();
  sources_of("cache " + t->info.path, std::move(cache.entries), &t->cache, &t->cache_for_f16);
  return t;
}

std::mutex g_mutex;
std::map<int, std::shared_ptr<const DeviceTuning>>& loaded() {
  static std::map<int, std::shared_ptr<const DeviceTuning>> m;
  return m;
}

// Loaded once per process and device; afterwards a lookup under an uncontended lock.
std::shared_ptr<const DeviceTuning> device_tuning(const Context& ctx) {
  const int slot = ctx.backend == Backend::kCpu ? -1 : ctx.device;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& m = loaded();
  auto it = m.find(slot);
  if (it != m.end()) return it->second;
  auto t = load_device_tuning(ctx);
  m.emplace(slot, t);
  return t;
}

// x rounded to a whole number as llround does (halves away from zero), for x ≥ 0 and without
// the library call.
uint64_t rounded(double x) {
  const double whole = std::floor(x);
  return static_cast<uint64_t>(whole) + (x - whole >= 0.5 ? 1 : 0);
}

std::string format_time(double s) {
  std::ostringstream o;
  o.precision(3);
  o << s * 1e3 << " ms";
  return o.str();
}

// m, n, k of an entry's measured shape (its bucket's powers of two when it has none).
struct Shape {
  int64_t m, n, k;
};
Shape entry_shape(const TuneEntry& e) {
  const TuneBucket& b = e.bucket;
  return {e.m ? e.m : int64_t{1} << b.log2_m, e.n ? e.n : int64_t{1} << b.log2_n,
          e.k ? e.k : int64_t{1} << b.log2_k};
}

// ShapePlace (tune_select.hpp): log2 of m, n and k (of 1 for 0), and whether each is a multiple
// of 16. Kernels take their fast paths when the sizes divide their tiles (on the H200 the cp.async
// steps 08–10 ran 1500³ in 0.32 ms, step 07 in 0.22: at 1408³ all three were within 3 %), so a
// shape whose sizes divide differently is half an octave further away in each such size.
constexpr double kDivisibilityDistance = 0.5;

ShapePlace place_of(const Shape& s) {
  auto l = [](int64_t x) { return std::log2(static_cast<double>(std::max<int64_t>(x, 1))); };
  auto divides = [](int64_t x) { return x % 16 == 0 ? 1.0 : 0.0; };
  return {{l(s.m), l(s.n), l(s.k)}, {divides(s.m), divides(s.n), divides(s.k)}};
}

// The distance from `at` to each entry of `cls`, by position (tune_select.hpp: the sum of
// |Δ log2| of m, n and k, plus kDivisibilityDistance for each size that divides by 16
// differently), into `out`: one loop over the class's arrays, which vectorizes. Each entry's
// terms are added in the order m, n, k, the same sum whichever loop computes it.
void class_distances(const TunedClass& cls, const ShapePlace& at, std::vector<double>* out) {
  const size_t count = cls.entries.size();
  out->resize(count);
  double* const d = out->data();
  const double *lm = cls.log2[0].data(), *ln = cls.log2[1].data(), *lk = cls.log2[2].data();
  const double *fm = cls.multiple_of_16[0].data(), *fn = cls.multiple_of_16[1].data(),
               *fk = cls.multiple_of_16[2].data();
  for (size_t e = 0; e < count; ++e)
    d[e] = (std::abs(lm[e] - at.log2[0]) +
            kDivisibilityDistance * std::abs(fm[e] - at.multiple_of_16[0])) +
           (std::abs(ln[e] - at.log2[1]) +
            kDivisibilityDistance * std::abs(fn[e] - at.multiple_of_16[1])) +
           (std::abs(lk[e] - at.log2[2]) +
            kDivisibilityDistance * std::abs(fk[e] - at.multiple_of_16[2]));
}

// C's rows and columns as the kernels compute them (a column-major problem is its transpose).
Shape row_major_view(const Shape& s, Layout layout) {
  return layout == Layout::kRowMajor ? s : Shape{s.n, s.m, s.k};
}

}  // namespace

// Appends `v` in decimal: integer to_chars, no locale or format parsing.
void append_decimal(std::string* s, uint64_t v) {
  char text[24];
  s->append(text, std::to_chars(text, text + sizeof text, v).ptr);
}

// Appends `d` (≥ 0) with two significant digits, as "%.2g" writes it. The explanation is built on
// every call that searches, and to_chars's general format (an exact decimal expansion) was a
// third of building it. So values from 0.001 to 99 are rounded here to two digits (whole units,
// tenths, hundredths…), and to_chars writes the rest: values outside that range, those that
// round up to a third digit, and those within 1e-6 of a halfway point, where the product's own
// rounding might decide. TuneSelect.TwoDigitsAsPrintfWrites compares the two.
void append_two_digits(std::string* s, double d) {
  int decimals = 0;  // in "%.2g"'s fixed notation: 1 − d's decimal exponent
  double scale = 1;
  for (; decimals <= 4 && d * scale < 10; ++decimals) scale *= 10;
  const double scaled = d * scale, whole = std::floor(scaled), frac = scaled - whole;
  const int digits = static_cast<int>(whole) + (frac > 0.5 ? 1 : 0);
  if (decimals > 4 || digits >= 100 || std::abs(frac - 0.5) < 1e-6) {
    char text[32];
    s->append(text, std::to_chars(text, text + sizeof text, d, std::chars_format::general, 2).ptr);
    return;
  }
  const char high = static_cast<char>('0' + digits / 10);
  const char low = static_cast<char>('0' + digits % 10);
  if (decimals == 0) {  // 10 to 99
    *s += high;
    *s += low;
    return;
  }
  if (decimals == 1) {  // 1.0 to 9.9
    *s += high;
  } else {  // 0.10 to 0.99, 0.010 to 0.099, 0.0010 to 0.0099
    *s += "0.";
    s->append(static_cast<size_t>(decimals - 2), '0');
    *s += high;
  }
  if (low == '0') return;  // "%g" drops trailing zeros
  if (decimals == 1) *s += '.';
  *s += low;
}

namespace {

// The number of `model` with `split` (the split a choice runs) in s.models, added when new.
uint32_t number_model(TunedSource* s, const TileModelKernel& model, int split) {
  for (size_t at = 0; at < s->models.size(); ++at)
    if (s->models[at] == model && s->model_splits[at] == split) return static_cast<uint32_t>(at);
  s->models.push_back(model);
  s->model_splits.push_back(split);
  const size_t tiling = static_cast<size_t>(
      std::find(s->tilings.begin(), s->tilings.end(), model.tile) - s->tilings.begin());
  if (tiling == s->tilings.size()) s->tilings.push_back(model.tile);
  s->model_tilings.push_back(static_cast<uint32_t>(tiling));
  return static_cast<uint32_t>(s->models.size() - 1);
}

// Puts member `at` into the bit set of 64-bit words at `words`.
void add_to_set(uint64_t* words, size_t at) { words[at / 64] |= uint64_t{1} << (at % 64); }

// Eight doubles (or floats) at once, as GCC's and Clang's vector extensions give them: one
// AVX-512 register in the x86-64-v4 build of the search, two in v3's, four in the baseline's.
// The walk over a row is written in these because GCC did not vectorize it as plain loops: a
// floating-point minimum is a reduction it reorders only under -ffast-math, and loops of ~50
// spent as long in their remainders as in their vector bodies.
constexpr size_t kLanes = 8;
using Doubles = double __attribute__((vector_size(kLanes * sizeof(double))));
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));

Doubles load_doubles(const double* from) {
  Doubles v;
  std::memcpy(&v, from, sizeof v);
  return v;
}
void store(const Doubles& v, double* to) { std::memcpy(to, &v, sizeof v); }
Doubles all(double x) { return Doubles{} + x; }

// The class's choices, their models and its entries' rows of times per unit of work
// (TunedClass::choices, per_work_s), from the source's resolved candidates.
void dense_rows(const TunedSource& s, TunedClass* cls) {
  for (const size_t i : cls->entries)
    for (const ResolvedCandidate& c : s.candidates[i])
      cls->choices.push_back(static_cast<uint32_t>(c.choice));
  std::sort(cls->choices.begin(), cls->choices.end());
  cls->choices.erase(std::unique(cls->choices.begin(), cls->choices.end()), cls->choices.end());
  for (const uint32_t ch : cls->choices) cls->choice_models.push_back(s.choice_models[ch]);
  const size_t count = (cls->choices.size() + kLanes - 1) / kLanes * kLanes;
  cls->width = count;
  cls->choice_models.resize(count, 0);
  cls->per_work_s.assign(cls->entries.size() * count, 0);
  for (size_t at = 0; at < cls->entries.size(); ++at)
    for (const ResolvedCandidate& c : s.candidates[cls->entries[at]]) {
      const size_t d = static_cast<size_t>(
          std::lower_bound(cls->choices.begin(), cls->choices.end(), c.choice) -
          cls->choices.begin());
      cls->per_work_s[at * count + d] = c.per_work_s;
    }
}

}  // namespace

TunedSource make_tuned_source(
    std::string name, std::vector<TuneEntry> entries, const KernelList<GemmKernel>& list,
    const std::function<TileModelDevice(const GemmKernel&)>& model_device) {
  TunedSource s;
  s.name = std::move(name);
  s.entries = std::move(entries);
  for (size_t i = 0; i < s.entries.size(); ++i) {
    const TuneEntry& e = s.entries[i];
    auto group = std::find_if(s.classes.begin(), s.classes.end(),
                              [&](const TunedClass& c) { return c.bucket.same_class(e.bucket); });
    if (group == s.classes.end()) {
      group = s.classes.insert(s.classes.end(), TunedClass{});
      group->bucket = e.bucket;
    }
    group->entries.push_back(i);
    const ShapePlace place = place_of(entry_shape(e));
    for (size_t d = 0; d < 3; ++d) {
      group->log2[d].push_back(place.log2[d]);
      group->multiple_of_16[d].push_back(place.multiple_of_16[d]);
    }
    s.kernels.push_back(list.find(e.kernel));
    std::vector<ResolvedCandidate> resolved;
    const Shape at = row_major_view(entry_shape(e), e.bucket.layout);
    for (const TuneCandidate& c : e.candidates) {
      const GemmKernel* k = list.find(c.kernel);
      if (!k) continue;
      ResolvedCandidate r;
      r.kernel = k;
      r.split_k = c.split_k;
      r.time_s = c.time_s;
      const TunedChoice choice{k, takes_run_time_split_k(k->info) ? c.split_k : 0};
      r.choice = static_cast<size_t>(std::find(s.choices.begin(), s.choices.end(), choice) -
                                     s.choices.begin());
      if (r.choice == s.choices.size()) {
        s.choices.push_back(choice);
        s.choice_models.push_back(number_model(
            &s,
            tile_model_kernel(k->info.tiling,
                              model_device ? model_device(*k) : TileModelDevice{}),
            choice.split_k));
      }
      r.note = ": " + c.kernel +
               (c.split_k > 0 ? " with split-k " + std::to_string(c.split_k) : "") + " took " +
               format_time(c.time_s) + " there";
      r.per_work_s = seconds_per_work(c.time_s, tile_model_cost(s.models[s.choice_models[r.choice]],
                                                                c.split_k, at.m, at.n, at.k));
      // One candidate per choice, the fastest (the first of equals): a kernel that takes no
      // run-time split was measured at several, all one choice whose model ignores the split,
      // so the others never decide anything and would only lengthen every search.
      const auto same = std::find_if(resolved.begin(), resolved.end(), [&](const auto& o) {
        return o.choice == r.choice;
      });
      if (same == resolved.end())
        resolved.push_back(std::move(r));
      else if (r.time_s < same->time_s)
        *same = std::move(r);
    }
    group->has_candidates.push_back(!resolved.empty());
    s.candidates.push_back(std::move(resolved));
    s.notes.push_back(s.name + ", " + e.bucket.describe() +
                      (e.m ? " measured at " + std::to_string(e.m) + "x" + std::to_string(e.n) +
                                 "x" + std::to_string(e.k)
                           : std::string()));
  }
  for (TunedClass& cls : s.classes) dense_rows(s, &cls);
  // Each entry's set of models, as bits: a selection lists the union of its neighbours' sets.
  s.model_set_words = (s.models.size() + 63) / 64;
  s.model_sets.assign(s.entries.size() * s.model_set_words, 0);
  for (size_t i = 0; i < s.entries.size(); ++i)
    for (const ResolvedCandidate& c : s.candidates[i])
      add_to_set(&s.model_sets[i * s.model_set_words], s.choice_models[c.choice]);
  return s;
}

namespace {

// Per thread, reused: a selection allocates no list of its own.
std::vector<double>& carried_scratch() {
  thread_local std::vector<double> scratch;
  return scratch;
}

// Entry i's candidates' times carried to `want` by the tile model, in the entry's order.
void carried_times(const TunedSource& src, size_t i, Shape want, Layout layout,
                   std::vector<double>* out) {
  want = row_major_view(want, layout);
  out->clear();
  for (const ResolvedCandidate& c : src.candidates[i]) {
    const TileModelKernel& model = src.models[src.choice_models[c.choice]];
    out->push_back(
        carry_time(c.per_work_s, tile_model_cost(model, c.split_k, want.m, want.n, want.k)));
  }
}

// Candidate c chosen, with the split it runs (none for a kernel that takes no run-time split);
// no explanation yet.
void choose(const ResolvedCandidate& c, Selection<GemmProblem>* out) {
  out->kernel = c.kernel;
  out->split_k = takes_run_time_split_k(c.kernel->info) ? c.split_k : 0;
  out->reason.clear();
}

// The explanation of candidate c of entry i, carried to p's shape in `carried_s` (in whole
// microseconds, appended as digits: it is built on every call that searches).
void describe_choice(const TunedSource& src, size_t i, const ResolvedCandidate& c,
                     double carried_s, Selection<GemmProblem>* out) {
  out->reason = src.notes[i];
  out->reason += c.note;
  out->reason += ", ";
  append_decimal(&out->reason, rounded(carried_s * 1e6));
  out->reason += " us by the tile model here";
}

void append_distance(double distance, Selection<GemmProblem>* out) {
  if (distance == 0) {
    out->reason += " (this shape)";
    return;
  }
  out->reason += " (nearest shape, distance ";  // in pieces: no temporary string to allocate
  append_two_digits(&out->reason, distance);
  out->reason += ')';
}

// The entry's choice for p: its admissible candidate of least carried time (tried in that order;
// the first nearly always passes, so there is no sort), else, when the entry recorded no
// candidates, its winner when admissible.
bool choose_from_entry(const TunedSource& src, size_t i, const GemmProblem& p, const Context& ctx,
                       const DeviceInfo* device, bool allow_vendor, bool explain,
                       Selection<GemmProblem>* out) {
  const TuneEntry& e = src.entries[i];
  const std::vector<ResolvedCandidate>& candidates = src.candidates[i];
  if (candidates.empty()) {
    const GemmKernel* k = src.kernels[i];
    if (!k || !admissible(*k, p, ctx, device, allow_vendor)) return false;
    out->kernel = k;
    out->split_k = takes_run_time_split_k(k->info) ? e.split_k : 0;
    out->reason.clear();
    if (explain)
      out->reason =
          src.notes[i] + ": its winner, " + format_time(e.time_s) +
          (out->split_k > 0 ? " with split-k " + std::to_string(out->split_k) : std::string());
    return true;
  }
  std::vector<double>& carried = carried_scratch();
  carried_times(src, i, {p.m, p.n, p.k}, p.layout, &carried);
  for (size_t tried = 0; tried < candidates.size(); ++tried) {
    const size_t best =
        static_cast<size_t>(std::min_element(carried.begin(), carried.end()) - carried.begin());
    const ResolvedCandidate& c = candidates[best];
    const double carried_s = carried[best];
    carried[best] = HUGE_VAL;
    if (!admissible(*c.kernel, p, ctx, device, allow_vendor)) continue;
    choose(c, out);
    if (explain) describe_choice(src, i, c, carried_s, out);
    return true;
  }
  return false;
}

// A neighbour: an entry of the class asked about, by its number in the source and its position
// in the class.
struct Neighbour {
  double distance = 0;
  size_t entry = 0, at = 0;
};

// The ensemble's scratch, per thread and reused: a selection allocates nothing of its own.
struct EnsembleScratch {
  std::vector<double> distance;  // to each entry of the class asked about, by position
  std::vector<Neighbour> nearest;  // nearest first
  // Per model, set for the neighbours' models only (a search does not clear an array as long as
  // all the source's models): the tile model at the shape asked for, computed once per selection
  // however many choices and neighbours use it.
  std::vector<TileModelCost> at_want;
  std::vector<TileCounts> counts;  // per tiling (TunedSource::tilings), at the shape asked for
  std::vector<uint32_t> named_models;  // the models of the neighbours' candidates, ascending
  // Per choice of the class (TunedClass::choices, `width` of them): its model at the shape asked
  // for, in two arrays (a row's loops read them as vectors); 0 plus Σ w·(log cap − log capped
  // ratio) over the neighbours that measured it, −∞ where none did; and each neighbour's carried
  // time, in rows of `width` (carry_row).
  std::vector<double> busiest_sm_work, reduction_s, credit, carried;

  // Ready for a selection over the source's models and tilings and a class of `choices`.
  void start(const TunedSource& src, size_t choices) {
    counts.resize(src.tilings.size());
    at_want.resize(src.models.size());
    if (credit.size() < choices) {
      for (auto* a : {&busiest_sm_work, &reduction_s, &credit}) a->resize(choices);
      carried.resize(kTunedNeighbours * choices);
    }
    named_models.clear();
  }
};
// The index of the lowest set bit of a nonzero word (C++20's countr_zero).
int lowest_bit(uint64_t word) { return __builtin_ctzll(word); }

// Not inlined, so that the search holds the scratch's address as a plain pointer: inlined, GCC
// recomputed the thread-local address (a call to __tls_get_addr in a shared library) wherever it
// was used, in each pass over each neighbour's row.
__attribute__((noinline)) EnsembleScratch& ensemble_scratch() {
  thread_local EnsembleScratch scratch;
  return scratch;
}

// Up to kTunedNeighbours entries of `cls` that have candidates, nearest first (ties by index),
// into scratch.nearest, from the class's distances (class_distances); false when the nearest
// entry of all has none (a cache of winners only). Entries come in ascending index, so a strict
// comparison of distances keeps the earlier entry of a tie. The nearest three are kept in
// variables by selects rather than by an insertion loop over an array (GCC makes some of the
// selects conditional moves, some branches): f32 searches 0.61 → 0.60 µs and bf16 0.285 → 0.273
// on the development machine, measured against the loop.
static_assert(kTunedNeighbours == 3, "nearest_with_candidates keeps three");
bool nearest_with_candidates(const TunedClass& cls, const std::vector<double>& distance,
                             EnsembleScratch* scratch) {
  double nearest_any = HUGE_VAL;
  size_t nearest_any_at = 0;
  double d0 = HUGE_VAL, d1 = HUGE_VAL, d2 = HUGE_VAL;  // the nearest three with candidates
  size_t at0 = 0, at1 = 0, at2 = 0;
  for (size_t at = 0; at < distance.size(); ++at) {
    const double d = distance[at];
    const bool nearer = d < nearest_any;
    nearest_any = nearer ? d : nearest_any;
    nearest_any_at = nearer ? at : nearest_any_at;
    const double c = cls.has_candidates[at] ? d : HUGE_VAL;  // distances are finite
    const bool before0 = c < d0, before1 = c < d1, before2 = c < d2;
    d2 = before1 ? d1 : before2 ? c : d2;
    at2 = before1 ? at1 : before2 ? at : at2;
    d1 = before0 ? d0 : before1 ? c : d1;
    at1 = before0 ? at0 : before1 ? at : at1;
    d0 = before0 ? c : d0;
    at0 = before0 ? at : at0;
  }
  scratch->nearest.clear();
  for (const auto& [d, at] : {std::pair<double, size_t>{d0, at0}, {d1, at1}, {d2, at2}})
    if (d < HUGE_VAL) scratch->nearest.push_back({d, cls.entries[at], at});
  return !scratch->nearest.empty() && at0 == nearest_any_at;
}

// Lists the models of the neighbours' candidates (the union of their TunedSource::model_sets)
// in ascending number and models each at p's shape (at_want), once, from its tiling's counts;
// then gives each choice of the class its model's figures. In loops of their own, so that the
// rows' walks that follow are all arithmetic. A choice whose model no neighbour names reads a
// model of an earlier search (or zeros), finite whatever it is, and is carried as ∞ by every
// neighbour (its rows have no time for it), which keeps it out of every sum.
void model_choices(const TunedSource& src, const TunedClass& cls, const GemmProblem& p,
                   EnsembleScratch* sc) {
  const Shape want = row_major_view({p.m, p.n, p.k}, p.layout);
  const size_t words = src.model_set_words;
  for (size_t w = 0; w < words; ++w) {
    uint64_t set = 0;
    for (const Neighbour& near : sc->nearest) set |= src.model_sets[near.entry * words + w];
    for (; set != 0; set &= set - 1)
      sc->named_models.push_back(static_cast<uint32_t>(64 * w + size_t(lowest_bit(set))));
  }
  for (size_t t = 0; t < src.tilings.size(); ++t)
    sc->counts[t] = src.tilings[t].counts(want.m, want.n, want.k);
  for (const uint32_t model : sc->named_models)
    sc->at_want[model] = tile_model_cost(src.models[model], src.model_splits[model], want.m,
                                         want.n, want.k, sc->counts[src.model_tilings[model]]);
  for (size_t d = 0; d < cls.width; ++d) {
    const TileModelCost& model = sc->at_want[cls.choice_models[d]];
    sc->busiest_sm_work[d] = model.busiest_sm_work;
    sc->reduction_s[d] = model.reduction_s;
  }
}

// The greatest of a row's `count` values (a multiple of kLanes): a maximum is exact in any order.
double greatest_of(const double* row, size_t count) {
  Doubles most = all(-HUGE_VAL);
  for (size_t d = 0; d < count; d += kLanes) {
    const Doubles v = load_doubles(row + d);
    most = v > most ? v : most;
  }
  double out = -HUGE_VAL;
  for (size_t l = 0; l < kLanes; ++l) out = std::max(out, most[l]);
  return out;
}

// Neighbour j's (scratch.nearest[j]) row (TunedClass::per_work_s) carried to p's shape, eight
// choices at a time, into its row of the scratch's `carried` (carry_time; ∞ where the row has no
// time); returns their least (a minimum is exact in any order).
double carry_row(const TunedClass& cls, size_t j, EnsembleScratch* sc) {
  const size_t count = cls.width;
  const double* const per_work_s = cls.per_work_s.data() + sc->nearest[j].at * count;
  const double* const busiest = sc->busiest_sm_work.data();
  const double* const reduction = sc->reduction_s.data();
  double* const carried = sc->carried.data() + j * count;
  Doubles least_lanes = all(HUGE_VAL);
  for (size_t d = 0; d < count; d += kLanes) {
    const Doubles per_work = load_doubles(per_work_s + d);
    const Doubles time =
        carry_time(per_work, load_doubles(busiest + d), load_doubles(reduction + d));
    const Doubles measured = per_work > 0 ? time : all(HUGE_VAL);
    store(measured, carried + d);
    least_lanes = measured < least_lanes ? measured : least_lanes;
  }
  double least = HUGE_VAL;
  for (size_t l = 0; l < kLanes; ++l) least = std::min(least, least_lanes[l]);
  return least;
}

// The choices' credit (tune_select.hpp): for each, over the neighbours that measured it, in
// their order, w · (log cap − log min(ratio, cap)), with ratio its carried time over that
// neighbour's least. Every row is carried first (carry_row), so that the neighbours' chains of
// work overlap; then the credit of eight choices at a time, over the neighbours in turn. A
// choice's credit is −∞ until a neighbour measures it, then 0 plus what each neighbour that
// measured it adds: so the sums are exactly those of a walk over the candidates alone, and a
// choice no neighbour measured ranks below every other. The scratch is read through raw
// pointers taken once.
void credit_choices(const TunedClass& cls, EnsembleScratch* sc) {
  const size_t count = cls.width, neighbours = sc->nearest.size();
  std::array<double, kTunedNeighbours> least{}, weight{};
  std::array<float, kTunedNeighbours> least_f{};
  for (size_t j = 0; j < neighbours; ++j) {
    least[j] = carry_row(cls, j, sc);
    least_f[j] = static_cast<float>(least[j]);
    const double near = sc->nearest[j].distance + 0.1;  // weight 1 / (distance + 0.1)³
    weight[j] = 1.0 / (near * near * near);
  }
  const double* const carried = sc->carried.data();
  double* const credit = sc->credit.data();
  const float log_cap = std::log(static_cast<float>(kTunedMissingRatio));
  for (size_t d = 0; d < count; d += kLanes) {
    Doubles sum = all(-HUGE_VAL);
    for (size_t j = 0; j < neighbours; ++j) {
      // A ratio past the cap gets no credit, so its y, in [0.5, 1), goes through the series but
      // is not used; a choice not measured (∞) goes through it as the least, y = 0, unused too.
      const Doubles time = load_doubles(carried + j * count + d);
      const Floats time_f =
          __builtin_convertvector(time < HUGE_VAL ? time : all(least[j]), Floats);
      const Floats log_ratio = log_of_ratio((time_f - least_f[j]) / (time_f + least_f[j]));
      const Doubles gain = time < kTunedMissingRatio * least[j]
                               ? weight[j] * __builtin_convertvector(log_cap - log_ratio, Doubles)
                               : all(0.0);
      const Doubles from_zero = sum == -HUGE_VAL ? all(0.0) : sum;
      sum = time < HUGE_VAL ? from_zero + gain : sum;
    }
    store(sum, credit + d);
  }
}

// Chooses `ch` as the nearest neighbour that measured it names it (a choice is a kernel and a
// split, but a kernel that takes no run-time split was measured at the split it ignores), and,
// when asked, explains it by that candidate carried to the shape asked for. Found after the
// ranking, for the winner alone, so that the search does not track it for every choice.
void choose_by_nearest(const TunedSource& src, const EnsembleScratch& sc, size_t ch, bool explain,
                       Selection<GemmProblem>* out) {
  for (const Neighbour& near : sc.nearest) {
    const std::vector<ResolvedCandidate>& candidates = src.candidates[near.entry];
    const auto from = std::find_if(candidates.begin(), candidates.end(),
                                   [&](const ResolvedCandidate& c) { return c.choice == ch; });
    if (from == candidates.end()) continue;
    choose(*from, out);
    if (!explain) return;
    describe_choice(src, near.entry, *from,
                    carry_time(from->per_work_s, sc.at_want[src.choice_models[ch]]), out);
    append_distance(near.distance, out);
    if (sc.nearest.size() > 1) {
      out->reason += "; ranked over the ";
      append_decimal(&out->reason, sc.nearest.size());
      out->reason += " nearest measured shapes";
    }
    return;
  }
}

// The ensemble of the nearest entries with candidates (tune_select.hpp): its admissible choice of
// most credit, explained by the nearest neighbour that measured it. False when the nearest entry
// has no candidates or no choice is admissible.
bool choose_by_ensemble(const TunedSource& src, const TunedClass& cls, const GemmProblem& p,
                        const Context& ctx, const DeviceInfo* device, bool allow_vendor,
                        bool explain, EnsembleScratch& sc, Selection<GemmProblem>* out) {
  if (!nearest_with_candidates(cls, sc.distance, &sc)) return false;
  sc.start(src, cls.width);
  model_choices(src, cls, p, &sc);
  credit_choices(cls, &sc);
  // Most credit first (ties: the lower number, the choice met first in the source), tried until
  // one is admissible; only the measured ones are tried (the others' credit is −∞).
  const double* const credit = sc.credit.data();
  for (;;) {
    const double most = greatest_of(credit, cls.width);
    if (most == -HUGE_VAL) return false;
    const size_t best =
        static_cast<size_t>(std::find(credit, credit + cls.width, most) - credit);
    sc.credit[best] = -HUGE_VAL;
    const uint32_t ch = cls.choices[best];
    if (!admissible(*src.choices[ch].kernel, p, ctx, device, allow_vendor)) continue;
    choose_by_nearest(src, sc, ch, explain, out);
    return true;
  }
}

}  // namespace

// gemm() searches on every call at a shape it has not met, so the search is built three times,
// for x86-64-v4 (AVX-512), v3 (AVX2) and the baseline, and the loader runs the one the CPU
// supports (GCC's function multi-versioning); `flatten` inlines the search's helpers into each, or
// they would run as baseline code. Each computes exactly what the baseline computes: the file is
// compiled without FMA contraction (CMakeLists.txt). On the development machine (Zen 4) this took
// an f32 search from 0.83 to 0.73 us, and bf16 from 0.39 to 0.34.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 11
#define TILEKIT_SEARCH_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define TILEKIT_SEARCH_CLONES
#endif

TILEKIT_SEARCH_CLONES
bool pick_tuned(const TunedSource& src, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor, Selection<GemmProblem>* out,
                bool explain) {
  if (src.entries.empty()) return false;
  const TuneBucket want = class_of(p);
  const auto cls = std::find_if(src.classes.begin(), src.classes.end(),
                                [&](const TunedClass& c) { return c.bucket.same_class(want); });
  if (cls == src.classes.end()) return false;
  EnsembleScratch& sc = ensemble_scratch();
  class_distances(*cls, place_of({p.m, p.n, p.k}), &sc.distance);
  if (choose_by_ensemble(src, *cls, p, ctx, device, allow_vendor, explain, sc, out)) return true;
  // Entries in (distance, index) order, found by repeated scans rather than a sorted copy: the
  // nearest entry nearly always has an admissible choice. (choose_from_entry leaves the
  // distances alone.)
  std::pair<double, size_t> after{-1, 0};
  for (;;) {
    std::pair<double, size_t> next{HUGE_VAL, 0};
    for (size_t at = 0; at < cls->entries.size(); ++at) {
      const std::pair<double, size_t> here{sc.distance[at], cls->entries[at]};
      if (here > after && here < next) next = here;
    }
    if (next.first == HUGE_VAL) return false;
    after = next;
    if (!choose_from_entry(src, next.second, p, ctx, device, allow_vendor, explain, out)) continue;
    if (explain) append_distance(next.first, out);
    return true;
  }
}

namespace {

// A tuned selection this thread made, for later calls at the same shape: keyed by everything
// the search and the model read, and by the tuning data it came from, which it holds so that a
// reload cannot alias it.
struct RememberedSelection {
  std::shared_ptr<const DeviceTuning> tuning;
  TuneBucket bucket;  // class_of: the sizes are compared as they are
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  Backend backend = Backend::kCpu;
  int device = 0;
  bool allow_vendor = false;
  Selection<GemmProblem> selection;
  bool explained = false;  // whether selection.reason was written (pick_tuned's `explain`)

  bool matches(const std::shared_ptr<const DeviceTuning>& t, const GemmProblem& p,
               const TuneBucket& b, const Context& ctx, bool vendor) const {
    return tuning == t && m == p.m && n == p.n && k == p.k && lda == p.lda && ldb == p.ldb &&
           ldc == p.ldc && backend == ctx.backend && device == ctx.device &&
           allow_vendor == vendor && bucket.same_class(b);
  }
};

// The thread's last kRememberedTunedShapes (tune_cache.hpp) tuned selections, the oldest
// replaced first: a training step asks for a handful of shapes (a layer's forward and backward
// GEMMs) over and over, and each then searches only once.
struct RememberedSelections {
  std::array<RememberedSelection, kRememberedTunedShapes> slots;
  size_t next = 0;

  RememberedSelection* find(const std::shared_ptr<const DeviceTuning>& t, const GemmProblem& p,
                            const TuneBucket& b, const Context& ctx, bool vendor) {
    for (RememberedSelection& r : slots)
      if (r.selection.kernel && r.matches(t, p, b, ctx, vendor)) return &r;
    return nullptr;
  }
  // Into `stale` (the slot of this key whose kernel no longer passed: alpha and beta are not in
  // the key) when there is one, so that a key never holds two slots; else the oldest slot.
  void add(RememberedSelection r, RememberedSelection* stale) {
    if (stale) {
      *stale = std::move(r);
      return;
    }
    slots[next] = std::move(r);
    next = (next + 1) % slots.size();
  }
};

// A product whose C has a short side (the gemv form, core/gemv_view.hpp) reads its other
// operand once and does a few FLOPs per element of it: its time is that operand's bytes over the
// memory bandwidth. Where W's lines run along k (a decode step's x·Wᵀ, A·b with A row-major),
// the gemv family streams W faster than the tiled kernels: 16-bit inputs on the tensor cores up
// to 16 rows; FP32 inputs in FP32 FMAs (the f32 and 3xTF32 modes) up to 8 rows, past which the
// tiled split-K kernels win. Where X's rows do not run along k either (op(A) = Aᵀ for C's rows),
// its elements are gathered one at a time, which pays only up to 4 rows. The tf32 mode is left
// to the tensor-core tiles: its baseline is on the tensor cores too, and FP32 FMAs lose to them.
// There such a product goes to the highest-ranked gemv kernel that runs it, before any tuned
// entry is asked (the tuned tables hold no measurements of the family); everywhere else the
// tables and the ranking decide. docs/tuning.md has the measurements behind these limits.
constexpr int64_t kStreamedRows16Bit = 16;
constexpr int64_t kStreamedRowsF32 = 8;
constexpr int64_t kStreamedRowsGathered = 4;

bool streams_best(const GemmProblem& p) {
  if (p.types.compute == Compute::kTF32) return false;
  GemvView v;
  const int64_t most = p.types.a == DType::kF32 ? kStreamedRowsF32 : kStreamedRows16Bit;
  if (!gemv_view(p, most, &v).is_ok() || !v.w_along_k) return false;
  return v.x_step == 1 || v.rows <= kStreamedRowsGathered;
}

bool pick_streamed(const KernelList<GemmKernel>& list, const GemmProblem& p, const Context& ctx,
                   const DeviceInfo* device, bool allow_vendor, bool explain,
                   Selection<GemmProblem>* out) {
  if (!streams_best(p)) return false;
  const GemmKernel* best = nullptr;
  for (const GemmKernel& k : list.all())
    if (k.info.family == "gemv" && k.info.types == p.types && k.info.backend == ctx.backend &&
        (!best || k.info.auto_rank > best->info.auto_rank) &&
        admissible(k, p, ctx, device, allow_vendor))
      best = &k;
  if (!best) return false;
  out->kernel = best;
  out->split_k = 0;
  if (explain)
    out->reason = "streamed: C's short side of " + std::to_string(std::min(p.m, p.n)) +
                  " with W's lines along k: W read once, at the memory's rate";
  else
    out->reason.clear();
  return true;
}

}  // namespace

Status select_auto(const KernelList<GemmKernel>& list, const GemmProblem& p, const Context& ctx,
                   const DeviceInfo* device, bool allow_vendor, const char* op,
                   Selection<GemmProblem>* out, bool explain) {
  const auto tuning = device_tuning(ctx);
  const TuneBucket bucket = class_of(p);
  thread_local RememberedSelections remembered;
  // A remembered kernel still passes every check on this problem (alpha and beta are not in
  // the key), exactly as a fresh choice would.
  // One remembered without its explanation is searched again when one is asked for.
  RememberedSelection* r = remembered.find(tuning, p, bucket, ctx, allow_vendor);
  if (r && admissible(*r->selection.kernel, p, ctx, device, allow_vendor) &&
      (r->explained || !explain)) {
    out->kernel = r->selection.kernel;
    out->split_k = r->selection.split_k;
    if (explain)
      out->reason = r->selection.reason;
    else
      out->reason.clear();
    return Status::ok();
  }
  if (pick_streamed(list, p, ctx, device, allow_vendor, explain, out)) return Status::ok();
  if (pick_tuned(tuning->cache, p, ctx, device, allow_vendor, out, explain) ||
      pick_tuned(tuning->shipped, p, ctx, device, allow_vendor, out, explain) ||
      pick_tuned(tuning->cache_for_f16, p, ctx, device, allow_vendor, out, explain) ||
      pick_tuned(tuning->shipped_for_f16, p, ctx, device, allow_vendor, out, explain)) {
    remembered.add(RememberedSelection{tuning, bucket, p.m, p.n, p.k, p.lda, p.ldb, p.ldc,
                                       ctx.backend, ctx.device, allow_vendor, *out, explain},
                   r);
    return Status::ok();
  }
  TILEKIT_RETURN_IF_ERROR(select_kernel(list, p, ctx, device, allow_vendor, op, out));
  if (explain)
    out->reason = "ranking: " + out->reason;
  else
    out->reason.clear();
  return Status::ok();
}

bool cache_measured(const GemmProblem& p, const Context& ctx) {
  const auto tuning = device_tuning(ctx);
  const TuneBucket bucket = bucket_of(p);
  for (const TuneEntry& e : tuning->cache.entries)
    if (e.m == p.m && e.n == p.n && e.k == p.k && e.bucket == bucket) return true;
  return false;
}

bool streamed_rule_takes(const GemmProblem& p, const Context& ctx, const DeviceInfo* device,
                         bool allow_vendor) {
  Selection<GemmProblem> unused;
  return pick_streamed(Registry::instance().gemm, p, ctx, device, allow_vendor, false, &unused);
}

Status tune_cache_info(const Context& ctx, TuneCacheInfo* out) {
  *out = device_tuning(ctx)->info;
  return Status::ok();
}

int tile_model_blocks_per_sm(const std::string& kernel_id, const DeviceInfo& device) {
  const GemmKernel* k = Registry::instance().gemm.find(kernel_id);
  return k ? blocks_per_sm_of(*k, device) : 1;
}

void reload_tune_caches() {
  std::lock_guard<std::mutex> lock(g_mutex);
  loaded().clear();
}

std::vector<TuneEntry> shipped_tune_table(const TuneDeviceKey& key, std::string* made_on) {
  // Parsed once per process; a table that does not parse is a build defect that
  // ShippedTuneTables.ParseAndNameOwnKernelsOfTheirTypes reports, and is skipped here.
  static const std::vector<TuneCache> tables = [] {
    std::vector<TuneCache> out;
    for (const ShippedTuneTable& t : shipped_tune_tables()) {
      TuneCache c;
      if (parse_tune_cache(t.json, &c)) out.push_back(std::move(c));
    }
    return out;
  }();
  const TuneCache* best = nullptr;
  for (const TuneCache& t : tables) {
    if (t.key.backend != key.backend) continue;
    if (t.key.name == key.name) {
      best = &t;
      break;
    }
    if (!best && t.key.compute_capability == key.compute_capability) best = &t;
  }
  if (made_on) *made_on = best ? best->key.describe() : std::string();
  return best ? best->entries : std::vector<TuneEntry>{};
}

}  // namespace tilekit
