// packed_operands.cu — the packed mainloop's copies (packed_operands.cuh): one transpose-or-copy kernel
// into k rows of whole 16-byte chunks, and the plan of which operands need it. An aligned
// source that needs a transpose goes through the transpose ladder's float4 kernel (both
// sides); the rest through the 32×32 kernel below.
#include "cuda/gemm/simt/packed_operands.cuh"

#include <algorithm>
#include <climits>

#include "cuda/common/cuda_check.hpp"
#include "cuda/gemm/simt/loads_branch_free.cuh"
#include "cuda/transpose/transpose_common.cuh"

namespace tilekit::cuda {
namespace {

constexpr int kPackTile = 32;  // the copy's square tile, through shared memory
constexpr int kPackRows = 8;   // threads per column of a tile: 32×8 threads a block

int64_t round_up_4(int64_t x) { return (x + 3) / 4 * 4; }

// dst (k rows of `outer` floats, ld_dst apart, columns outer … ld_dst − 1 zero) = the k-rows view
// of src: element (r, c) is src[r·ld + c] where src already stores k rows (a copy) and
// src[c·ld + r] where it stores `outer` rows of k (a transpose). Both sides are read and written
// along their contiguous index; the tile's 33-float rows keep the transposed writes into shared
// memory free of bank conflicts.
__global__ void __launch_bounds__(kPackTile * kPackRows)
    pack_k_rows_kernel(const float* src, int ld, bool src_k_rows, int k, int outer, float* dst,
                       int ld_dst) {
  __shared__ float tile[kPackTile][kPackTile + 1];  // [r][c]
  const int tx = threadIdx.x, c0 = blockIdx.x * kPackTile;
  const int k_tiles = (k + kPackTile - 1) / kPackTile;
  for (int kt = blockIdx.y; kt < k_tiles; kt += gridDim.y) {  // grid.y may be fewer than k_tiles
    const int r0 = kt * kPackTile;
    for (int j = threadIdx.y; j < kPackTile; j += kPackRows) {
      if (src_k_rows) {
        const int r = r0 + j, c = c0 + tx;
        tile[j][tx] = r < k && c < outer ? src[static_cast<size_t>(r) * ld + c] : 0.0f;
      } else {
        const int r = r0 + tx, c = c0 + j;
        tile[tx][j] = r < k && c < outer ? src[static_cast<size_t>(c) * ld + r] : 0.0f;
      }
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kPackTile; j += kPackRows) {
      const int r = r0 + j, c = c0 + tx;
      if (r < k && c < ld_dst) dst[static_cast<size_t>(r) * ld_dst + c] = tile[j][tx];
    }
    __syncthreads();  // the tile is refilled for the next kt
  }
}

// The transposing copy of an aligned source by the transpose ladder's float4 kernel: the source
// is `outer` rows of k, the copy k rows of `outer`; the copy's pad columns (outer … ld_dst − 1)
// are zeroed apart, as the transpose writes only the matrix. Taken where the source allows float4
// reads and the transpose kernel takes k columns.
bool vector_transpose_fits(const float* src, int ld, int k) {
  return aligned16(src) && ld % 4 == 0 && transpose_vectorized_fits(k).is_ok();
}

Status pack_by_vector_transpose(const float* src, int ld, int k, int outer, float* dst,
                                int ld_dst, cudaStream_t stream) {
  TILEKIT_RETURN_IF_ERROR(transpose_vectorized(TransposeArgs{outer, k, src, ld, dst, ld_dst},
                                               stream));
  if (ld_dst > outer)
    TILEKIT_CUDA_TRY(cudaMemset2DAsync(dst + outer, sizeof(float) * ld_dst, 0,
                                       sizeof(float) * (ld_dst - outer), k, stream));
  return Status::ok();
}

Status pack_k_rows(const float* src, int ld, bool src_k_rows, int k, int outer, float* dst,
                   int ld_dst, cudaStream_t stream) {
  if (!src_k_rows && vector_transpose_fits(src, ld, k))
    return pack_by_vector_transpose(src, ld, k, outer, dst, ld_dst, stream);
  const unsigned k_tiles = static_cast<unsigned>((k + kPackTile - 1) / kPackTile);
  const dim3 grid(static_cast<unsigned>((ld_dst + kPackTile - 1) / kPackTile),
                  std::min(k_tiles, 65535u));
  pack_k_rows_kernel<<<grid, dim3(kPackTile, kPackRows), 0, stream>>>(src, ld, src_k_rows, k,
                                                                      outer, dst, ld_dst);
  TILEKIT_CUDA_CHECK_LAUNCH("pack_k_rows_kernel");
  return Status::ok();
}

}  // namespace

// The cross-tile loop reads an operand straight when its memory rows run along k in whole chunks
// (A stored transposed, B not): every other operand is copied. Nothing is read when k = 0.
PackPlan plan_packs(const RowMajorGemm& g) {
  PackPlan plan;
  if (g.m == 0 || g.n == 0 || g.k == 0) return plan;
  const OperandFlags f = operand_flags(g);
  plan.a = !(g.trans_a && whole_chunks(f.vec_a, g.m));
  plan.b = !(!g.trans_b && whole_chunks(f.vec_b, g.n));
  if (plan.a) {
    plan.lda = static_cast<int>(round_up_4(g.m));
    plan.a_bytes = round_up_256(sizeof(float) * static_cast<size_t>(g.k) * plan.lda);
  }
  if (plan.b) {
    plan.ldb = static_cast<int>(round_up_4(g.n));
    plan.b_bytes = round_up_256(sizeof(float) * static_cast<size_t>(g.k) * plan.ldb);
  }
  return plan;
}

// The copies' offsets, k · round_up(m or n, 4), must fit the kernel's 32-bit indexing too.
Status check_packed_indexing(const GemmProblem& p) {
  TILEKIT_RETURN_IF_ERROR(check_32bit_indexing(p));
  const RowMajorGemm g = to_row_major(p);
  if (g.k * round_up_4(g.m) > INT_MAX || g.k * round_up_4(g.n) > INT_MAX)
    return Status(StatusCode::kNotSupported,
                  "k · round_up(m or n, 4) exceeds 32-bit offsets (the packed copies)");
  return Status::ok();
}

// Copies the operands `plan` names into `base` and points g at the copies: afterwards A is
// stored as k rows of m (trans_a) and B as k rows of n (not trans_b), both in whole chunks.
Status pack_operands(RowMajorGemm* g, const PackPlan& plan, char* base, cudaStream_t stream) {
  if (plan.a) {
    float* a = reinterpret_cast<float*>(base);
    TILEKIT_RETURN_IF_ERROR(
        pack_k_rows(g->a, g->lda, g->trans_a, g->k, g->m, a, plan.lda, stream));
    g->a = a;
    g->lda = plan.lda;
    g->trans_a = true;
  }
  if (plan.b) {
    float* b = reinterpret_cast<float*>(base + plan.a_bytes);
    TILEKIT_RETURN_IF_ERROR(
        pack_k_rows(g->b, g->ldb, !g->trans_b, g->k, g->n, b, plan.ldb, stream));
    g->b = b;
    g->ldb = plan.ldb;
    g->trans_b = false;
  }
  return Status::ok();
}

}  // namespace tilekit::cuda
