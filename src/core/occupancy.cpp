// occupancy.cpp — tilekit's occupancy calculator: the architecture table and the allocation
// rules, worked out from the CUDA Programming Guide and from reading NVIDIA's cuda_occupancy.h
// (whose answers tests/cpu/test_occupancy_vs_header.cpp compares with ours case by case).
#include "tilekit/occupancy.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <initializer_list>
#include <iterator>

namespace tilekit {
namespace {

constexpr size_t kKiB = 1024;
// A resource the kernel does not use (no registers, no shared memory) limits nothing.
constexpr int kNoLimit = INT_MAX;
// cudaFuncGetAttributes does not report a kernel's block barriers; NVIDIA's calculator counts
// one (the barrier __syncthreads uses) when built from those attributes, and so do we.
constexpr int kBarriersPerBlock = 1;
// Static shared memory is limited to 48 KB per block; only dynamic shared memory may opt in.
constexpr size_t kStaticSmemLimit = 48 * kKiB;
// The largest carveout one may ask for with cudaFuncAttributePreferredSharedMemoryCarveout.
constexpr int kCarveoutMaxPercent = 100;

int divide_round_up(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int unit) { return unit * divide_round_up(x, unit); }
size_t round_up(size_t x, size_t unit) { return unit * ((x + unit - 1) / unit); }

std::vector<size_t> kib(std::initializer_list<size_t> sizes) {
  std::vector<size_t> bytes;
  for (size_t s : sizes) bytes.push_back(s * kKiB);
  return bytes;
}

// The shared-memory sizes an SM can be configured to (the Programming Guide's notes per
// architecture): Volta 0–96 KB, Turing 32 or 64 KB; from Ampere one ladder, cut at each
// architecture's maximum. Empty where the split is fixed (Pascal) or the steps are unknown.
std::vector<size_t> carveouts_of(int major, int minor) {
  if (major == 7) return minor == 5 ? kib({32, 64}) : kib({0, 8, 16, 32, 64, 96});
  size_t top_kib = 0;
  if (major == 8) top_kib = (minor == 0 || minor == 7) ? 164 : 100;
  if (major == 9) top_kib = 228;
  if ((major == 10 || major == 11) && (minor == 0 || minor == 1 || minor == 3)) top_kib = 228;
  if (major == 12 && (minor == 0 || minor == 1)) top_kib = 100;
  std::vector<size_t> ladder;
  for (size_t k : kib({0, 8, 16, 32, 64, 100, 132, 164, 196, 228}))
    if (top_kib > 0 && k <= top_kib * kKiB) ladder.push_back(k);
  return ladder;
}

// The rules a device query does not report, by compute capability; left unknown (0) outside
// Pascal..Blackwell. Needs max_blocks_per_sm already set (the barrier slots scale with it).
void apply_family_rules(ArchProperties* a) {
  const int major = a->cc_major, minor = a->cc_minor;
  if (major < 6 || major > 12) return;
  a->reg_alloc_unit = 256;
  a->sub_partitions = (major == 6 && minor == 0) ? 2 : 4;  // GP100 halves its SM, not quarters
  a->smem_alloc_unit = major >= 8 ? 128 : 256;
  a->smem_carveouts = carveouts_of(major, minor);
  // From Hopper the block-barrier slots cap resident blocks too: two per resident block, one on
  // 10.1, 11.0 and 12.x — with one barrier a block, the latter tie with the block cap.
  if (major >= 9) {
    const bool one_per_block = (major == 10 && minor == 1) || (major == 11 && minor == 0) ||
                               major == 12;
    a->barriers_per_sm = a->max_blocks_per_sm * (one_per_block ? 1 : 2);
  }
}

// From the CUDA Programming Guide, "Compute Capabilities" (technical specifications per compute
// capability), with the SM count of one representative device so the device-wide Sheffield
// formula has a number to use. smem_per_sm is what blocks may use on one SM (the carve-out
// maximum); smem_per_block_optin the per-block maximum after cudaFuncSetAttribute.
std::vector<ArchProperties> make_table() {
  auto row = [](const char* name, const char* example, int major, int minor, int sms,
                int threads_per_sm, int blocks_per_sm, size_t smem_sm, size_t smem_optin,
                size_t reserved) {
    ArchProperties a;
    a.name = name;
    a.example = example;
    a.cc_major = major;
    a.cc_minor = minor;
    a.sm_count = sms;
    a.max_threads_per_sm = threads_per_sm;
    a.max_blocks_per_sm = blocks_per_sm;
    a.smem_per_sm = smem_sm;
    a.smem_per_block_optin = smem_optin;
    a.reserved_smem_per_block = reserved;
    apply_family_rules(&a);
    return a;
  };
  return {
      row("sm_61", "GeForce GTX 1080", 6, 1, 20, 2048, 32, 96 * kKiB, 48 * kKiB, 0),
      row("sm_70", "Tesla V100", 7, 0, 80, 2048, 32, 96 * kKiB, 96 * kKiB, 0),
      row("sm_75", "Tesla T4", 7, 5, 40, 1024, 16, 64 * kKiB, 64 * kKiB, 0),
      row("sm_80", "A100", 8, 0, 108, 2048, 32, 164 * kKiB, 163 * kKiB, kKiB),
      row("sm_86", "GeForce RTX 3090", 8, 6, 82, 1536, 16, 100 * kKiB, 99 * kKiB, kKiB),
      row("sm_87", "Jetson AGX Orin", 8, 7, 16, 1536, 16, 164 * kKiB, 163 * kKiB, kKiB),
      row("sm_89", "GeForce RTX 4090", 8, 9, 128, 1536, 24, 100 * kKiB, 99 * kKiB, kKiB),
      row("sm_90", "H100/H200 SXM", 9, 0, 132, 2048, 32, 228 * kKiB, 227 * kKiB, kKiB),
      row("sm_100", "B200", 10, 0, 148, 2048, 32, 228 * kKiB, 227 * kKiB, kKiB),
      // 24 resident blocks: what cuda_occupancy.h (CUDA 13.0) counts for 12.x, where the
      // Guide's table has listed 32; we follow NVIDIA's calculator.
      row("sm_120", "GeForce RTX 5090", 12, 0, 170, 1536, 24, 100 * kKiB, 99 * kKiB, kKiB),
  };
}

// ---- the rules, one resource at a time: each returns the blocks per SM it allows ----

// Registers: a warp gets regs × 32 rounded up to the allocation unit, all from one SM
// sub-partition, so each sub-partition holds (its share of the register file / that) warps.
// The launch check counts a block's warps rounded up to a multiple of the sub-partitions, as if
// the block took registers from all of them at once.
int register_limit(const ArchProperties& a, int sub_partitions, int regs, int warps,
                   int* allocated_per_block) {
  const int per_warp = round_up(regs * a.warp_size, a.reg_alloc_unit);
  *allocated_per_block = per_warp * warps;
  if (per_warp * round_up(warps, sub_partitions) > a.regs_per_block) return 0;
  if (per_warp == 0) return kNoLimit;
  const int warps_per_sub_partition = a.regs_per_sm / sub_partitions / per_warp;
  return warps_per_sub_partition * sub_partitions / warps;
}

int register_limit(const ArchProperties& a, int regs, int warps, int* allocated_per_block) {
  int limit = register_limit(a, a.sub_partitions, regs, warps, allocated_per_block);
  // A kernel that fits GP100's two sub-partitions but not the four of its siblings (6.1, 6.2) is
  // refused on every Pascal part, so that it runs on all of them or none.
  if (a.cc_major == 6 && a.cc_minor == 0 && limit > 0 &&
      register_limit(a, 4, regs, warps, allocated_per_block) == 0)
    limit = 0;
  return limit;
}

// The most shared memory one block may allocate: 48 KB, or the opt-in maximum for a kernel that
// opted in (Volta on); from sm_80 the driver's reserve comes on top.
size_t smem_block_limit(const ArchProperties& a, bool opted_in) {
  size_t limit = opted_in && a.cc_major >= 7 ? a.smem_per_block_optin : a.smem_per_block;
  if (a.cc_major >= 8) limit += a.reserved_smem_per_block;
  return limit;
}

// The smallest shared-memory configuration of at least `bytes`; false above the largest.
bool round_up_to_carveout(const ArchProperties& a, size_t bytes, size_t* config) {
  for (size_t c : a.smem_carveouts)
    if (c >= bytes) {
      *config = c;
      return true;
    }
  return false;
}

// The SM's shared-memory size: the preferred carveout (by default all of it) rounded up to a
// configuration the hardware offers; when one block needs more, the driver picks the smallest
// configuration that holds it. Where the split is fixed, smem_per_sm.
Status smem_config_per_sm(const ArchProperties& a, int carveout_percent, size_t per_block,
                          size_t* config) {
  *config = a.smem_per_sm;
  if (a.smem_carveouts.empty()) return Status::ok();
  const size_t preferred = carveout_percent == kCarveoutDefault
                               ? a.smem_per_sm
                               : static_cast<size_t>(carveout_percent) * a.smem_per_sm / 100;
  size_t chosen = 0;
  const bool ok = round_up_to_carveout(a, preferred, &chosen) &&
                  (chosen >= per_block || round_up_to_carveout(a, per_block, &chosen));
  if (!ok)
    return invalid_argument(a.name + ": no shared-memory configuration holds " +
                            std::to_string(std::max(preferred, per_block)) + " B (largest: " +
                            std::to_string(a.smem_carveouts.back()) + " B)");
  *config = chosen;
  return Status::ok();
}

// Shared memory: static + dynamic + the driver's reserve, rounded up to the allocation unit;
// a block above the per-block limit cannot launch, otherwise the SM's configuration divides.
Status smem_limit(const ArchProperties& a, const OccupancyQuery& q, OccupancyResult* o,
                  int* limit) {
  o->allocated_smem_per_block =
      round_up(q.smem + q.dyn_smem + a.reserved_smem_per_block, a.smem_alloc_unit);
  o->smem_config_per_sm = a.smem_per_sm;
  if (o->allocated_smem_per_block > smem_block_limit(a, o->opted_in)) {
    *limit = 0;
    return Status::ok();
  }
  TILEKIT_RETURN_IF_ERROR(smem_config_per_sm(a, q.carveout_percent, o->allocated_smem_per_block,
                                             &o->smem_config_per_sm));
  *limit = o->allocated_smem_per_block == 0
               ? kNoLimit
               : static_cast<int>(o->smem_config_per_sm / o->allocated_smem_per_block);
  return Status::ok();
}

// ---- checks and the account of the result ----

Status check_rules_known(const ArchProperties& a) {
  if (a.reg_alloc_unit > 0 && a.sub_partitions > 0 && a.smem_alloc_unit > 0 && a.warp_size > 0 &&
      a.max_threads_per_sm > 0 && a.max_blocks_per_sm > 0)
    return Status::ok();
  return not_supported("occupancy: tilekit does not know the allocation rules of " + a.name +
                       " (compute capability " + std::to_string(a.cc_major) + "." +
                       std::to_string(a.cc_minor) + ")");
}

Status check_query(const ArchProperties& arch, const OccupancyQuery& q) {
  if (q.threads < 1 || q.threads > arch.max_threads_per_block)
    return invalid_argument("--threads " + std::to_string(q.threads) + " is outside 1.." +
                            std::to_string(arch.max_threads_per_block) + " for " + arch.name);
  if (q.regs < 0 || q.regs > arch.max_regs_per_thread)
    return invalid_argument("--regs " + std::to_string(q.regs) + " is outside 0.." +
                            std::to_string(arch.max_regs_per_thread));
  if (q.smem > arch.smem_per_block_optin || q.dyn_smem > arch.smem_per_block_optin ||
      q.smem + q.dyn_smem > arch.smem_per_block_optin)
    return invalid_argument("shared memory " + std::to_string(q.smem) + " + " +
                            std::to_string(q.dyn_smem) + " B exceeds " + arch.name +
                            "'s per-block limit of " + std::to_string(arch.smem_per_block_optin) +
                            " B (with opt-in)");
  if (q.smem > kStaticSmemLimit)
    return invalid_argument("--smem " + std::to_string(q.smem) +
                            " B: static shared memory is limited to 48 KB; use --dyn-smem");
  if (q.carveout_percent != kCarveoutDefault &&
      (q.carveout_percent < 0 || q.carveout_percent > kCarveoutMaxPercent))
    return invalid_argument("--carveout " + std::to_string(q.carveout_percent) +
                            " is outside 0..100 (percent of shared memory per SM)");
  return Status::ok();
}

std::string why_no_block(const ArchProperties& a, const OccupancyQuery& q,
                         const OccupancyResult& o) {
  if (o.limit_registers == 0) {
    const int warps = divide_round_up(q.threads, a.warp_size);
    const int counted = o.allocated_registers_per_block / warps * round_up(warps, a.sub_partitions);
    const std::string rounded =
        counted == o.allocated_registers_per_block
            ? ""
            : " (" + std::to_string(counted) + " counting warps in multiples of the " +
                  std::to_string(a.sub_partitions) + " SM sub-partitions)";
    return "registers: " + std::to_string(q.regs) + " per thread × " + std::to_string(q.threads) +
           " threads allocate " + std::to_string(o.allocated_registers_per_block) + " per block" +
           rounded + ", more than the " + std::to_string(a.regs_per_block) + " a block may have";
  }
  if (o.limit_shared_memory == 0)
    return "shared memory: " + std::to_string(o.allocated_smem_per_block) +
           " B per block is more than the " + std::to_string(smem_block_limit(a, o.opted_in)) +
           " B a block may have";
  return "no resource leaves room for a block";
}

// Resident blocks are the smallest of the limits; every resource at that minimum is a limiter.
void settle(const ArchProperties& a, const OccupancyQuery& q, int limit_barriers,
            OccupancyResult* o) {
  const int raw[] = {o->limit_warps, o->limit_registers, o->limit_shared_memory, o->limit_blocks,
                     limit_barriers};
  const char* const names[] = {"warps", "registers", "shared memory", "blocks", "barriers"};
  const int blocks = *std::min_element(std::begin(raw), std::end(raw));
  for (size_t i = 0; i < std::size(raw); ++i)
    if (raw[i] == blocks) o->limiters.push_back(names[i]);
  auto shown = [](int v) { return v == kNoLimit ? -1 : v; };
  o->limit_registers = shown(o->limit_registers);
  o->limit_shared_memory = shown(o->limit_shared_memory);
  o->limit_barriers = shown(limit_barriers);
  o->blocks_per_sm = blocks;
  o->warps_per_sm = blocks * divide_round_up(q.threads, a.warp_size);
  o->occupancy = static_cast<double>(o->warps_per_sm) / a.max_warps_per_sm();
  o->device_active_blocks = static_cast<long long>(blocks) * a.sm_count;
  if (blocks == 0) o->why_zero = why_no_block(a, q, *o);
}

}  // namespace

const std::vector<ArchProperties>& known_architectures() {
  static const std::vector<ArchProperties> table = make_table();
  return table;
}

Status find_architecture(const std::string& name, ArchProperties* out) {
  std::string digits;
  for (char c : name)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  for (const auto& a : known_architectures()) {
    const std::string mine = std::to_string(a.cc_major) + std::to_string(a.cc_minor);
    const bool named = name == a.name || name == mine || name == "compute_" + mine ||
                       name == std::to_string(a.cc_major) + "." + std::to_string(a.cc_minor) ||
                       (name.rfind("sm_", 0) == 0 && digits == mine &&
                        (name == "sm_" + mine + "a" || name == "sm_" + mine + "f"));
    if (named) {
      *out = a;
      return Status::ok();
    }
  }
  std::string known;
  for (const auto& a : known_architectures()) known += (known.empty() ? "" : ", ") + a.name;
  return invalid_argument("--arch: unknown architecture '" + name + "' (known: " + known + ")");
}

ArchProperties architecture_of(const DeviceInfo& d) {
  ArchProperties a;
  const std::string cc = std::to_string(d.cc_major) + std::to_string(d.cc_minor);
  ArchProperties table_row;
  if (find_architecture("sm_" + cc, &table_row)) a = table_row;  // keeps the documented caps
  a.name = "sm_" + cc;
  a.example = d.name + " (this device)";
  a.cc_major = d.cc_major;
  a.cc_minor = d.cc_minor;
  a.sm_count = d.sm_count;
  a.max_threads_per_block = d.max_threads_per_block;
  a.max_threads_per_sm = d.max_threads_per_sm;
  a.max_blocks_per_sm = d.max_blocks_per_sm;
  a.regs_per_sm = d.regs_per_sm;
  a.regs_per_block = d.regs_per_block;
  a.warp_size = d.warp_size;
  a.smem_per_sm = d.smem_per_sm_bytes;
  a.smem_per_block = d.smem_per_block_bytes;
  a.smem_per_block_optin = d.smem_per_block_optin_bytes;
  a.reserved_smem_per_block = d.reserved_smem_per_block_bytes;
  apply_family_rules(&a);  // after the device's block cap, which the barrier slots follow
  return a;
}

Status compute_occupancy(const ArchProperties& arch, const OccupancyQuery& q, OccupancyResult* out) {
  TILEKIT_RETURN_IF_ERROR(check_rules_known(arch));
  TILEKIT_RETURN_IF_ERROR(check_query(arch, q));
  OccupancyResult o;
  // Above the default 48 KB per block a kernel must have opted in (cudaFuncSetAttribute with
  // cudaFuncAttributeMaxDynamicSharedMemorySize); counted as done: the occupancy once opted in.
  o.opted_in = q.smem + q.dyn_smem > arch.smem_per_block;
  const int warps = divide_round_up(q.threads, arch.warp_size);
  o.limit_warps = arch.max_warps_per_sm() / warps;
  o.limit_blocks = arch.max_blocks_per_sm;
  o.limit_registers = register_limit(arch, q.regs, warps, &o.allocated_registers_per_block);
  TILEKIT_RETURN_IF_ERROR(smem_limit(arch, q, &o, &o.limit_shared_memory));
  const int limit_barriers =
      arch.barriers_per_sm > 0 ? arch.barriers_per_sm / kBarriersPerBlock : kNoLimit;
  settle(arch, q, limit_barriers, &o);
  *out = o;
  return Status::ok();
}

Status suggest_block_size(const ArchProperties& arch, int regs, size_t smem, size_t dyn_smem,
                          int max_threads_per_block, int* block_size, int* min_grid) {
  if (max_threads_per_block < 1)
    return invalid_argument("max threads per block " + std::to_string(max_threads_per_block) +
                            " must be >= 1");
  // Every block size from the largest down, a warp at a time; the first to hold the most
  // threads per SM wins, and a full SM ends the search.
  const int limit = std::min(arch.max_threads_per_block, max_threads_per_block);
  int best_threads = 0, best_block = 0, best_blocks = 0;
  for (int aligned = round_up(limit, arch.warp_size); aligned > 0; aligned -= arch.warp_size) {
    const int threads = std::min(limit, aligned);
    OccupancyResult r;
    TILEKIT_RETURN_IF_ERROR(compute_occupancy(arch, {threads, regs, smem, dyn_smem}, &r));
    if (threads * r.blocks_per_sm > best_threads) {
      best_threads = threads * r.blocks_per_sm;
      best_block = threads;
      best_blocks = r.blocks_per_sm;
    }
    if (best_threads == arch.max_threads_per_sm) break;
  }
  *block_size = best_block;
  *min_grid = best_blocks * arch.sm_count;
  return Status::ok();
}

}  // namespace tilekit
