// tma_operands.hpp — what the Hopper family does on the host before a launch (internal): the
// row-major view of a problem, TMA tensor maps for its operands, and the repacking of an operand
// TMA cannot describe.
//
// TMA reads a matrix through a tensor map whose base address is 16-byte aligned and whose row
// pitch is a multiple of 16 bytes. Odd m, n and k need nothing: a box that runs past the
// matrix edge arrives zero-filled. An ld that is not a multiple of 8 (16-bit elements) — a
// tightly packed 4097 × 4097 matrix — is copied once into an aligned workspace
// (prepare_16bit_operands), and so is a large operand whose rows TMA can read but that do not
// start on 128-byte lines (repack_pays); these are the only cases where the user's data is copied.
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
  // The view computes Cᵀ: its C element (i, j) lies at c[j · ldc + i] (an A-from-registers
  // policy, which swaps A and B so that an MN-major B becomes the operand it reads through
  // registers).
  bool c_transposed = false;
};

// The same product with A and B swapped: Cᵀ = Bᵀ·Aᵀ, C stored transposed. Each operand keeps
// how it is stored, so an MN-major B becomes an MN-major A.
WgmmaView transposed_view(const WgmmaView& v);

WgmmaView wgmma_view(const GemmProblem& p);

// True when TMA can read `o` of 16-bit elements in place.
bool tma_can_read(const TmaOperand& o);
// What a kernel's tile does to the cost of reading rows off 128-byte lines: a 128 × 256 tile, or
// a cluster sharing B by multicast, loads fewer box rows per product than a lone 128 × 128 or
// 64 × 256 tile, and so pays less for each row's extra sector requests.
struct OffLineReads {
  bool wide_tile = false;  // 128 × 256
  bool clustered = false;  // B's k-tiles multicast over a cluster
};
// True when `o`, whose elements enter `uses` products each (n for A, m for B), is to be
// repacked: TMA cannot read it, or its rows are off 128-byte lines and it is used enough for
// the copy to pay, which depends on `reads` and on whether the rows start on 32-byte sectors.
bool repack_pays(const TmaOperand& o, int64_t uses, OffLineReads reads);
// Workspace bytes a repacked copy of `o` takes (0 when it is read in place), 256-byte rounded.
size_t repack_bytes(const TmaOperand& o, int64_t uses, OffLineReads reads);
// What a 16-bit launch needs done first, in one kernel launched on `stream`: `a` copied into
// `a_copy` and `b` into `b_copy` with 128-byte rows where a copy is given (null: read in place;
// a copied operand then points at its copy), and `flag_count` ints at `flags` zeroed (the
// stream-K flags; null: none). Launches nothing when there is nothing to do.
Status prepare_16bit_operands(TmaOperand* a, void* a_copy, TmaOperand* b, void* b_copy, int* flags,
                              int64_t flag_count, cudaStream_t stream);

// A 2-D tensor map over `o` (elements of `type`: bf16, f16 or f32) delivering boxes of
// box_inner × box_outer elements in 128-byte-swizzled rows (box_inner · element size = 128).
// round_to_tf32 (f32 only): the load rounds each element to TF32, to nearest even, on its way
// into shared memory (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32).
Status encode_tile_map(CUtensorMap* map, const TmaOperand& o, DType type, int box_inner,
                       int box_outer, bool round_to_tf32 = false);

// ---- FP32 operands for the tf32 tensor cores -------------------------------------------------
// TF32 wgmma reads both operands K-major and truncates FP32 to TF32 (it drops the 13 low
// mantissa bits); tilekit's tf32 promises inputs rounded to nearest even. A TMA load through a
// TFLOAT32 tensor map rounds that way, so tf32 reads a K-major operand TMA can read in place
// (tf32_reads_in_place). Any other operand, and every 3xTF32 operand, is prepared once into the
// workspace: K-major (transposed where it is stored MN-major), 128-byte rows, rounded to nearest
// even (cvt.rn); for 3xTF32 also its small part, rn(x − big).

// True when tf32 reads `o` in place: K-major, rows TMA can read, and rows on 128-byte lines, or
// on 32-byte sectors, or used (`uses` products per element: n for A, m for B) too little for a
// copy to pay.
bool tf32_reads_in_place(const TmaOperand& o, bool mn_major, int64_t uses);
// The same for an operand whose kernel takes it MN-major too (an A read into registers):
// MN-major rows off lines are read in place only below the uses threshold.
bool tf32_reads_in_place_either_major(const TmaOperand& o, bool mn_major, int64_t uses);

// Elements between the rows of a prepared operand with `k` columns.
int64_t tf32_prepared_ld(int64_t k);
// Bytes of one prepared part of an operand with `mn` rows and `k` columns, 256-byte rounded.
size_t tf32_part_bytes(int64_t mn, int64_t k);
// Prepares `o` (FP32, stored MN-major when `mn_major`) into `big` (and `small` when not null):
// m (or n) rows of `k` elements, tf32_prepared_ld(k) apart.
Status prepare_tf32_operand(const TmaOperand& o, bool mn_major, int64_t k, float* big, float* small,
                            cudaStream_t stream);

// Ok for a problem of the types `kernel_types` (the kernel's) whose sizes fit TMA's 32-bit
// coordinates; otherwise why not.
Status check_wgmma_problem(const GemmProblem& p, const GemmTypes& kernel_types);

}  // namespace tilekit::cuda::sm90
