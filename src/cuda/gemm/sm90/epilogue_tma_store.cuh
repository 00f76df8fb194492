// epilogue_tma_store.cuh — C through shared-memory staging boxes: TMA stores of each warp's
// boxes (or of a warp pair's, for the A-from-registers mainloop), and for a C that TMA cannot
// store, the warp's own row stores from the same boxes. The TMA-store epilogue part (its
// contract: schedule.hpp) is at the end.
#pragma once

#include "cuda/gemm/sm90/accumulators.cuh"
#include "cuda/gemm/sm90/epilogue_registers.cuh"
#include "cuda/gemm/sm90/hopper_ptx.cuh"

namespace tilekit::cuda::sm90 {

// The staging: each consumer warp owns kBuffers boxes of its 16 rows × 32 columns of C
// (128-byte rows in TMA's 128-byte swizzle), filling one while TMA reads the other. (More boxes
// beside a shallower ring measured no faster: docs/hopper.md, "Tried and not kept".)
struct StoreBox {
  static constexpr int kRows = 16, kCols = 32, kBytes = kRows * kCols * 4, kBuffers = 2;
};

// The staging boxes' share of a block's shared memory: the epilogue's buffers for every consumer
// warp (between the ring and the barriers, 1024-byte aligned).
template <typename P, typename Schedule>
__host__ __device__ constexpr size_t staging_bytes() {
  return static_cast<size_t>(P::kConsumers) * 4 * Schedule::EpiloguePart::kStagingBuffers * StoreBox::kBytes;
}

// Where a consumer warp stages its tiles: its boxes and how many it has handed to TMA so far.
struct TmaStoreState {
  const CUtensorMap* map = nullptr;  // C's
  uint8_t* boxes = nullptr;          // StoreBox::kBuffers boxes of this warp
  int issued = 0;
};

// Where row r, column `col` of a staging box lies, in bytes from its start. Rows are 128 bytes
// whose 16-byte chunks TMA's 128-byte swizzle permutes (chunk XOR row % 8): the 8 rows a warp
// writes for one 8-column group land in 8 different chunk positions, two wavefronts per 256-byte
// store.
__device__ __forceinline__ int staged_offset(int r, int col) {
  const int chunk = (col / 4) ^ (r % 8);
  return r * 128 + chunk * 16 + (col % 4) * 4;
}

// The float pair at row r, column `col` (even) of a staging box.
__device__ __forceinline__ float2* staged_pair(uint8_t* box, int r, int col) {
  return reinterpret_cast<float2*>(box + staged_offset(r, col));
}

// Both elements of a pair for the staging box; outside C (clipped by the TMA store) they are 0
// and C is not read there.
__device__ __forceinline__ float2 staged_values(const WgmmaArgs& a, int row, int col, float v0, float v1) {
  const float* p = a.c + static_cast<int64_t>(row) * a.ldc + col;
  const bool in_rows = row < a.m;
  return make_float2(in_rows && col < a.n ? epilogue_value(a, v0, p) : 0.0f,
                     in_rows && col + 1 < a.n ? epilogue_value(a, v1, p + 1) : 0.0f);
}

// This warp's 16 rows of the tile, 32 columns at a time: the warp writes a box (waiting first
// until TMA has read what the box held before), fences it for the async proxy, and one lane
// issues its TMA store. Nobody waits for the stores to reach C: the consumers go on to the next
// tile while TMA drains the boxes (the registers epilogue stops the tensor cores while every
// thread stored its accumulators itself).
template <typename P>
__device__ void store_tile_tma(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int tm, int tn,
                               int half, TmaStoreState& out) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row0 = tm * P::kBm + half * 64 + warp * 16;
  if (row0 >= a.m) return;  // the warp's rows lie below C (warp-uniform, as below)
  const int r = lane / 4, pair_col = 2 * (lane % 4);
  constexpr int kGroups = StoreBox::kCols / 8;  // the accumulators' 8-column groups per box
#pragma unroll
  for (int q = 0; q < P::kBn / StoreBox::kCols; ++q) {
    const int col0 = tn * P::kBn + q * StoreBox::kCols;
    if (col0 >= a.n) break;  // past C's last column
    uint8_t* box = out.boxes + (out.issued % StoreBox::kBuffers) * StoreBox::kBytes;
    if (lane == 0) tma_store_wait_read<StoreBox::kBuffers - 1>();  // the box's last store has read it
    __syncwarp();
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const int j = q * kGroups + g, col = 8 * g + pair_col;
      *staged_pair(box, r, col) = staged_values(a, row0 + r, col0 + col, acc[4 * j], acc[4 * j + 1]);
      *staged_pair(box, r + 8, col) = staged_values(a, row0 + r + 8, col0 + col, acc[4 * j + 2], acc[4 * j + 3]);
    }
    fence_shared_for_tma();
    __syncwarp();
    if (lane == 0) {
      tma_store_2d(out.map, box, col0, row0);
      tma_store_commit();
    }
    ++out.issued;
  }
}

