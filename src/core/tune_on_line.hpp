// tune_on_line.hpp — tuning on line (internal): kernel "auto"'s first call at a shape the
// device's tune cache has not measured times the kernels that can run it, within a budget, and
// records them in the cache, so that this call and every later one at the shape (or near it)
// choose from measurements there (GemmOptions::tune_budget_ms, docs/tuning.md).
#pragma once

#include "tilekit/problems.hpp"
#include "tilekit/registry.hpp"
#include "tilekit/status.hpp"

namespace tilekit {

// The most runs timed per candidate (their median is its time), after one run that warms it up.
constexpr int kOnLineTimedRuns = 5;

// Measures p's candidates until budget_s seconds have passed (checked after each: the first is
// always measured) and merges them into the device's cache,
// unless p needs no kernel (a BLAS quick return), the cache has measured its shape, the
// streamed rule takes it, or this process already tried the shape. The candidates: the kernels
// auto could choose (own ones of types that serve p's, vendor ones when allowed, never the
// reference) that pass every check of a named kernel, the selector's current choice first, then
// by rank; each runs on a copy of C (p's C is neither read nor written here). An error only for
// bad input (as gemm() would report it) or when there is no cache directory to record in; a
// candidate that fails to run is left out of the measurements.
Status tune_on_line(const GemmProblem& p, const Context& ctx, bool allow_vendor, double budget_s);

}  // namespace tilekit
