// operand_tiles.cuh — one operand's block tile on its way from global memory to a k-major shared
// tile (shared_layouts.cuh), read through registers: float4 global loads where the operand allows
// them, zeros outside the matrix, and the shared stores (transposed where the operand's memory
// rows run along m or n). The register-staged mainloops use it as it is; the cp.async mainloops
// use it for the operands cp.async cannot copy (mainloop_cp_async.cuh).
#pragma once

#include "cuda/common/kernel_entry.hpp"
#include "cuda/gemm/ladder/ladder_common.cuh"
#include "cuda/gemm/simt/shared_layouts.cuh"

namespace tilekit::cuda {

// Where one operand's tile lives in global memory, in the memory's own row-major coordinates:
// rows [row0, row0 + tile rows) clipped to `rows`, columns likewise clipped to `cols`.
struct TileOrigin {
  const float* src;
  int ld;
  int row0, rows;
  int col0, cols;
};

// The operand tile of kOuter (m or n) × kBk (k) elements, read by kThreads threads. kKRows: the
// operand's memory rows run along k (Aᵀ stored k×m, B stored k×n), so memory rows are shared rows;
// otherwise memory rows run along m or n and are written to shared memory transposed.
template <int kOuter, int kBk, int kThreads, bool kKRows_>
struct OperandTile {
  static constexpr bool kKRows = kKRows_;
  static constexpr int kRows = kKRows ? kBk : kOuter;  // memory rows of the tile
  static constexpr int kCols = kKRows ? kOuter : kBk;  // memory columns (contiguous)
  static_assert(kCols % 4 == 0, "tiles are read as float4 chunks");
  static constexpr int kChunksPerRow = kCols / 4;
  static constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "every thread reads the same number of chunks");
  static constexpr int kChunksPerThread = kChunks / kThreads;

  // For the origin of op(A): A is m×k (memory rows along m) or, transposed, k×m.
  __device__ static TileOrigin origin(const float* src, int ld, int outer0, int outer_limit, int k0,
                                      int k_limit) {
    return kKRows ? TileOrigin{src, ld, k0, k_limit, outer0, outer_limit}
                  : TileOrigin{src, ld, outer0, outer_limit, k0, k_limit};
  }
};

// The tile into registers, one float4 per chunk. `vec` (ld a multiple of 4 and a 16-byte
// aligned base, decided once per launch) allows LDG.128 for chunks wholly inside the matrix;
// the others are read element by element with zeros outside.
template <typename T>
__device__ __forceinline__ void load_tile_to_registers(const TileOrigin& o, bool vec,
                                                       float4 (&r)[T::kChunksPerThread], int tid) {
  // A tile wholly inside the matrix (every tile but the edges) skips the per-chunk checks.
  const bool inside = vec && o.row0 + T::kRows <= o.rows && o.col0 + T::kCols <= o.cols;
#pragma unroll
  for (int j = 0; j < T::kChunksPerThread; ++j) {
    const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
    const int gr = o.row0 + chunk / T::kChunksPerRow;
    const int gc = o.col0 + chunk % T::kChunksPerRow * 4;
    const float* p = o.src + gr * o.ld + gc;
    if (inside || (vec && gr < o.rows && gc + 3 < o.cols)) {
      r[j] = *reinterpret_cast<const float4*>(p);
    } else {
      const bool row_ok = gr < o.rows;
      r[j].x = row_ok && gc < o.cols ? p[0] : 0.0f;
      r[j].y = row_ok && gc + 1 < o.cols ? p[1] : 0.0f;
      r[j].z = row_ok && gc + 2 < o.cols ? p[2] : 0.0f;
      r[j].w = row_ok && gc + 3 < o.cols ? p[3] : 0.0f;
    }
  }
}

// The registers into the k-major shared tile: one STS.128 per chunk when memory rows are k
// rows, four scalar stores down a column otherwise (A transposed on the way in).
template <typename T, typename Layout>
__device__ __forceinline__ void store_tile_registers(const float4 (&r)[T::kChunksPerThread],
                                                     float* s, int tid) {
  constexpr int kWidth = T::kKRows ? T::kCols : T::kRows;
#pragma unroll
  for (int j = 0; j < T::kChunksPerThread; ++j) {
    const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
    const int rr = chunk / T::kChunksPerRow, cc = chunk % T::kChunksPerRow * 4;
    if (T::kKRows) {
      *reinterpret_cast<float4*>(s + Layout::template offset<kWidth>(rr, cc)) = r[j];
    } else {
      s[Layout::template offset<kWidth>(cc + 0, rr)] = r[j].x;
      s[Layout::template offset<kWidth>(cc + 1, rr)] = r[j].y;
      s[Layout::template offset<kWidth>(cc + 2, rr)] = r[j].z;
      s[Layout::template offset<kWidth>(cc + 3, rr)] = r[j].w;
    }
  }
}

// The launch-wide facts the SIMT mainloops decide once on the host.
struct OperandFlags {
  bool vec_a, vec_b, vec_c;
};

// float4 is allowed for an operand whose memory rows are read as chunks of 4 along its ld.
inline OperandFlags operand_flags(const RowMajorGemm& g) {
  auto vec = [](const void* p, int ld) { return aligned16(p) && ld % 4 == 0; };
  return {vec(g.a, g.lda), vec(g.b, g.ldb), vec(g.c, g.ldc)};
}

}  // namespace tilekit::cuda
