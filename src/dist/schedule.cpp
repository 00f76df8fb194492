// schedule.cpp — one rank's part of a distributed GEMM: check, agree, transfer, multiply.
//
// The order of a call, on every rank:
//   1. check this rank's blocks and allocate what it needs (nothing is enqueued yet);
//   2. agree: every rank learns every other's arguments and readiness (Communicator::exchange:
//      a few integers per rank), so a mismatch or a rank that could not start fails the call
//      everywhere with C untouched;
//   3. enqueue the transfer lane (pack own panels, then the broadcasts in global order) and the
//      compute lane (each panel's GEMM after its own transfer only);
//   4. finish (bounded by the timeout), agree on the outcome; host operands: download C.
#include "dist/schedule.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

#include "core/backend.hpp"
#include "dist/geometry.hpp"
#include "tilekit/registry.hpp"
#include "tilekit/tilekit.hpp"

namespace tilekit::dist {

Schedule build_schedule(ReplicaSource source, const std::vector<IndexRange>& cols,
                        int panels_per_block, int rank, int64_t k, int64_t elem_bytes,
                        Layout layout, Op op_b, bool source_on_host, bool all_gather_rounds,
                        bool group_all_gathers) {
  (void)layout;
  (void)op_b;  // panels are packed densely whatever the layout: only their sizes matter here
  Schedule s;
  const int ranks = static_cast<int>(cols.size());
  // A single rank holds all of op(B) whatever the source says: nothing travels, no pack, no
  // collective (whose kernel would also cost the GEMMs their SM cap).
  if (ranks == 1) source = ReplicaSource::kEveryRank;
  int64_t n = 0;
  for (const IndexRange& c : cols) n += c.size;
  auto add_panels = [&](int owner, IndexRange range, int parts) {
    for (int i = 0; i < parts; ++i) {
      const IndexRange piece = block_range(range.size, parts, i);
      if (piece.size == 0) continue;
      Panel p;
      p.owner = owner;
      p.col_begin = range.begin + piece.begin;
      p.cols = piece.size;
      p.offset_bytes = s.buffer_bytes;
      p.bytes = k * piece.size * elem_bytes;
      s.buffer_bytes += p.bytes;
      s.panels.push_back(p);
    }
  };
  auto pack = [&](int panel) {
    if (s.panels[panel].bytes > 0) s.transfer.push_back({StepKind::kPack, panel, true});
  };
  switch (source) {
    case ReplicaSource::kEveryRank:
      if (!source_on_host) {
        // Nothing moves: one GEMM over all of op(B) where it lies.
        add_panels(-1, IndexRange{0, n}, 1);
        s.direct = true;
        s.buffer_bytes = 0;
        for (Panel& p : s.panels) p.offset_bytes = 0;
      } else {
        // Each rank uploads all of op(B) itself, in panels so that the first GEMM starts early.
        add_panels(rank, IndexRange{0, n}, panels_per_block);
        for (size_t p = 0; p < s.panels.size(); ++p) pack(static_cast<int>(p));
      }
      break;
    case ReplicaSource::kRoot:
      add_panels(0, IndexRange{0, n}, panels_per_block * ranks);
      for (size_t p = 0; p < s.panels.size(); ++p) {
        if (rank == 0) pack(static_cast<int>(p));
      }
      for (size_t p = 0; p < s.panels.size(); ++p)
        if (s.panels[p].bytes > 0)
          s.transfer.push_back({StepKind::kBroadcast, static_cast<int>(p), rank != 0});
      break;
    case ReplicaSource::kBlocks: {
      // by_owner[o]: owner o's panels that carry bytes, in column order.
      std::vector<std::vector<int>> by_owner(ranks);
      for (int o = 0; o < ranks; ++o) add_panels(o, cols[o], panels_per_block);
      size_t rounds = 0;
      for (size_t p = 0; p < s.panels.size(); ++p)
        if (s.panels[p].bytes > 0) {
          by_owner[s.panels[p].owner].push_back(static_cast<int>(p));
          rounds = std::max(rounds, by_owner[s.panels[p].owner].size());
        }
      // Round i: the i-th panel of every owner. The buffer holds the rounds one after the
      // other, a round's panels side by side in owner order: where they are all the same size
      // the round is one all-gather in place.
      std::vector<std::vector<int>> round_panels(rounds);
      int64_t offset = 0;
      for (size_t i = 0; i < rounds; ++i)
        for (int o = 0; o < ranks; ++o)
          if (i < by_owner[o].size()) {
            const int p = by_owner[o][i];
            round_panels[i].push_back(p);
            s.panels[p].offset_bytes = offset;
            offset += s.panels[p].bytes;
          }
      // Own panels first: packed before any broadcast, so this rank's first GEMMs need nobody.
      for (size_t p = 0; p < s.panels.size(); ++p)
        if (s.panels[p].owner == rank) pack(static_cast<int>(p));
      auto all_gather_round = [&](const std::vector<int>& round) {
        bool equal = all_gather_rounds && round.size() == static_cast<size_t>(ranks);
        for (int p : round) equal = equal && s.panels[p].bytes == s.panels[round[0]].bytes;
        return equal;
      };
      // Rounds that are all all-gathers go as one group with two ranks, or with more where the
      // all-gathers run on the copy engines (NVLink between every pair: NCCL takes that path
      // only then). Each NCCL call on a nonblocking communicator is a launch of its own, paid
      // in host time before the first GEMM is enqueued (2 × H200, four rounds: 0.55–0.65 ms,
      // as one group 0.25–0.4 ms; 4 × H200: the GEMMs enqueued 1.5 ms into the call;
      // docs/multigpu.md). The group delays the received panels to its end, which costs
      // nothing while this rank's own panels take longer to multiply than the transfers (bf16
      // 16384 on 2: 3.2 against 1.1 ms) and no more than the launches save while they take not
      // much less (bf16 on 4: level at 32768, 2–5% faster at 16384).
      const bool one_group = (ranks == 2 || group_all_gathers) && rounds > 1 &&
                             std::all_of(round_panels.begin(), round_panels.end(), all_gather_round);
      auto signal_received = [&](const std::vector<int>& round) {
        for (int p : round)
          if (s.panels[p].owner != rank) s.transfer.push_back({StepKind::kSignal, p, true});
      };
      if (one_group) s.transfer.push_back({StepKind::kGroupBegin, -1, false});
      for (const std::vector<int>& round : round_panels) {
        if (round.size() == 1) {
          s.transfer.push_back({StepKind::kBroadcast, round[0], s.panels[round[0]].owner != rank});
          continue;
        }
        if (all_gather_round(round)) {
          TransferStep t{StepKind::kAllGather, round[0], false};
          t.offset_bytes = s.panels[round[0]].offset_bytes;
          t.bytes = s.panels[round[0]].bytes;
          s.transfer.push_back(t);
        } else {
          s.transfer.push_back({StepKind::kGroupBegin, -1, false});
          for (int p : round) s.transfer.push_back({StepKind::kBroadcast, p, false});
          s.transfer.push_back({StepKind::kGroupEnd, -1, false});
        }
        if (!one_group) signal_received(round);
      }
      if (one_group) {
        s.transfer.push_back({StepKind::kGroupEnd, -1, false});
        for (const std::vector<int>& round : round_panels) signal_received(round);
      }
      break;
    }
  }
  s.wait_for.assign(s.panels.size(), false);
  for (const TransferStep& t : s.transfer)
    if (t.completes_panel) s.wait_for[t.panel] = true;
  // Own panels (and panels nobody sends) first, then the others in the order they arrive.
  for (size_t p = 0; p < s.panels.size(); ++p)
    if (s.panels[p].owner == rank || s.panels[p].owner == -1) s.compute.push_back(static_cast<int>(p));
  std::vector<bool> listed(s.panels.size(), false);
  for (const TransferStep& t : s.transfer)
    if (t.completes_panel && s.panels[t.panel].owner != rank && !listed[t.panel]) {
      listed[t.panel] = true;
      s.compute.push_back(t.panel);
    }
  // Panels no step delivers (empty ones: k = 0) still scale their columns of C by beta.
  for (size_t p = 0; p < s.panels.size(); ++p)
    if (s.panels[p].owner != rank && s.panels[p].owner != -1 && !listed[p])
      s.compute.push_back(static_cast<int>(p));
  return s;
}

std::vector<bool> gemms_beside_collectives(const Schedule& s) {
  // The transfer lane's last collective; panels signalled after it have arrived once it ended.
  size_t last = s.transfer.size();
  for (size_t i = 0; i < s.transfer.size(); ++i)
    if (s.transfer[i].kind == StepKind::kBroadcast || s.transfer[i].kind == StepKind::kGroupEnd ||
        s.transfer[i].kind == StepKind::kAllGather)
      last = i;
  std::vector<bool> after_all(s.panels.size(), false);
  if (last < s.transfer.size())
    for (size_t i = last; i < s.transfer.size(); ++i)
      if (s.transfer[i].completes_panel) after_all[s.transfer[i].panel] = true;
  std::vector<bool> out(s.compute.size(), false);
  bool alone = last == s.transfer.size();  // no collectives at all
  for (size_t j = 0; j < s.compute.size(); ++j) {
    const int p = s.compute[j];
    alone = alone || (s.wait_for[p] && after_all[p]);
    out[j] = !alone;
  }
  return out;
}

GemmProblem transposed_view(const GemmProblem& p) {
  GemmProblem t = p;
  t.layout = flipped(p.layout);
  t.op_a = p.op_b;
  t.op_b = p.op_a;
  t.m = p.n;
  t.n = p.m;
  t.types.a = p.types.b;
  t.types.b = p.types.a;
  t.a = p.b;
  t.lda = p.ldb;
  t.b = p.a;
  t.ldb = p.lda;
  return t;
}

namespace {

// ---- step 2: agreement ----

struct Field {
  const char* name;
  int64_t value;
};

int64_t float_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

int64_t text_hash(const std::string& s) {  // FNV-1a: the same in every process
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return static_cast<int64_t>(h >> 1);
}

std::vector<Field> call_fields(const GemmProblem& g, const DistributedOptions& o, bool host,
                               int ranks) {
  return {{"ranks", ranks},
          {"m", g.m},
          {"n", g.n},
          {"k", g.k},
          {"layout", static_cast<int64_t>(g.layout)},
          {"op_a", static_cast<int64_t>(g.op_a)},
          {"op_b", static_cast<int64_t>(g.op_b)},
          {"the type of A", static_cast<int64_t>(g.types.a)},
          {"the type of B", static_cast<int64_t>(g.types.b)},
          {"the type of C", static_cast<int64_t>(g.types.c)},
          {"the compute mode", static_cast<int64_t>(g.types.compute)},
          {"alpha (bits)", float_bits(g.alpha)},
          {"beta (bits)", float_bits(g.beta)},
          {"the split", static_cast<int64_t>(o.split)},
          {"the replica source", static_cast<int64_t>(o.source)},
          {"panels_per_block", o.panels_per_block},
          {"the kernel (hash of its id)", text_hash(o.kernel)},
          {"allow_vendor", o.allow_vendor},
          {"all_or_nothing", o.all_or_nothing},
          {"all_gather_rounds", o.all_gather_rounds},
          {"host operands", host}};
}

std::string who(const Communicator& comm) {
  return "gemm_distributed: rank " + std::to_string(comm.rank()) + " (GPU " +
         std::to_string(comm.device()) + ")";
}

// Every rank contributes its call's fields and its own readiness; every rank reaches the same
// verdict: a field that differs between ranks, else the first rank that is not ready.
Status agree(Communicator& comm, const std::vector<Field>& fields, const Status& local,
             const char* stage) {
  std::vector<int64_t> mine;
  for (const Field& f : fields) mine.push_back(f.value);
  mine.push_back(static_cast<int64_t>(local.code()));
  std::vector<int64_t> all;
  Status s = comm.exchange(mine, &all);
  if (!s) {
    comm.abort();  // out of step with the peers: end the communicator so that they fail at once
    return s;
  }
  const size_t width = mine.size();
  const int ranks = comm.size();
  if (all.size() != width * static_cast<size_t>(ranks))
    return Status(StatusCode::kInternal, who(comm) + ": the agreement received " +
                                             std::to_string(all.size()) + " values, expected " +
                                             std::to_string(width * ranks));
  for (size_t f = 0; f < fields.size(); ++f)
    for (int r = 1; r < ranks; ++r)
      if (all[r * width + f] != all[f])
        return invalid_argument("gemm_distributed: the ranks disagree on " +
                                std::string(fields[f].name) + ": rank 0 has " +
                                std::to_string(all[f]) + ", rank " + std::to_string(r) + " has " +
                                std::to_string(all[r * width + f]) +
                                " (every rank must make the same call); C untouched");
  if (!local) return local;
  for (int r = 0; r < ranks; ++r) {
    const int64_t code = all[r * width + fields.size()];
    if (code != 0)
      return Status(static_cast<StatusCode>(code),
                    "gemm_distributed: rank " + std::to_string(r) + " failed " + stage + " (" +
                        status_code_name(static_cast<StatusCode>(code)) +
                        "; its own error says more)" +
                        (std::string(stage) == "before the multiplication" ? "; C untouched"
                                                                           : ""));
  }
  return Status::ok();
}

// ---- step 1: checks and memory ----

// One operand block of a rank, in the caller's orientation.
Status check_block(const Communicator& comm, const char* name, const void* ptr, int64_t ld,
                   Layout layout, Op op, int64_t rows, int64_t cols, bool needed) {
  if (!needed || rows == 0 || cols == 0) return Status::ok();
  const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
  if (!ptr)
    return invalid_argument(who(comm) + ": " + name + " is null, its block of op(" + name +
                            ") is " + shape);
  const int64_t min_ld = packed_ld(layout, op, rows, cols);
  if (ld < min_ld)
    return invalid_argument(who(comm) + ": ld" + std::string(1, static_cast<char>(name[0] + 32)) +
                            " = " + std::to_string(ld) + " must be >= " + std::to_string(min_ld) +
                            " (the block of op(" + name + ") is " + shape + ", " +
                            layout_name(layout) + "-major)");
  return Status::ok();
}

Status check_blocks(const Communicator& comm, const GemmProblem& g, const DistributionPlan& plan,
                    const LocalBlocks& b) {
  const int r = comm.rank();
  const bool by_cols = plan.split == DistSplit::kColumns;
  const bool reads = g.alpha != 0.0f && g.k > 0;
  // The travelling operand is whole where it is not split into blocks.
  const bool whole = plan.source != ReplicaSource::kBlocks;
  const bool whole_here = plan.source == ReplicaSource::kEveryRank || r == 0;
  const int64_t a_rows = by_cols && whole ? g.m : plan.rows[r].size;
  const int64_t b_cols = !by_cols && whole ? g.n : plan.cols[r].size;
  const bool a_read = reads && (!(by_cols && whole) || whole_here);
  const bool b_read = reads && (!(!by_cols && whole) || whole_here);
  TILEKIT_RETURN_IF_ERROR(check_block(comm, "A", b.a, b.lda, g.layout, g.op_a, a_rows, g.k, a_read));
  TILEKIT_RETURN_IF_ERROR(check_block(comm, "B", b.b, b.ldb, g.layout, g.op_b, g.k, b_cols, b_read));
  const int64_t c_rows = by_cols ? g.m : plan.rows[r].size;
  const int64_t c_cols = by_cols ? plan.cols[r].size : g.n;
  return check_block(comm, "C", b.c, b.ldc, g.layout, Op::kN, c_rows, c_cols, true);
}

// Rank-local memory, released when the call ends.
class LocalMemory {
 public:
  explicit LocalMemory(Communicator& comm) : comm_(comm) {}
  ~LocalMemory() {
    if (ptr_) comm_.release(ptr_);
  }
  LocalMemory(const LocalMemory&) = delete;
  LocalMemory& operator=(const LocalMemory&) = delete;
  Status allocate(int64_t bytes, const char* what) {
    if (bytes <= 0) return Status::ok();
    return comm_.allocate(static_cast<size_t>(bytes), what, &ptr_);
  }
  void* get() const { return ptr_; }
  char* bytes() const { return static_cast<char*>(ptr_); }

