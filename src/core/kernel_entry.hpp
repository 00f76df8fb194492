// kernel_entry.hpp — filling in a registry entry (internal, host-only): every kernel, CPU or
// CUDA, of every op, states who it is in one EntrySpec, and its id is generated from it.
//
//   EntrySpec s;
//   s.backend = Backend::kCuda;  s.family = "ladder";  s.name = "05_register_blocked";
//   s.step = 5;  s.suffix = P::suffix();  s.tiling = P::tiling();
//   s.requirements = "any shape, layout and op";  s.auto_rank = 5;
//   GemmKernel k = make_entry<GemmProblem>(s);   // id gemm.cuda.05_register_blocked.f32.<suffix>
#pragma once

#include <string>
#include <vector>

#include "tilekit/registry.hpp"

namespace tilekit {

struct EntrySpec {
  Backend backend = Backend::kCpu;
  std::string family;        // "ladder", "simt", "sm90", "cpu", "vendor", "reference"
  std::string name;          // the id's third segment: "05_register_blocked", "cublas"
  int step = 0;              // ladder step, 0 for references and baselines
  GemmTypes types;           // GEMM: what it implements; the id's type segment comes from it
  InputRounding input_rounding = InputRounding::kNearest;  // GEMM: vendor kernels may differ
  std::string dtype;         // other ops: the id's type segment ("f32", "f64acc"); default f32
  std::string suffix;        // the policy's segment ("64x64x16_t4x4"), "" for none
  std::vector<std::string> aliases;  // former ids that still resolve (KernelInfo::aliases)
  TileDesc tiling;           // structured tile (the policy's)
  std::string tile;          // human text; empty = tiling.describe()
  std::string requirements;  // what can_implement demands, in words
  KernelRole role = KernelRole::kOwn;
  int auto_rank = 0;
  int min_sm = 0, max_sm = 0;
};

// The op's name as the id's first segment.
template <typename P> constexpr const char* op_name();
template <> constexpr const char* op_name<GemmProblem>() { return "gemm"; }
template <> constexpr const char* op_name<TransposeProblem>() { return "transpose"; }
template <> constexpr const char* op_name<DotProblem>() { return "dot"; }
template <> constexpr const char* op_name<CopyProblem>() { return "copy"; }

// "op.backend.name.types[.suffix]", and the info every consumer reads. can_implement accepts
// every problem until the kernel sets its own.
template <typename P>
Kernel<P> make_entry(const EntrySpec& s) {
  Kernel<P> k;
  KernelInfo& i = k.info;
  i.op = op_name<P>();
  i.backend = s.backend;
  i.types = s.types;
  i.input_rounding = s.input_rounding;
  i.dtype = i.op == "gemm" ? types_tag(s.types) : (s.dtype.empty() ? "f32" : s.dtype);
  i.id = i.op + "." + backend_name(s.backend) + "." + s.name + "." + i.dtype +
         (s.suffix.empty() ? "" : "." + s.suffix);
  i.family = s.family;
  i.aliases = s.aliases;
  i.step = s.step;
  i.tiling = s.tiling;
  i.tile = s.tile.empty() ? s.tiling.describe() : s.tile;
  i.requirements = s.requirements;
  i.role = s.role;
  i.is_baseline = s.role == KernelRole::kVendor;
  i.is_reference = s.role == KernelRole::kReference;
  i.auto_rank = s.auto_rank;
  i.min_sm = s.min_sm;
  i.max_sm = s.max_sm;
  i.tile_m = s.tiling.chosen_at_run_time ? -1 : s.tiling.block_m;
  i.tile_n = s.tiling.chosen_at_run_time ? -1 : s.tiling.block_n;
  k.can_implement = [](const P&, const DeviceInfo*) { return Status::ok(); };
  return k;
}

}  // namespace tilekit
