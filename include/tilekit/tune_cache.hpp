// tune_cache.hpp — the autotuner's per-device cache of GEMM winners (docs/tuning.md).
//
// `tilekit tune` measures every own kernel on a set of shapes and records the fastest per
// bucket; kernel "auto" then looks a problem's bucket up here before it falls back to the
// kernels' static ranking. One JSON file per device, keyed by the device (name, SM count,
// compute capability, driver) and the tilekit build: a file made on another device or by
// another build is never trusted, only reported (one warning) and ignored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/problems.hpp"
#include "tilekit/status.hpp"
#include "tilekit/types.hpp"

namespace tilekit {

// Who measured: a cache applies only to the device and build it was made on.
struct TuneDeviceKey {
  std::string backend;       // "cpu", "cuda"
  std::string name;          // GPU name, or the CPU model
  int sm_count = 0;          // SMs, or logical CPU cores
  int compute_capability = 0;  // major·10 + minor; 0 on the CPU
  int driver_version = 0;    // CUDA driver (cudaDriverGetVersion); 0 on the CPU
  std::string build;         // tilekit_build_id()
  bool operator==(const TuneDeviceKey& o) const;
  bool same_device(const TuneDeviceKey& o) const;  // everything but the build
  std::string describe() const;  // "NVIDIA H200 (cc 9.0, 132 SMs, driver 12080)"
};

// "0.1.0+49e0921": the library version and the git commit it was built from.
std::string tilekit_build_id();

// The key of the device ctx runs on.
Status tune_device_key(const Context& ctx, TuneDeviceKey* out);

// What a winner applies to: m, n, k rounded to the nearest power of two (exponents), the ops,
// layout, operand alignment and types. Problems in one bucket are assumed to share a winner.
struct TuneBucket {
  int log2_m = 0, log2_n = 0, log2_k = 0;
  Op op_a = Op::kN, op_b = Op::kN;
  Layout layout = Layout::kRowMajor;
  bool aligned16 = true;  // A, B and C start on 16-byte boundaries
  bool ld16 = true;       // lda, ldb and ldc, in bytes, are multiples of 16
  GemmTypes types;
  // Same everything except the sizes: only such buckets stand in for each other.
  bool same_class(const TuneBucket& o) const;
  // Sum of |Δ log2| over m, n, k: how far apart two buckets of one class are.
  int distance(const TuneBucket& o) const;
  bool operator==(const TuneBucket& o) const { return same_class(o) && distance(o) == 0; }
  std::string describe() const;  // "row NT 2^10x2^10x2^12 f32, aligned"
};
TuneBucket bucket_of(const GemmProblem& p);
// Only the fields of p's bucket that make its class (same_class), the sizes' left 0: what a
// selection compares, without the three logarithms.
TuneBucket class_of(const GemmProblem& p);
int log2_bucket(int64_t x);  // round(log2(x)), 0 for x <= 1

// One measured candidate of a tuned shape.
struct TuneCandidate {
  std::string kernel;
  int split_k = 0;
  double time_s = 0;
  // The time is the screening run's (one cold sample): the candidate was more than the screen's
  // margin slower than the fastest, so it was not measured fully.
  bool screened = false;
};

struct TuneEntry {
  TuneBucket bucket;
  std::string kernel;     // the winning kernel id
  double time_s = 0;      // its measured median (0: not recorded)
  int split_k = 0;        // a run-time parameter it was measured with (0: none)
  int64_t m = 0, n = 0, k = 0;  // the shape measured
  // Every candidate verified at that shape: the fully measured ones (the winner and those close
  // to it after the screen) fastest first, then the screened-only ones, fastest first. Optional;
  // what the selector's model scales to the shape asked for.
  std::vector<TuneCandidate> candidates;
};

struct TuneCache {
  TuneDeviceKey key;
  std::vector<TuneEntry> entries;
  // Adds or replaces the entry of e's bucket and measured shape (so that several shapes of one
  // power-of-two bucket can be kept).
  void put(const TuneEntry& e);
  // For a run over some kernels only (`tilekit tune --kernels`): e's candidates join the entry
  // of its bucket and shape, replacing the ones measured again (same kernel and split; a
  // screened time never replaces a fully measured one) and keeping the others; the fastest
  // fully measured candidate is the entry's choice. Without such an entry, as put.
  void add_candidates(const TuneEntry& e);
};

// Where the caches live: $TILEKIT_CACHE_DIR, else $XDG_CACHE_HOME/tilekit, else
// $HOME/.cache/tilekit. An error when none of these is set.
Status tune_cache_dir(std::string* out);
// The file for one device: <dir>/gemm-<device name>-<backend>-cc<N>-<M>sm.json (the build and
// driver are checked inside, so a new build replaces the file rather than adding one).
std::string tune_cache_file(const std::string& dir, const TuneDeviceKey& key);

// Parses `path`. A missing file is ok with *found = false. A path that cannot be read (a
// directory, no permission) is kIoError; a file that is not a complete cache of the expected
// schema, or of another device or build than `expect`, is kInvalidArgument. Both messages name
// the file and what is wrong; `out` is then left empty.
Status load_tune_cache(const std::string& path, const TuneDeviceKey& expect, TuneCache* out,
                       bool* found);
// Writes `cache` to `path` atomically (core/output_file.hpp: only a regular file or a new path),
// so a reader sees the old file or the new one, never a part.
Status write_tune_cache(const std::string& path, const TuneCache& cache);
// Read-modify-write under an exclusive lock on `path`.lock: the current file's entries (when it
// is valid for cache.key), then `add` on top. Concurrent writers lose nothing. A corrupt, foreign
// or stale file is replaced; one that cannot be read is an error, and stays as it is.
// With kAddCandidates, `add`'s entries go in by TuneCache::add_candidates instead of put.
enum class TuneMerge { kReplaceEntries, kAddCandidates };
Status merge_tune_cache(const std::string& path, const TuneCache& add,
                        TuneMerge how = TuneMerge::kReplaceEntries);

// ---- the selector's view ----

// The process-wide tuning state of ctx's device, loaded on first use (thread-safe) and kept:
// where the cache is, how many entries it has, and the warning (ok when none) if it was ignored.
struct TuneCacheInfo {
  std::string path;
  size_t entries = 0;
  Status warning;
};
Status tune_cache_info(const Context& ctx, TuneCacheInfo* out);
// Each thread remembers its last kRememberedTunedShapes tuned selections (kernel "auto"), so a
// call at one of those shapes does not search the tables again.
constexpr size_t kRememberedTunedShapes = 8;
// How many blocks of kernel `kernel_id` the selector's tile model counts resident on one SM of
// `device` (its occupancy at the kernel's default launch); 1 where that is unknown: a library
// kernel, an id not registered, or no launch resources. `tilekit list --json` prints it.
int tile_model_blocks_per_sm(const std::string& kernel_id, const DeviceInfo& device);
// Forgets every loaded cache, so the next selection reads the files again (after `tilekit tune`
// wrote one, and in tests).
void reload_tune_caches();

// Parses the text of a cache file (any device, any build): the shipped tables and tests use it.
Status parse_tune_cache(const std::string& text, TuneCache* out);

// The table shipped in the source for a device: made by `tilekit tune` on a reference GPU and
// committed with its command (src/core/tune_tables/, docs/tuning.md). The table of a device of
// the same name and backend, else of the same backend and compute capability (the same kernels
// run there; every entry still passes the checks of a named kernel before it is chosen), else
// none. `made_on` (optional) receives the device the table was measured on, "" when none.
std::vector<TuneEntry> shipped_tune_table(const TuneDeviceKey& key, std::string* made_on = nullptr);

}  // namespace tilekit
