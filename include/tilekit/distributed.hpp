// distributed.hpp — one GEMM over several GPUs through NCCL (library tilekit_dist,
// docs/multigpu.md).
//
//   std::unique_ptr<tilekit::DistributedContext> dc;
//   tilekit::Status s = tilekit::DistributedContext::create({0, 1}, {}, &dc);   // one process
//   s = tilekit::gemm_distributed_host(*dc, problem);          // host A, B, C: scattered, gathered
//   s = tilekit::gemm_distributed(*dc, problem, blocks);       // operands already on the GPUs
//
// How the work is shared (DistributionPlan): every rank r holds rows rows[r] of op(A) and
// columns cols[r] of op(B). With the row split, rank r computes rows rows[r] of C and needs all
// of op(B): the column blocks are all-gathered. With the column split, rank r computes columns
// cols[r] of C and op(A)'s row blocks are all-gathered. kAuto takes the split that moves fewer
// bytes. Transfers go in panels on their own stream, so each panel's GEMM starts as soon as the
// panel has arrived while the next one travels. Each rank's panels run tilekit's own gemm
// (kernel "auto" unless told) on its GPU, in the call's types and compute mode.
//
// Host-only like every tilekit header: NCCL's communicator is only declared.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"

struct ncclComm;  // ncclComm_t is `ncclComm*` (nccl.h)