 private:
  Communicator& comm_;
  void* ptr_ = nullptr;
};

// One rank's work in the row-split view, with its operands in its own memory.
struct RankJob {
  GemmProblem view;  // the whole problem, row-split view (host pointers in host mode)
  IndexRange rows;   // this rank's rows of op(A) and C
  const void* a = nullptr;  // this rank's rows of op(A)
  int64_t lda = 1;
  const void* b = nullptr;  // where this rank packs op(B)'s panels from
  int64_t ldb = 1;
  int64_t b_col0 = 0;       // the column of op(B) at which `b` starts
  CopyKind b_kind = CopyKind::kLocal;
  void* c = nullptr;        // this rank's rows of C
  int64_t ldc = 1;
};

size_t elem(DType t) { return dtype_size(t); }

Status copy_block(Communicator& comm, Lane lane, CopyKind kind, void* dst, int64_t dst_ld,
                  const void* src, const BlockLines& lines, size_t es) {
  if (lines.lines == 0 || lines.line_elems == 0) return Status::ok();
  return comm.copy_2d(lane, kind, dst, static_cast<size_t>(dst_ld) * es,
                      static_cast<const char*>(src) + lines.first * static_cast<int64_t>(es),
                      static_cast<size_t>(lines.pitch) * es,
                      static_cast<size_t>(lines.line_elems) * es, static_cast<size_t>(lines.lines));
}

// ---- step 3: the two lanes ----

Status enqueue_transfers(Communicator& comm, const RankJob& job, const Schedule& s, char* buffer) {
  const GemmProblem& v = job.view;
  const size_t es = elem(v.types.b);
  TILEKIT_RETURN_IF_ERROR(comm.mark(Lane::kTransfer, Mark::kTransferStart));
  bool in_group = false;
  auto step_status = [&](const TransferStep& step) -> Status {
    switch (step.kind) {
      case StepKind::kGroupBegin:
        TILEKIT_RETURN_IF_ERROR(comm.group_begin());
        in_group = true;
        return Status::ok();
      case StepKind::kGroupEnd:
        in_group = false;
        return comm.group_end();
      case StepKind::kSignal:
        return comm.signal(Lane::kTransfer, step.panel);
      case StepKind::kAllGather:
        return comm.all_gather(buffer + step.offset_bytes, static_cast<size_t>(step.bytes));
      case StepKind::kPack: {
        const Panel& p = s.panels[step.panel];
        const BlockLines src = block_lines(v.layout, v.op_b, job.ldb, 0, p.col_begin - job.b_col0,
                                           v.k, p.cols);
        TILEKIT_RETURN_IF_ERROR(copy_block(comm, Lane::kTransfer, job.b_kind,
                                           buffer + p.offset_bytes,
                                           packed_ld(v.layout, v.op_b, v.k, p.cols), job.b, src, es));
        break;
      }
      case StepKind::kBroadcast: {
        const Panel& p = s.panels[step.panel];
        TILEKIT_RETURN_IF_ERROR(
            comm.broadcast(buffer + p.offset_bytes, static_cast<size_t>(p.bytes), p.owner));
        break;
      }
    }
    if (step.completes_panel) return comm.signal(Lane::kTransfer, step.panel);
    return Status::ok();
  };
  for (const TransferStep& step : s.transfer) {
    Status st = step_status(step);
    if (!st) {
      // A group left open would hold back this thread's next NCCL calls: close it (the caller
      // aborts the communicator after this failure anyway).
      if (in_group) (void)comm.group_end();
      return st;
    }
  }
  return comm.mark(Lane::kTransfer, Mark::kTransferEnd);
}

// The kernel `auto` picks for this rank's whole share of C (its rows, every column), run on
// every panel: the panels are one GEMM cut up only for the overlap, and a panel's own shape (a
// narrow slice of the columns) can send the selector to another kernel than the share's (on
// 2 × H200, bf16 at 16384: a split-k kernel for the 8192 × 2048 × 16384 panels). No kernel
// (each panel selects its own) when the options name one or the selection fails.
struct ShareKernel {
  const GemmKernel* kernel = nullptr;
  int split_k = 0;
  const DeviceInfo* device = nullptr;  // the backend's cached description (null on the CPU)
};

ShareKernel share_kernel(const RankJob& job, const Schedule& s, const char* buffer,
                         const Context& ctx, const DistributedOptions& o) {
  ShareKernel out;
  if (o.kernel != "auto" || job.rows.size == 0) return out;
  const GemmProblem& v = job.view;
  GemmProblem share = v;
  share.m = job.rows.size;
  share.a = job.a;
  share.lda = job.lda;
  // Packed panels lie apart in the buffer; the selector sees them as one packed operand.
  share.b = s.direct ? job.b : buffer;
  share.ldb = s.direct ? job.ldb : packed_ld(v.layout, v.op_b, v.k, v.n);
  share.c = job.c;
  share.ldc = job.ldc;
  Selection<GemmProblem> chosen;
  if (!select_gemm_kernel(share, ctx, o.allow_vendor, &chosen) || !chosen.kernel) return out;
  if (!check_context(ctx, &out.device)) return out;
  out.kernel = chosen.kernel;
  out.split_k = chosen.split_k;
  return out;
}

// What every panel's GEMM of a call shares, worked out once before the first is enqueued.
struct GemmLane {
  GemmOptions options;
  Context full, beside;
  std::vector<bool> shared;  // panel j's GEMM runs while collectives may still be in flight
  ShareKernel share;
};

GemmLane gemm_lane(Communicator& comm, const RankJob& job, const Schedule& s, const char* buffer,
                   const DistributedOptions& o) {
  GemmLane lane;
  lane.options.kernel = o.kernel;
  lane.options.allow_vendor = o.allow_vendor;
  // While collectives run beside the GEMMs, the GEMMs get a context that leaves the
  // collectives their SMs (Communicator::gemm_sm_limit): a kernel that launches one block per
  // SM and walks the tiles from there (the sm90 persistent kernels) would otherwise hold every
  // SM until its last tile, so that a collective waits for the GEMM to end and the next GEMM
  // waits, with the blocks it could not place, for the collective: the two take turns instead
  // of overlapping (bf16 on 2 × H200: 1.60×). Once the compute lane has waited for a panel
  // signalled after the last collective, nothing runs beside it: the rest get every SM.
  lane.full = comm.compute_context();
  if (lane.full.backend == Backend::kCuda) (void)lane.full.workspace_pool();  // copies share one pool
  lane.beside = lane.full;
  lane.beside.sm_limit = comm.gemm_sm_limit();
  // All-gathers on the copy engines hold no SM: then only broadcasts call for the limit.
  const bool collectives_free_sms =
      comm.all_gathers_free_sms() &&
      std::none_of(s.transfer.begin(), s.transfer.end(),
                   [](const TransferStep& t) { return t.kind == StepKind::kBroadcast; });
  lane.shared = gemms_beside_collectives(s);
  if (collectives_free_sms) lane.shared.assign(lane.shared.size(), false);
  lane.share = share_kernel(job, s, buffer, lane.full, o);
  return lane;
}

// A resident panel of this rank's own is read where the caller holds it: its GEMM need not
// wait for the pack into the replica (which only the all-gather needs), so the first GEMM
// starts at once and the packs run beside the GEMMs.
bool reads_in_place(const Communicator& comm, const RankJob& job, const Schedule& s, int index) {
  return s.direct || (s.panels[index].owner == comm.rank() && job.b_kind == CopyKind::kLocal);
}

// How many of the first GEMMs may be enqueued before the transfers (DistributedOptions::
// lead_gemms): at most `wanted`, and only panels read in place, which wait for no transfer.
size_t lead_gemm_count(const Communicator& comm, const RankJob& job, const Schedule& s, int wanted) {
  size_t n = 0;
  while (n < s.compute.size() && n < static_cast<size_t>(std::max(wanted, 0)) &&
         reads_in_place(comm, job, s, s.compute[n]))
    ++n;
  return job.rows.size == 0 ? 0 : n;
}

// Enqueues the GEMMs of s.compute[first, last) on the compute lane, marking its start before
// the first of the call and its end after the last.
Status enqueue_gemms(Communicator& comm, const RankJob& job, const Schedule& s, const char* buffer,
                     const GemmLane& lane, size_t first, size_t last) {
  const GemmProblem& v = job.view;
  if (first == 0) TILEKIT_RETURN_IF_ERROR(comm.mark(Lane::kCompute, Mark::kComputeStart));
  for (size_t j = first; j < last; ++j) {
    const int index = s.compute[j];
    const Panel& p = s.panels[index];
    const bool in_place = reads_in_place(comm, job, s, index);
    if (s.wait_for[index] && !in_place) TILEKIT_RETURN_IF_ERROR(comm.wait(Lane::kCompute, index));
    if (job.rows.size == 0) continue;  // no rows here: this rank only relays panels
    GemmProblem panel = v;
    panel.m = job.rows.size;
    panel.n = p.cols;
    panel.a = job.a;
    panel.lda = job.lda;
    if (in_place) {
      panel.b = static_cast<const char*>(job.b) +
                op_offset(v.layout, v.op_b, job.ldb, 0, p.col_begin - job.b_col0) *
                    static_cast<int64_t>(elem(v.types.b));
      panel.ldb = job.ldb;
    } else {
      panel.b = buffer + p.offset_bytes;
      panel.ldb = packed_ld(v.layout, v.op_b, v.k, p.cols);
    }
    panel.c = static_cast<char*>(job.c) + op_offset(v.layout, Op::kN, job.ldc, 0, p.col_begin) *
                                              static_cast<int64_t>(elem(v.types.c));
    panel.ldc = job.ldc;
    GemmOptions panel_options = lane.options;
    const ShareKernel& share = lane.share;
    if (share.kernel && (!share.kernel->can_implement ||
                         share.kernel->can_implement(panel, share.device))) {
      panel_options.kernel = share.kernel->info.id;
      if (panel.split_k == 0) panel.split_k = share.split_k;
    }
    Status st = gemm(lane.shared[j] ? lane.beside : lane.full, panel, panel_options);
    if (!st)
      return Status(st.code(), who(comm) + ": the GEMM of panel " + std::to_string(index) +
                                   " (columns " + std::to_string(p.col_begin) + ".." +
                                   std::to_string(p.col_begin + p.cols) + "): " + st.message(),
                    st.backend_code());
  }
  if (last == s.compute.size()) return comm.mark(Lane::kCompute, Mark::kComputeEnd);
  return Status::ok();
}

// Host wall-clock points of one call on a rank (RankStats::host_*), in ms from its start.
struct HostTimeline {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double agreed_ms = 0, enqueued_ms = 0;
  double now_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }
};

void fill_stats(Communicator& comm, const DistributionPlan& plan, const RankJob& job, bool host,
                const HostTimeline& timeline, RankStats* st) {
  if (!st) return;
  const int r = comm.rank();
  st->rank = r;
  st->device = comm.device();
  const bool by_cols = plan.split == DistSplit::kColumns;
  st->rows = by_cols ? job.view.n : plan.rows[r].size;
  st->cols = by_cols ? plan.cols[r].size : job.view.n;
  st->upload_ms = host ? comm.elapsed_ms(Mark::kStart, Mark::kUploaded) : 0.0;
  st->transfer_ms = comm.elapsed_ms(Mark::kTransferStart, Mark::kTransferEnd);
  st->compute_ms = comm.elapsed_ms(Mark::kComputeStart, Mark::kComputeEnd);
  st->download_ms = host ? comm.elapsed_ms(Mark::kComputeEnd, Mark::kDownloaded) : 0.0;
  st->total_ms = comm.elapsed_ms(Mark::kStart, host ? Mark::kDownloaded : Mark::kComputeEnd);
  st->host_agreed_ms = timeline.agreed_ms;
  st->host_enqueued_ms = timeline.enqueued_ms;
  st->received_bytes = plan.received_bytes[r];
  st->copy_engines = comm.all_gathers_free_sms();
}

}  // namespace