// The A-from-registers staging: the two warps of a pair (consumer warps 2p, 2p + 1) hold between them the
// 32 rows of one 32-row chunk of the tile (accumulator_row: in order, or the permuted rows of an MN-major A,
// where each warp holds two runs of 8), so they stage 32 × 32 boxes together in the space of
// their four StoreBox buffers, and one lane of the even warp hands each box to TMA. Stored
// transposed, a box row is a view column: 32 view rows are one 128-byte line of C.
struct PairBox {
  static constexpr int kRows = 32, kCols = 32, kBytes = kRows * kCols * 4, kBuffers = 2;
  static_assert(kBuffers * kBytes == 2 * StoreBox::kBuffers * StoreBox::kBytes, "a pair's boxes are its warps'");
};

// The `half` of tile (tm, tn) through the pairs' boxes, 32 columns at a time. Each thread writes
// its values (alpha and beta applied; 0 outside C, which the TMA store clips) where the box's
// 128-byte swizzle puts them: box row = view row and box column = view column, or the other way
// round where C is stored transposed (kCTransposed). The even warp's lane 0 issues its pair's
// stores and is the only thread that can wait for them, so the consumer warpgroup meets twice
// per box: once the boxes are written (they may go) and once the issuers know the next boxes
// free (they may be written). `half` is the consumer (two consumers, one half each).
template <typename P, bool kPermutedRows, bool kCTransposed>
__device__ void store_tile_tma_pairs(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int tm, int tn,
                                     int half, TmaStoreState& out) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  uint8_t* boxes = out.boxes - (warp % 2) * StoreBox::kBuffers * StoreBox::kBytes;
  const int chunk0 = tm * P::kBm + half * 64 + (warp / 2) * 32;  // the pair's first view row
  // A pair whose rows lie below C writes and stores nothing, but meets the other pair.
  const bool rows_in = chunk0 < a.m;
  const bool issuer = rows_in && warp % 2 == 0 && lane == 0;
  const int r[2] = {accumulator_row<kPermutedRows>(half, warp, lane / 4) % 32,
                    accumulator_row<kPermutedRows>(half, warp, lane / 4 + 8) % 32};
  constexpr int kGroups = PairBox::kCols / 8;
#pragma unroll
  for (int q = 0; q < P::kBn / PairBox::kCols; ++q) {
    const int col0 = tn * P::kBn + q * PairBox::kCols;
    if (col0 >= a.n) break;  // past C's last column (uniform over the warpgroup)
    uint8_t* box = boxes + (out.issued % PairBox::kBuffers) * PairBox::kBytes;
#pragma unroll
    for (int g = 0; g < kGroups && rows_in; ++g)
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // acc[4j + e]: row r[e / 2], column 8g + 2(lane % 4) + e % 2
        const int j = q * kGroups + g, row = r[e / 2], col = 8 * g + 2 * (lane % 4) + e % 2;
        const int view_row = chunk0 + row, view_col = col0 + col;
        float v = 0.0f;
        if (view_row < a.m && view_col < a.n) {
          const float* c = kCTransposed ? a.c + static_cast<int64_t>(view_col) * a.ldc + view_row
                                        : a.c + static_cast<int64_t>(view_row) * a.ldc + view_col;
          v = epilogue_value(a, acc[4 * j + e], c);
        }
        const int offset = kCTransposed ? staged_offset(col, row) : staged_offset(row, col);
        *reinterpret_cast<float*>(box + offset) = v;
      }
    fence_shared_for_tma();
    consumer_barrier(half);  // the boxes are written
    if (issuer) {
      if (kCTransposed)
        tma_store_2d(out.map, box, chunk0, col0);
      else
        tma_store_2d(out.map, box, col0, chunk0);
      tma_store_commit();
      tma_store_wait_read<PairBox::kBuffers - 1>();  // the next box's last store has read it
    }
    // Counted only where stores go: the box after the last one stored is the one its wait freed
    // (a pair that skipped a tile must not step onto a box a store may still be reading).
    if (rows_in) ++out.issued;
    consumer_barrier(half);  // the next boxes may be written
  }
}

