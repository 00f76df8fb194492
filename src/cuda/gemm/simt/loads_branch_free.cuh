// loads_branch_free.cuh — branch-free edge loads, as the Loads type of a PipelinePolicy
// (mainloop_cp_async.cuh): operand tiles loaded with no per-thread branch at the matrix's edges.
// Each chunk's edge test becomes data — LDGSTS's zero-fill predicate, the address an LDG reads
// and a select before the shared store — so interior and edge tiles run the same straight-line
// code. What remains is one launch-uniform choice per operand of how wide its loads are.
// The two paths are one type on purpose: the branch-free copies with the edge-branch register
// path measured below this type on every op that copies (docs/ladder.md).
#pragma once

#include "cuda/gemm/simt/mainloop_cp_async.cuh"

namespace tilekit::cuda {

// 16 bytes from src to shared memory, or 16 zeros where `outside` (cp.async's ignore-src: ptxas
// makes it LDGSTS's zero-fill predicate).
__device__ __forceinline__ void cp_async_16_or_zeros(float* dst, const float* src, bool outside) {
  asm volatile(
      "{\n"
      "  .reg .pred ignore;\n"
      "  setp.ne.b32 ignore, %2, 0;\n"
      "  cp.async.cg.shared.global [%0], [%1], 16, ignore;\n"
      "}\n" ::"r"(shared_address(dst)),
      "l"(src), "r"(static_cast<int>(outside)));
}

// Every chunk is either wholly inside the operand or wholly outside it when its memory columns
// are a multiple of 4 (chunks start at multiples of 4): one 16-byte load or copy each, no
// partial chunk. A partial chunk cannot take the wide path without a branch: a zero-fill
// cp.async with a short source size is reported by compute-sanitizer as a 16-byte read past
// the operand (measured), and one register path mixing LDG.128 and LDG.32 into the same
// registers makes ptxas wait for the first load before issuing the second (a write-after-write
// hazard: its latency exposed every k-tile, −18% measured).
__host__ __device__ __forceinline__ bool whole_chunks(bool vec, int cols) {
  return vec && cols % 4 == 0;
}

struct BranchFreeLoads {
  __device__ static __forceinline__ bool copies(bool vec, int cols) {
    return whole_chunks(vec, cols);
  }

  // One cp.async per chunk; a chunk outside the operand is zero-filled from the operand's
  // first element, so no copy names an address outside the operand (copy_tile_async in mainloop_cp_async.cuh
  // explains why that matters).
  template <typename T, typename Layout>
  __device__ static __forceinline__ void copy_async(const TileOrigin& o, float* s, int tid) {
    static_assert(T::kKRows, "shared rows are memory rows");
#pragma unroll
    for (int j = 0; j < T::kChunksPerThread; ++j) {
      const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
      const int rr = chunk / T::kChunksPerRow, cc = chunk % T::kChunksPerRow * 4;
      const int gr = o.row0 + rr, gc = o.col0 + cc;
      const bool inside = gr < o.rows && gc < o.cols;  // whole_chunks: all 4 or none
      const float* src = inside ? o.src + gr * o.ld + gc : o.src;
      cp_async_16_or_zeros(s + Layout::template offset<T::kCols>(rr, cc), src, !inside);
    }
  }

  // The register path: every load reads an address inside the operand — its own where the
  // chunk (element) lies inside, the operand's first element where not — and the lanes outside
  // are zeroed by a select when the tile is stored, after the k-tile's math. A load guarded by
  // a predicate instead is turned back into a branch by ptxas, and a select right after the
  // load would wait for it. One LDG.128 per chunk where chunks are whole, else four LDG.32: the
  // choice is the same for every thread of the launch (a uniform branch, never divergent).
  template <typename T>
  struct Staged {
    static_assert(T::kChunksPerThread * 4 <= 32, "one bit per element");
    float4 r[T::kChunksPerThread];
    unsigned inside;  // bit 4j + q: element q of chunk j lies inside the operand

    __device__ __forceinline__ void load(const TileOrigin& o, bool vec, int tid) {
      if (whole_chunks(vec, o.cols))
        load_chunks<true>(o, tid);
      else
        load_chunks<false>(o, tid);
    }
    template <typename Layout>
    __device__ __forceinline__ void store(float* s, int tid) const {
      float4 v[T::kChunksPerThread];
#pragma unroll
      for (int j = 0; j < T::kChunksPerThread; ++j) {
        v[j].x = inside >> (4 * j + 0) & 1u ? r[j].x : 0.0f;
        v[j].y = inside >> (4 * j + 1) & 1u ? r[j].y : 0.0f;
        v[j].z = inside >> (4 * j + 2) & 1u ? r[j].z : 0.0f;
        v[j].w = inside >> (4 * j + 3) & 1u ? r[j].w : 0.0f;
      }
      store_tile_registers<T, Layout>(v, s, tid);
    }

   private:
    template <bool kWide>
    __device__ __forceinline__ void load_chunks(const TileOrigin& o, int tid) {
      inside = 0;
#pragma unroll
      for (int j = 0; j < T::kChunksPerThread; ++j) {
        const int chunk = tid + j * (T::kChunks / T::kChunksPerThread);
        const int gr = o.row0 + chunk / T::kChunksPerRow;
        const int gc = o.col0 + chunk % T::kChunksPerRow * 4;
        const float* p = o.src + gr * o.ld + gc;
        const bool row_ok = gr < o.rows;
        if constexpr (kWide) {
          const bool ok = row_ok && gc < o.cols;  // whole_chunks: all 4 or none
          r[j] = *reinterpret_cast<const float4*>(ok ? p : o.src);
          inside |= ok ? 0xFu << 4 * j : 0u;
        } else {
          float e[4];
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const bool ok = row_ok && gc + q < o.cols;
            e[q] = *(ok ? p + q : o.src);
            inside |= ok ? 1u << (4 * j + q) : 0u;
          }
          r[j] = make_float4(e[0], e[1], e[2], e[3]);
        }
      }
    }
  };
};

}  // namespace tilekit::cuda
