// registry.hpp — every kernel tilekit has, in one list.
//
// A kernel variant declares who it is (id, op, backend, dtype, ladder step, tile), what it can
// do (`can_implement`, which explains a refusal), and how to run it (`launch`). Tests,
// benchmarks and the CLI iterate this registry, so a kernel is tested and benchmarked the
// moment it is registered (src/register_all.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/problems.hpp"
#include "tilekit/status.hpp"
#include "tilekit/types.hpp"

namespace tilekit {

// How a kernel's blocks cover C: an opaque tag that the autotuner's tile model reads to carry a
// time measured at one shape to another; null where the kernel has no tile model (times scale
// with the bytes moved). What each schedule means (its name, plan, refusals and cost in the model)
// is kept with it, one module each, in tilekit's source (src/core/schedules/).
struct TileScheduleModule;
using TileSchedule = const TileScheduleModule*;
// The schedule's name ("persistent", "stream_k", …), "unmodelled" for null.
const char* tile_schedule_name(TileSchedule schedule);

// The tiling a kernel uses, structured (0 = not applicable). Generated from the kernel's policy
// struct, so the id, `tilekit list`, the traffic model and the autotuner read one truth.
struct TileDesc {
  int block_m = 0, block_n = 0, block_k = 0;  // the C tile one block (or CPU task) computes
  int warp_m = 0, warp_n = 0;                 // the C tile one warp computes
  int thread_m = 0, thread_n = 0;             // the C tile one thread keeps in registers
  int stages = 0;                             // shared-memory pipeline depth
  int threads = 0;                            // threads per block
  int cluster_m = 0, cluster_n = 0;           // thread-block cluster shape (sm_90)
  int split_k = 0;                            // k-slices summed by a reduction (0/1 = none;
                                              // -1: per shape, and GemmProblem::split_k is honoured)
  int max_split_k = 0;                        // with split_k = -1: the most slices it runs, a
                                              // larger GemmProblem::split_k clamped (0: no limit)
  bool chosen_at_run_time = false;            // block tile picked when launched (step 04)
  bool short_side_along_n = false;            // tiles cover Cᵀ where m < n (C's short side
                                              // along the tile's n: the sm90 narrow tiles)
  TileSchedule schedule = nullptr;
  // "64x64x16, 16x16 threads, 4x4/thread" — empty when nothing is set.
  std::string describe() const;
};

// Who a kernel is, declared once when it is registered.
enum class KernelRole {
  kOwn,        // tilekit's own: "auto" chooses among these
  kVendor,     // a vendor library we compare against (cuBLAS, OpenBLAS): only when allowed
  kReference,  // the verification oracle (double accumulation)
};

struct KernelInfo {
  std::string id;            // "gemm.cuda.simt.f32.128x256x8_w2x4_t8x16_s2.packed.split_k"
  // Former ids that still resolve to this kernel (find, match, --kernel, tune tables): the ids
  // of the GEMM families before they were named by their parts, kept for one release.
  std::vector<std::string> aliases;
  std::string op;            // "gemm"
  Backend backend = Backend::kCpu;
  std::string dtype;         // the id's type segment: "f32", "f32_tf32", "bf16", "f64acc"
  GemmTypes types;           // GEMM: the (A, B, C, compute) it implements, nothing else
  // GEMM: how it rounds FP32 inputs for a tf32/bf16/3xtf32 mode (types.hpp). kNearest for every
  // own kernel (a registry test holds them to it); only a vendor kernel may declare kFaithful,
  // and verification then widens that kernel's bound by reference_input_gap().
  InputRounding input_rounding = InputRounding::kNearest;
  std::string family;        // "ladder", "simt", "sm90", "cpu", "vendor", "reference", ...
  int step = 0;              // ladder step (0 = reference or baseline)
  std::string tile;          // human-readable tile description, "" when not tiled
  TileDesc tiling;           // the same, structured
  std::string requirements;  // what can_implement demands, in words
  int min_sm = 0;            // CUDA: lowest compute capability × 10 it runs on; 0 = any
  int max_sm = 0;            // CUDA: highest (sm_90a code runs on sm_90 only); 0 = any
  KernelRole role = KernelRole::kOwn;
  bool is_baseline = false;  // role == kVendor (kept for readers of the old field)
  bool is_reference = false; // role == kReference
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

// Scratch memory a kernel asked for (workspace_bytes), from the context's per-device pool:
// device memory on the CUDA backend, host memory on the CPU backend. Valid for the call.
struct Workspace {
  void* data = nullptr;
  size_t bytes = 0;
};

// One registered kernel for problems of type P (GemmProblem, TransposeProblem, DotProblem,
// CopyProblem). The dispatch order is fixed (src/core/dispatch.hpp): validate → quick return →
// type and SM checks → can_implement → workspace → initialize → launch.
template <typename P>
struct Kernel {
  KernelInfo info;
  // Ok when this kernel computes `p` correctly on `device` (nullptr for CPU kernels);
  // otherwise a kNotSupported status whose message says why.
  std::function<Status(const P& p, const DeviceInfo* device)> can_implement;
  // Optional: scratch bytes `p` needs (split-K partials, a pre-pass); unset means none.
  std::function<size_t(const P& p, const DeviceInfo* device)> workspace_bytes;
  // Optional: per-call set-up outside the timed launch (TMA descriptors, smem opt-in).
  std::function<Status(const P& p, const Context& ctx, Workspace ws)> initialize;
  // Runs a validated problem (for GEMM: not a quick return, alpha != 0, k > 0) on the
  // context's device, which dispatch has made current.
  std::function<Status(const P& p, const Context& ctx, Workspace ws)> launch;
  // Optional (GPU kernels): resources of the kernel function at its default configuration, on
  // the current device.
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
  // The kernel with this id, or else the one with this former id (KernelInfo::aliases).
  const K* find(const std::string& id) const {
    for (const auto& k : kernels_)
      if (k.info.id == id) return &k;
    for (const auto& k : kernels_)
      if (std::find(k.info.aliases.begin(), k.info.aliases.end(), id) != k.info.aliases.end())
        return &k;
    return nullptr;
  }
  // Kernels whose id, or a former id, matches the shell-style glob (`*`, `?`, `[...]`).
  std::vector<const K*> match(const std::string& glob) const {
    std::vector<const K*> out;
    for (const auto& k : kernels_)
      if (glob_match(glob, k.info.id) ||
          std::any_of(k.info.aliases.begin(), k.info.aliases.end(),
                      [&](const std::string& a) { return glob_match(glob, a); }))
        out.push_back(&k);
    return out;
  }