// A C that TMA cannot store (n, ldc or its address not a multiple of 16 bytes: a 4097-wide C)
// leaves through the same boxes, by the warp itself: it writes a box of raw accumulators as
// above, then stores it a row at a time, lane l taking column l — one instruction per row of 128
// contiguous bytes, where the registers epilogue's direct stores touch 8 rows per instruction, 4
// or 8 bytes each: measured faster on the H200 at odd n (docs/hopper.md, "Epilogues"). Alpha and
// beta are applied on the way out, where C is read a row at a time too. No TMA here: one box,
// reused once the warp has read it back.
__device__ __forceinline__ float staged_value(const uint8_t* box, int r, int col) {
  return *reinterpret_cast<const float*>(box + staged_offset(r, col));
}

template <typename P>
__device__ void store_tile_staged(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int tm, int tn,
                                  int half, uint8_t* box) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row0 = tm * P::kBm + half * 64 + warp * 16;
  if (row0 >= a.m) return;  // the warp's rows lie below C (warp-uniform, as below)
  const int r = lane / 4, pair_col = 2 * (lane % 4);
  const int rows = min(StoreBox::kRows, a.m - row0);
  constexpr int kGroups = StoreBox::kCols / 8;
#pragma unroll
  for (int q = 0; q < P::kBn / StoreBox::kCols; ++q) {
    const int col0 = tn * P::kBn + q * StoreBox::kCols;
    if (col0 >= a.n) break;  // past C's last column
    __syncwarp();            // every lane has read the box's previous rows
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const int j = q * kGroups + g, col = 8 * g + pair_col;
      *staged_pair(box, r, col) = make_float2(acc[4 * j], acc[4 * j + 1]);
      *staged_pair(box, r + 8, col) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
    }
    __syncwarp();
    if (col0 + lane < a.n) {
      float* p = a.c + static_cast<int64_t>(row0) * a.ldc + col0 + lane;
#pragma unroll
      for (int i = 0; i < StoreBox::kRows; ++i, p += a.ldc)
        if (i < rows) *p = epilogue_value(a, staged_value(box, i, lane), p);
    }
  }
}

// Each warp's boxes leave by TMA while the consumers go on; A from registers stores pair boxes;
// a C that TMA cannot store leaves through the same boxes by the warp's own row stores.
struct TmaStoreEpilogue {
  static constexpr int kStagingBuffers = StoreBox::kBuffers;
  static constexpr bool kAsyncStores = true;
  template <typename P, bool kPermutedRows, bool kCTransposed>
  static __device__ __forceinline__ void store_half(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                                    int tm, int tn, int half, TmaStoreState& out) {
    static_assert(P::kBn % StoreBox::kCols == 0, "the boxes hold 32 columns of a tile");
    if constexpr (P::kARegisters) {
      if (a.c_tma)
        store_tile_tma_pairs<P, kPermutedRows, kCTransposed>(a, acc, tm, tn, half, out);
      else
        DirectStoreEpilogue::store_half<P, kPermutedRows, kCTransposed>(a, acc, tm, tn, half, out);
    } else if constexpr (kCTransposed) {
      store_tile_transposed<P, kPermutedRows>(a, acc, tm, tn, half);
    } else if (a.c_tma) {
      store_tile_tma<P>(a, acc, tm, tn, half, out);
    } else {
      store_tile_staged<P>(a, acc, tm, tn, half, out.boxes);
    }
  }
};

}  // namespace tilekit::cuda::sm90
