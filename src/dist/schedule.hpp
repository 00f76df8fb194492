// schedule.hpp — what one rank does in a distributed GEMM, and in which order (internal).
//
// Everything is expressed as a row split: the column split is the row split of the transposed
// problem (Cᵀ = op(B)ᵀ·op(A)ᵀ reads the same memory in the other layout with A and B swapped),
// so one schedule serves both. In that view rank r holds rows rows[r] of op(A) and of C, and
// op(B) travels as panels of columns: panel p is packed densely at a fixed offset of a buffer
// that ends up holding all of op(B) on every rank.
#pragma once

#include <cstdint>
#include <vector>

#include "dist/communicator.hpp"
#include "tilekit/distributed.hpp"

namespace tilekit::dist {

struct Panel {
  int owner = -1;            // the rank that sends it (-1: nobody; it is read where it lies)
  int64_t col_begin = 0;     // columns of op(B)
  int64_t cols = 0;
  int64_t offset_bytes = 0;  // where it lies packed in the replica buffer
  int64_t bytes = 0;
};

// The transfer lane's operations. A round of the all-gather (the i-th panel of every owner)
// moves at once, so every rank sends its panel while it receives the others' — both directions
// of every link busy — instead of one owner's panel at a time: one ncclAllGather where every
// owner's panel of the round has the same size (kAllGather: the panels lie side by side in owner
// order, `bytes` each from `offset_bytes`), else one group of broadcasts (kGroupBegin …
// kGroupEnd). The round's panels are signalled after it (kSignal): they land together.
enum class StepKind { kPack, kBroadcast, kGroupBegin, kGroupEnd, kAllGather, kSignal };
struct TransferStep {
  StepKind kind = StepKind::kPack;
  int panel = 0;                 // kPack, kBroadcast, kSignal: the panel
  bool completes_panel = false;  // signal the compute lane after this step (kSignal: always)
  int64_t offset_bytes = 0;      // kAllGather: the round's first panel in the replica buffer
  int64_t bytes = 0;             // kAllGather: each owner's panel
};

struct Schedule {
  std::vector<Panel> panels;           // in global order, the same on every rank
  std::vector<TransferStep> transfer;  // this rank's transfer lane, in order
  std::vector<int> compute;            // the panels this rank multiplies, in order
  std::vector<bool> wait_for;          // per panel: the compute lane waits for its signal
  bool direct = false;                 // GEMMs read op(B) where the caller holds it
  int64_t buffer_bytes = 0;            // the replica buffer
};

// The schedule of `rank` for op(B) of k × sum(cols) in `layout`/`op_b` with `elem_bytes`
// elements. Own panels are packed first and multiplied first (they need no transfer); the
// broadcasts go in global order (kBlocks: round by round, each round one all-gather or one group
// of broadcasts; `all_gather_rounds` false: always broadcasts; rounds that are all all-gathers
// go as one group, the received panels signalled after it, with two ranks or, with more, where
// `group_all_gathers` says the all-gathers run on the copy engines), so every
// rank issues the same collectives in the same order; each panel's GEMM waits only for that
// panel (or its group), and the others are multiplied in the order they arrive.
// `source_on_host`: the caller's op(B) is host memory, so even kEveryRank packs (uploads) it.
Schedule build_schedule(ReplicaSource source, const std::vector<IndexRange>& cols,
                        int panels_per_block, int rank, int64_t k, int64_t elem_bytes,
                        Layout layout, Op op_b, bool source_on_host, bool all_gather_rounds = true,
                        bool group_all_gathers = false);

// Per entry of s.compute: whether that GEMM may run while collectives are in flight on this
// rank (it then gets the SMs the collectives leave: Communicator::gemm_sm_limit). False from
// the first GEMM that waited for a panel signalled after the last collective of the transfer
// lane, and for every GEMM when the lane has no collectives.
std::vector<bool> gemms_beside_collectives(const Schedule& s);

// The transposed problem: the column split of `p` is the row split of the result.
GemmProblem transposed_view(const GemmProblem& p);

// Runs one rank's part of `global` (the caller's orientation). Host mode (`host`): the
// operands are `global`'s host pointers and `blocks` is ignored. Every rank of the job must call
// this with the same global problem, plan and options; every rank returns the same verdict.
// `prior`: an error this rank found before (a plan it could not make): it still takes part in
// the agreement, so that its peers fail at once instead of waiting for it.
Status run_rank(Communicator& comm, const GemmProblem& global, const DistributionPlan& plan,
                const LocalBlocks& blocks, bool host, const DistributedOptions& options,
                const Status& prior, RankStats* stats);

}  // namespace tilekit::dist
