// tune_select.hpp — the tuned step of GEMM kernel "auto" (internal; src/core/tune_select.cpp).
#pragma once

#include <string>
#include <vector>

#include "tilekit/registry.hpp"
#include "tilekit/tune_cache.hpp"

namespace tilekit {

// Entries of one source (the cache, the shipped table) with their kernels resolved once.
struct TunedSource {
  std::string name;  // "cache /path/file.json", "shipped table"
  std::vector<TuneEntry> entries;
  std::vector<const GemmKernel*> kernels;  // per entry; nullptr: the id is no longer registered
  // Per entry, the explanation's text, made at load so that a selection only appends it.
  std::vector<std::string> notes;
};

// Resolves the entries' ids in `list` (ids it lacks become nullptr and are never chosen).
TunedSource make_tuned_source(std::string name, std::vector<TuneEntry> entries,
                              const KernelList<GemmKernel>& list);

// The entry of p's bucket, else the nearest (log2 distance) of the same ops, layout, alignment
// and types, whose kernel passes every dispatch check and is own (vendor only when allowed,
// the reference never). False when none is.
bool pick_tuned(const TunedSource& src, const GemmProblem& p, const Context& ctx,
                const DeviceInfo* device, bool allow_vendor, Selection<GemmProblem>* out);

// A tune cache file compiled into the library: src/core/tune_tables/<file>, generated into a
// source file by cmake/shipped_tune_tables.cmake.
struct ShippedTuneTable {
  const char* file;  // "nvidia-h200.json"
  const char* json;  // its text
};
const std::vector<ShippedTuneTable>& shipped_tune_tables();

}  // namespace tilekit
