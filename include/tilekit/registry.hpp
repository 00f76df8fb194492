// registry.hpp — every kernel tilekit has, in one list.
//
// A kernel variant declares who it is (id, op, backend, dtype, ladder step, tile), what it can
// do (`can_implement`, which explains a refusal), and how to run it (`launch`). Tests,
// benchmarks and the CLI iterate this registry, so a kernel is tested and benchmarked the
// moment it is registered (src/register_all.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/problems.hpp"
#include "tilekit/status.hpp"

namespace tilekit {

struct KernelInfo {
  std::string id;            // "gemm.cuda.05_register_blocked.f32.64x64x16_t4x4"
  std::string op;            // "gemm"
  Backend backend = Backend::kCpu;
  std::string dtype;         // "f32"
  int step = 0;              // ladder step (0 = reference or baseline)
  std::string tile;          // human-readable tile description, "" when not tiled
  std::string requirements;  // what can_implement demands, in words
  int min_sm = 0;            // CUDA: minimum compute capability × 10; 0 = any
  bool is_baseline = false;  // a vendor library we compare against (cuBLAS, OpenBLAS)
  bool is_reference = false; // the verification oracle (double accumulation)
  int auto_rank = 0;         // higher = preferred by kernel "auto" among those that can run
  // GEMM traffic model (tilekit report): the C tile one block (or thread) computes from global
  // memory, so global loads are m·n·k·(1/tile_n + 1/tile_m). 0: not modelled (library kernels);
  // -1: chosen at run time (the report reads it from launch_notes, "tile NxN").
  int tile_m = 0, tile_n = 0;
};

// Per-kernel GPU resources from cudaFuncGetAttributes (for `tilekit list` / inspect).
struct KernelResources {
  bool available = false;  // false for library baselines whose kernels we cannot see
  int registers_per_thread = 0;
  size_t static_smem_bytes = 0;
  size_t local_bytes_per_thread = 0;
  int max_threads_per_block = 0;
  size_t dynamic_smem_bytes = 0;  // at the kernel's default launch configuration
  int block_threads = 0;          // at the kernel's default launch configuration
  const void* function = nullptr; // the __global__ function (for the CUDA occupancy API)
};

// One registered kernel for problems of type P (GemmProblem, TransposeProblem, DotProblem,
// CopyProblem).
template <typename P>
struct Kernel {
  KernelInfo info;
  // Ok when this kernel computes `p` correctly on `device` (nullptr for CPU kernels);
  // otherwise a kNotSupported status whose message says why.
  std::function<Status(const P& p, const DeviceInfo* device)> can_implement;
  // Runs a validated problem (for GEMM: not a quick return, alpha != 0, k > 0).
  std::function<Status(const P& p, const Context& ctx)> launch;
  // Optional (GPU kernels): resources of the kernel function at its default configuration.
  std::function<Status(KernelResources* out)> resources;
  // Optional: how the kernel configures itself at run time on the current device (e.g. a block
  // size chosen by the occupancy API), for `tilekit list` and `tilekit gemm --verbose`.
  std::function<Status(std::string* out)> launch_notes;
};

using GemmKernel = Kernel<GemmProblem>;
using TransposeKernel = Kernel<TransposeProblem>;
using DotKernel = Kernel<DotProblem>;
using CopyKernel = Kernel<CopyProblem>;

bool glob_match(const std::string& pattern, const std::string& text);

// The kernels of one op, in registration order.
template <typename K>
class KernelList {
 public:
  void add(K kernel) {
    // A duplicate id is a programming error in register_all(); keep both and make the mistake
    // visible in `tilekit list` rather than aborting.
    if (find(kernel.info.id) != nullptr) kernel.info.id += ".DUPLICATE";
    kernels_.push_back(std::move(kernel));
  }
  const std::vector<K>& all() const { return kernels_; }
  const K* find(const std::string& id) const {
    for (const auto& k : kernels_)
      if (k.info.id == id) return &k;
    return nullptr;
  }
  // Kernels whose id matches the shell-style glob (`*`, `?`, `[...]`).
  std::vector<const K*> match(const std::string& glob) const {
    std::vector<const K*> out;
    for (const auto& k : kernels_)
      if (glob_match(glob, k.info.id)) out.push_back(&k);
    return out;
  }

 private:
  std::vector<K> kernels_;
};

class Registry {
 public:
  // The process-wide registry, filled once by register_all() on first use.
  static const Registry& instance();

  KernelList<GemmKernel> gemm;
  KernelList<TransposeKernel> transpose;
  KernelList<DotKernel> dot;
  KernelList<CopyKernel> copy;

  void add(GemmKernel k) { gemm.add(std::move(k)); }
  void add(TransposeKernel k) { transpose.add(std::move(k)); }
  void add(DotKernel k) { dot.add(std::move(k)); }
  void add(CopyKernel k) { copy.add(std::move(k)); }

  const std::vector<GemmKernel>& gemm_kernels() const { return gemm.all(); }
  const GemmKernel* find_gemm(const std::string& id) const { return gemm.find(id); }
  std::vector<const GemmKernel*> match_gemm(const std::string& glob) const {
    return gemm.match(glob);
  }

  // Every kernel of every op with the resource queries, for `tilekit list` and `inspect`.
  struct Entry {
    const KernelInfo* info;
    const std::function<Status(KernelResources*)>* resources;
    const std::function<Status(std::string*)>* launch_notes;
  };
  std::vector<Entry> match_any(const std::string& glob) const;
};

// Chooses what kernel "auto" runs: the highest auto_rank kernel of `list` on the context's
// backend whose can_implement accepts `p` on `device`. Fails with every refusal's reason.
template <typename P>
Status select_best_kernel(const KernelList<Kernel<P>>& list, const P& p, const Context& ctx,
                          const DeviceInfo* device, const char* op, const Kernel<P>** out) {
  const Kernel<P>* best = nullptr;
  std::string reasons;
  for (const auto& k : list.all()) {
    if (k.info.backend != ctx.backend) continue;
    Status s = k.can_implement(p, device);
    if (!s) {
      reasons += "\n  " + k.info.id + ": " + s.message();
      continue;
    }
    if (!best || k.info.auto_rank > best->info.auto_rank) best = &k;
  }
  if (!best)
    return not_supported(std::string(op) + ": no " + backend_name(ctx.backend) +
                         " kernel can run " + p.describe() + ":" + reasons);
  *out = best;
  return Status::ok();
}

// select_best_kernel over the GEMM kernels, checking the context first.
Status select_gemm_kernel(const GemmProblem& p, const Context& ctx, const GemmKernel** out);

}  // namespace tilekit
