// partial_tiles.cuh — the split-sum epilogue: partial tiles published to the workspace and summed
// in a fixed order (the same bits every run), for stream-K ranges and split tiles.
#pragma once

#include "cuda/gemm/sm90/accumulators.cuh"
#include "cuda/gemm/sm90/epilogue_registers.cuh"
#include "cuda/gemm/sm90/tile_walk.cuh"

namespace tilekit::cuda::sm90 {

// Each thread's accumulators in its block's slot, laid out [consumer][register][thread] so that
// a warp's stores and loads are contiguous. Through L2 (st.cg / ld.cg): another SM reads them.
template <typename P>
__device__ __forceinline__ float* partial_slot(const WgmmaArgs& a, int block, int consumer) {
  return a.partials + (static_cast<int64_t>(block) * P::kConsumers + consumer) * P::kAccumulators * 128 +
         threadIdx.x % 128;
}

// `flag`: the counter to raise, this block's own (stream-K) or its tile's (split tiles).
template <typename P>
__device__ void publish_partial(const WgmmaArgs& a, const float (&acc)[P::kAccumulators], int consumer,
                                int flag) {
  float* slot = partial_slot<P>(a, blockIdx.x, consumer);
#pragma unroll
  for (int i = 0; i < P::kAccumulators; ++i) __stcg(slot + i * 128, acc[i]);
  __threadfence();
  consumer_barrier(consumer);
  if (threadIdx.x % 128 == 0) atomicAdd(&a.flags[flag], 1);  // one per consumer warpgroup
}

// Adds the partial tiles of the blocks below this one that hold k-tiles [0, seg.k_begin) of
// the segment's tile, nearest block first: a fixed order, so the sum is the same every run.
template <typename P>
__device__ void add_partials(const WgmmaArgs& a, float (&acc)[P::kAccumulators], const Segment& seg,
                             int consumer) {
  const int64_t tile_start = static_cast<int64_t>(seg.tile - a.whole_tiles) * k_tile_count(a);
  for (int b = blockIdx.x - 1, covered = seg.k_begin; covered > 0; --b) {
    if (threadIdx.x % 128 == 0) {
      volatile int* flag = a.flags + b;
      while (*flag < P::kConsumers) {
      }
      __threadfence();
    }
    consumer_barrier(consumer);
    const float* slot = partial_slot<P>(a, b, consumer);
#pragma unroll
    for (int i = 0; i < P::kAccumulators; ++i) acc[i] += __ldcg(slot + i * 128);
    const int64_t piece_start = stream_k_begin(a, b) - tile_start;
    covered = piece_start > 0 ? static_cast<int>(piece_start) : 0;
  }
}

// Split tiles: once every piece of this block's tile has published its partial tile (counted on the
// flag of the tile's first block: one flag to wait on, where a flag per piece cost an L2 round
// trip each, in turn), the consumer sums its share of them, elements
// [begin, end) of its half of a slot (1/split_pieces of it), over the pieces in order (the same
// sum every run) and stores those elements of C. A slot holds register i of consumer thread t at
// i·128 + t: wgmma's accumulator layout (store_tile; kPermutedRows and kCTransposed as there, for
// an A-from-registers policy) gives the element's row and column. Waits for higher-numbered blocks too:
// the plan never launches more blocks than the SMs hold at once (split_tiles_plan).
template <typename P, bool kPermutedRows, bool kCTransposed>
__device__ void sum_share(const WgmmaArgs& a, const Segment& seg, int consumer) {
  const int pieces = a.split_pieces, piece = static_cast<int>(blockIdx.x) % pieces;
  const int first = static_cast<int>(blockIdx.x) - piece;
  if (threadIdx.x % 128 == 0) {
    volatile int* published = a.flags + first;
    while (*published < pieces * P::kConsumers) {
    }
    __threadfence();
  }
  consumer_barrier(consumer);
  int tm, tn;
  tile_coords<1>(a, seg.tile, &tm, &tn);
  constexpr int kHalf = P::kAccumulators * 128;  // one consumer's elements in a slot
  const auto begin = static_cast<int>(stream_k_range_begin(kHalf, pieces, piece));
  const auto end = static_cast<int>(stream_k_range_begin(kHalf, pieces, piece + 1));
  const float* slots = a.partials + (static_cast<int64_t>(first) * P::kConsumers + consumer) * kHalf;
  constexpr int64_t kSlotStride = static_cast<int64_t>(P::kConsumers) * kHalf;
  for (int e = begin + static_cast<int>(threadIdx.x % 128); e < end; e += 128) {
    const int i = e / 128, t = e % 128, lane = t % 32;
    const int r = lane / 4 + 8 * ((i / 2) % 2);  // the thread's row in its warp's 16
    const int row = tm * P::kBm + accumulator_row<kPermutedRows>(consumer, t / 32, r);
    const int col = tn * P::kBn + (i / 4) * 8 + 2 * (lane % 4) + i % 2;
    // Unrolled so that 16 loads are in flight before their adds (each an L2 round trip; the
    // adds keep piece order).
    float sum = __ldcg(slots + e);
#pragma unroll 16
    for (int b = 1; b < pieces; ++b) sum += __ldcg(slots + b * kSlotStride + e);
    if (row < a.m && col < a.n) {
      float* p = kCTransposed ? a.c + static_cast<int64_t>(col) * a.ldc + row
                              : a.c + static_cast<int64_t>(row) * a.ldc + col;
      *p = epilogue_value(a, sum, p);
    }
  }
}

}  // namespace tilekit::cuda::sm90
