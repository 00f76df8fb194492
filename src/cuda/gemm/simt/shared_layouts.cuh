// shared_layouts.cuh — how (k, m|n) maps into a k-major shared tile of the SIMT family: the Layout
// a mainloop takes. Shared tiles are k-major, s[k][outer] with outer = m for A and n for B, so a
// thread's thread_m values of A (thread_n of B) at one k are contiguous and read as LDS.128.
//
// Contract: stride<kWidth>() is the floats between two k rows; offset<kWidth>(k, outer) is where
// element (k, outer) lives; four consecutive outer values starting at a multiple of 4 are one
// 16-byte-aligned word (float4 stores and loads).
#pragma once

#include <string>

namespace tilekit::cuda {

// PaddedLayout: rows of kWidth floats padded to kWidth + 4: a float4 row start stays 16-byte aligned and a
// column written by 32 lanes (k = lane % 8) spreads over every bank.
struct PaddedLayout {
  static std::string name() { return "pad"; }
  template <int kWidth>
  __host__ __device__ static constexpr int stride() { return kWidth + 4; }
  template <int kWidth>
  __device__ static __forceinline__ int offset(int k, int outer) {
    return k * stride<kWidth>() + outer;
  }
};

// SwizzledLayout: rows of exactly kWidth floats (a multiple of 32); float4 group g of row k stored
// at g XOR (k mod 8). The transposed 4-byte stores of a warp land in 32 distinct banks as with
// padding, and LDS.128 fragment reads stay conflict-free (the XOR permutes 16-byte words inside
// each 128-byte row segment), in 4/kWidth less shared memory; measured 10% slower than padding at
// 4096 on the H200 (one more integer op per fragment address), so only one table row uses it.
struct SwizzledLayout {
  static std::string name() { return "sw"; }
  template <int kWidth>
  __host__ __device__ static constexpr int stride() {
    static_assert(kWidth % 32 == 0, "the XOR permutes groups inside 32-float row segments");
    return kWidth;
  }
  template <int kWidth>
  __device__ static __forceinline__ int offset(int k, int outer) {
    return k * stride<kWidth>() + (outer ^ ((k & 7) << 2));
  }
};

}  // namespace tilekit::cuda