namespace {

// What one call holds on a rank: the replica buffer and, for host operands (or a staged C), the
// rank's blocks of A and C in its own memory.
struct RankMemory {
  explicit RankMemory(Communicator& comm) : replica(comm), a(comm), c(comm) {}
  LocalMemory replica, a, c;
};

// Step 1: this rank's job in the row-split view, checked, with its memory. Nothing is enqueued.
Status prepare(Communicator& comm, const GemmProblem& global, const DistributionPlan& plan,
               const LocalBlocks& blocks, bool host, const DistributedOptions& options,
               const Schedule& sched, RankJob* job, RankMemory* mem) {
  const int r = comm.rank();
  const bool by_cols = plan.split == DistSplit::kColumns;
  const GemmProblem& v = job->view;
  const std::vector<IndexRange>& cols = by_cols ? plan.rows : plan.cols;
  TILEKIT_RETURN_IF_ERROR(host ? validate(global) : check_blocks(comm, global, plan, blocks));
  if (!comm.replica_in_window())  // else window() after the agreement (it may be collective)
    TILEKIT_RETURN_IF_ERROR(
        mem->replica.allocate(sched.buffer_bytes, "the replica of the travelling operand"));
  const int64_t c_bytes = job->rows.size * v.n * static_cast<int64_t>(elem(v.types.c));
  if (host) {
    TILEKIT_RETURN_IF_ERROR(
        mem->a.allocate(job->rows.size * v.k * static_cast<int64_t>(elem(v.types.a)),
                        "this rank's rows of op(A)"));
    TILEKIT_RETURN_IF_ERROR(mem->c.allocate(c_bytes, "this rank's rows of C"));
    job->a = mem->a.get();
    job->lda = packed_ld(v.layout, v.op_a, job->rows.size, v.k);
    job->c = mem->c.get();
    job->ldc = packed_ld(v.layout, Op::kN, job->rows.size, v.n);
    job->b = v.b;
    job->ldb = v.ldb;
    job->b_col0 = 0;
    job->b_kind = CopyKind::kHostToLocal;
    return Status::ok();
  }
  // In the transposed view the caller's B block plays A's part and A's block B's.
  const LocalBlocks lb =
      by_cols ? LocalBlocks{blocks.b, blocks.ldb, blocks.a, blocks.lda, blocks.c, blocks.ldc}
              : blocks;
  job->a = lb.a;
  job->lda = lb.lda;
  job->b = lb.b;
  job->ldb = lb.ldb;
  job->b_col0 = plan.source == ReplicaSource::kBlocks ? cols[r].begin : 0;
  job->c = lb.c;
  job->ldc = lb.ldc;
  if (options.all_or_nothing && c_bytes > 0) {
    // The GEMMs write a staging copy; the caller's C gets it once every rank has succeeded.
    TILEKIT_RETURN_IF_ERROR(
        mem->c.allocate(c_bytes, "the staging copy of this rank's block of C"));
    job->c = mem->c.get();
    job->ldc = packed_ld(v.layout, Op::kN, job->rows.size, v.n);
  }
  return Status::ok();
}

// Step 3a, compute lane: the rank's blocks of A and C onto the device (host operands), or the
// caller's C into the staging copy (when beta reads it).
Status enqueue_inputs(Communicator& comm, const RankJob& job, const LocalBlocks& blocks, bool host,
                      bool staged) {
  const GemmProblem& v = job.view;
  const size_t ea = elem(v.types.a), ec = elem(v.types.c);
  if (host) {
    // job.a is this rank's own buffer here (RankMemory::a), filled before the GEMMs read it.
    TILEKIT_RETURN_IF_ERROR(copy_block(
        comm, Lane::kCompute, CopyKind::kHostToLocal, const_cast<void*>(job.a), job.lda, v.a,
        block_lines(v.layout, v.op_a, v.lda, job.rows.begin, 0, job.rows.size, v.k), ea));
    if (v.beta != 0.0f)
      TILEKIT_RETURN_IF_ERROR(copy_block(
          comm, Lane::kCompute, CopyKind::kHostToLocal, job.c, job.ldc, v.c,
          block_lines(v.layout, Op::kN, v.ldc, job.rows.begin, 0, job.rows.size, v.n), ec));
    return comm.mark(Lane::kCompute, Mark::kUploaded);
  }
  if (staged && v.beta != 0.0f)
    return copy_block(comm, Lane::kCompute, CopyKind::kLocal, job.c, job.ldc, blocks.c,
                      block_lines(v.layout, Op::kN, blocks.ldc, 0, 0, job.rows.size, v.n), ec);
  return Status::ok();
}

// Step 4, after every rank agreed that all succeeded: C's block where the caller wants it (host
// operands: downloaded; a staged C: copied into the caller's).
Status deliver_c(Communicator& comm, const RankJob& job, const LocalBlocks& blocks, bool host,
                 bool staged) {
  const GemmProblem& v = job.view;
  const size_t ec = elem(v.types.c);
  const BlockLines from = block_lines(v.layout, Op::kN, job.ldc, 0, 0, job.rows.size, v.n);
  if (host) {
    char* to = static_cast<char*>(v.c) +
               op_offset(v.layout, Op::kN, v.ldc, job.rows.begin, 0) * static_cast<int64_t>(ec);
    TILEKIT_RETURN_IF_ERROR(
        copy_block(comm, Lane::kCompute, CopyKind::kLocalToHost, to, v.ldc, job.c, from, ec));
    TILEKIT_RETURN_IF_ERROR(comm.mark(Lane::kCompute, Mark::kDownloaded));
  } else if (staged) {
    TILEKIT_RETURN_IF_ERROR(copy_block(comm, Lane::kCompute, CopyKind::kLocal, blocks.c,
                                       blocks.ldc, job.c, from, ec));
  } else {
    return Status::ok();
  }
  return comm.finish();
}

}  // namespace