namespace tilekit {

// True when this build has the NCCL implementation (TILEKIT_NCCL); without it every
// DistributedContext factory returns kNotSupported saying so.
bool built_with_nccl();

// Which dimension of C the ranks share out.
enum class DistSplit {
  kAuto,     // the one that moves fewer bytes (choose_split)
  kRows,     // rank r computes C's rows rows[r]; op(B) travels
  kColumns,  // rank r computes C's columns cols[r]; op(A) travels
};

// Where the travelling operand (op(B) for the row split, op(A) for the column split) is.
enum class ReplicaSource {
  kBlocks,     // each rank holds its block of it: all-gathered (the usual case)
  kRoot,       // rank 0 holds all of it: broadcast
  kEveryRank,  // every rank holds all of it already: nothing travels
};

const char* dist_split_name(DistSplit s);         // "auto", "rows", "columns"
const char* replica_source_name(ReplicaSource s);  // "blocks", "root", "every-rank"

// A contiguous run of indices [begin, begin + size).
struct IndexRange {
  int64_t begin = 0, size = 0;
  int64_t end() const { return begin + size; }
  bool operator==(const IndexRange& o) const { return begin == o.begin && size == o.size; }
};

// Part `index` of `total` items split over `parts` near-equal contiguous blocks: the first
// total % parts blocks hold one more. Parts may be empty (total < parts).
IndexRange block_range(int64_t total, int parts, int index);

struct DistributedOptions {
  DistSplit split = DistSplit::kAuto;
  ReplicaSource source = ReplicaSource::kBlocks;
  // Each rank's block of the travelling operand moves in this many panels: more panels overlap
  // more of the transfer with compute, but make each panel's GEMM narrower.
  int panels_per_block = 4;
  std::string kernel = "auto";  // the kernel every panel runs (a registry id, or "auto")
  bool allow_vendor = false;    // let "auto" choose cuBLAS where no own kernel can run a panel
  // Resident operands: the GEMMs write a staging copy of each rank's block of C, copied into C
  // only once every rank has succeeded, so that C is untouched by a call that fails at any
  // point (costs that block's memory and a device copy or two). Host operands are always so.
  bool all_or_nothing = false;
  // The travelling operand moves in rounds (the i-th panel of every rank at once): a round whose
  // panels are all the same size is one ncclAllGather (NCCL moves both directions of a link in
  // one kernel, more bytes per SM than a group of broadcasts); false: always broadcasts.
  bool all_gather_rounds = true;
  // GEMMs of this rank's own panels (read in place: resident operands) enqueued before the
  // transfers, so that the GPU multiplies while the host enqueues the collectives (0: the
  // transfers first, as measured best on 2 × H200 so far; docs/multigpu.md).
  int lead_gemms = 0;
};

// What every rank computes from the global problem alone, identically.
struct DistributionPlan {
  DistSplit split = DistSplit::kRows;  // never kAuto
  ReplicaSource source = ReplicaSource::kBlocks;
  int ranks = 1;
  int panels_per_block = 1;
  std::vector<IndexRange> rows;  // per rank: rows of op(A) (and of C with the row split)
  std::vector<IndexRange> cols;  // per rank: columns of op(B) (and of C with the column split)
  // Bytes of the travelling operand each rank receives (its own block excluded), per rank.
  std::vector<int64_t> received_bytes;
};

// The split that moves fewer bytes: the row split moves op(B) (k·n elements), the column split
// op(A) (m·k); rows on a tie. Bytes count each operand's storage type.
DistSplit choose_split(int64_t m, int64_t n, int64_t k, GemmTypes types);

// Bytes rank `rank` receives under a split and source (0 for kEveryRank, and for the root of a
// broadcast; the whole operand for the others; all but its own block for an all-gather).
int64_t received_bytes(DistSplit split, ReplicaSource source, int64_t m, int64_t n, int64_t k,
                       GemmTypes types, int ranks, int rank);

// The plan for `problem` (its shape and types; pointers are not read) over `ranks` ranks.
Status plan_distribution(const GemmProblem& problem, int ranks, const DistributedOptions& options,
                         DistributionPlan* out);

// One rank's operands on its GPU, as the plan lays them out, in the problem's layout and ops:
//   a: rows rows[r] of op(A): stored (op_a N) rows[r].size × k, (op_a T) k × rows[r].size;
//      the whole op(A) instead when the column split's source is kRoot (rank 0) or kEveryRank.
//   b: columns cols[r] of op(B): stored (op_b N) k × cols[r].size, (op_b T) cols[r].size × k;
//      the whole op(B) instead when the row split's source is kRoot (rank 0) or kEveryRank.
//   c: the row split: rows rows[r] of C (rows[r].size × n); the column split: columns cols[r]
//      (m × cols[r].size).
// Pointers a rank does not read may be null (a kRoot operand on other ranks, empty blocks).
struct LocalBlocks {
  const void* a = nullptr;
  int64_t lda = 0;
  const void* b = nullptr;
  int64_t ldb = 0;
  void* c = nullptr;
  int64_t ldc = 0;
};

// Per rank: where the time went in the last call (milliseconds, from CUDA events).
struct RankStats {
  int rank = 0, device = 0;
  int64_t rows = 0, cols = 0;   // this rank's share of C
  double upload_ms = 0;         // host operands: A's and C's blocks onto the GPU
  double transfer_ms = 0;       // the transfer stream: packing, broadcasts (time communicating)
  double compute_ms = 0;        // the compute stream: from its first GEMM to its last
  double download_ms = 0;       // host operands: C's block back
  double total_ms = 0;          // first to last event of the call on this rank
  // Host time from the call's start on this rank (wall clock): until the ranks had agreed, and
  // until this rank's GEMMs were all enqueued. The compute stream cannot start before the first
  // GEMM is enqueued: what the GPU waits for the host (docs/multigpu.md, "Where a call's time
  // goes").
  double host_agreed_ms = 0, host_enqueued_ms = 0;
  int64_t received_bytes = 0;
  bool copy_engines = false;    // the all-gathers ran on the copy engines (no SMs held)
};
struct DistributedStats {
  DistributionPlan plan;
  std::vector<RankStats> ranks;  // this process's ranks
};

struct DistributedConfig {
  // A collective that has not finished after this long ends the communicator (ncclCommAbort):
  // the call returns an error on every rank instead of hanging on a rank that failed.
  double timeout_s = 120.0;
  // The most CUDA blocks (SMs) an NCCL collective may hold (ncclConfig_t::maxCTAs). The
  // collectives run beside the GEMMs, so while they are in flight the GEMMs get the other SMs
  // (Context::sm_limit): kernels that keep one block per SM for the whole launch would
  // otherwise take turns with the collectives instead of overlapping them. 0: NCCL's choice,
  // and the GEMMs are not limited. Ignored by wrap (the caller made the communicator).
  // 4: an H200's 132 SMs leave 128 to the GEMMs, which split power-of-two tile counts into
  // whole waves (512 tiles: 4 waves of 128, as many as 132 SMs need; 8 would leave 124: 5
  // waves). 4 CTAs move about 45 GB/s each way on 2 × H200: enough to hide the transfers of bf16
  // at n = 32768, not at 16384 (docs/multigpu.md).
  int nccl_max_ctas = 4;
  // All-gathers on the GPUs' copy engines instead of NCCL's kernels (NCCL 2.28 or newer: the
  // communicator gets the zero-CTA policy and the replica of the travelling operand lives in a
  // window registered for symmetric collectives, allocated with ncclMemAlloc). They then hold
  // no SMs and the GEMMs beside them keep every SM (no Context::sm_limit). Where NCCL cannot
  // (no symmetric memory between the GPUs, an older NCCL), the all-gathers fall back to NCCL's
  // kernels and the SM cap above; RankStats::copy_engines says which ran. Broadcasts (uneven
  // rounds, ReplicaSource::kRoot) always use kernels. Ignored by wrap.
  bool copy_engines = true;
};

// The ranks this process drives, each a GPU with its NCCL communicator, two streams and its
// tilekit Context. One process may drive every GPU of a host (create), or one GPU of a job that
// spans processes and hosts (join, wrap): the calls below take the same path either way.
// Not copyable; one host thread uses it at a time. After a timeout or a peer's failure the
// communicator is aborted and every later call returns an error: create a new context.
class DistributedContext {
 public:
  // One process, every GPU listed: rank i is devices[i]. A device this machine lacks, or one
  // listed twice, is an error naming it.
  static Status create(const std::vector<int>& devices, const DistributedConfig& config,
                       std::unique_ptr<DistributedContext>* out);
  // One process per GPU: this process is `rank` of `ranks`, on `device`; every process passes
  // the same unique id (new_unique_id on one of them, shared through a file or the
  // environment: read_unique_id).
  static Status join(const std::string& unique_id, int ranks, int rank, int device,
                     const DistributedConfig& config, std::unique_ptr<DistributedContext>* out);
  // A communicator the caller made and keeps (not destroyed here): this process's rank of it,
  // on `device`.
  static Status wrap(ncclComm* comm, int device, const DistributedConfig& config,
                     std::unique_ptr<DistributedContext>* out);

