// plan.cpp — how the ranks share one GEMM out: blocks, the split, the bytes each rank receives.
#include <algorithm>
#include <string>

#include "tilekit/distributed.hpp"

namespace tilekit {

const char* dist_split_name(DistSplit s) {
  switch (s) {
    case DistSplit::kAuto: return "auto";
    case DistSplit::kRows: return "rows";
    case DistSplit::kColumns: return "columns";
  }
  return "?";
}

const char* replica_source_name(ReplicaSource s) {
  switch (s) {
    case ReplicaSource::kBlocks: return "blocks";
    case ReplicaSource::kRoot: return "root";
    case ReplicaSource::kEveryRank: return "every-rank";
  }
  return "?";
}

IndexRange block_range(int64_t total, int parts, int index) {
  if (parts <= 0 || index < 0 || index >= parts || total <= 0) return {};
  const int64_t base = total / parts, extra = total % parts;
  IndexRange r;
  r.begin = index * base + std::min<int64_t>(index, extra);
  r.size = base + (index < extra ? 1 : 0);
  return r;
}

namespace {

// Elements and bytes of the operand that travels under `split`: op(B) (k × n) or op(A) (m × k).
int64_t travelling_bytes(DistSplit split, int64_t m, int64_t n, int64_t k, GemmTypes types) {
  return split == DistSplit::kColumns
             ? m * k * static_cast<int64_t>(dtype_size(types.a))
             : k * n * static_cast<int64_t>(dtype_size(types.b));
}

}  // namespace

DistSplit choose_split(int64_t m, int64_t n, int64_t k, GemmTypes types) {
  // Equal traffic for both: keep rows, the split whose blocks of A and C are contiguous in
  // row-major storage.
  return travelling_bytes(DistSplit::kColumns, m, n, k, types) <
                 travelling_bytes(DistSplit::kRows, m, n, k, types)
             ? DistSplit::kColumns
             : DistSplit::kRows;
}

int64_t received_bytes(DistSplit split, ReplicaSource source, int64_t m, int64_t n, int64_t k,
                       GemmTypes types, int ranks, int rank) {
  if (split == DistSplit::kAuto) split = choose_split(m, n, k, types);
  const int64_t whole = travelling_bytes(split, m, n, k, types);
  switch (source) {
    case ReplicaSource::kEveryRank: return 0;
    case ReplicaSource::kRoot: return rank == 0 ? 0 : whole;
    case ReplicaSource::kBlocks: {
      // The blocks are cut along the dimension that is not k: n for op(B), m for op(A).
      const int64_t along = split == DistSplit::kColumns ? m : n;
      const int64_t own = block_range(along, ranks, rank).size;
      return along == 0 ? 0 : whole / along * (along - own);
    }
  }
  return 0;
}

Status plan_distribution(const GemmProblem& p, int ranks, const DistributedOptions& options,
                         DistributionPlan* out) {
  if (ranks < 1)
    return invalid_argument("gemm_distributed: ranks = " + std::to_string(ranks) +
                            " must be >= 1");
  if (p.m < 0 || p.n < 0 || p.k < 0)
    return invalid_argument("gemm_distributed: m, n, k must be >= 0 (got " + p.describe() + ")");
  if (options.panels_per_block < 1)
    return invalid_argument("gemm_distributed: panels_per_block = " +
                            std::to_string(options.panels_per_block) + " must be >= 1");
  TILEKIT_RETURN_IF_ERROR(validate(p.types));
  DistributionPlan plan;
  plan.split = options.split == DistSplit::kAuto ? choose_split(p.m, p.n, p.k, p.types)
                                                 : options.split;
  plan.source = options.source;
  plan.ranks = ranks;
  plan.panels_per_block = options.panels_per_block;
  for (int r = 0; r < ranks; ++r) {
    plan.rows.push_back(block_range(p.m, ranks, r));
    plan.cols.push_back(block_range(p.n, ranks, r));
    plan.received_bytes.push_back(
        received_bytes(plan.split, plan.source, p.m, p.n, p.k, p.types, ranks, r));
  }
  *out = std::move(plan);
  return Status::ok();
}

}  // namespace tilekit