Status run_rank(Communicator& comm, const GemmProblem& global, const DistributionPlan& plan,
                const LocalBlocks& blocks, bool host, const DistributedOptions& options,
                const Status& prior, RankStats* stats) {
  HostTimeline timeline;
  const int r = comm.rank();
  if (comm.aborted())
    return Status(StatusCode::kInternal,
                  who(comm) + ": the communicator was aborted by an earlier failure; create a "
                              "new DistributedContext");
  if (plan.ranks != comm.size() || r < 0 || r >= comm.size())
    return invalid_argument(who(comm) + ": the plan is for " + std::to_string(plan.ranks) +
                            " ranks, the communicator has " + std::to_string(comm.size()));

  // 1. This rank's job in the row-split view, checked, with its memory.
  const bool by_cols = plan.split == DistSplit::kColumns;
  RankJob job;
  job.view = by_cols ? transposed_view(global) : global;
  job.rows = (by_cols ? plan.cols : plan.rows)[r];
  const GemmProblem& v = job.view;
  const Schedule sched =
      build_schedule(plan.source, by_cols ? plan.rows : plan.cols, plan.panels_per_block, r, v.k,
                     static_cast<int64_t>(elem(v.types.b)), v.layout, v.op_b, host,
                     options.all_gather_rounds, comm.all_gathers_free_sms());
  RankMemory mem(comm);
  Status ready = prior;
  if (ready) ready = prepare(comm, global, plan, blocks, host, options, sched, &job, &mem);
  const bool staged = !host && mem.c.get() != nullptr;

  // 2. Agreement: nothing has been enqueued yet, so a refusal leaves C untouched everywhere.
  TILEKIT_RETURN_IF_ERROR(agree(comm, call_fields(global, options, host, plan.ranks), ready,
                                "before the multiplication"));
  timeline.agreed_ms = timeline.now_ms();

  // 3. The lanes: inputs, then the transfers (a GPU runs them while the GEMMs are enqueued).
  char* replica = mem.replica.bytes();
  Status run = Status::ok();
  if (comm.replica_in_window()) {
    void* w = nullptr;
    run = comm.window(static_cast<size_t>(sched.buffer_bytes), &w);
    replica = static_cast<char*>(w);
  }
  if (run) run = comm.mark(Lane::kCompute, Mark::kStart);
  if (run) run = enqueue_inputs(comm, job, blocks, host, staged);
  // Lead GEMMs (own panels read in place) go first, so that the GPU multiplies while the host
  // enqueues the collectives; a failure there is reported with the others', after the
  // transfers, which every rank enqueues to keep the collectives in step.
  const GemmLane lane = gemm_lane(comm, job, sched, replica, options);
  const size_t lead = lead_gemm_count(comm, job, sched, options.lead_gemms);
  Status computed = Status::ok();
  if (run && lead > 0) computed = enqueue_gemms(comm, job, sched, replica, lane, 0, lead);
  if (run) run = enqueue_transfers(comm, job, sched, replica);
  if (!run) {
    // The collectives are out of step now: end the communicator so that peers fail at once.
    comm.abort();
    return run;
  }
  const bool rest = lead == 0 || lead < sched.compute.size();  // else every GEMM led, end marked
  if (computed && rest)
    computed = enqueue_gemms(comm, job, sched, replica, lane, lead, sched.compute.size());
  timeline.enqueued_ms = timeline.now_ms();

  // 4. Wait, agree on the outcome (every rank reports a failure anywhere), then deliver C.
  TILEKIT_RETURN_IF_ERROR(comm.finish());  // on failure aborted: peers fail by timeout or error
  TILEKIT_RETURN_IF_ERROR(agree(comm, {}, computed, "during the multiplication"));
  TILEKIT_RETURN_IF_ERROR(deliver_c(comm, job, blocks, host, staged));
  fill_stats(comm, plan, job, host, timeline, stats);
  return Status::ok();
}

}  // namespace tilekit::dist
