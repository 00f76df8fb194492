// mainloop_a_registers.cuh — the tf32 mainloop whose MN-major A reaches the wgmma through
// registers (no MN-major pre-pass): fragments loaded from the swizzled stage a k-step ahead.
#pragma once

#include "cuda/gemm/sm90/accumulators.cuh"
#include "cuda/gemm/sm90/mainloop.cuh"

namespace tilekit::cuda::sm90 {

// Byte offset of A element (row, k) in an MN-major FP32 stage tile as TMA's 128-byte swizzle lays
// it out: blocks of kBk = 32 lines of 128 bytes (one line per k) holding 32 rows each, 16-byte
// chunk c of a line at c XOR line % 8.
__device__ __forceinline__ uint32_t mn_major_a_offset(int row, int k) {
  return (row / 32) * 4096 + k * 128 + ((((row % 32) / 4) ^ (k % 8)) * 16) + (row % 4) * 4;
}

// This thread's A fragment of wgmma k-step kk (k = 8kk … 8kk + 7) of tile half `half`: its rows
// r = lane/4 and lane/4 + 8, k = lane%4 and lane%4 + 4, in the order the wgmma takes them. The
// tile holds TF32 values already (TMA rounded them on the way in, or the pre-pass did).
__device__ __forceinline__ void load_a_fragment(const uint8_t* a_stage, int half, int kk, uint32_t (&frag)[4]) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const auto base = static_cast<uint32_t>(__cvta_generic_to_shared(a_stage));
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = accumulator_row<true>(half, warp, lane / 4 + 8 * (i % 2));
    const int k = 8 * kk + lane % 4 + 4 * (i / 2);
    asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(frag[i]) : "r"(base + mn_major_a_offset(row, k)));
  }
}

// Registers an in-flight wgmma reads: kept (the compiler sees them used) until this point.
template <int kSteps>
__device__ __forceinline__ void fence_fragments(uint32_t (&frag)[kSteps][4]) {
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
#pragma unroll
    for (int i = 0; i < 4; ++i) asm volatile("" : "+r"(frag[s][i])::"memory");
}

// A segment with an MN-major A, pipelined by k-step: each k8 step is its own wgmma group, up
// to two stay in flight (wait<2>), and the fragments of the next step are loaded before a step's
// wgmma is issued, as CUTLASS's register-A mainloop does. Fragment registers are tied to a
// k-step's position in the k-tile (frag[kk], the k-tile loop not unrolled): loading step kk + 1
// (or the next k-tile's step 0) overwrites registers last read three groups earlier, by a group
// wait<2> has already seen done, and ptxas keeps the wgmma asynchronous (no C7513: loading a
// whole k-tile's fragments into a second buffer while its group ran serialized every wgmma). A
// segment has k-tiles.
template <typename P>
__device__ __forceinline__ void multiply_segment_a_registers(const Segment& seg, const uint8_t* ring_a,
                                                             const uint8_t* ring_b, uint64_t* full,
                                                             uint64_t* empty, int consumer, int& stage,
                                                             uint32_t& phase, float (&acc)[P::kAccumulators]) {
  constexpr int kSteps = P::kBk / P::kInstK;
  static_assert(kSteps >= 3, "a stage is released two groups into the next k-tile");
  const bool releases = threadIdx.x % 32 == 0;  // one arrival per consumer warp
  uint32_t frag[kSteps][4];
  fence_accumulators(acc);
  barrier_wait(&full[stage], phase);
  load_a_fragment(ring_a + stage * P::kAStageBytes, consumer, 0, frag[0]);
  int previous = -1;
  for (int kt = seg.k_begin; kt < seg.k_end; ++kt) {
    const uint8_t* a_stage = ring_a + stage * P::kAStageBytes;
    const uint8_t* b_stage = ring_b + stage * P::kBStageBytes;
    int next = stage + 1;
    uint32_t next_phase = phase;
    if (next == P::kStages) {
      next = 0;
      next_phase ^= 1;
    }
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      if (kk + 1 < kSteps) {
        load_a_fragment(a_stage, consumer, kk + 1, frag[kk + 1]);
      } else if (kt + 1 < seg.k_end) {
        barrier_wait(&full[next], next_phase);
        load_a_fragment(ring_a + next * P::kAStageBytes, consumer, 0, frag[0]);
      }
      wgmma_fence();
      const uint64_t db = b_descriptor<P, false>(b_stage, kk);
      const int accumulate = kt == seg.k_begin && kk == 0 ? 0 : 1;
      wgmma_m64k8_a_registers(acc, frag[kk], db, accumulate);
      wgmma_commit();
      wgmma_wait<2>();
      // Two groups of this k-tile may still run: the previous k-tile's are done, its stage free.
      if (kk == 1 && previous >= 0 && releases) release_stage<1>(&empty[previous]);
    }
    previous = stage;
    stage = next;
    phase = next_phase;
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  fence_fragments(frag);  // the last groups read them until here
  if (previous >= 0 && releases) release_stage<1>(&empty[previous]);
}

}  // namespace tilekit::cuda::sm90