 private:
  std::vector<K> kernels_;
};

class BackendOps;  // what the core needs from a backend (src/core/backend.hpp)

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

  // Each backend's implementation of the core's needs, installed by register_all(); a slot
  // left empty (CUDA in a CPU-only build) gets one that refuses with a plain reason.
  void set_backend(Backend b, const BackendOps* ops) { backends_[static_cast<int>(b)] = ops; }
  const BackendOps* backend(Backend b) const { return backends_[static_cast<int>(b)]; }

 private:
  const BackendOps* backends_[2] = {nullptr, nullptr};
};

// What the selector chose for a problem, and why (`tilekit gemm --explain` prints it).
template <typename P>
struct Selection {
  const Kernel<P>* kernel = nullptr;
  std::string reason;
  int split_k = 0;  // GEMM: the run-time k split the tuned entry was measured with (0: none)
};

// True when the kernel takes GemmProblem::split_k at run time (the tuner then measures splits).
inline bool takes_run_time_split_k(const KernelInfo& k) { return k.tiling.split_k < 0; }

// True when the kernel runs a run-time split of `split` slices as asked rather than clamped to
// fewer (TileDesc::max_split_k): the tuner measures only those, not the clamped count again.
inline bool runs_split_as_asked(const KernelInfo& k, int split) {
  return takes_run_time_split_k(k) && (k.tiling.max_split_k <= 0 || split <= k.tiling.max_split_k);
}

// True when the kernel's mode rounds FP32 inputs into a narrower format (tf32, f32_3xtf32, f32
// storage in bf16 mode), the only kernels whose input_rounding changes what they compute; the
// others multiply their inputs as stored.
inline bool rounds_inputs(const KernelInfo& k) {
  return k.op == "gemm" && input_unit_roundoff(k.types.a, k.types.compute) > 0;
}

// The kernel gemm(..., kernel "auto") runs for `p` on ctx: tilekit's own kernels only (vendor
// kernels when `allow_vendor`), never a lower-precision compute mode than p.types asks for.
// out->reason says why (what `tilekit gemm --explain` prints); without `explain` it is left
// empty, as gemm() selects: the kernel and split are the same, and the text is not written.
Status select_gemm_kernel(const GemmProblem& p, const Context& ctx, bool allow_vendor,
                          Selection<GemmProblem>* out, bool explain = true);
// The same without vendor kernels or the explanation, for callers that need only the kernel.
Status select_gemm_kernel(const GemmProblem& p, const Context& ctx, const GemmKernel** out);

}  // namespace tilekit
