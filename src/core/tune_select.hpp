// tune_select.hpp — the tuned step of GEMM kernel "auto" (internal; src/core/tune_select.cpp).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/tile_model.hpp"
#include "tilekit/registry.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {

// Where a shape sits, for distances between shapes (tune_select.cpp): log2 of m, n and k, and
// whether each is a multiple of 16 (1 or 0, a double so that the distance is all arithmetic).
struct ShapePlace {
  std::array<double, 3> log2;
  std::array<double, 3> multiple_of_16;
};

// The entries of one class (TuneBucket::same_class), with where their shapes sit in one array
// per coordinate, so that a selection's distances to them are one loop that vectorizes.
struct TunedClass {
  TuneBucket bucket;
  std::vector<size_t> entries;  // ascending
  std::array<std::vector<double>, 3> log2, multiple_of_16;  // by position in `entries`
  std::vector<char> has_candidates;
  // The choices that the class's entries' candidates name, in ascending number
  // (TunedSource::choices), with each one's model (TunedSource::models); and per entry, by
  // position, a row with a time per unit of work for each of those choices (its candidate's
  // per_work_s), 0 where the entry measured none. A search walks its neighbours' whole rows,
  // eight choices at a time, with no gather or scatter (tune_select.cpp): that cost less than
  // walking only their candidates, though a row is longer (f32: 43–59 choices a class, 28–32
  // candidates an entry on average). A row is `width` long, choices.size() rounded up to a
  // multiple of 8; the padding is a choice that no entry measured, of model 0.
  std::vector<uint32_t> choices, choice_models;  // choice_models has `width`
  std::vector<double> per_work_s;  // entries.size() rows of `width`
  size_t width = 0;
};

// A measured candidate of an entry with its kernel resolved.
struct ResolvedCandidate {
  const GemmKernel* kernel = nullptr;
  int split_k = 0;
  double time_s = 0;
  double per_work_s = 0;      // seconds_per_work() at the entry's shape, computed once
  std::string note;           // ": <id> with split-k N took 0.4 ms there", made once
  size_t choice = 0;          // its (kernel, split) in TunedSource::choices
};

// One thing a selection can return: a kernel with the split it would run (0 for a kernel that
// takes no run-time split, whatever the entry recorded).
struct TunedChoice {
  const GemmKernel* kernel = nullptr;
  int split_k = 0;
  bool operator==(const TunedChoice& o) const { return kernel == o.kernel && split_k == o.split_k; }
};

// Entries of one source (the cache, the shipped table) with their kernels resolved once.
struct TunedSource {
  std::string name;  // "cache /path/file.json", "shipped table"
  std::vector<TuneEntry> entries;
  std::vector<const GemmKernel*> kernels;  // per entry; nullptr: the id is no longer registered
  // Per entry, its candidates whose ids are registered (empty: choose the winner as measured),
  // one per choice: the fastest measured of those that name it.
  std::vector<std::vector<ResolvedCandidate>> candidates;
  // The distinct choices that the entries' candidates name, numbered once for the whole source:
  // a selection scores them in arrays indexed by that number.
  std::vector<TunedChoice> choices;
  // The distinct models of those choices, numbered once for the source: a kernel's tiling as
  // the tile model reads it on this device, with the split it runs. Kernels of one tile size and
  // occupancy model alike (the SIMT steps 05–12 share a few tilings), so a search models each
  // once, and its candidates read the time per unit of work there by model number.
  std::vector<TileModelKernel> models;
  std::vector<int> model_splits;
  std::vector<uint32_t> choice_models;  // per choice, its model's number
  // The distinct tilings of those models, and each model's, by number: a search counts each
  // tiling's tiles once at the shape asked for.
  std::vector<TileSizes> tilings;
  std::vector<uint32_t> model_tilings;
  // Per entry, the set of its candidates' models: model c is bit c % 64 of word c / 64 of the
  // entry's model_set_words words. A search models the union of its neighbours' sets.
  std::vector<uint64_t> model_sets;
  size_t model_set_words = 0;
  // Per entry, the explanation's text, made at load so that a selection only appends it.
  std::vector<std::string> notes;
  // The entries grouped by class, in order of first appearance: a selection scans only its own
  // class's entries.
  std::vector<TunedClass> classes;
};

// What the tile model needs of kernel `k` on `device`, as the selector reads it (nullptr: the
// CPU, which gets the defaults): the device's SMs, k's blocks per SM (the occupancy of its
// default launch on the current GPU; 1 where its resources are not visible, as without a GPU),
// and the DRAM bandwidth a streaming pass reaches (kStreamedDramShare of the theoretical).
constexpr double kStreamedDramShare = 0.75;
TileModelDevice tile_model_device(const GemmKernel& k, const DeviceInfo* device);

// f16 and bf16 inputs run the same tensor-core parts at the same rate (every 16-bit row of the
// Hopper and gemv tables has a twin of the other type; docs/tuning.md has the measurements), so
// where a source measured no f16 class, its bf16 entries stand in: f16_stand_ins copies them as
// f16 entries, each kernel id replaced by its f16 twin's (f16_twin_id: ".bf16." or ".bf16_"
// becomes ".f16." or ".f16_"; empty for an id without the word). A twin must be registered with
// exactly the f16 types; candidates without one are dropped, entries whose winner has none too.
std::string f16_twin_id(const std::string& bf16_id);
std::vector<TuneEntry> f16_stand_ins(const std::vector<TuneEntry>& entries,
                                     const KernelList<GemmKernel>& list);

