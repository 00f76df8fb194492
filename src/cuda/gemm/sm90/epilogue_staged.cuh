// epilogue_staged.cuh — the staged-store epilogue part (its contract: schedule.hpp): each warp
// writes its 16 rows × 32 columns of the tile into one shared-memory box and stores the box back
// a row at a time, lane l taking column l, so that every store instruction writes 128 contiguous
// bytes of a row of C (the direct stores write 8 rows per instruction, 4 or 8 bytes each). No
// TMA and no tensor map: it serves any n, ldc and alignment alike, with half the TMA store's
// shared memory (one box per warp, reused once the warp has read it back). The stores are the
// TMA-store epilogue's own path for a C that TMA cannot store (store_tile_staged).
#pragma once

#include "cuda/gemm/sm90/epilogue_registers.cuh"
#include "cuda/gemm/sm90/epilogue_tma_store.cuh"

namespace tilekit::cuda::sm90 {

struct StagedStoreEpilogue {
  static constexpr int kStagingBuffers = 1;
  static constexpr bool kAsyncStores = false;
  // A box holds the tile's rows in order, as C stores them: permuted accumulator rows (an
  // MN-major A in registers) and a transposed C are stored directly.
  template <typename P, bool kPermutedRows, bool kCTransposed>
  static __device__ __forceinline__ void store_half(const WgmmaArgs& a, const float (&acc)[P::kAccumulators],
                                                    int tm, int tn, int half, TmaStoreState& out) {
    static_assert(P::kBn % StoreBox::kCols == 0, "a box holds 32 columns of a tile");
    if constexpr (kPermutedRows || kCTransposed)
      DirectStoreEpilogue::store_half<P, kPermutedRows, kCTransposed>(a, acc, tm, tn, half, out);
    else
      store_tile_staged<P>(a, acc, tm, tn, half, out.boxes);
  }
};

}  // namespace tilekit::cuda::sm90
