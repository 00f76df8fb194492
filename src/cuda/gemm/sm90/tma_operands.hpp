// tma_operands.hpp — what the Hopper family does on the host before a launch (internal): the
// row-major view of a problem, TMA tensor maps for its operands, and the repacking of an operand
// TMA cannot describe.
//
// TMA reads a matrix through a tensor map whose base address is 16-byte aligned and whose row
// pitch is a multiple of 16 bytes. Odd m, n and k need nothing: a box that runs past the
// matrix edge arrives zero-filled. An ld that is not a multiple of 8 (16-bit elements) — a
// tightly packed 4097 × 4097 matrix — is copied once into an aligned workspace (pack_operand),
// the only case where the user's data is copied.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tilekit/problems.hpp"
#include "tilekit/registry.hpp"

namespace tilekit::cuda::sm90 {

// A matrix as stored: `rows` lines of `cols` contiguous elements, lines `ld` elements apart.
struct TmaOperand {
  const void* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
};

// The problem as the row-major C = alpha·op(A)·op(B) + beta·C the kernels compute (a column-major
// problem is the row-major Cᵀ = op(B)ᵀ·op(A)ᵀ on the same memory). An operand is K-major when
// its k index is the contiguous one, MN-major otherwise; wgmma takes 16-bit operands either way.
struct WgmmaView {
  int64_t m = 0, n = 0, k = 0;
  TmaOperand a, b;
  bool a_mn_major = false;  // A stored k × m (op T in the row-major view)
  bool b_mn_major = false;  // B stored k × n (op N in the row-major view)
  float alpha = 1, beta = 0;
  float* c = nullptr;
  int64_t ldc = 0;
};

WgmmaView wgmma_view(const GemmProblem& p);

// True when TMA can read `o` of 16-bit elements in place.
bool tma_can_read(const TmaOperand& o);
// Workspace bytes a repacked copy of `o` takes (0 when TMA reads it in place), 256-byte rounded.
size_t repack_bytes(const TmaOperand& o);
// Copies `o` into `dst` with an aligned ld and points `o` at the copy.
Status repack_operand(TmaOperand* o, void* dst, cudaStream_t stream);

// A 2-D tensor map over `o` (16-bit `type`) delivering boxes of box_inner × box_outer elements
// in 128-byte-swizzled rows (box_inner · 2 must be 128).
Status encode_tile_map(CUtensorMap* map, const TmaOperand& o, DType type, int box_inner,
                       int box_outer);

// Ok for a problem the family takes on `device`: 16-bit A and B, sizes within TMA's 32-bit
// coordinates; otherwise why not.
Status check_wgmma_problem(const GemmProblem& p);

}  // namespace tilekit::cuda::sm90