// FP32 FMAs keep the 3xTF32 mode's promise (serves_types, dispatch.hpp), and the tuner
// measures the modes at the same shapes: each 3xTF32 entry with candidates takes those of the
// f32 entry of its bucket and shape too (the winner becomes the fastest fully measured of
// both), so that the tile model ranks the tensor-core and FP32 kernels together.
void add_f32_candidates_to_3xtf32(std::vector<TuneEntry>* entries);

// Resolves the entries' ids in `list` (ids it lacks become nullptr and are never chosen);
// `model_device` gives a kernel's TileModelDevice (on a GPU: SMs, blocks per SM, bandwidth;
// unset: the defaults, which suit kernels the model does not tile).
TunedSource make_tuned_source(
    std::string name, std::vector<TuneEntry> entries, const KernelList<GemmKernel>& list,
    const std::function<TileModelDevice(const GemmKernel&)>& model_device = {});

// Selection among entries of the same ops, layout, alignment and types, by distance (the sum of
// |Δ log2| of m, n and k, plus half an octave for each size that divides by 16 differently).
// Only admissible choices are returned: own kernels (vendor only when allowed, the reference
// never) that pass every dispatch check, so never a lower precision than asked.
//  - The ensemble: the kTunedNeighbours nearest entries with candidates each carry their
//    candidates' times to p's shape by the tile model (tile_model.hpp); each choice scores the
//    weighted mean over them of log(carried time / that entry's least carried time), capped at
//    kTunedMissingRatio (also the ratio of a choice an entry did not keep: the tuner prunes at
//    3× its fastest); weights 1 / (distance + 0.1)³, so a measured shape decides for itself. The
//    admissible choice of least score wins.
//  - Otherwise (the nearest entry has no candidates, as caches before candidates were recorded,
//    or no ensemble choice is admissible): the nearest entry with an admissible choice, its
//    fastest carried candidate or, without candidates, its winner.
// False when no entry offers anything. Without `explain`, out->reason is left empty: gemm() runs
// the choice and never reads why, and writing it was about a tenth of a search.
constexpr size_t kTunedNeighbours = 3;
constexpr double kTunedMissingRatio = 3;
bool pick_tuned(const TunedSource& src, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor, Selection<GemmProblem>* out,
                bool explain = true);

// Whether auto may choose k for p: an own kernel (a vendor one only when allowed, the reference
// never) that passes every check of a named kernel (types it serves, backend, SM, can_implement).
bool admissible(const GemmKernel& k, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor);
// Whether the device's tune cache (not the shipped table) holds an entry measured at p's bucket
// and exact m, n and k: the on-line tuner's test for a shape it has measured (tune_on_line.hpp).
bool cache_measured(const GemmProblem& p, const Context& ctx);
// Whether the streamed rule (step 0 of auto) takes p: auto then reads no table for it.
bool streamed_rule_takes(const GemmProblem& p, const Context& ctx, const DeviceInfo* device,
                         bool allow_vendor);

// The ensemble's logarithm: 2·atanh(y) = log((1 + y) / (1 − y)), the log of a ratio r given
// y = (r − 1) / (r + 1). For ratios from 1 to 3 (kTunedMissingRatio), y is in [0, 0.5), where
// the series 2 Σ y^(2i+1) / (2i+1) to y¹⁵ is within 2e-6 (the rest falls as y¹⁷), summed in
// pairs (Estrin) to keep its chain of dependent operations short. In float, so that a loop of
// them vectorizes: std::log, once per choice and neighbour, was the largest single cost of a
// search. The domain is this narrow because the ratios are capped.
// `Float` is float, or a vector of floats (the search takes eight at once, tune_select.cpp).
static_assert(kTunedMissingRatio == 3, "log_of_ratio's series is for ratios up to 3");
template <class Float>
inline Float log_of_ratio(Float y) {
  const Float z = y * y, z2 = z * z, z4 = z2 * z2;
  const Float low = (1.0f + z * (1.0f / 3)) + z2 * (1.0f / 5 + z * (1.0f / 7));
  const Float high = (1.0f / 9 + z * (1.0f / 11)) + z2 * (1.0f / 13 + z * (1.0f / 15));
  return 2.0f * y * (low + z4 * high);
}

// The explanation's numbers, appended without streams or printf: `v` in decimal, and `d` ≥ 0
// with two significant digits exactly as "%.2g" writes it (tune_select.cpp).
void append_decimal(std::string* s, uint64_t v);
void append_two_digits(std::string* s, double d);

// A tune cache file compiled into the library: src/core/tune_tables/<file>, generated into a
// source file by cmake/shipped_tune_tables.cmake.
struct ShippedTuneTable {
  const char* file;  // "nvidia-h200.json"
  const char* json;  // its text
};
const std::vector<ShippedTuneTable>& shipped_tune_tables();

}  // namespace tilekit