  ~DistributedContext();
  DistributedContext(const DistributedContext&) = delete;
  DistributedContext& operator=(const DistributedContext&) = delete;

  int ranks() const;                 // in the whole job
  int local_ranks() const;           // driven by this process
  int rank(int local) const;         // the job rank of local rank `local`
  int device(int local) const;       // its CUDA device
  Context context(int local) const;  // its compute stream, for work beside tilekit's

  struct Impl;
  explicit DistributedContext(std::unique_ptr<Impl> impl);
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// How GPU `from` reaches GPU `to` directly (cudaDeviceCanAccessPeer, cudaDeviceGetP2PAttribute):
// what `tilekit devices` prints. Native atomics over the link usually mean NVLink (PCIe
// peer-to-peer lacks them); the performance rank is CUDA's relative order (0 = best).
struct PeerLink {
  int from = 0, to = 0;
  bool access = false;
  int performance_rank = 0;
  bool native_atomics = false;
};
// Every ordered pair of the visible GPUs; empty with fewer than two (or without CUDA).
Status query_peer_links(std::vector<PeerLink>* out);

// A new NCCL unique id (hex text) for join; and one read from the environment variable
// TILEKIT_NCCL_ID, else from the file `path` (written by write_unique_id_file) when it is not
// empty. A missing or malformed id is an error naming where it was looked for.
Status new_unique_id(std::string* out);
Status write_unique_id_file(const std::string& path, const std::string& unique_id);
Status read_unique_id(const std::string& path, std::string* out);

// C = alpha · op(A) · op(B) + beta · C over the context's ranks, operands resident on the
// GPUs: `problem` gives the global shape, types, ops, alpha and beta (its pointers and leading
// dimensions are not read); blocks[i] are local rank i's operands as LocalBlocks says. Every
// rank of the job makes the same call; it returns when this process's ranks are done.
// Arguments that differ between ranks, a rank that fails before the multiplication, a missing
// device: an error on every rank and C untouched. A rank that fails or stops during it: an
// error on every rank within the timeout (C partly written, unless options.all_or_nothing).
Status gemm_distributed(DistributedContext& ctx, const GemmProblem& problem,
                        const std::vector<LocalBlocks>& blocks, const DistributedOptions& options = {},
                        DistributedStats* stats = nullptr);

// The same on host operands: `problem`'s pointers and leading dimensions are host memory of
// this process, each rank uploads its blocks, and C's blocks come back once every rank has
// succeeded (on error C is untouched). Needs every rank in this process (create).
Status gemm_distributed_host(DistributedContext& ctx, const GemmProblem& problem,
                             const DistributedOptions& options = {},
                             DistributedStats* stats = nullptr);

}  // namespace tilekit
