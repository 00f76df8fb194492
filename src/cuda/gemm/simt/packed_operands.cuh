// packed_operands.cuh — the packed mainloop's copies: every operand that the cross-tile loop
// cannot copy straight by cp.async (a K-major operand, or rows not in whole 16-byte
// chunks) is copied once into the workspace as k memory rows of whole chunks, zero-padded to a
// multiple of 4 floats. Afterwards both operands' memory rows run along k (A stored transposed,
// B not) and the cross-tile TN kernel runs every op and size (mainloop_packed.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/gemm/ladder/ladder.hpp"

namespace tilekit::cuda {

// Which operands a launch copies, and where in the workspace: A's copy first, B's after it, each
// 256-byte aligned; the scheduler's own workspace (split-K's planes, stream-K's partial tiles) follows.
struct PackPlan {
  bool a = false, b = false;
  int lda = 0, ldb = 0;  // the copies' leading dimensions: m and n rounded up to 4
  size_t a_bytes = 0, b_bytes = 0;
  size_t bytes() const { return a_bytes + b_bytes; }
};

// The copies `g` needs: an operand is read in place where its memory rows run along k in whole
// chunks (A stored transposed, B not); nothing is copied when m, n or k is 0.
PackPlan plan_packs(const RowMajorGemm& g);

// Ok when the copies' offsets, k · round_up(m or n, 4), fit 32-bit indexing too (and the
// problem's own: check_32bit_indexing).
Status check_packed_indexing(const GemmProblem& p);

// Copies the operands `plan` names into `base` (plan.bytes() bytes) on `stream` and points g at
// the copies: afterwards g->trans_a is true, g->trans_b false, and both are read in whole chunks.
Status pack_operands(RowMajorGemm* g, const PackPlan& plan, char* base, cudaStream_t stream);

inline size_t round_up_256(size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace tilekit::cuda
